"""A player's details: level with "a card says otherwise", the gear bonus kept by hand and the
items tracked one by one (added from the cards or typed; worn, carried, sold, given,
discarded), run-away bonus, sex, classes/races/motivations/styles with their lasting combat
bonus and doubling cards, Ally, death."""

from __future__ import annotations

from typing import Any, cast

from kivy.core.text import Label as CoreLabel
from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout

from companion.core import (
    AllySpec,
    ChangeSex,
    Die,
    DiscardAlly,
    DiscardItem,
    EquipItem,
    GainTrait,
    LootTheBody,
    LoseTrait,
    SellItems,
    SetAlly,
    SetRunAwayBonus,
    SetTraitBonus,
    SetTraitBoost,
    Sex,
    TradeItem,
    UnequipItem,
    allowance_questions,
    apply_action,
    check_action,
    levels_for_gold,
)
from companion.core.chapters.levels import levels_to_sell
from companion.core.errors import RuleError
from companion.core.models import TraitKind
from companion.core.presses import Press
from companion.table.words import sex_name
from companion.ui.i18n import APP_LANGUAGE, N_, _, card_name, ngettext, tr
from companion.ui.screens.base import CompanionScreen
from companion.ui.weak import weakly
from companion.ui.widgets import FitLabel, FlatButton

TRAIT_KINDS: tuple[tuple[str, str, str], ...] = (
    # kind, heading, field of Edition with the names
    ("class", N_("Class"), "classes"),
    ("race", N_("Race"), "races"),
    ("motivation", N_("Motivation"), "motivations"),
    ("style", N_("Style"), "styles"),
)
BOOSTS: dict[str, tuple[str, str]] = {
    "class": ("super_munchkin", N_("Super Munchkin")),
    "race": ("half_breed", N_("Half-Breed")),
    "motivation": ("extra_motivated", N_("Extra Motivated")),
}


class ItemRow(ButtonBehavior, BoxLayout):
    """One tracked item: worn or carried (a tap changes it), its name and what it gives, and
    whether it is in the sale being put together; a tap elsewhere on the row opens what else
    can be done with it (give it away, discard it)."""

    owner = ObjectProperty(None, allownone=True)
    item_id = StringProperty("")
    title = StringProperty("")
    detail = StringProperty("")
    worn = BooleanProperty(False)
    for_sale = BooleanProperty(False)
    # Worn, but its bonus does not count now (its owner lacks what it asks for).
    idle = BooleanProperty(False)
    # Carried, and the rules would refuse to wear it now (a tap says why).
    wear_refused = BooleanProperty(False)
    # The words on its buttons, in the language on show (a row is reused after a language
    # change, so they come with its data like everything else it shows).
    wear_text = StringProperty("")
    sale_text = StringProperty("")

    def on_release(self) -> None:
        if self.owner is not None:
            self.owner.open_item(self.item_id)


# How an item row is laid out (player.kv): its padding, the gap between its two lines, the
# buttons beside the name and the gaps between them, and the least height of its top line.
ROW_PADDING_X = 4
ROW_PADDING_Y = 5
ROW_SPACING = 2
WEAR_WIDTH = 92
SALE_WIDTH = 76
TOP_SPACING = 6
TOP_MIN_HEIGHT = 56
DETAIL_PADDING_X = 4


def _text_height(text: str, width: float, font_size: float, bold: bool, padding_x: float) -> float:
    """The height a wrapped label's text takes at this width (what its texture will be)."""
    if not text:
        return 0.0
    label = CoreLabel(
        text=text,
        font_size=font_size,
        bold=bold,
        text_size=(max(1.0, width), None),
        padding=[padding_x, 0, padding_x, 0],
    )
    return float(label.render()[1])


def _title_height(title: str, width: float, font_size: float) -> float:
    """The height of an item's name as its row draws it: wrapped between words, smaller
    where one word alone is wider than `width` (`FitLabel`)."""
    if not title:
        return 0.0
    label = FitLabel(text=title, font_size=font_size, bold=True, text_size=(max(1.0, width), None))
    label.height = 10_000  # as tall as it wants: the row takes the height it measures
    label.texture_update()
    return float(label.texture_size[1])


def item_row_height(title: str, detail: str, width: float, body: float, small: float) -> float:
    """The height of an item row (player.kv) whose name and detail wrap in `width`.

    A row's height goes into the list's data, so the list lays a new or reused row out at
    its own height from its first frame, instead of the list's default height until the
    row's labels have measured themselves (a row then grew or shrank under the finger).
    """
    inner = width - 2 * dp(ROW_PADDING_X)
    title_width = inner - dp(WEAR_WIDTH) - dp(SALE_WIDTH) - 2 * dp(TOP_SPACING)
    top = max(dp(48), _title_height(title, title_width, body))
    below = _text_height(detail, inner, small, False, dp(DETAIL_PADDING_X))
    return max(dp(TOP_MIN_HEIGHT), top + dp(ROW_SPACING)) + below + 2 * dp(ROW_PADDING_Y)


class PlayerScreen(CompanionScreen):
    """Everything about one seat; every control is one action in the log."""

    seat = NumericProperty(0)
    name_text = StringProperty("")
    swatch = StringProperty("#ffffff")
    level = NumericProperty(1)
    gear = NumericProperty(0)
    run_bonus = NumericProperty(0)
    strength = NumericProperty(1)
    dead = BooleanProperty(False)
    override = BooleanProperty(False)
    ally_text = StringProperty("")
    loot_text = StringProperty("")
    items_text = StringProperty("")
    has_items = BooleanProperty(False)
    sale_text = StringProperty("")
    # The sale as put together now would be refused (the words say why).
    sale_refused = BooleanProperty(False)
    # The player may sell one item a turn at double price (the classic Halfling), and does.
    can_double = BooleanProperty(False)
    double = BooleanProperty(False)
    # The player may try to steal items (the classic Thief).
    can_steal = BooleanProperty(False)
    # The edition's Magic is unlocked by quoting (a quote once a game).
    can_quote = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Items put into the sale being put together (ids), until it is made.
        self._sale: set[str] = set()
        self.sheet: Any = None  # the sheet on show over the screen, if any
        self.ids.item_box.bind(width=self._measure_rows)

    def prepare(self, **params: Any) -> None:
        seat = params.pop("seat", None)
        super().prepare(**params)
        if seat is not None:
            if seat != self.seat:
                self._sale = set()
                self.double = False
            self.seat = seat
            self.override = False
            self.ids.scroll.scroll_y = 1  # a player's screen opens at the top

    # -- steppers ---------------------------------------------------------------------
    def step_level(self, delta: int) -> None:
        """Level up (with the override, past the rules' limits) or down: the press a
        counter's button or a phone makes."""
        reason = _("A card says otherwise") if self.override and delta > 0 else None
        press = Press.LEVEL_UP if delta > 0 else Press.LEVEL_DOWN
        self.session.press(press, self.seat, override=reason)

    def step_gear(self, delta: int) -> None:
        """The hand-kept gear bonus, by one."""
        reason = _("A card says otherwise") if self.override else None
        press = Press.GEAR_UP if delta > 0 else Press.GEAR_DOWN
        self.session.press(press, self.seat, override=reason)

    def step_run_bonus(self, delta: int) -> None:
        """The player's own run-away modifier."""
        player = self._player()
        if player is not None:
            self.session.act(SetRunAwayBonus, player=self.seat, bonus=player.run_away_bonus + delta)

    def toggle_override(self) -> None:
        """ "A card says otherwise": the next level or gear change may break a rule (logged)."""
        self.override = not self.override

    # -- character --------------------------------------------------------------------
    def set_sex(self, sex: str) -> None:
        """A card changes the character's sex."""
        self.session.act(ChangeSex, player=self.seat, sex=Sex(sex))

    def toggle_trait(self, kind: str, name: str) -> None:
        """Take or discard a class, race, motivation or style."""
        player = self._player()
        if player is None:
            return
        if name in player.traits(kind):
            lost = (cast(TraitKind, kind), name)
            self._give_up(
                lambda picks: allowance_questions(self.state, self.seat, lose=lost, picks=picks),
                card_name(name),
                lambda drop: self.session.act(
                    LoseTrait, player=self.seat, kind=kind, name=name, drop=drop
                ),
            )
        else:
            reason = _("A card says otherwise") if self.override else None
            self.session.act(GainTrait, player=self.seat, kind=kind, name=name, override=reason)

    def step_trait_bonus(self, kind: str, name: str, delta: int) -> None:
        """The lasting "+N in combat" a class, race, motivation or style gives."""
        player = self._player()
        if player is None:
            return
        now = next((b.bonus for b in player.trait_bonuses if b.kind == kind and b.name == name), 0)
        self.session.act(SetTraitBonus, player=self.seat, kind=kind, name=name, bonus=now + delta)

    def toggle_boost(self, kind: str) -> None:
        """Play or lose Super Munchkin / Half-Breed / Extra Motivated."""
        player = self._player()
        if player is None:
            return
        attr, card = BOOSTS[kind]
        if not getattr(player, attr):
            self.session.act(SetTraitBoost, player=self.seat, kind=kind, on=True)
            return
        off = cast(TraitKind, kind)
        self._give_up(
            lambda picks: allowance_questions(self.state, self.seat, boost_off=off, picks=picks),
            _(card),
            lambda drop: self.session.act(
                SetTraitBoost, player=self.seat, kind=kind, on=False, drop=drop
            ),
        )

    def _give_up(self, questions: Any, card: str, lose: Any) -> None:
        """Losing a card that took an allowance with it: ask at once which things go (the
        engine's questions, `questions(picks)`, asked again after each answer since a pick
        can take another allowance with it), then lose it with them; nothing changes
        without an answer."""
        excesses = questions(())
        if not excesses:
            lose(())
            return
        from companion.ui.sheets import ask_allowances

        title = _("Discarding {card}").format(card=card)
        self.sheet = ask_allowances(excesses, self.name_text, title, lose, again=questions)

    def set_ally(self) -> None:
        """Play an Ally named in the box, with the bonus in the box beside it."""
        name = self.ids.ally_name.text.strip() or _("Ally")
        try:
            bonus = int(self.ids.ally_bonus.text or "0")
        except ValueError:
            self.app.notify(_("The Ally's bonus must be a whole number."), True)
            return
        self.session.act(SetAlly, player=self.seat, ally=AllySpec(name=name, bonus=bonus))

    def discard_ally(self) -> None:
        """The Ally leaves play."""
        self.session.act(DiscardAlly, player=self.seat)

    def die(self) -> None:
        """The character dies (keeps Level and traits, loses items and Ally)."""
        self.session.act(Die, player=self.seat)

    def loot(self) -> None:
        """Who takes a card from the body, in order (ties thrown on the players' smart dice,
        else rolled by the game)."""
        from companion.ui.throws import loot_with_dice

        if loot_with_dice(self.app, self.seat, self.refresh_now) is None:
            self.session.act(LootTheBody, player=self.seat)
            self.refresh_now()

    # -- items -----------------------------------------------------------------------
    def add_item(self) -> Any:
        """The sheet that adds an item, from the cards or typed."""
        from companion.ui.add_item import AddItemSheet

        self.sheet = AddItemSheet(self.app, self.seat)
        self.sheet.open()
        return self.sheet

    def _item(self, item_id: str) -> Any:
        player = self._player()
        if player is None:
            return None
        return next((i for i in player.items if i.id == item_id), None)

    def toggle_worn(self, item_id: str) -> None:
        """Wear a carried item, or take a worn one off. Wearing headgear, armor or footgear
        over the one worn takes that one off first, when the rules then allow the new one."""
        item = self._item(item_id)
        game = self.session.game
        if item is None or game is None:
            return
        if item.equipped:
            self.session.act(UnequipItem, player=self.seat, item_id=item_id)
            return
        wear = EquipItem(player=self.seat, item_id=item_id)
        swap = self._swap_for(wear, item)
        if swap is not None:
            self.session.act(swap)
        self.session.act(wear)

    def _swap_for(self, wear: EquipItem, item: Any) -> UnequipItem | None:
        """The item to take off so that `wear` is allowed, if taking one off is all it
        needs (the slot is taken); the engine decides, on the state it would leave."""
        game = self.session.game
        if game is None:
            return None
        problem = game.check(wear)
        if problem is None or problem.rule != "slot_taken":
            return None
        player = self._player()
        worn = [i for i in player.items if i.equipped and i.spec.slot == item.spec.slot]
        if len(worn) != 1:
            return None
        off = UnequipItem(player=self.seat, item_id=worn[0].id)
        try:
            check_action(apply_action(game.state, off), wear)
        except RuleError:
            return None
        return off

    def toggle_sale(self, item_id: str) -> None:
        """Put an item into the sale being put together, or take it out."""
        self._sale ^= {item_id}
        self.refresh()

    def toggle_double(self) -> None:
        """Sell the most valuable item of the sale at double price (once a turn)."""
        self.double = not self.double
        self.refresh()

    def open_item(self, item_id: str) -> Any:
        """What else can be done with an item: a sheet (give it away, discard it...)."""
        from companion.ui.sheets import ItemSheet

        item = self._item(item_id)
        state = self.state
        if item is None or state is None:
            return None
        from companion.ui.add_item import item_detail

        others = [
            (
                seat,
                player.name,
                self.session.allowed(TradeItem, giver=self.seat, receiver=seat, item_id=item_id),
            )
            for seat, player in enumerate(state.players)
            if seat != self.seat
        ]
        self.sheet = ItemSheet(
            others,
            owner=self,
            item_id=item_id,
            title=card_name(item.spec.name),
            detail=item_detail(item.spec),
            worn=item.equipped,
            for_sale=item_id in self._sale,
            can_wear=self.session.allowed(EquipItem, player=self.seat, item_id=item_id),
        )
        self.sheet.open()
        return self.sheet

    def trade(self, item_id: str, receiver: int) -> None:
        """Give an item to another player (trading)."""
        if self.session.act(TradeItem, giver=self.seat, receiver=receiver, item_id=item_id):
            self._sale.discard(item_id)

    def discard(self, item_id: str) -> None:
        """An item leaves play."""
        if self.session.act(DiscardItem, player=self.seat, item_id=item_id):
            self._sale.discard(item_id)

    def steal(self) -> Any:
        """The thief picks another player's item the rules let them try for; the game
        rolls the die and the result is shown. Returns the list on show, if any."""
        from companion.ui.abilities import steal_choices
        from companion.ui.picker import Choice, pick_one

        game = self.session.game
        if game is None:
            return None
        choices, problem = steal_choices(game, self.seat)
        if not choices:
            why = tr(problem) if problem is not None else _("Nobody has an item to steal.")
            self.app.notify(why, True)
            return None
        self.sheet = pick_one(
            _("Steal which item?"),
            [Choice(key=i, text=c.text) for i, c in enumerate(choices)],
            None,
            lambda index: self._try_theft(choices[index].action),
        )
        return self.sheet

    def _try_theft(self, action: Any) -> None:
        if self.session.act(action):
            self.app.notify(self.session.last_in_words())

    def say_quote(self) -> Any:
        """Magic by quoting: the quote this player says, checked by the rules."""
        from companion.ui.sheets import QuoteSheet

        self.sheet = QuoteSheet(
            self.session, self.seat, title=_("{name}: Magic quote").format(name=self.name_text)
        )
        self.sheet.open()
        return self.sheet

    def _typed_gold(self) -> int | None:
        try:
            return int(self.ids.gold.text or "0")
        except ValueError:
            return None

    def _sale_action(self, gold: int) -> SellItems | None:
        """The sale as put together: the items marked, the gold typed for cards not listed,
        and, for a player who may, the most valuable item marked at double price."""
        player = self._player()
        if player is None:
            return None
        marked = [i for i in player.items if i.id in self._sale]
        double = 0
        if self.double and self.can_double and marked:
            double = max(i.spec.gold for i in marked)
        try:
            return SellItems(
                player=self.seat,
                gold=gold,
                item_ids=tuple(i.id for i in marked),
                double=double,
            )
        except ValueError:
            return None

    def sale_changed(self) -> None:
        """The gold typed changed: say again what the sale would bring."""
        self._show_sale(self.state)

    def sell(self) -> None:
        """Sell the items marked and items worth the gold in the box for levels (the rules
        decide how many)."""
        gold = self._typed_gold()
        if gold is None:
            self.app.notify(_("The gold value must be a whole number."), True)
            return
        sale = self._sale_action(gold)
        before = self._player()
        if sale is None or before is None:
            return
        worth = (
            sale.gold
            + sale.double
            + sum(i.spec.gold for i in before.items if i.id in sale.item_ids)
        )
        if self.session.act(sale):
            gained = self._player().level - before.level
            sold = ngettext("Sold: {n} level", "Sold: {n} levels", gained).format(n=gained)
            lost = levels_for_gold(worth) - gained
            if lost > 0:
                sold = _("{sold}; the rest is lost (levels lost: {lost})").format(
                    sold=sold, lost=lost
                )
            self.app.notify(sold)
            self.ids.gold.text = ""
            self._sale = set()
            self.double = False
            self.refresh()

    # -- drawing --------------------------------------------------------------------
    def _player(self) -> Any:
        state = self.session.live_state
        if state is None or not 0 <= self.seat < len(state.players):
            return None
        return state.players[self.seat]

    def refresh(self) -> None:
        state = self.state
        if state is None or not 0 <= self.seat < len(state.players):
            return
        player = state.players[self.seat]
        self.title = player.name
        self.app.navigator.screen_title = player.name
        self.name_text = player.name
        self.swatch = player.colour
        self.level = player.level
        self.gear = player.gear_bonus
        self.run_bonus = player.run_away_bonus
        self.strength = player.strength
        self.dead = player.dead
        self.can_steal = "theft" in player.abilities
        self.can_quote = state.setup.edition.magic_quotes
        self.ally_text = (
            _("Ally: {name} ({bonus:+d})").format(
                name=card_name(player.ally.name), bonus=player.ally.bonus
            )
            if player.ally
            else _("No Ally")
        )
        for sex in Sex:
            self.ids[f"sex_{sex.value}"].selected = player.sex == sex
        self._show_items(state, player)
        self._show_sale(state)
        self.loot_text = ""
        if state.loot is not None and state.loot.dead == self.seat:
            names = ", ".join(state.players[s].name for s in state.loot.order)
            self.loot_text = _("Looting order: {names}").format(names=names)
        box = self.ids.traits
        box.clear_widgets()
        edition = state.setup.edition
        for kind, heading, field in TRAIT_KINDS:
            names = getattr(edition, field)
            if not names:
                continue
            box.add_widget(_caption(_(heading)))
            grid = _grid()
            for name in names:
                button = FlatButton(text=card_name(name), font_size=self.app.theme.body)
                button.selected = name in player.traits(kind)
                button.bind(on_release=weakly(self.toggle_trait, kind, name))
                grid.add_widget(button)
            if kind in BOOSTS:
                attr, label = BOOSTS[kind]
                button = FlatButton(text=_(label), font_size=self.app.theme.small)
                button.selected = getattr(player, attr)
                button.bind(on_release=weakly(self.toggle_boost, kind))
                grid.add_widget(button)
            box.add_widget(grid)
            bonuses = {b.name: b.bonus for b in player.trait_bonuses if b.kind == kind}
            for name in player.traits(kind):
                stepper = Factory.Stepper(
                    value=f"{bonuses.get(name, 0):+d}",
                    caption=_("{trait}: bonus in every combat").format(trait=card_name(name)),
                )
                stepper.bind(on_step=weakly(self.step_trait_bonus, kind, name))
                box.add_widget(stepper)

    def _show_items(self, state: Any, player: Any) -> None:
        """The item list (rows are data) and the line above it."""
        from companion.ui.add_item import item_detail

        self._sale &= {i.id for i in player.items}
        rows = []
        for item in player.items:
            idle = item.equipped and not player.counts(item)
            detail = item_detail(item.spec)
            if idle:
                detail = _("Does not count now: {detail}").format(detail=detail)
            refused = not item.equipped and not self.session.allowed(
                EquipItem, player=self.seat, item_id=item.id
            )
            title = card_name(item.spec.name)
            rows.append(
                {
                    "owner": self,
                    "item_id": item.id,
                    "title": title,
                    "detail": detail,
                    "worn": item.equipped,
                    "for_sale": item.id in self._sale,
                    "idle": idle,
                    "wear_refused": refused,
                    "wear_text": _("Worn") if item.equipped else _("Carried"),
                    "sale_text": _("Sell"),
                    "height": self._row_height(title, detail),
                }
            )
        self.ids.item_list.data = rows
        self.has_items = bool(rows)
        worn = sum(i.spec.bonus for i in player.counting_items)
        self.items_text = ngettext(
            "{n} item, {bonus:+d} from those worn",
            "{n} items, {bonus:+d} from those worn",
            len(rows),
        ).format(n=len(rows), bonus=worn)
        self.can_double = (
            "double_sale" in player.abilities and player.double_sale_turn != state.turn
        )
        if not self.can_double:
            self.double = False

    def _row_height(self, title: str, detail: str) -> float:
        theme = self.app.theme
        return item_row_height(title, detail, self.ids.item_box.width, theme.body, theme.small)

    def _measure_rows(self, *_args: Any) -> None:
        """The list's width changed: each row's height again for it."""
        rows = self.ids.item_list.data
        measured = [
            {**row, "height": self._row_height(row["title"], row["detail"])} for row in rows
        ]
        if any(new["height"] != row["height"] for new, row in zip(measured, rows, strict=True)):
            self.ids.item_list.data = measured

    def _show_sale(self, state: Any) -> None:
        """What the sale put together would bring, or why the rules would refuse it."""
        player = self._player()
        game = self.session.game
        if state is None or player is None or game is None:
            return
        gold = self._typed_gold()
        self.sale_refused = False
        if gold is None:
            self.sale_refused = True
            self.sale_text = _("The gold value must be a whole number.")
            return
        if not self._sale and not gold:
            self.sale_text = _("Mark items to sell, or type the gold value of cards not listed.")
            return
        sale = self._sale_action(gold)
        if sale is None:
            self.sale_refused = True
            self.sale_text = _("The gold value must be a whole number.")
            return
        problem = game.check(sale)
        if problem is not None:
            self.sale_refused = True
            self.sale_text = tr(problem)
            return
        worth = sale.gold + sale.double
        worth += sum(i.spec.gold for i in player.items if i.id in sale.item_ids)
        levels = levels_to_sell(state, self.seat, worth, None)
        if levels < levels_for_gold(worth):
            text = ngettext(
                "{gold} gold buys {n} level; the rest is lost",
                "{gold} gold buys {n} levels; the rest is lost",
                levels,
            )
        else:
            text = ngettext("{gold} gold buys {n} level", "{gold} gold buys {n} levels", levels)
        self.sale_text = text.format(gold=worth, n=levels)

    def sex_label(self, sex: str) -> str:
        """A sex in words, for the kv."""
        return sex_name(sex, APP_LANGUAGE)


def _caption(text: str) -> Any:
    return Factory.Caption(text=text)


def _grid() -> Any:
    grid = GridLayout(cols=3, spacing=dp(4), size_hint_y=None, row_default_height=dp(48))
    grid.bind(minimum_height=grid.setter("height"))
    return grid
