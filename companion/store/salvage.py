"""Bringing back what SQLite can still read of a saved-games database: a damaged one set
aside, or the temporary one games were kept in while the user's could not be written.

Table by table and row by row, each row read by its own key, so a damaged page costs
only the rows on it. Every game whose own row (its setup) can be read comes back, with
its actions up to the first one that cannot be read or no longer follows the rules
(the log is folded with every rule checked); a game whose row is lost is lost.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from companion.core import Game, GameSetup
from companion.core.actions import BaseAction
from companion.core.errors import RuleError
from companion.core.game import GameLogError, collector_paused, log_digest
from companion.core.log_versions import LogReadError, read_actions, readable_version, upgrade_setup
from companion.core.models import SAVED_GAME
from companion.store.database import text_of
from companion.store.opening import DAMAGED_INFIX, SIDE_FILES

log = logging.getLogger(__name__)

# Rows past a damaged one are looked for this far on before the table is taken as ended.
MAX_SKIPPED_ROWS = 10_000


@dataclass
class Found:
    """One game read back: whole, or without its last actions."""

    game_id: str
    game: Game
    updated: float
    whole: bool


@dataclass
class Salvage:
    """What a recovery brought back, by game id."""

    whole: list[str] = field(default_factory=list)
    shortened: list[str] = field(default_factory=list)
    # Games whose own row or setup could not be read.
    lost: list[str] = field(default_factory=list)
    # Games the store already held as far as the copy, or further.
    kept: list[str] = field(default_factory=list)
    # (id, new id) of games that went another way than the one the store holds under
    # that id: both are kept, the copy's under the new id.
    beside: list[tuple[str, str]] = field(default_factory=list)

    @property
    def brought_back(self) -> int:
        return len(self.whole) + len(self.shortened)


def read_games(path: Path, lost: list[str]) -> Iterator[Found]:
    """Every game that can be read from the database at `path` (read from a copy, so the
    file itself is never touched); ids of games that cannot be read are added to `lost`."""
    with tempfile.TemporaryDirectory(prefix="companion-salvage-") as folder:
        copy = Path(folder) / "games.sqlite3"
        shutil.copyfile(path, copy)
        log_file = Path(f"{path}{SIDE_FILES[0]}")
        if log_file.is_file():  # what its write-ahead log still holds comes back too
            shutil.copyfile(log_file, Path(f"{copy}{SIDE_FILES[0]}"))
        conn = sqlite3.connect(copy, isolation_level=None)
        conn.text_factory = text_of  # a damaged text is an unreadable row, not a crash
        try:
            seen: set[str] = set()
            for row in _rows(conn):
                game_id = str(row[1])
                seen.add(game_id)
                found = _game(conn, row)
                if found is None:
                    lost.append(game_id)
                else:
                    yield found
            lost.extend(sorted(_ids_with_actions(conn) - seen))
        finally:
            conn.close()


def _rows(conn: sqlite3.Connection) -> Iterator[tuple[object, ...]]:
    """The readable rows of `games`, each found by its row number."""
    query = (
        "SELECT rowid, id, setup, revision, recorded, updated, log_version FROM games "
        "WHERE rowid > ? ORDER BY rowid LIMIT 1"
    )
    last = _one(conn, "SELECT max(rowid) FROM games")
    after, skipped = 0, 0
    while skipped <= MAX_SKIPPED_ROWS:
        try:
            row = conn.execute(query, (after,)).fetchone()
        except sqlite3.Error:  # a damaged page: look past it, one row at a time
            after += 1
            skipped += 1
            if isinstance(last, int) and after >= last:
                return
            continue
        if row is None:
            return
        skipped = 0
        after = int(row[0])
        yield row


def _game(conn: sqlite3.Connection, row: tuple[object, ...]) -> Found | None:
    _rowid, game_id, setup_text, revision, recorded, updated, version = row
    try:
        raw_setup = json.loads(str(setup_text))
        setup = GameSetup.model_validate(
            upgrade_setup(readable_version(version), raw_setup), context={SAVED_GAME: True}
        )
    except ValueError:  # not JSON, an unknown version or not a setup
        return None
    if not isinstance(revision, int) or not isinstance(recorded, int):
        return None
    intact, after = _actions(conn, str(game_id), version, min(revision, recorded))
    whole = len(intact) == recorded
    with collector_paused():
        game = fold(setup, intact, min(revision, len(intact)))
        whole = whole and game.recorded == recorded
        if len(intact) == game.recorded and game.revision == game.recorded:
            # What can still be read after the damage comes back where it still follows
            # the rules; each one that does not is left out.
            for action in after:
                try:
                    game.apply(action)
                except (RuleError, ValueError):
                    continue
    when = float(updated) if isinstance(updated, int | float) else 0.0
    return Found(str(game_id), game, when, whole)


def _actions(
    conn: sqlite3.Connection, game_id: str, version: object, applied: int
) -> tuple[list[BaseAction], list[BaseAction]]:
    """A game's actions up to the first that cannot be read or whose chained fingerprint
    does not check out, and the applied ones after it that still can be read and checked
    against the fingerprint of the row before them."""
    intact: list[BaseAction] = []
    after: list[BaseAction] = []
    before: str | None = ""  # the fingerprint written with the row before (None: lost)
    broken = False
    for number in range(1, applied + 1):
        try:
            row = conn.execute(
                "SELECT CAST(body AS BLOB), chain FROM actions WHERE game_id = ? AND number = ?",
                (game_id, number),
            ).fetchone()
        except sqlite3.Error:
            row = None
        if row is None or not isinstance(row[0], bytes):
            broken, before = True, None
            continue
        written = row[1]
        try:
            body = row[0].decode("utf-8")
        except UnicodeDecodeError:  # a bad byte in its text: its fingerprint still holds
            broken, before = True, written if isinstance(written, str) else None
            continue
        # Each row is checked against the fingerprint written with the row before it;
        # the row after one that is lost cannot be, and is not brought back (a damaged
        # page can leave a text that still reads as an action, but another one).
        checks = before is not None and log_digest([body], start=before) == written
        before = written if isinstance(written, str) else None
        if not checks:
            broken = True
            continue
        try:
            actions = read_actions(version, "[" + body + "]")
        except LogReadError:
            broken = True
            continue
        (after if broken else intact).extend(actions)
    return intact, after


def fold(setup: GameSetup, actions: list[BaseAction], revision: int) -> Game:
    """The game the actions make, up to the first that no longer follows the rules (a
    longer prefix folds only if every shorter one does, so the longest is searched)."""
    try:
        return Game.resume(setup, actions, revision)
    except GameLogError:
        pass
    good, bad = 0, revision
    while bad - good > 1:
        middle = (good + bad) // 2
        try:
            Game.from_actions(setup, actions[:middle])
        except GameLogError:
            bad = middle
        else:
            good = middle
    return Game.from_actions(setup, actions[:good])


def keep_copy(conn: sqlite3.Connection, home: Path) -> Path:
    """Copy the saved games open on `conn` beside `home`, as a damaged copy set aside is
    named (so Saved games offers to recover from it), page for page: what is damaged in
    it is kept as it is. Returns the copy's path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = home.with_name(f"{home.name}{DAMAGED_INFIX}{stamp}")
    number = 1
    while kept.exists():
        number += 1
        kept = home.with_name(f"{home.name}{DAMAGED_INFIX}{stamp}-{number}")
    partial = kept.with_name(kept.name + ".partial")
    target = sqlite3.connect(partial)
    try:
        conn.backup(target)
    finally:
        target.close()
    with open(partial, "rb") as written:
        os.fsync(written.fileno())
    os.replace(partial, kept)
    return kept


def _ids_with_actions(conn: sqlite3.Connection) -> set[str]:
    try:
        return {str(game_id) for (game_id,) in conn.execute("SELECT DISTINCT game_id FROM actions")}
    except sqlite3.Error:
        return set()


def _one(conn: sqlite3.Connection, sql: str, params: tuple[object, ...] = ()) -> object:
    with contextlib.suppress(sqlite3.Error):
        row = conn.execute(sql, params).fetchone()
        return row[0] if row is not None else None
    return None
