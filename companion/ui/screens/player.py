"""A player's details: level with "a card says otherwise", gear, run-away bonus, sex,
classes/races/motivations/styles with their lasting combat bonus and doubling cards,
Ally, death."""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.gridlayout import GridLayout

from companion.core import (
    AllySpec,
    ChangeSex,
    Die,
    DiscardAlly,
    GainTrait,
    GoUpLevel,
    LootTheBody,
    LoseLevel,
    LoseTrait,
    SellItems,
    SetAlly,
    SetGearBonus,
    SetRunAwayBonus,
    SetTraitBonus,
    SetTraitBoost,
    Sex,
    levels_for_gold,
)
from companion.ui.i18n import N_, _, card_name, ngettext
from companion.ui.labels import sex_name
from companion.ui.screens.base import CompanionScreen
from companion.ui.widgets import FlatButton

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

    def prepare(self, **params: Any) -> None:
        seat = params.pop("seat", None)
        super().prepare(**params)
        if seat is not None:
            self.seat = seat
            self.override = False

    # -- steppers ---------------------------------------------------------------------
    def step_level(self, delta: int) -> None:
        """Level up (with the override, past the rules' limits) or down."""
        if delta > 0:
            reason = _("A card says otherwise") if self.override else None
            self.session.act(GoUpLevel, player=self.seat, override=reason)
        else:
            self.session.act(LoseLevel, player=self.seat)

    def step_gear(self, delta: int) -> None:
        """The hand-kept gear bonus."""
        player = self._player()
        if player is not None:
            reason = _("A card says otherwise") if self.override else None
            self.session.act(
                SetGearBonus, player=self.seat, bonus=player.gear_bonus + delta, override=reason
            )

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
            self.session.act(LoseTrait, player=self.seat, kind=kind, name=name)
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
        if player is not None:
            on = not getattr(player, BOOSTS[kind][0])
            self.session.act(SetTraitBoost, player=self.seat, kind=kind, on=on)

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

    def sell(self) -> None:
        """Sell items worth the gold in the box for levels (the rules decide how many)."""
        try:
            gold = int(self.ids.gold.text or "0")
        except ValueError:
            self.app.notify(_("The gold value must be a whole number."), True)
            return
        before = self._player()
        if self.session.act(SellItems, player=self.seat, gold=gold) and before is not None:
            gained = self._player().level - before.level
            sold = ngettext("Sold: {n} level", "Sold: {n} levels", gained).format(n=gained)
            lost = levels_for_gold(gold) - gained
            if lost > 0:
                sold = _("{sold}; the rest is lost (levels lost: {lost})").format(
                    sold=sold, lost=lost
                )
            self.app.notify(sold)
            self.ids.gold.text = ""

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
        self.ally_text = (
            _("Ally: {name} ({bonus:+d})").format(
                name=card_name(player.ally.name), bonus=player.ally.bonus
            )
            if player.ally
            else _("No Ally")
        )
        for sex in Sex:
            self.ids[f"sex_{sex.value}"].selected = player.sex == sex
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
                button.bind(on_release=lambda _b, k=kind, n=name: self.toggle_trait(k, n))
                grid.add_widget(button)
            if kind in BOOSTS:
                attr, label = BOOSTS[kind]
                button = FlatButton(text=_(label), font_size=self.app.theme.small)
                button.selected = getattr(player, attr)
                button.bind(on_release=lambda _b, k=kind: self.toggle_boost(k))
                grid.add_widget(button)
            box.add_widget(grid)
            bonuses = {b.name: b.bonus for b in player.trait_bonuses if b.kind == kind}
            for name in player.traits(kind):
                stepper = Factory.Stepper(
                    value=f"{bonuses.get(name, 0):+d}",
                    caption=_("{trait}: bonus in every combat").format(trait=card_name(name)),
                )
                stepper.bind(
                    on_step=lambda _s, delta, k=kind, n=name: self.step_trait_bonus(k, n, delta)
                )
                box.add_widget(stepper)

    def sex_label(self, sex: str) -> str:
        """A sex in words, for the kv."""
        return sex_name(sex)


def _caption(text: str) -> Any:
    return Factory.Caption(text=text)


def _grid() -> Any:
    grid = GridLayout(cols=3, spacing=dp(4), size_hint_y=None, row_default_height=dp(48))
    grid.bind(minimum_height=grid.setter("height"))
    return grid
