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
from dataclasses import dataclass, field
from itertools import pairwise

from companion.core import Game, GameState
from companion.core.statistics import (
    STATS_ENGINE,
    GameSummary,
    StatsFold,
    TableStatistics,
    table_statistics,
)

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
        self._catch_up()
        return self.fold.summary(self.game.state)

    def summary_text(self) -> str:
        """`summary` as the text kept in the database."""
        self._catch_up()
        return self.fold.summary(self.game.state, shared=True).to_json()

    def _catch_up(self) -> None:
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
    conn.execute(_COUNT_WRITTEN)


# Counts the summaries written, so a reader sees at a glance whether any changed.
_WRITTEN_KEY = "stats_written"
_COUNT_WRITTEN = (
    f"INSERT INTO meta (key, value) VALUES ('{_WRITTEN_KEY}', '1') ON CONFLICT (key) "
    "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
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
    conn.execute(_COUNT_WRITTEN)


WAITING_QUERY = (
    "SELECT games.id FROM games LEFT JOIN stats ON stats.game_id = games.id "
    "WHERE stats.engine IS NULL OR stats.engine != ? ORDER BY games.played DESC"
)
SUMMARIES_QUERY = (
    "SELECT games.id, stats.engine, stats.summary FROM games "
    "LEFT JOIN stats ON stats.game_id = games.id"
)

# What changes whenever a game is saved, summarised or deleted.
STATS_SEEN_QUERY = (
    "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM stats WHERE engine = ?), "
    f"(SELECT value FROM meta WHERE key = '{_WRITTEN_KEY}')"
)


@dataclass
class StoredStatistics:
    """What the `stats` table holds: the summaries, and the games left out."""

    summaries: list[GameSummary]
    unreadable: int  # games that could not be read
    waiting: int  # games not summarised (yet) by today's engine
    # The figures worked out so far, by (player, edition): the store hands out the same
    # statistics until a game changes, so opening them again costs one small query.
    _figures: dict[tuple[str | None, str | None], TableStatistics] = field(
        default_factory=dict, repr=False, compare=False
    )

    def figures(self, player: str | None = None, edition: str | None = None) -> TableStatistics:
        """The table's and each player's figures over these games (see `table_statistics`)."""
        key = (player, edition)
        found = self._figures.get(key)
        if found is None:
            found = self._figures[key] = table_statistics(
                self.summaries,
                player=player,
                edition=edition,
                unreadable=self.unreadable,
                waiting=self.waiting,
            )
        return found


def read_statistics(
    rows: list[tuple[object, ...]], parsed: dict[str, tuple[str, GameSummary]] | None = None
) -> StoredStatistics:
    """The summaries from the rows of `SUMMARIES_QUERY` (a damaged one counts as a game
    that could not be read). `parsed` holds the summaries read last time by game, with
    their text: one whose text is the same is not parsed again (it is brought up to date)."""
    summaries: list[GameSummary] = []
    unreadable = waiting = 0
    known = {} if parsed is None else parsed
    seen: dict[str, tuple[str, GameSummary]] = {}
    for game_id, engine, text in rows:
        if engine != STATS_ENGINE:
            waiting += 1
            continue
        if text is None:
            unreadable += 1
            continue
        text = str(text)
        before = known.get(str(game_id))
        if before is not None and before[0] == text:
            summary = before[1]
        else:
            try:
                summary = GameSummary.from_json(text)
            except (ValueError, RecursionError):
                unreadable += 1
                continue
        seen[str(game_id)] = (text, summary)
        summaries.append(summary)
    if parsed is not None:
        parsed.clear()
        parsed.update(seen)
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
