"""Statistics summaries of saved games: kept up to date with each save, made once in the
background for games saved before there were any, and read for the statistics page.

The summary of an open game is folded as it is saved (`SummaryKeeper`): only the
actions new since the last save are folded, so a save costs the same at action 10 and
at 10,000. Opening statistics reads the `stats` rows and folds nothing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
import threading
from collections.abc import Callable
from itertools import pairwise

from companion.core import Game, GameState
from companion.core.statistics import (
    STATS_ENGINE,
    GameSummary,
    StatsFold,
    TableStatistics,
    Tally,
    figures_text,
    player_key,
    table_statistics,
)
from companion.core.trends import Month, PlayedGame, Trends, trends
from companion.store.people import PEOPLE_WRITTEN_KEY

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
        # Each player's figures as last written out (see `summary_text`).
        self._texts: list[str] = []

    def changed_from(self, first: int) -> None:
        """The recorded actions from index `first` on were replaced."""
        if self.fold.revision > first:
            self._rewind(first)

    def summary(self) -> GameSummary:
        """The game's summary as it stands now, folding only what is new."""
        self._catch_up()
        return self.fold.summary(self.game.state)

    def summary_text(self) -> str:
        """`summary` as the text kept in the database (writing out again only the
        figures of the players the new actions changed)."""
        self._catch_up()
        fold = self.fold
        texts = self._texts
        if len(texts) != len(fold.figures):
            texts[:] = [""] * len(fold.figures)
            fold.touched.update(range(len(fold.figures)))
        for seat in fold.touched:
            texts[seat] = figures_text(fold.figures[seat])
        fold.touched.clear()
        return fold.summary(self.game.state, shared=True).to_json(texts)

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


# Counts the games deleted, so a reader knows one went even when as many were saved since.
_DELETED_KEY = "games_deleted"
COUNT_DELETED = (
    f"INSERT INTO meta (key, value) VALUES ('{_DELETED_KEY}', '1') ON CONFLICT (key) "
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
    "SELECT games.id, stats.engine, stats.summary, games.played, NULL, games.created "
    "FROM games LEFT JOIN stats ON stats.game_id = games.id"
)
# The same, with the name each linked seat's person has now, as JSON `[[seat, name], ...]`
# (`companion.store.people`): a renamed player's games count under the new name, and
# two entries merged count as one. Both end with when the game was first saved.
PEOPLE_SUMMARIES_QUERY = (
    "SELECT games.id, stats.engine, stats.summary, games.played, "
    "(SELECT json_group_array(json_array(seats.seat, people.name)) FROM seats "
    "JOIN people ON people.id = seats.person WHERE seats.game_id = games.id), games.created "
    "FROM games LEFT JOIN stats ON stats.game_id = games.id"
)
# The games saved since the one played last when statistics were last read: a save
# counts `played` up (`games_by_play` finds them).
SAVED_SINCE_QUERY = PEOPLE_SUMMARIES_QUERY + " WHERE games.played > ?"

# What changes whenever a game is saved, summarised or deleted: how many games, how
# many summaries by today's engine, how many summaries were written, and how often
# people were renamed, merged or linked.
STATS_SEEN_QUERY = (
    "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM stats WHERE engine = ?), "
    f"(SELECT value FROM meta WHERE key = '{_WRITTEN_KEY}'), "
    f"(SELECT value FROM meta WHERE key = '{PEOPLE_WRITTEN_KEY}'), "
    f"(SELECT value FROM meta WHERE key = '{_DELETED_KEY}')"
)


class StoredStatistics:
    """What the `stats` table holds: the summaries, and the games left out.

    Made after every save, so what only some readers need (every summary, for figures of
    one player or edition; every game with its date, for the pictures) is gathered on
    first use, from the games as they stood when these statistics were read."""

    def __init__(
        self,
        summaries: list[GameSummary] | None,
        unreadable: int,  # games that could not be read
        waiting: int,  # games not summarised (yet) by today's engine
        *,
        dated: list[PlayedGame] | None = None,
        tally: Tally | None = None,
        found: list[GameSummary | str] | None = None,
    ) -> None:
        self.unreadable = unreadable
        self.waiting = waiting
        # The running totals of every summary, when they are kept (see `KeptStatistics`).
        self.tally = tally
        self._summaries = summaries
        self._found = found or []
        self._dated = dated
        # The figures and pictures worked out so far: the store hands out the same
        # statistics until a game changes, so opening them again costs one small query.
        self._figures: dict[tuple[str | None, str | None], TableStatistics] = {}
        self._trends: dict[tuple[str | None, str | None, Month], Trends] = {}

    @property
    def summaries(self) -> list[GameSummary]:
        if self._summaries is None:
            self._summaries = [found for found in self._found if isinstance(found, GameSummary)]
        return self._summaries

    @property
    def dated(self) -> list[PlayedGame]:
        """The same summaries with when each game was played (for `trends`)."""
        return self._dated if self._dated is not None else []

    def figures(self, player: str | None = None, edition: str | None = None) -> TableStatistics:
        """The table's and each player's figures over these games (see `table_statistics`)."""
        key = (player, edition)
        found = self._figures.get(key)
        if found is None:
            if key == (None, None) and self.tally is not None:
                found = self.tally.statistics(unreadable=self.unreadable, waiting=self.waiting)
            else:
                found = table_statistics(
                    self.summaries,
                    player=player,
                    edition=edition,
                    unreadable=self.unreadable,
                    waiting=self.waiting,
                )
            self._figures[key] = found
        return found

    def trends(
        self,
        *,
        month_of: Callable[[float], Month],
        this_month: Month,
        player: str | None = None,
        edition: str | None = None,
    ) -> Trends:
        """Each player's Level over their last games and the games per month, over these
        games (see `companion.core.trends.trends`)."""
        key = (player, edition, this_month)
        found = self._trends.get(key)
        if found is None:
            figures = self.figures(player=player, edition=edition)
            found = self._trends[key] = trends(
                self.dated,
                month_of=month_of,
                this_month=this_month,
                player=player,
                edition=edition,
                games_of={player_key(f.name): f.games for f in figures.players},
            )
        return found


# How a game stands in the `stats` table: waiting, could not be read, or its summary.
_WAITING = "waiting"
_UNREADABLE = "unreadable"


class KeptStatistics:
    """Every game's summary as last read, with running totals of them: after a save only
    the games saved since are read again, each taken out of the totals as it was and put
    back as it is, so opening statistics after one save reads and adds up one game."""

    def __init__(self) -> None:
        # By game: the summary's engine and text and its people's names as read, and
        # what it is.
        self.games: dict[str, tuple[tuple[object, str | None, str | None], GameSummary | str]] = {}
        # By game, its summary with when it was played (the games summarised only).
        self.dated: dict[str, PlayedGame] = {}
        self.tally = Tally()
        self.played = 0  # the last `played` read
        # How many games could not be read, and how many wait to be summarised.
        self._left_out = {_UNREADABLE: 0, _WAITING: 0}

    def read_all(self, rows: list[tuple[object, ...]]) -> StoredStatistics:
        """Bring every game up to date from all the rows of `SUMMARIES_QUERY` (games gone
        are taken away)."""
        seen = {str(row[0]) for row in rows}
        self.played = 0  # a game deleted may have been the one played last
        for game_id in [game_id for game_id in self.games if game_id not in seen]:
            self._put(game_id, None)
        return self.read_changed(rows)

    def read_changed(self, rows: list[tuple[object, ...]]) -> StoredStatistics:
        """Bring the games in `rows` (of `SUMMARIES_QUERY`) up to date."""
        for game_id, engine, text, *rest in rows:
            played = rest[0] if rest and isinstance(rest[0], int) else None
            if played is not None:
                self.played = max(self.played, played)
            names = None if len(rest) < 2 or rest[1] is None else str(rest[1])
            created = rest[2] if len(rest) > 2 and isinstance(rest[2], int | float) else None
            self._put(str(game_id), (engine, None if text is None else str(text), names))
            self._date(str(game_id), played or 0, None if created is None else float(created))
        if self.tally.stale:
            self.tally = Tally()
            for _text, found in self.games.values():
                if isinstance(found, GameSummary):
                    self.tally.add(found)
        return self.stored()

    def stored(self) -> StoredStatistics:
        return StoredStatistics(
            None,
            self._left_out[_UNREADABLE],
            self._left_out[_WAITING],
            dated=list(self.dated.values()),
            tally=self.tally,
            found=[found for _row, found in self.games.values()],
        )

    def _date(self, game_id: str, played: int, started: float | None) -> None:
        found = self.games.get(game_id)
        summary = found[1] if found is not None else None
        if not isinstance(summary, GameSummary):
            self.dated.pop(game_id, None)
            return
        before = self.dated.get(game_id)
        if (
            before is None
            or before.summary is not summary
            or before.played != played
            or before.started != started
        ):
            self.dated[game_id] = PlayedGame(summary, played, started)

    def _put(self, game_id: str, row: tuple[object, str | None, str | None] | None) -> None:
        before = self.games.get(game_id)
        if row is None:
            found: GameSummary | str | None = None
        else:
            engine, text, names = row
            if before is not None and before[0] == row:
                return  # the same summary, and the same people
            found = _parsed(engine, text)
            if names is not None and isinstance(found, GameSummary):
                found = _as_people(found, names)
        old = before[1] if before is not None else None
        for kind, step in ((old, -1), (found, 1)):
            if isinstance(kind, str):
                self._left_out[kind] += step
        self.tally.replace(
            old if isinstance(old, GameSummary) else None,
            found if isinstance(found, GameSummary) else None,
        )
        if found is None:
            self.games.pop(game_id, None)
            self.dated.pop(game_id, None)
        else:
            self.games[game_id] = (row, found)  # type: ignore[assignment]


def _as_people(summary: GameSummary, names: str) -> GameSummary:
    """`summary` with each linked seat named as its person is named now (`names`: JSON
    `[[seat, name], ...]`); a seat not linked keeps the name it was played under."""
    try:
        linked = json.loads(names)
    except (ValueError, RecursionError):
        return summary
    players = list(summary.players)
    for pair in linked if isinstance(linked, list) else ():
        if (
            isinstance(pair, list)
            and len(pair) == 2
            and isinstance(pair[0], int)
            and 0 <= pair[0] < len(players)
            and isinstance(pair[1], str)
        ):
            players[pair[0]] = pair[1]
    if tuple(players) == summary.players:
        return summary
    return dataclasses.replace(summary, players=tuple(players))


def _parsed(engine: object, text: str | None) -> GameSummary | str:
    if engine != STATS_ENGINE:
        return _WAITING
    if text is None:
        return _UNREADABLE
    try:
        return GameSummary.from_json(text)
    except (ValueError, RecursionError):
        return _UNREADABLE


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
