"""The saved games as plays: each game's statistics summary with the times the store
kept of it (when it was first and last saved), in the order the games were started.
Read from the summaries and the games' rows only: no game is opened, no log replayed."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime

from companion.core.statistics import GameSummary
from companion.plumbing.errors import StoreError
from companion.store.reading import Reader, Rows

_TIMES_QUERY = "SELECT id, created, updated FROM games"


@dataclass(frozen=True)
class PlayedGame:
    """One saved game as a play: its id, its summary, and when it was first and last
    saved (the log holds no times: these are the store's)."""

    id: str
    created: float  # seconds since the epoch (kept as read: a thousand games are read at
    updated: float  # each Game over, and only the few exported become dates)
    summary: GameSummary

    @property
    def started(self) -> datetime:
        """When the game was first saved."""
        return _when(self.created)

    @property
    def saved(self) -> datetime:
        """When the game was last saved."""
        return _when(self.updated)

    @property
    def minutes(self) -> float:
        """Minutes from the first save to the last (the time played, when the game was
        played in one sitting)."""
        return max(0.0, (self.updated - self.created) / 60)


@dataclass(frozen=True)
class PlayedGames:
    """Every summarised game, the one started first first, and the games left out."""

    games: list[PlayedGame]
    waiting: int  # not summarised yet (by today's way of making summaries)
    unreadable: int

    def before(self, game_id: str) -> list[GameSummary]:
        """The summaries of the games started before that one (all the others when it is
        not among them)."""
        mine = next((game for game in self.games if game.id == game_id), None)
        return [
            game.summary
            for game in self.games
            if game.id != game_id and (mine is None or game.created < mine.created)
        ]

    def counted_as(self, game_id: str) -> tuple[str, ...] | None:
        """The names that game's seats count under: each linked seat's person's name as
        it is now (`companion.store.people`), else the name it was played under; None
        when the game has no summary."""
        mine = next((game for game in self.games if game.id == game_id), None)
        return None if mine is None else mine.summary.players


def played_games(
    reader: Reader, summaries: dict[str, GameSummary], waiting: int, unreadable: int
) -> PlayedGames:
    """The games that have a summary (`summaries`, by id), with their times."""
    rows: Rows = reader.all(_TIMES_QUERY, ())
    if reader.source is not None:  # the user's games, read-only while saves go elsewhere
        own = {row[0] for row in rows}
        # When their times cannot be read, those games are left out.
        with contextlib.suppress(StoreError):
            theirs = reader.all(_TIMES_QUERY, (), reader.source)
            rows += [row for row in theirs if row[0] not in own]
    games = []
    for game_id, created, updated in rows:
        summary = summaries.get(str(game_id))
        if summary is not None:
            games.append(PlayedGame(str(game_id), _seconds(created), _seconds(updated), summary))
    games.sort(key=lambda game: (game.created, game.id))
    return PlayedGames(games, waiting, unreadable)


def _seconds(stamp: object) -> float:
    if isinstance(stamp, float | int):
        return float(stamp)
    try:
        return float(str(stamp))
    except ValueError:
        return 0.0


def _when(seconds: float) -> datetime:
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (ValueError, OverflowError, OSError):
        return datetime.fromtimestamp(0, tz=UTC)
