"""The saved-games database: one SQLite file in WAL mode, its tables, and how it is opened.

Tables (schema version `SCHEMA_VERSION`, kept in SQLite's `user_version`):

* `games`: one row per game, with what the Saved games list shows (players, levels,
  winners, how many actions are applied, dates), so that list is one query, and the
  game-log version its actions are written in (older ones are upgraded on load);
* `actions`: one row per recorded action, in the compact JSON of the game-log format,
  with the chained fingerprint of the log up to it (`companion.core.game.log_digest`);
  rows past the game's `revision` are undone actions that can still be redone;
* `checkpoints`: the state at some revisions with the fingerprint of the log prefix it
  was taken at, so a long game resumes without folding its whole log;
* `meta`: small facts (the game to resume);
* `imported`: which JSON saves of earlier versions were taken in, so the import on
  first start is done once and can be interrupted at any point.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from companion.store.files import StoreError

DATABASE_FILE = "games.sqlite3"
SCHEMA_VERSION = 1
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
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_update ON games (updated DESC);
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
"""


class NewerDatabaseError(StoreError):
    """The database was written by a newer version of the companion: left as it is."""


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the database at `path`, ready for use from any one thread.

    WAL lets the Saved games list read while a save is being written; `synchronous=FULL`
    makes a commit durable once it returns, which is what "saved" means to the player.
    Raises StoreError naming the file when it is not a database this version can use.
    """
    try:
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot be opened ({exc})") from exc
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
            conn.executescript(
                f"BEGIN IMMEDIATE;{_SCHEMA}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;"
            )
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: not a saved-games database ({exc})") from exc
    except BaseException:
        conn.close()
        raise
    return conn
