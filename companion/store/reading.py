"""Reading the saved games: the store's read connection (and the user's database, open
read-only, while saves go to a temporary one), one lock, and every SQLite error turned
into the store's own, saying what to do.

The reads run on the app's thread while the writer thread writes (WAL lets them); a
write-ahead log lost under the running app makes the writer mark the reader stale, and
its connection is opened again before its next read.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from companion.core.game import log_digest
from companion.plumbing.errors import StoreError
from companion.store.cover import COVER_KEY
from companion.store.database import DamagedDatabaseError, connect, store_error

log = logging.getLogger(__name__)

T = TypeVar("T")
Row = tuple[object, ...]
Rows = list[Row]


@dataclass(frozen=True)
class SavedGame:
    """What the saved-games list shows about one game, read from its summary row."""

    id: str
    updated: datetime
    players: tuple[str, ...]
    actions: int
    winners: tuple[str, ...]
    # Set when a saved file could not be read as a game; the file is left untouched.
    problem: str | None = None
    levels: tuple[int, ...] = ()

    @property
    def title(self) -> str:
        """A short human title: the players' names."""
        return ", ".join(self.players) if self.players else self.id

    @classmethod
    def of_summary(cls, row: Row) -> SavedGame:
        """A game's summary row (`Reader.summaries`)."""
        game_id, updated, players, revision, winners, levels = row
        return cls(
            id=str(game_id),
            updated=datetime.fromtimestamp(float(str(updated)), tz=UTC),
            players=tuple(str(name) for name in _json_list(players)),
            actions=int(str(revision)),
            winners=tuple(str(name) for name in _json_list(winners)),
            levels=tuple(level for level in _json_list(levels) if isinstance(level, int)),
        )

    @classmethod
    def not_taken_in(cls, stem: str, mtime: object, problem: str) -> SavedGame:
        """A game log in the games folder that could not be taken in, with its problem."""
        return cls(stem, datetime.fromtimestamp(float(str(mtime)), tz=UTC), (), 0, (), problem)


def _json_list(text: object) -> list[object]:
    """A summary's JSON list; a damaged one shows as empty rather than stopping the list."""
    try:
        value = json.loads(str(text))
    except (ValueError, RecursionError):
        return []
    return value if isinstance(value, list) else []


class Reader:
    """The read side of a store: `database` (where saves go) and, while that is a
    temporary one, the user's database at `home` read-only (`source`)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        source: sqlite3.Connection | None,
        database: Path,
        home: Path,
    ) -> None:
        self.conn = conn
        self.source = source
        self.database = database
        self.home = home
        self._lock = threading.Lock()
        # Set on the writer thread when the write-ahead log was lost.
        self._stale = False

    def stale(self) -> None:
        """The write-ahead log was lost (told on the writer thread): the connection is
        opened again before its next read, for it still reads the old log."""
        self._stale = True

    def switch(self, conn: sqlite3.Connection, database: Path) -> None:
        """Read `database` through `conn` from now on (the user's database, again)."""
        with self._lock:
            self.close_all()
            self.conn, self.source, self.database = conn, None, database

    def connections(self) -> list[sqlite3.Connection]:
        return [conn for conn in (self.conn, self.source) if conn is not None]

    def close_all(self) -> None:
        close_all(self.connections())

    def read(self, conn: sqlite3.Connection | None, run: Callable[[sqlite3.Connection], T]) -> T:
        """`run(conn)` under the read lock (`conn` None: the store's own database), with
        every SQLite error turned into the store's own, saying what to do."""
        with self._lock:
            if self._stale:
                self._reopen()
            target = self.conn if conn is None else conn
            try:
                return run(target)
            except sqlite3.Error as exc:
                raise self._error(target, exc) from exc

    def one(
        self, sql: str, params: tuple[object, ...], conn: sqlite3.Connection | None = None
    ) -> Row | None:
        row: Row | None = self.read(conn, lambda c: c.execute(sql, params).fetchone())
        return row

    def all(
        self, sql: str, params: tuple[object, ...], conn: sqlite3.Connection | None = None
    ) -> Rows:
        rows: Rows = self.read(conn, lambda c: c.execute(sql, params).fetchall())
        return rows

    def holding(self, game_id: str, query: str) -> tuple[sqlite3.Connection, Row | None]:
        """The connection holding that game (the store's own first, then the user's
        read-only one) and what `query` (one parameter: the id) found there."""
        row = self.one(query, (game_id,))
        source = self.source
        if row is not None or source is None:
            return self.conn, row
        found = self.one(query, (game_id,), source)
        return (source, found) if found is not None else (self.conn, None)

    def summaries(self, limit: int | None) -> Rows:
        """The games' summary rows, the one played last first; the store's own, then the
        user's read-only database's (those it does not hold itself)."""
        query = (
            "SELECT id, updated, players, revision, winners, levels FROM games "
            "ORDER BY played DESC, updated DESC LIMIT ?"
        )
        params = (-1 if limit is None else limit,)
        rows = self.all(query, params)
        if self.source is None:
            return rows
        own = {row[0] for row in rows}
        try:
            theirs = self.all(query, params, self.source)
        except StoreError:  # one of an earlier schema, with no order of play
            try:
                theirs = self.all(query.replace("played DESC, ", ""), params, self.source)
            except StoreError as exc:  # what can be read is shown
                log.warning("the read-only saved games cannot be listed: %s", exc)
                theirs = []
        merged = rows + [row for row in theirs if row[0] not in own]
        return merged if limit is None else merged[:limit]

    def cover_of(self, game_id: str) -> str | None:
        """The cover the database holds for that game (None: none, or another game's)."""
        row = self.one("SELECT value FROM meta WHERE key = ?", (COVER_KEY,))
        if row is None:
            return None
        try:
            record = json.loads(str(row[0]))
        except (ValueError, RecursionError):
            return None
        if not isinstance(record, dict) or record.get("game") != game_id:
            return None
        cover = record.get("cover")
        return cover if isinstance(cover, str) else None

    def bodies(self, conn: sqlite3.Connection, game_id: str) -> list[str]:
        """A game's action texts from its first on, up to the first one lost or not
        readable as text (its bytes are read raw, so one bad byte stops the log there and
        does not stop the game from opening)."""
        rows = self.all(
            "SELECT number, CAST(body AS BLOB) FROM actions WHERE game_id = ? ORDER BY number",
            (game_id,),
            conn,
        )
        bodies: list[str] = []
        for number, raw in rows:
            if number != len(bodies) + 1 or not isinstance(raw, bytes):
                break
            try:
                bodies.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                break
        return bodies

    def verified(
        self, conn: sqlite3.Connection, game_id: str, bodies: list[str], checkpoint: Row | None
    ) -> tuple[dict[int, str], int]:
        """Check the rows read against the chained fingerprint written with the last of
        them, so a damaged byte inside an action (which SQLite cannot see) is found, not
        played. Returns the fingerprints at the end and at the checkpoint's revision, and
        how many actions are intact (all of them, unless one was damaged)."""
        at = checkpoint[0] if checkpoint is not None and isinstance(checkpoint[0], int) else 0
        at = min(max(at, 0), len(bodies))
        prefix = log_digest(bodies[:at])
        whole = log_digest(bodies[at:], start=prefix)
        if not bodies:
            return {0: whole}, 0
        query = "SELECT chain FROM actions WHERE game_id = ? AND number = ?"
        row = self.one(query, (game_id, len(bodies)), conn)
        if row is not None and row[0] == whole:
            return {at: prefix, len(bodies): whole}, len(bodies)
        stored = self.all(
            "SELECT chain FROM actions WHERE game_id = ? ORDER BY number", (game_id,), conn
        )
        intact, chain = 0, ""
        for body, (written,) in zip(bodies, stored, strict=False):
            chain = log_digest([body], start=chain)
            if chain != written:
                break
            intact += 1
        return {}, intact

    def _error(self, conn: sqlite3.Connection, exc: sqlite3.Error) -> StoreError:
        error = store_error(self.database if conn is self.conn else self.home, exc)
        if isinstance(error, DamagedDatabaseError):
            return DamagedDatabaseError(
                f"{error}; it is set aside at the next start, and Saved games can then "
                "recover what it still holds"
            )
        return error

    def _reopen(self) -> None:
        self._stale = False
        try:
            fresh = connect(self.database)
        except StoreError as exc:
            log.warning("the saved games cannot be read again: %s", exc)
            return
        self.conn.close()
        self.conn = fresh


def close_all(connections: list[sqlite3.Connection]) -> None:
    """Close every connection given, whatever state it is in."""
    for conn in connections:
        with contextlib.suppress(sqlite3.Error):
            conn.close()
