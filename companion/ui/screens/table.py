"""Table: a tile per player with level and gear steppers, whose turn it is, the phase."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.core import AdvancePhase, Charity, EndTurn, GoUpLevel, LoseLevel, Phase, SetGearBonus
from companion.ui.i18n import _
from companion.ui.labels import phase_line, traits_line
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour
from companion.ui.widgets import PlayerTile

CHARITY_MAX_CARDS = 20


class TableScreen(CompanionScreen):
    """Everyone at a glance; the buttons below run the current turn."""

    turn_text = StringProperty("")
    phase_text = StringProperty("")
    in_combat = BooleanProperty(False)
    # Charity phase: how many cards the current player has over the hand limit.
    charity_phase = BooleanProperty(False)
    excess = NumericProperty(1)
    charity_text = StringProperty("")
    # Dimmed (still tappable: a tap says why) when the rules would refuse right now.
    can_advance = BooleanProperty(True)
    can_end_turn = BooleanProperty(True)
    columns = NumericProperty(2)
    fill = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tiles: list[PlayerTile] = []
        self._shown_current = -1
        self.app.bind(wide=lambda *_a: self._layout())
        self.ids.scroll.bind(height=lambda *_a: self._layout())
        self._devices_followed: Any = None

    # -- actions --------------------------------------------------------------------
    def change_level(self, seat: int, delta: int) -> None:
        """A level stepper on a tile."""
        if delta > 0:
            self.session.act(GoUpLevel, player=seat)
        else:
            self.session.act(LoseLevel, player=seat)

    def change_gear(self, seat: int, delta: int) -> None:
        """A gear stepper on a tile: the hand-kept gear bonus goes up or down by one."""
        state = self.session.live_state
        if state is not None:
            bonus = state.players[seat].gear_bonus + delta
            self.session.act(SetGearBonus, player=seat, bonus=bonus)

    def open_player(self, seat: int) -> None:
        """A tap on a tile: the player's details."""
        self.app.show("player", seat=seat)

    def next_phase(self) -> None:
        """Move the turn on to its next phase."""
        self.session.act(AdvancePhase)

    def end_turn(self) -> None:
        """Pass play to the left."""
        self.session.act(EndTurn)

    def step_excess(self, delta: int) -> None:
        """The stepper of cards over the hand limit."""
        self.excess = max(1, min(CHARITY_MAX_CARDS, self.excess + delta))

    def give_charity(self) -> None:
        """The current player gives the excess cards away (the rules pick who gets them)."""
        state = self.session.live_state
        if state is not None and self.session.act(Charity, giver=state.current, cards=self.excess):
            self.excess = 1

    def fight(self) -> None:
        """Open the combat screen (the current player fights)."""
        self.app.show("combat")

    # -- drawing --------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state
        if state is None:
            return
        if len(self.tiles) != len(state.players):
            self._make_tiles(len(state.players))
        has_races = bool(state.setup.edition.races)
        low = self._low_battery_seats()
        for seat, (tile, player) in enumerate(zip(self.tiles, state.players, strict=True)):
            tile.battery_low = seat in low
            tile.name = player.name
            tile.colour = colour(player.colour)
            tile.level = player.level
            tile.gear = player.strength - player.level
            tile.strength = player.strength
            tile.traits = traits_line(player, has_races)
            tile.dead = player.dead
            tile.turn = seat == state.current and not state.winners
        if state.current != self._shown_current:
            # Whose turn it is must be on screen without scrolling (5-8 players on a phone).
            self._shown_current = state.current
            Clock.schedule_once(lambda _dt: self.show_current(), 0)
        current = state.current_player.name
        self.turn_text = _("Turn {n}: {name}").format(n=state.turn, name=current)
        self.phase_text = phase_line(state)
        self.in_combat = state.combat is not None
        # Charity applies to the current player, alive, at the end of the turn.
        self.charity_phase = state.phase == Phase.CHARITY and not state.current_player.dead
        self.can_advance = self.session.allowed(AdvancePhase)
        self.can_end_turn = self.session.allowed(EndTurn)
        self.charity_text = self._charity_words(state)

    def _low_battery_seats(self) -> set[int]:
        """Seats whose tracker reports a low battery (and follow the counters from now on)."""
        devices = self.app.devices
        if devices is None:
            return set()
        if self._devices_followed is not devices:
            devices.bind(statuses=lambda *_a: self._state_changed(None, None))
            self._devices_followed = devices
        return {
            seat
            for status in devices.statuses
            if status.role == "tracker" and status.battery_low
            for seat in status.players
        }

    def _charity_words(self, state: Any) -> str:
        result = state.charity
        if result is None or result.giver != state.current:
            return ""
        if not result.shares:
            return _("{n} card(s) discarded: nobody is lower.").format(n=result.discarded)
        given = ", ".join(
            f"{state.players[seat].name} {count}" for seat, count in result.shares.items()
        )
        return _("Charity: {given}").format(given=given)

    def show_current(self) -> None:
        """Scroll the current player's tile into view (when the tiles scroll at all)."""
        state = self.state
        if state is None or not 0 <= state.current < len(self.tiles):
            return
        scroll = self.ids.scroll
        if self.ids.tiles.height > scroll.height:
            scroll.scroll_to(self.tiles[state.current], padding=dp(4), animate=False)

    def on_pre_enter(self, *args: Any) -> None:
        self._shown_current = -1  # coming back: show whose turn it is again
        super().on_pre_enter(*args)

    def _make_tiles(self, count: int) -> None:
        grid = self.ids.tiles
        grid.clear_widgets()
        self.tiles = []
        for seat in range(count):
            tile = PlayerTile(index=seat)
            tile.bind(
                on_level_step=lambda t, d: self.change_level(t.index, d),
                on_gear_step=lambda t, d: self.change_gear(t.index, d),
                on_release=lambda t: self.open_player(t.index),
            )
            grid.add_widget(tile)
            self.tiles.append(tile)
        self._layout()

    def _layout(self) -> None:
        count = max(1, len(self.tiles))
        if self.app.wide:
            self.columns = min(4, count) if count not in (5, 6) else 3
        else:
            self.columns = 1 if count <= 2 else 2
        # Tiles share the height when they all fit; otherwise they keep theirs and scroll.
        rows = -(-count // self.columns)
        needed = sum(tile.height for tile in self.tiles[:: self.columns]) if self.tiles else 0
        fits = needed <= self.ids.scroll.height or rows * dp(150) <= self.ids.scroll.height
        for tile in self.tiles:
            tile.compact = not fits
        self.fill = fits
