"""Board: the level track for a TV or laptop, every player a coloured token on their level."""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.table.words import fight_line, phase_line, turn_line
from companion.ui.i18n import APP_LANGUAGE, _
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour
from companion.ui.track import TrackToken


def tokens_for(state: Any) -> list[TrackToken]:
    """One token per player from a game state: level, turn, combat, death and victory."""
    combat = state.combat
    fighting = set() if combat is None else {combat.fighter, combat.helper} - {None}
    return [
        TrackToken(
            seat=seat,
            name=player.name,
            colour=player.colour,
            level=player.level,
            turn=seat == state.current and not state.winners,
            fighting=seat in fighting,
            dead=player.dead,
            winner=seat in state.winners,
        )
        for seat, player in enumerate(state.players)
    ]


class BoardViewScreen(CompanionScreen):
    """The track fills the screen; the turn, a combat or the winners show in large type."""

    headline = StringProperty("")
    detail = StringProperty("")
    combat_text = StringProperty("")
    fighters_winning = BooleanProperty(False)
    in_combat = BooleanProperty(False)
    finished = BooleanProperty(False)
    spaces = NumericProperty(10)
    # Full screen for a TV: the words grow with the window (legend >= 1/40 of its height).
    tv = BooleanProperty(False)
    # Type sizes of the legend (set by the kv rule from the window and the mode).
    legend_name = NumericProperty(16)
    legend_detail = NumericProperty(13)

    def on_legend_name(self, *_args: Any) -> None:
        self._size_legend()

    def on_legend_detail(self, *_args: Any) -> None:
        self._size_legend()

    def _size_legend(self) -> None:
        legend = self.ids.get("legend")
        for entry in legend.children if legend is not None else ():
            entry.name_size, entry.detail_size = self.legend_name, self.legend_detail

    def toggle_full_screen(self) -> None:
        """The TV button: the board alone on the screen, or back to the app's frame."""
        self.tv = not self.tv
        self.app.set_full_screen(self.tv)

    def on_leave(self, *_args: Any) -> None:
        if self.tv:
            self.tv = False
            self.app.set_full_screen(False)

    def refresh(self) -> None:
        state = self.state
        track = self.ids.track
        if state is None:
            track.tokens = []
            return
        self.spaces = state.winning_level
        track.tokens = tokens_for(state)
        self.finished = bool(state.winners)
        self.headline = turn_line(state, APP_LANGUAGE)
        if state.winners:
            self.detail = _("Level {level} reached on turn {turn}").format(
                level=state.winning_level, turn=state.turn
            )
        else:
            self.detail = phase_line(state, APP_LANGUAGE)
        combat = state.combat
        self.in_combat = combat is not None
        if combat is not None:
            self.fighters_winning = combat.fighters_winning
        self.combat_text = fight_line(state, APP_LANGUAGE) or ""
        self._fill_legend(state)

    def _fill_legend(self, state: Any) -> None:
        legend = self.ids.legend
        legend.clear_widgets()
        for seat, player in enumerate(state.players):
            marks = []
            if seat == state.current and not state.winners:
                marks.append("\u25b6")
            if seat in state.winners:
                marks.append("\u265b")
            if player.dead:
                marks.append("\u2620")
            entry = Factory.BoardLegendEntry()
            self.bind(
                legend_name=entry.setter("name_size"), legend_detail=entry.setter("detail_size")
            )
            entry.name_size, entry.detail_size = self.legend_name, self.legend_detail
            entry.swatch = colour(player.colour)
            entry.name = player.name
            entry.marks = " ".join(marks)
            entry.detail = _("Level {level} \u00b7 Strength {strength}").format(
                level=player.level, strength=state.strength_of(seat)
            )
            legend.add_widget(entry)
