"""Game over: the winner, a few statistics and a chart of everyone's level over the game."""

from __future__ import annotations

import time
from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import ListProperty, NumericProperty, StringProperty

from companion.core import ResolveCombat
from companion.core.game import CHECKPOINT_INTERVAL
from companion.core.milestones import Milestone, MilestoneKind
from companion.ui.i18n import _, card_name, ngettext
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour

# Actions folded per step while the statistics catch up with a game just opened (about
# a millisecond): from one of the game's checkpoints to the next.
FOLD_STEP = CHECKPOINT_INTERVAL
# Milliseconds of each frame the catching up may use.
FOLD_BUDGET_S = 0.004


def game_statistics(game: Any) -> dict[str, Any]:
    """Per-player numbers read from the game's states: kills (a monster each: a fight won
    against two monsters is two kills), deaths, best level, and each player's levels after
    every action (for the chart)."""
    return statistics_for(game).at(game.revision)


class GameStatistics:
    """Kills, deaths and levels of one game, revision by revision, from a single fold.

    It follows the game as it is played: an applied action adds one row from the states
    before and after it (no fold at all), an undo only moves the end that is read, and a
    changed record drops the rows from the change on. A game opened with a long log is
    folded in small steps on the frames after it opens (`catch_up`), so the Game over
    screen of a long game is drawn on the frame after the winning tap.
    """

    def __init__(self, game: Any) -> None:
        self._game = game
        self.count = len(game.setup.players)
        # Each player's level after every recorded revision folded so far (0: the start).
        # One list per player: reading a long game's chart copies eight lists, not a row
        # per revision (allocations that would wake the collector over a large heap).
        self._columns: list[list[int]] = [[] for _ in range(self.count)]
        # (revision, seat, monsters) of each kill, (revision, seat) of each death, in
        # revision order: a kill of two monsters counts two.
        self._kills: list[tuple[int, int, int]] = []
        self._deaths: list[tuple[int, int]] = []
        self._last: Any = None  # the state at the last folded revision
        self._unsubscribe = [
            game.subscribe(self._changed),
            game.record_changes.add(self._record_changed),
        ]

    @property
    def folded(self) -> int:
        """The last revision folded (-1 before the first)."""
        return len(self._columns[0]) - 1

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    def at(self, revision: int) -> dict[str, Any]:
        """The statistics after `revision` applied actions (folding what is missing)."""
        self._fold_to(revision, budget_s=None)
        kills = [0] * self.count
        deaths = [0] * self.count
        for when, seat, monsters in self._kills:
            if when <= revision:
                kills[seat] += monsters
        for when, seat in self._deaths:
            if when <= revision:
                deaths[seat] += 1
        columns = [column[: revision + 1] for column in self._columns]
        best = [max(column) for column in columns]
        return {"kills": kills, "deaths": deaths, "best": best, "levels": columns}

    def catch_up(self, budget_s: float = FOLD_BUDGET_S) -> bool:
        """Fold towards the game's revision for at most `budget_s`; True once there."""
        return self._fold_to(self._game.revision, budget_s)

    def _fold_to(self, revision: int, budget_s: float | None) -> bool:
        start = time.perf_counter()
        while self.folded < revision:
            if self.folded < 0:
                self._add(0, None, self._game.states_between(0, 1)[0])
                continue
            # Steps end on the game's checkpoints, so each starts from a kept state.
            base = self.folded
            stop = min(revision + 1, base - base % FOLD_STEP + FOLD_STEP + 1)
            for offset, state in enumerate(self._game.states_between(base, stop)[1:]):
                self._add(base + 1 + offset, self._last, state)
            if budget_s is not None and time.perf_counter() - start > budget_s:
                break
        return self.folded >= revision

    def _add(self, revision: int, before: Any, after: Any) -> None:
        for column, player in zip(self._columns, after.players, strict=True):
            column.append(player.level)
        if before is not None:
            action = self._game.action_at(revision - 1)
            if isinstance(action, ResolveCombat) and action.outcome == "kill" and before.combat:
                combat = before.combat
                self._kills.append((revision, combat.fighter, len(combat.monsters)))
            for seat in range(self.count):
                if after.players[seat].dead and not before.players[seat].dead:
                    self._deaths.append((revision, seat))
        self._last = after

    def _changed(self, state: Any) -> None:
        # An action just applied on top of the last folded revision: add its row from
        # the states on both sides, folding nothing.
        if state.revision == self.folded + 1 and self._last is not None:
            self._add(state.revision, self._last, state)

    def _record_changed(self, first: int) -> None:
        if first >= self.folded:
            return
        for column in self._columns:
            del column[first + 1 :]
        self._kills = [k for k in self._kills if k[0] <= first]
        self._deaths = [d for d in self._deaths if d[0] <= first]
        self._last = None if first < 0 else self._game.states_between(first, first + 1)[0]


_followed: list[GameStatistics] = []


def statistics_for(game: Any) -> GameStatistics:
    """The statistics that follow `game` (one game at a time: the open one)."""
    if _followed and _followed[0]._game is game:
        return _followed[0]
    while _followed:
        _followed.pop().close()
    stats = GameStatistics(game)
    _followed.append(stats)
    return stats


def follow(game: Any, after_s: float = 0.0) -> None:
    """Start following a game just opened: its statistics are folded on the frames from
    `after_s` on (a little per frame), so its Game over screen never waits for a whole
    fold. A win before the fold is done folds the rest then."""
    if game is None:
        while _followed:
            _followed.pop().close()
        return
    stats = statistics_for(game)

    def step(_dt: float) -> bool:
        if not _followed or _followed[0] is not stats:
            return False
        return not stats.catch_up()

    if after_s > 0:
        Clock.schedule_once(lambda _dt: Clock.schedule_interval(step, 0), after_s)
    else:
        Clock.schedule_interval(step, 0)


def milestone_text(milestone: Milestone) -> str:
    """One fact about a won game (`companion.core.milestones`) in the language on show."""
    kind, name, n = milestone.kind, milestone.name, milestone.count
    if kind is MilestoneKind.FIRST_WIN:
        return _("{name}'s first win").format(name=name)
    if kind is MilestoneKind.WINS:
        return ngettext("{name} has now won {n} game", "{name} has now won {n} games", n).format(
            name=name, n=n
        )
    if kind is MilestoneKind.FASTEST_WIN:
        return ngettext(
            "{name}'s fastest win yet ({n} turn)", "{name}'s fastest win yet ({n} turns)", n
        ).format(name=name, n=n)
    if kind is MilestoneKind.SHORTEST_GAME:
        return ngettext(
            "A new record: the shortest game at this table ({n} turn)",
            "A new record: the shortest game at this table ({n} turns)",
            n,
        ).format(n=n)
    if kind is MilestoneKind.LONGEST_GAME:
        return ngettext(
            "A new record: the longest game at this table ({n} turn)",
            "A new record: the longest game at this table ({n} turns)",
            n,
        ).format(n=n)
    return _("The first time anyone killed the {monster}").format(monster=card_name(name))


class GameOverScreen(CompanionScreen):
    """Who won, how the game went, and what it meant at this table."""

    winner_text = StringProperty("")
    detail_text = StringProperty("")
    # What the game meant against the games before it, a fact a line ("" when none).
    meaning_text = StringProperty("")
    series = ListProperty([])
    winning_level = NumericProperty(10)

    def new_game(self) -> None:
        """Set up the next game with the same table."""
        self.app.show("new_game", fresh=True)

    def export(self) -> None:
        """Write this game for BG Stats and for a spreadsheet into the exports folder."""
        self.session.export_plays()

    def tell_meaning(self, *_args: Any) -> None:
        """Say what the game meant (read after the win's frame: it asks the store)."""
        state = self.state
        if state is None or not state.winners:
            self.meaning_text = ""
            return
        self.meaning_text = "\n".join(milestone_text(m) for m in self.session.meaning())

    def keep_playing(self) -> None:
        """Back to the table (to look, or to undo the winning move)."""
        self.app.show("table")

    def _back_to_the_table(self) -> None:
        state = self.session.live_state
        on_show = self.manager is not None and self.manager.current == self.name
        if on_show and state is not None and not state.winners:
            self.app.navigator.replace("table")

    def lines_for(self, players: int) -> list[Any]:
        """One line per player, kept from the last showing or made ahead of the win (see
        `CompanionApp`): building a line costs more than the win's whole frame may (its
        rules applied, its labels made); a line whose words did not change is not even
        rendered again."""
        box = self.ids.stats
        lines = list(reversed(box.children))
        while len(lines) > players:
            box.remove_widget(lines.pop())
        while len(lines) < players:
            lines.append(Factory.StatLine())
            box.add_widget(lines[-1])
        return lines

    def refresh(self) -> None:
        game = self.session.game
        state = self.state
        box = self.ids.stats
        if game is None or state is None:
            box.clear_widgets()
            return
        if not state.winners:
            # The win was undone: the game goes on at the Table (on the next frame, not in
            # the middle of this screen being shown).
            Clock.schedule_once(lambda _dt: self._back_to_the_table(), 0)
            return
        names = [state.players[i].name for i in state.winners]
        self.winner_text = ngettext("{names} has won!", "{names} have won!", len(names)).format(
            names=" & ".join(names)
        )
        # The win's own frame is drawn first; the table's history is read on the next.
        Clock.schedule_once(self.tell_meaning, 0)
        stats = game_statistics(game)
        turns = ngettext("{n} turn", "{n} turns", state.turn).format(n=state.turn)
        actions = ngettext("{n} action", "{n} actions", len(game.log)).format(n=len(game.log))
        self.detail_text = f"{turns}, {actions}"
        self.winning_level = state.winning_level
        colours = [colour(p.colour) for p in state.players]
        self.series = [(colours[seat], stats["levels"][seat]) for seat in range(len(state.players))]
        lines = self.lines_for(len(state.players))
        for seat, (player, line) in enumerate(zip(state.players, lines, strict=True)):
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
            line.name, line.detail, line.swatch = player.name, text, colours[seat]
