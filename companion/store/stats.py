"""Statistics summaries of saved games: kept up to date with each save, made once in the
background for games saved before there were any, and read for the statistics page.

The summary of an open game is folded as it is saved (`SummaryKeeper`): only the
actions new since the last save are folded, so a save costs the same at action 10 and
at 10,000. Opening statistics reads the `stats` rows and folds nothing.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from companion.core import Game, GameState
from companion.core.statistics import STATS_ENGINE, GameSummary, StatsFold

log = logging.getLogger(__name__)

# The keeper keeps a copy of its fold every this many actions, so an undo folds again
# at most this many actions rather than the whole game.
SNAPSHOT_EVERY = 64


class SummaryKeeper:
    """The statistics fold of one open game, brought up to date at each save."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.fold = StatsFold(game.setup)
        # The state after the fold's last action, when it is known to be the game's.
        self._state: GameState | None = None
        self._snapshots: dict[int, StatsFold] = {0: self.fold.copy()}

    def changed_from(self, first: int) -> None:
        """The recorded actions from index `first` on were replaced."""
        if self.fold.revision > first:
            self._rewind(first)

    def summary(self) -> GameSummary:
        """The game's summary as it stands now, folding only what is new."""
        game = self.game
        target = game.revision
        if target < self.fold.revision:
            self._rewind(target)
        done = self.fold.revision
        if target == done + 1 and self._state is not None:
            self._step(self._state, game.action_at(done), game.state)
        elif target > done:
            states = game.states_between(done, target + 1)
            for number, (before, after) in enumerate(pairwise(states), start=done):
                self._step(before, game.action_at(number), after)
        self._state = game.state
        return self.fold.summary(game.state)

    def _step(self, before: GameState, action: object, after: GameState) -> None:
        self.fold.step(before, action, after)  # type: ignore[arg-type]
        if self.fold.revision % SNAPSHOT_EVERY == 0:
            self._snapshots[self.fold.revision] = self.fold.copy()

    def _rewind(self, revision: int) -> None:
        at = max(kept for kept in self._snapshots if kept <= revision)
        self._snapshots = {kept: fold for kept, fold in self._snapshots.items() if kept <= at}
        self.fold = self._snapshots[at].copy()
        self._state = None


def write_summary(conn: sqlite3.Connection, game_id: str, summary: str | None) -> None:
    """Keep a game's summary (None: it could not be read), made by today's engine."""
    conn.execute(
        "INSERT INTO stats (game_id, engine, summary) VALUES (?, ?, ?) "
        "ON CONFLICT (game_id) DO UPDATE SET engine = excluded.engine, summary = excluded.summary",
        (game_id, STATS_ENGINE, summary),
    )


def write_summary_made_late(conn: sqlite3.Connection, game_id: str, summary: str | None) -> None:
    """Keep a summary made in the background, unless a save wrote a newer one meanwhile or
    the game has gone."""
    conn.execute(
        "INSERT INTO stats (game_id, engine, summary) "
        "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM games WHERE id = ?) "
        "ON CONFLICT (game_id) DO UPDATE SET engine = excluded.engine, "
        "summary = excluded.summary WHERE stats.engine != excluded.engine",
        (game_id, STATS_ENGINE, summary, game_id),
    )


WAITING_QUERY = (
    "SELECT games.id FROM games LEFT JOIN stats ON stats.game_id = games.id "
    "WHERE stats.engine IS NULL OR stats.engine != ? ORDER BY games.played DESC"
)
SUMMARIES_QUERY = (
    "SELECT games.id, stats.engine, stats.summary FROM games "
    "LEFT JOIN stats ON stats.game_id = games.id"
)


@dataclass
class StoredStatistics:
    """What the `stats` table holds: the summaries, and the games left out."""

    summaries: list[GameSummary]
    unreadable: int  # games that could not be read
    waiting: int  # games not summarised (yet) by today's engine


def read_statistics(rows: list[tuple[object, ...]]) -> StoredStatistics:
    """The summaries from the rows of `SUMMARIES_QUERY` (a damaged one counts as a game
    that could not be read)."""
    summaries: list[GameSummary] = []
    unreadable = waiting = 0
    for _game_id, engine, text in rows:
        if engine != STATS_ENGINE:
            waiting += 1
            continue
        if text is None:
            unreadable += 1
            continue
        try:
            summaries.append(GameSummary.from_json(str(text)))
        except (ValueError, RecursionError):
            unreadable += 1
    return StoredStatistics(summaries, unreadable, waiting)


class Summarising:
    """Games saved before statistics were kept, being summarised once on a worker thread:
    how far it has got, for a screen to show (`done` of `total`), and when it ends."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.unreadable = 0
        self.finished = threading.Event()
        self._stop = threading.Event()

    @property
    def running(self) -> bool:
        return not self.finished.is_set()

    def stop(self) -> None:
        """Stop after the game being summarised (the rest waits for the next time)."""
        self._stop.set()

    def run(
        self,
        game_ids: list[str],
        summarise_one: Callable[[str], str | None],
        keep: Callable[[str, str | None], None],
        settle: Callable[[], object] = lambda: None,
    ) -> None:
        """Summarise each game (`summarise_one`: its summary's text, None when it cannot
        be read) and `keep` it; `settle` waits until what was kept is written. The
        thread's body."""
        try:
            for game_id in game_ids:
                if self._stop.is_set():
                    break
                summary = summarise_one(game_id)
                if summary is None:
                    self.unreadable += 1
                keep(game_id, summary)
                self.done += 1
            settle()
        except Exception:  # a store gone from under it: the rest waits for next time
            log.exception("saved games could not all be summarised")
        finally:
            self.finished.set()
