"""The saved-games database: one SQLite file in WAL mode, its tables, and how it is opened.

Tables (schema version `SCHEMA_VERSION`, kept in SQLite's `user_version`):

* `games`: one row per game, with what the Saved games list shows (players, levels,
  winners, how many actions are applied, dates), so that list is one query, and the
  game-log version its actions are written in (older ones are upgraded on load);
  `played` counts up with every write, so the list puts the game played last first
  whatever the clock says (one set back, or the hour repeated when summer time ends);
* `actions`: one row per recorded action, in the compact JSON of the game-log format,
  with the chained fingerprint of the log up to it (`companion.core.game.log_digest`);
  rows past the game's `revision` are undone actions that can still be redone;
* `checkpoints`: the state at some revisions with the fingerprint of the log prefix it
  was taken at, so a long game resumes without folding its whole log;
* `meta`: small facts (the game to resume);
* `imported`: which JSON saves of earlier versions were taken in, so the import on
  first start is done once and can be interrupted at any point;
* `stats`: each game's statistics summary (`companion.core.statistics`), written with
  every save, and the engine that made it (`engine`), so a new one makes them again;
  `summary` is NULL for a game that could not be read;
* `people`: everyone who played here (`companion.store.people`), by name (`key`: the name
  as typed names find it), with the colour and sex they played last;
* `seats`: which person sat in each seat of each game (games saved before there were
  people are linked by their names once, in the background);
* `aliases`: the names a person had before (merged into them, or renamed from), by `key`
  as in `people`, so that a name typed later still means that person.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from companion.plumbing.errors import StoreError

DATABASE_FILE = "games.sqlite3"
SCHEMA_VERSION = 6
# How long a connection waits for another one's write lock before giving up (ms);
# writes are single-row appends, so a wait this long means something is stuck.
BUSY_TIMEOUT_MS = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    log_version INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    recorded INTEGER NOT NULL,
    players TEXT NOT NULL,
    levels TEXT NOT NULL,
    winners TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    played INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS games_by_update ON games (updated DESC);
CREATE INDEX IF NOT EXISTS games_by_play ON games (played DESC);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    body TEXT NOT NULL,
    chain TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checkpoints (
    game_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    digest TEXT NOT NULL,
    engine TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (game_id, revision)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS imported (
    file TEXT PRIMARY KEY,
    game_id TEXT,
    mtime REAL NOT NULL,
    problem TEXT
);
CREATE TABLE IF NOT EXISTS stats (
    game_id TEXT PRIMARY KEY,
    engine TEXT NOT NULL,
    summary TEXT
);
CREATE INDEX IF NOT EXISTS stats_by_engine ON stats (engine);
CREATE TABLE IF NOT EXISTS people (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    key TEXT NOT NULL UNIQUE,
    colour TEXT NOT NULL,
    sex TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    person INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS seats_by_person ON seats (person);
CREATE TABLE IF NOT EXISTS aliases (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    person INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS aliases_by_person ON aliases (person);
"""

# From schema 1: the order games were played in, first taken from their dates.
_TO_SCHEMA_2 = """
ALTER TABLE games ADD COLUMN played INTEGER NOT NULL DEFAULT 0;
UPDATE games SET played = (
    SELECT count(*) FROM games AS other
    WHERE other.updated < games.updated OR (other.updated = games.updated AND other.id <= games.id)
);
CREATE INDEX IF NOT EXISTS games_by_play ON games (played DESC);
"""

# From schema 2: the statistics summaries (the games saved before are summarised once,
# in the background: `companion.store.stats`).
_TO_SCHEMA_3 = """
CREATE TABLE IF NOT EXISTS stats (
    game_id TEXT PRIMARY KEY,
    engine TEXT NOT NULL,
    summary TEXT
);
"""
# From schema 3: the people who played here and the seats they sat in (the games saved
# before are linked by their names once, in the background: `companion.store.people`).
_TO_SCHEMA_4 = """
CREATE TABLE IF NOT EXISTS people (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    key TEXT NOT NULL UNIQUE,
    colour TEXT NOT NULL,
    sex TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    person INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS seats_by_person ON seats (person);
"""
# From schema 4: the names people had before a merge or a rename (none were kept then).
_TO_SCHEMA_5 = """
CREATE TABLE IF NOT EXISTS aliases (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    person INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS aliases_by_person ON aliases (person);
"""
# From schema 5: the summaries counted by the way they were made without reading them
# (opening the statistics asks whether any changed; a thousand summaries were read).
_TO_SCHEMA_6 = """
CREATE INDEX IF NOT EXISTS stats_by_engine ON stats (engine);
"""
# The steps from each earlier schema to this one.
_UPGRADES = {
    1: _TO_SCHEMA_2 + _TO_SCHEMA_3 + _TO_SCHEMA_4 + _TO_SCHEMA_5 + _TO_SCHEMA_6,
    2: _TO_SCHEMA_3 + _TO_SCHEMA_4 + _TO_SCHEMA_5 + _TO_SCHEMA_6,
    3: _TO_SCHEMA_4 + _TO_SCHEMA_5 + _TO_SCHEMA_6,
    4: _TO_SCHEMA_5 + _TO_SCHEMA_6,
    5: _TO_SCHEMA_6,
}


class NewerDatabaseError(StoreError):
    """The database was written by a newer version of the companion: left as it is."""


class DamagedDatabaseError(StoreError):
    """SQLite reports the database as damaged, or as no database at all."""


class UnavailableDatabaseError(StoreError):
    """The database cannot be used now for a passing reason (a full disk, a read-only
    folder, another program holding it, the device failing to read or write): it is
    left as it is and tried again later."""


# What SQLite's primary result codes mean for the player, and what to do about each.
_ADVICE = {
    sqlite3.SQLITE_FULL: "the device is full; free some space",
    sqlite3.SQLITE_READONLY: "the data folder cannot be written",
    sqlite3.SQLITE_PERM: "the data folder cannot be written",
    sqlite3.SQLITE_CANTOPEN: "the data folder cannot be written",
    sqlite3.SQLITE_BUSY: "another program is using it; close that program",
    sqlite3.SQLITE_LOCKED: "another program is using it; close that program",
    sqlite3.SQLITE_IOERR: "the device could not read or write it",
    sqlite3.SQLITE_NOMEM: "the device is short of memory",
}
_DAMAGED_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """The store's own error for an SQLite error: damaged, or unavailable for now, with
    what to do about it. Told apart by SQLite's result code, never by its words."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if code in _DAMAGED_CODES:
        return DamagedDatabaseError(f"{path}: damaged ({exc})")
    if code in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN) and device_full(path):
        code = sqlite3.SQLITE_FULL  # SQLite says "I/O error" when it cannot grow a file
    advice = _ADVICE.get(code, "it could not be used")
    return UnavailableDatabaseError(f"{path}: {advice} ({exc})")


# Less room than this on the device holding the database counts as full.
FULL_BELOW_BYTES = 256 * 1024


def device_full(path: Path) -> bool:
    """Whether the device holding `path` has (almost) no room left."""
    try:
        room = os.statvfs(path.parent)
    except (OSError, AttributeError):  # no statvfs (Windows): not known to be full
        return False
    return room.f_bavail * room.f_frsize < FULL_BELOW_BYTES


class DamagedTextError(sqlite3.DatabaseError):
    """A text value in the database is not UTF-8: its page was damaged. Raised where
    SQLite's own errors are, and told apart the same way (by its result code)."""

    sqlite_errorcode = sqlite3.SQLITE_CORRUPT


def text_of(value: bytes) -> str:
    """A text value read from the database (DamagedTextError when it is not UTF-8)."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DamagedTextError(f"a damaged text (a bad byte at offset {exc.start})") from None


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the database at `path`, ready for use from any one thread.

    WAL lets the Saved games list read while a save is being written; `synchronous=FULL`
    makes a commit durable once it returns, which is what "saved" means to the player.
    Raises NewerDatabaseError, DamagedDatabaseError or UnavailableDatabaseError (each a
    StoreError naming the file) when it is not a database this version can use now.
    """
    try:
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise store_error(path, exc) from exc
    conn.text_factory = text_of
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise NewerDatabaseError(
                f"{path}: saved by a newer version of the companion (schema {version}, "
                f"this one reads up to {SCHEMA_VERSION})"
            )
        if version < SCHEMA_VERSION:
            # One script, one transaction: a crash leaves no half-made schema.
            steps = _UPGRADES.get(version, _SCHEMA)
            conn.executescript(
                f"BEGIN IMMEDIATE;{steps}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;"
            )
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(path, exc) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def connect_read_only(path: Path) -> tuple[sqlite3.Connection, bool]:
    """Open the database at `path` for reading only, whatever its schema version; returns
    the connection and whether it could see the write-ahead log (False: only what was
    moved into the database file itself, when the folder cannot even hold the files a
    reader needs). Raises StoreError when it cannot be read at all."""
    base = path.resolve().as_uri()
    last: sqlite3.Error | None = None
    for query, sees_log in (("mode=ro", True), ("mode=ro&immutable=1", False)):
        try:
            conn = sqlite3.connect(
                f"{base}?{query}", uri=True, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            last = exc
            continue
        conn.text_factory = text_of
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            conn.close()
            last = exc
            continue
        return conn, sees_log or not _has_log(path)
    assert last is not None
    raise store_error(path, last) from last


def _has_log(path: Path) -> bool:
    try:
        return os.stat(f"{path}-wal").st_size > 0
    except OSError:
        return False


def check(conn: sqlite3.Connection, path: Path) -> None:
    """Raise DamagedDatabaseError when SQLite finds the database damaged. Reads every page
    (a few milliseconds for years of games), so damage is found at the start, not mid-game."""
    try:
        found = conn.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.Error as exc:
        raise store_error(path, exc) from exc
    if found is None or found[0] != "ok":
        raise DamagedDatabaseError(f"{path}: damaged ({found[0] if found else 'unreadable'})")


# The first four bytes of a write-ahead log SQLite wrote (big-endian; the last bit says
# which byte order its checksums use), and the size of the header of its index (`-shm`).
WAL_MAGIC = (bytes.fromhex("377f0682"), bytes.fromhex("377f0683"))
WAL_INDEX_HEADER_BYTES = 136


def wal_overwritten(path: Path) -> bool:
    """True when the write-ahead log of the database at `path` does not begin as SQLite
    begins one: emptied in place while SQLite went on writing after the hole, or written
    over. (An empty or absent log is not said to be: SQLite may leave one so.)"""
    try:
        with open(f"{path}-wal", "rb") as log_file:
            head = log_file.read(4)
    except OSError:
        return False
    return len(head) == 4 and head not in WAL_MAGIC


def forget_wal_index(path: Path) -> None:
    """Make SQLite read the write-ahead log of the database at `path` again as it is now.

    Its index (`-shm`) still lists the pages of a log emptied or written over under it; a
    checkpoint would copy what is there now (zeros, or whatever was written) over the
    database's pages. An index whose header does not check out is rebuilt from the log
    file itself, which then holds nothing SQLite can use: the database stays as its last
    checkpoint left it."""
    with contextlib.suppress(OSError):
        fd = os.open(f"{path}-shm", os.O_WRONLY)
        try:
            os.pwrite(fd, bytes(WAL_INDEX_HEADER_BYTES), 0)
        finally:
            os.close(fd)


def wal_identity(path: Path) -> tuple[int, int] | None:
    """Which file the write-ahead log of the database at `path` is (device and inode), or
    None when there is none: a log removed or replaced under an open connection changes it."""
    try:
        info = os.stat(f"{path}-wal")
    except OSError:
        return None
    return info.st_dev, info.st_ino
