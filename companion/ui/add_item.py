"""Adding an item to a player: found in the card packs by name, or typed (name, bonus, where
it goes, Big or not, value, run-away bonus, who may use it), then carried or worn.

The sheet fits a 360x640 phone with the on-screen keyboard up: the one field typed in is
at the top, the cards it finds right under it, and the rest is tapped, not typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from pydantic import ValidationError

from companion.core import Condition, GainItem, ItemSpec, item_limits
from companion.core.errors import validation_error_line
from companion.table.words import sex_name
from companion.ui.i18n import APP_LANGUAGE, N_, _, card_name, tr
from companion.ui.sheets import Sheet
from companion.ui.weak import weakly
from companion.ui.widgets import FlatButton

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

SEARCH_RESULTS = 4
# Found cards asked for beyond those shown: one-shots are left out (they are used, not kept).
SEARCH_ASKED = 12
BONUS_RANGE = (-20, 20)
RUN_AWAY_RANGE = (-6, 6)
GOLD_STEP = 100  # item values come in hundreds
GOLD_MAX = 20_000

# Where an item goes, as a player says it: (words, the engine's slot, hands it takes).
SLOT_CHOICES: dict[str, tuple[str, str, int]] = {
    "headgear": (N_("Headgear"), "headgear", 0),
    "armor": (N_("Armor"), "armor", 0),
    "footgear": (N_("Footgear"), "footgear", 0),
    "one_hand": (N_("One hand"), "hands", 1),
    "two_hands": (N_("Two hands"), "hands", 2),
    "other": (N_("Other"), "other", 0),
}
# Who may use an item: a kind of trait (the edition's names of it are offered) or a sex.
ONLY_KINDS: tuple[tuple[str, str, str], ...] = (
    # kind, words, the Edition field with the names ("" for sex)
    ("class", N_("Class"), "classes"),
    ("race", N_("Race"), "races"),
    ("sex", N_("Sex"), ""),
    ("style", N_("Style"), "styles"),
    ("motivation", N_("Motivation"), "motivations"),
)
SEXES_OFFERED = ("male", "female")
# The "who may use it" choice that keeps a picked card's limits as the card states them
# (several kinds of trait, or traits it is not for, which the buttons cannot say).
AS_THE_CARD_SAYS = "card"


def slot_choice(spec: ItemSpec) -> str:
    """Which of `SLOT_CHOICES` an item is."""
    if spec.slot == "hands":
        return "two_hands" if spec.hands == 2 else "one_hand"
    return spec.slot


def who_may(spec: ItemSpec) -> str:
    """Who may use an item, in words ("Warrior or Cleric only"), or "" when anyone may."""
    limits = item_limits(spec)
    return tr(limits) if limits is not None else ""


def item_detail(spec: ItemSpec) -> str:
    """What an item is, in a few words: "+3 · One hand · Big · 600 gold · Wizard only"."""
    parts = [f"{spec.bonus:+d}", _(SLOT_CHOICES[slot_choice(spec)][0])]
    if spec.big:
        parts.append(_("Big"))
    if spec.gold:
        parts.append(_("{gold} gold").format(gold=spec.gold))
    if spec.run_away_bonus:
        parts.append(_("run away {bonus:+d}").format(bonus=spec.run_away_bonus))
    limits = who_may(spec)
    if limits:
        parts.append(limits)
    return " \u00b7 ".join(parts)


def _one_kind(spec: ItemSpec) -> tuple[str, list[str]] | None:
    """The kind and names of an item's limits when the form's buttons can say them (one
    kind of trait, nothing it is not for); ("", []) for anyone; None otherwise."""
    if spec.not_for:
        return None
    kinds = {condition.kind for condition in spec.only}
    if len(kinds) > 1:
        return None
    return (kinds.pop() if kinds else ""), [c.value for c in spec.only]


class ResultRow(FlatButton):
    """A card the search found; a tap fills the form with it."""

    card_id = StringProperty("")
    sheet = ObjectProperty(None, allownone=True)

    def on_release(self) -> None:
        if self.sheet is not None:
            self.sheet.pick_card(self.card_id)


class AddItemSheet(Sheet):
    """The new item's form; "Carry" or "Wear" puts it in play (the rules may refuse, and
    the sheet then says why and stays open)."""

    seat = NumericProperty(0)
    title = StringProperty("")
    bonus = NumericProperty(0)
    slot = StringProperty("other")
    big = BooleanProperty(False)
    gold = NumericProperty(0)
    run_away = NumericProperty(0)
    only_kind = StringProperty("")
    # The names of that kind that may use it (any one of them is enough).
    only_values = ListProperty()
    # Who may use it as the form stands, in words.
    limits_text = StringProperty("")
    problem = StringProperty("")

    def __init__(self, app: Any, seat: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.app = app
        self.seat = seat
        state = app.session.live_state
        self._edition = state.setup.edition if state is not None else None
        name = state.players[seat].name if state is not None else ""
        self.title = _("Add an item for {name}").format(name=name)
        self._card_spec: ItemSpec | None = None
        self._card_label = ""
        self.kind_buttons: dict[str, FlatButton] = {}
        self.value_buttons: dict[str, FlatButton] = {}
        self._build_kinds()

    # -- the search --------------------------------------------------------------------
    def search(self, text: str) -> None:
        """Typing the name: the shipped and the table's own item cards that match."""
        self.problem = ""
        cards = self.app.cards if text.strip() and text != self._card_label else None
        found = []
        if cards is not None:
            hits = cards.search(text, kind="item", limit=SEARCH_ASKED)
            found = [card for card in hits if not card.one_shot][:SEARCH_RESULTS]
        self.ids.results.data = [
            {
                "text": f"{card_name(card.name)}\n{item_detail(card.to_spec())}",
                "card_id": card.id,
                "sheet": self,
            }
            for card in found
        ]

    def pick_card(self, card_id: str) -> None:
        """A found card was tapped: the form shows what it is, ready to carry or wear."""
        cards = self.app.cards
        if cards is None:
            return
        spec = cards.item(card_id).to_spec()
        self._card_spec = spec
        self._card_label = card_name(spec.name)
        self.ids.name.text = self._card_label
        self.ids.name.focus = False
        self.bonus = spec.bonus
        self.slot = slot_choice(spec)
        self.big = spec.big
        self.gold = spec.gold
        self.run_away = spec.run_away_bonus
        self._offer_card_limits(spec)
        form = _one_kind(spec)
        if form is None:
            self.choose_kind(AS_THE_CARD_SAYS)
        else:
            kind, values = form
            self.choose_kind(kind)
            self.only_values = values
        self.search(self._card_label)

    # -- the form ----------------------------------------------------------------------
    def step(self, field: str, delta: int) -> None:
        """A − or + of the form's steppers."""
        if field == "bonus":
            self.bonus = max(BONUS_RANGE[0], min(BONUS_RANGE[1], self.bonus + delta))
        elif field == "gold":
            self.gold = max(0, min(GOLD_MAX, self.gold + delta * GOLD_STEP))
        elif field == "run_away":
            self.run_away = max(RUN_AWAY_RANGE[0], min(RUN_AWAY_RANGE[1], self.run_away + delta))

    def choose_slot(self, slot: str) -> None:
        """Where it goes: headgear, armor, footgear, one or two hands, other."""
        self.slot = slot

    def toggle_big(self) -> None:
        """Big or not."""
        self.big = not self.big

    def _build_kinds(self) -> None:
        grid = self.ids.only_kinds
        offered = [("", N_("Anyone"))]
        for kind, words, field in ONLY_KINDS:
            if not field or (self._edition is not None and getattr(self._edition, field)):
                offered.append((kind, words))
        for kind, words in offered:
            button = FlatButton(text=_(words), font_size=self.app.theme.body)
            button.bind(on_release=weakly(self.choose_kind, kind))
            grid.add_widget(button)
            self.kind_buttons[kind] = button
        self.choose_kind("")

    def _offer_card_limits(self, spec: ItemSpec) -> None:
        """A picked card whose limits the buttons cannot say gets a choice that keeps them."""
        button = self.kind_buttons.pop(AS_THE_CARD_SAYS, None)
        if button is not None:
            self.ids.only_kinds.remove_widget(button)
        if _one_kind(spec) is not None:
            return
        button = FlatButton(text=_("As the card says"), font_size=self.app.theme.body)
        button.bind(on_release=weakly(self.choose_kind, AS_THE_CARD_SAYS))
        self.ids.only_kinds.add_widget(button)
        self.kind_buttons[AS_THE_CARD_SAYS] = button

    def choose_kind(self, kind: str) -> None:
        """Who may use it: anyone, or a class, race, sex, ... (its names follow)."""
        self.only_kind = kind
        self.only_values = []
        for known, button in self.kind_buttons.items():
            button.selected = known == kind
        grid = self.ids.only_values
        grid.clear_widgets()
        self.value_buttons = {}
        if kind == "sex":
            names = [(sex, sex_name(sex, APP_LANGUAGE)) for sex in SEXES_OFFERED]
        elif kind and kind != AS_THE_CARD_SAYS and self._edition is not None:
            field = next(f for k, _w, f in ONLY_KINDS if k == kind)
            names = [(name, card_name(name)) for name in getattr(self._edition, field)]
        else:
            names = []
        for value, words in names:
            button = FlatButton(text=words, font_size=self.app.theme.body)
            button.bind(on_release=weakly(self.choose_value, value))
            grid.add_widget(button)
            self.value_buttons[value] = button
        self._say_limits()

    def choose_value(self, value: str) -> None:
        """A class (race, sex...) that may use it, or no longer: a tap adds or removes it."""
        if value in self.only_values:
            self.only_values = [v for v in self.only_values if v != value]
        else:
            self.only_values = [*self.only_values, value]

    def on_only_values(self, _sheet: Any, values: list[str]) -> None:
        for known, button in self.value_buttons.items():
            button.selected = known in values
        self._say_limits()

    def _limits(self) -> tuple[tuple[Condition, ...], tuple[Condition, ...]]:
        """Who may and who may not use the item, as the form says."""
        if self.only_kind == AS_THE_CARD_SAYS and self._card_spec is not None:
            return self._card_spec.only, self._card_spec.not_for
        if not self.only_kind or self.only_kind == AS_THE_CARD_SAYS:
            return (), ()
        kind = self.only_kind
        return tuple(Condition(kind=kind, value=v) for v in self.only_values), ()

    def _say_limits(self) -> None:
        only, not_for = self._limits()
        words = who_may(ItemSpec(name="-", only=only, not_for=not_for))
        self.limits_text = _("Who may use it: {who}").format(who=words or _("Anyone"))

    # -- putting it in play ------------------------------------------------------------
    def spec(self) -> ItemSpec | None:
        """The item as the form describes it; None (and the problem said) when it cannot be."""
        name = self.ids.name.text.strip()
        if not name:
            self.problem = _("Type the item's name, or pick a card.")
            return None
        if self.only_kind and self.only_kind != AS_THE_CARD_SAYS and not self.only_values:
            self.problem = _("Choose who may use it, or Anyone.")
            return None
        only, not_for = self._limits()
        _words, slot, hands = SLOT_CHOICES[self.slot]
        fields: dict[str, Any] = {
            "name": name,
            "bonus": int(self.bonus),
            "slot": slot,
            "hands": hands,
            "big": self.big,
            "gold": int(self.gold),
            "run_away_bonus": int(self.run_away),
            "only": only,
            "not_for": not_for,
        }
        card = self._card_spec
        try:
            if card is not None and name == self._card_label:
                # The card's own name (the log keeps it in English), its id and what the
                # form does not show (bonuses against a tag, a Steed) stay.
                return ItemSpec.model_validate({**card.model_dump(), **fields, "name": card.name})
            return ItemSpec(**fields)
        except ValidationError as exc:
            self.problem = validation_error_line(exc)
            return None

    def add(self, equip: bool) -> bool:
        """ "Carry" (equip False) or "Wear": the item joins the player's items."""
        spec = self.spec()
        game = self.app.session.game
        if spec is None or game is None:
            return False
        action = GainItem(player=self.seat, item=spec, equip=equip)
        problem = game.check(action)
        if problem is not None:
            self.problem = tr(problem)
            return False
        if not self.app.session.act(action):
            return False
        self.dismiss()
        return True
