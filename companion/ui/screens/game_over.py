"""Game over: the winner, a few statistics and a chart of everyone's level over the game."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import ListProperty, NumericProperty, StringProperty

from companion.core import ResolveCombat
from companion.ui.i18n import _, ngettext
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour


def game_statistics(game: Any) -> dict[str, Any]:
    """Per-player numbers read from the game's states: kills, deaths, best level, levels
    after every action (for the chart)."""
    states = [game.state_at(r) for r in range(len(game.log) + 1)]
    count = len(states[0].players)
    kills = [0] * count
    deaths = [0] * count
    for action, before, after in zip(game.log, states, states[1:], strict=False):
        if isinstance(action, ResolveCombat) and action.outcome == "kill" and before.combat:
            kills[before.combat.fighter] += 1
        for seat in range(count):
            if after.players[seat].dead and not before.players[seat].dead:
                deaths[seat] += 1
    levels = [[p.level for p in state.players] for state in states]
    best = [max(row[seat] for row in levels) for seat in range(count)]
    return {"kills": kills, "deaths": deaths, "best": best, "levels": levels}


class GameOverScreen(CompanionScreen):
    """Who won, and how the game went."""

    winner_text = StringProperty("")
    detail_text = StringProperty("")
    series = ListProperty([])
    winning_level = NumericProperty(10)

    def new_game(self) -> None:
        """Set up the next game with the same table."""
        self.app.show("new_game", fresh=True)

    def keep_playing(self) -> None:
        """Back to the table (to look, or to undo the winning move)."""
        self.app.show("table")

    def _back_to_the_table(self) -> None:
        state = self.session.live_state
        on_show = self.manager is not None and self.manager.current == self.name
        if on_show and state is not None and not state.winners:
            self.app.navigator.replace("table")

    def refresh(self) -> None:
        game = self.session.game
        state = self.state
        box = self.ids.stats
        box.clear_widgets()
        if game is None or state is None:
            return
        if not state.winners:
            # The win was undone: the game goes on at the Table (on the next frame, not in
            # the middle of this screen being shown).
            Clock.schedule_once(lambda _dt: self._back_to_the_table(), 0)
            return
        names = [state.players[i].name for i in state.winners]
        self.winner_text = _("{names} won!").format(names=" & ".join(names))
        stats = game_statistics(game)
        turns = ngettext("{n} turn", "{n} turns", state.turn).format(n=state.turn)
        actions = ngettext("{n} action", "{n} actions", len(game.log)).format(n=len(game.log))
        self.detail_text = f"{turns}, {actions}"
        self.winning_level = state.winning_level
        colours = [colour(p.colour) for p in state.players]
        self.series = [
            (colours[seat], [row[seat] for row in stats["levels"]])
            for seat in range(len(state.players))
        ]
        for seat, player in enumerate(state.players):
            kills, deaths = stats["kills"][seat], stats["deaths"][seat]
            text = " · ".join(
                (
                    _("Level {level} (best {best})").format(
                        level=player.level, best=stats["best"][seat]
                    ),
                    ngettext("{n} kill", "{n} kills", kills).format(n=kills),
                    ngettext("{n} death", "{n} deaths", deaths).format(n=deaths),
                )
            )
            # Properties declared in kv exist only once the rule applied: set them after.
            line = Factory.StatLine()
            line.name, line.detail, line.swatch = player.name, text, colours[seat]
            box.add_widget(line)
