"""Saved games in one SQLite database: each action one appended row, a summary per game,
checkpoints for a quick resume; the JSON game log is the export and import format.

`GameStore` opens the database and answers for it: loading, listing, deleting, the
game to resume, export and import. Keeping an open game saved is the `Recorder`'s
work (`GameStore.recorder`): it follows the game and writes what changed. The parts
live beside this module: `journal` (the action rows), `durability` (which change is on
disk, across threads), `checkpoints`, `imports` (JSON saves of earlier versions).
"""

from __future__ import annotations

import builtins
import contextlib
import json
import logging
import secrets
import sqlite3
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from companion.core import Game, GameSetup
from companion.core.errors import validation_error_line
from companion.core.game import GameLogError, action_text, collector_paused
from companion.core.log_versions import LOG_VERSION, LogReadError, read_actions
from companion.store import checkpoints, imports
from companion.store.cover import COVER_KEY, LAST_GAME_KEY
from companion.store.database import DATABASE_FILE, NewerDatabaseError, connect
from companion.store.durability import Durability
from companion.store.files import StoreError, atomic_write_text, data_dir
from companion.store.imports import GAMES_DIR, LAST_GAME_FILE, check_id
from companion.store.journal import Change, Journal, RowWriter, change_of, set_meta, write_cover
from companion.store.recorder import SAVE_TIMEOUT_S, Recorder, Schedule
from companion.store.writer import Job, Writer

log = logging.getLogger(__name__)

Rows = builtins.list[tuple[object, ...]]


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


@dataclass(frozen=True)
class _Loaded:
    """What a load found in the database of the game it returned, for its recorder."""

    game: weakref.ref[Game]
    sequence: int
    rows: int
    checkpoint: int
    cover: str | None


class GameStore:
    """Saved games in `<data folder>/games.sqlite3`; JSON saves of earlier versions in
    `<data folder>/games/` are taken in on first start (and kept where they are)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.root = folder if folder is not None else data_dir()
        # A folder that cannot be made or written still lets the app open (see `notice`).
        with contextlib.suppress(OSError):
            self.root.mkdir(parents=True, exist_ok=True)
        # Game logs found here (saves of earlier versions, or files put there by hand)
        # are taken in; the folder is made so the place is easy to find.
        self.folder = self.root / GAMES_DIR
        with contextlib.suppress(OSError):
            self.folder.mkdir(exist_ok=True)
        self.database = self.root / DATABASE_FILE
        # A sentence for the user when the database could not be used, else None.
        self.problem: str | None = None
        # Set when the data folder cannot hold the database (read-only, say): the games
        # are then kept in a temporary folder until the app closes, and this says so.
        self.notice: str | None = None
        self._read_conn = self._open_or_set_aside()
        # A store dropped without close() still closes its connection.
        weakref.finalize(self, self._read_conn.close)
        self._read_lock = threading.Lock()
        self.durability = Durability()
        self.durability.problem_listeners.add(self._save_failed)
        self._rows = RowWriter(self.database)
        self._writer = Writer(self.database, self._committed, self._failed)
        self._recorders: builtins.list[Recorder] = []
        self._loaded: dict[str, _Loaded] = {}
        self._import_legacy()

    def _open_or_set_aside(self) -> sqlite3.Connection:
        """Open the database; one that is not a database is kept aside, never lost, and a
        fresh one started so the app still opens (the JSON saves are taken in again).
        Where no database can be made at all, a temporary one is used (see `notice`)."""
        try:
            return connect(self.database)
        except NewerDatabaseError as exc:  # left as it is for the newer version
            return self._temporary_database(exc)
        except StoreError as exc:
            if not self.database.exists():
                return self._temporary_database(exc)
            kept = self.database.with_name(
                f"{self.database.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
            )
            try:
                for suffix in ("", "-wal", "-shm"):
                    side = Path(f"{self.database}{suffix}")
                    if side.exists():
                        side.replace(Path(f"{kept}{suffix}"))
            except OSError as cannot:  # not even renamed: left alone, as it is
                return self._temporary_database(cannot)
            self.problem = f"{exc}; it was kept as {kept.name} and a new one started"
            try:
                return connect(self.database)
            except StoreError as again:
                return self._temporary_database(again)

    def _temporary_database(self, cause: Exception) -> sqlite3.Connection:
        """Play on with a database in a temporary folder (JSON saves found in the data
        folder are still taken in, read-only) and say so in `notice`."""
        temporary = Path(tempfile.mkdtemp(prefix="companion-games-"))
        self.notice = (
            f"{self.database} cannot be used ({cause}); games are kept in {temporary} "
            "only until the app closes"
        )
        self.database = temporary / DATABASE_FILE
        return connect(self.database)

    # -- ids and paths ---------------------------------------------------------------
    def new_id(self) -> str:
        """A fresh id that sorts by creation time, e.g. `20261121-195502-3fa1`."""
        return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"

    def path_of(self, game_id: str) -> Path:
        """Where a JSON save of an earlier version with this id lives (refuses ids that
        could escape the games folder)."""
        check_id(game_id)
        return self.folder / f"{game_id}.json"

    # -- saving ------------------------------------------------------------------------
    def recorder(self, schedule: Schedule | None = None) -> Recorder:
        """A recorder that keeps the game it follows saved (see `Recorder`); `schedule`
        says when a change is written (None: at once, on the writer thread)."""
        recorder = Recorder(self, schedule)
        self._recorders.append(recorder)
        return recorder

    def save(self, game_id: str, game: Game, *, wait: bool = True) -> None:
        """Write `game` under `game_id` and mark it as the game to resume; with `wait`,
        return once it is on disk (StoreError when it cannot be written).

        A game a recorder follows is brought up to date; any other is written whole
        (whatever the id held before is replaced).
        """
        check_id(game_id)
        for recorder in self._recorders:
            if recorder.game is game and recorder.game_id == game_id:
                if wait:
                    recorder.save()
                else:
                    recorder.save_soon()
                return
        for recorder in self._recorders:
            recorder.written_elsewhere(game_id)
        job = self.submit(change_of(game_id, Journal(game), mark=True, whole=True))
        if wait:
            job.wait(SAVE_TIMEOUT_S)

    def submit(self, change: Change) -> Job:
        """Queue a change for the writer thread (see `companion.store.journal`)."""
        self.durability.remember_loop()
        return self._writer.submit(Job(lambda conn: self._rows.write(conn, change), tag=change))

    def submit_cover(self, game_id: str, cover: str) -> Job:
        """Queue the cover alone of the game to resume (its last change went without it)."""

        def run(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone():
                set_meta(conn, LAST_GAME_KEY, game_id)
                write_cover(conn, game_id, cover)

        return self._writer.submit(Job(run))

    def journal(self, game_id: str, game: Game) -> Journal:
        """What the database holds of `game` under `game_id` (for the recorder that starts
        to follow it): what the load that returned it found, else nothing yet."""
        loaded = self._loaded.pop(game_id, None)
        if loaded is not None and loaded.game() is game and loaded.sequence == game.sequence:
            return Journal(
                game,
                rows=loaded.rows,
                checkpoint=loaded.checkpoint,
                exists=True,
                sequence=game.sequence,
                cover=loaded.cover,
            )
        return Journal(game)

    def flush(self, timeout: float | None = SAVE_TIMEOUT_S) -> None:
        """Queue what every recorder has due, and wait until all is written (or failed)."""
        for recorder in self._recorders:
            recorder.save_soon()
        self._writer.wait_idle(timeout)

    def close(self) -> None:
        """Write what is due and queued, stop the writer and close the database."""
        for recorder in self._recorders:
            recorder.close()
        self._recorders.clear()
        self._writer.close()
        with self._read_lock:
            self._read_conn.close()

    # -- loading and listing -------------------------------------------------------------
    def load(self, game_id: str) -> Game:
        """Read a saved game, resuming from its newest checkpoint the log agrees with.

        A damaged game raises StoreError naming the file and the cause.
        """
        check_id(game_id)
        self.flush()
        query = "SELECT setup, revision, recorded, log_version FROM games WHERE id = ?"
        row = self._query_one(query, (game_id,))
        if row is None:
            self._import_legacy(only=self.path_of(game_id))
            problem = self._legacy_problem(game_id)
            if problem is not None:
                raise StoreError(problem)
            row = self._query_one(query, (game_id,))
            if row is None:
                raise StoreError(f"{self.path_of(game_id)}: no such saved game")
        setup_text, revision, recorded, version = row
        assert isinstance(revision, int) and isinstance(recorded, int)
        where = f"{self.database} (game {game_id})"
        with collector_paused():
            bodies = [
                str(body)
                for (body,) in self._query_all(
                    "SELECT body FROM actions WHERE game_id = ? ORDER BY number", (game_id,)
                )
            ]
            if len(bodies) != recorded:
                raise StoreError(f"{where}: {recorded} actions expected, {len(bodies)} found")
            try:
                setup = GameSetup.model_validate_json(str(setup_text))
            except ValidationError as exc:
                raise StoreError(f"{where}: bad setup: {validation_error_line(exc)}") from None
            try:
                actions = read_actions(version, "[" + ",".join(bodies) + "]")
            except LogReadError as exc:
                raise StoreError(f"{where}: {exc}") from None
            current = version == LOG_VERSION
            if not current:  # written by an earlier version: written anew below
                bodies = [action_text(action) for action in actions]
            with self._read_lock:
                found = checkpoints.newest(self._read_conn, game_id, revision)
            checkpoint = checkpoints.trusted(found, bodies)
            try:
                game = Game.resume(setup, actions, revision, checkpoint)
            except GameLogError as exc:
                raise StoreError(f"{where}: not a valid game log: {exc}") from exc
        trusted = checkpoint is not None and game.resumed_from == checkpoint.revision
        journal = Journal(
            game,
            rows=game.recorded if current else 0,
            checkpoint=checkpoint.revision if trusted and checkpoint is not None else 0,
            exists=True,
            sequence=game.sequence,
            cover=self._cover_of(game_id),
        )
        if not current or (not trusted and found is not None) or game.recorded != recorded:
            # The log is the truth: a checkpoint that disagrees with it is replaced now,
            # undone actions that no longer fold are dropped from the database too, and a
            # log of an earlier version is written anew in today's.
            self.submit(change_of(game_id, journal, mark=False, reset_checkpoints=True))
        self._loaded[game_id] = _Loaded(
            weakref.ref(game), game.sequence, journal.rows, journal.checkpoint, journal.cover
        )
        return game

    def count(self) -> int:
        """How many games are saved (JSON saves that could not be taken in not counted)."""
        self.flush()
        row = self._query_one("SELECT count(*) FROM games", ())
        return int(str(row[0])) if row is not None else 0

    def list(self, limit: int | None = None) -> builtins.list[SavedGame]:
        """The saved games, newest first (the newest `limit` only, if given), from their
        summaries, in one query: no game is opened. JSON saves that could not be taken
        in are listed too, with their problem."""
        self._import_legacy()
        self.flush()
        found = [
            SavedGame(
                id=str(game_id),
                updated=datetime.fromtimestamp(float(str(updated)), tz=UTC),
                players=tuple(json.loads(str(players))),
                actions=int(str(revision)),
                winners=tuple(json.loads(str(winners))),
                levels=tuple(json.loads(str(levels))),
            )
            for game_id, updated, players, revision, winners, levels in self._query_all(
                "SELECT id, updated, players, revision, winners, levels FROM games "
                "ORDER BY updated DESC LIMIT ?",
                (-1 if limit is None else limit,),
            )
        ]
        damaged = [
            SavedGame(
                Path(str(file)).stem,
                datetime.fromtimestamp(float(str(mtime)), tz=UTC),
                (),
                0,
                (),
                str(problem),
            )
            for file, mtime, problem in self._query_all(
                "SELECT file, mtime, problem FROM imported WHERE problem IS NOT NULL", ()
            )
            if (self.folder / str(file)).exists()
        ]
        listed = sorted(found + damaged, key=lambda saved: saved.updated, reverse=True)
        return listed if limit is None else listed[:limit]

    def delete(self, game_id: str) -> None:
        """Remove a saved game (forgetting it as the last game too)."""
        check_id(game_id)
        for recorder in self._recorders:
            recorder.deleted(game_id)
        self._loaded.pop(game_id, None)

        def remove(conn: sqlite3.Connection) -> None:
            for table in ("actions", "checkpoints"):
                conn.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
            conn.execute("DELETE FROM meta WHERE key = ? AND value = ?", (LAST_GAME_KEY, game_id))
            self._rows.forget(game_id)

        self._writer.submit(Job(remove)).wait(SAVE_TIMEOUT_S)
        self.durability.forget(game_id)
        # A JSON save it was taken in from goes too (its import stays recorded, so it
        # does not come back).
        self.path_of(game_id).unlink(missing_ok=True)

    # -- the game to resume ------------------------------------------------------------
    @property
    def last_id(self) -> str | None:
        """Id of the game to resume on start, if it is still saved (or was a JSON save
        that could not be taken in: loading it then says why)."""
        self.flush()
        row = self._query_one("SELECT value FROM meta WHERE key = ?", (LAST_GAME_KEY,))
        if row is None:
            return None
        game_id = str(row[0])
        exists = self._query_one("SELECT 1 FROM games WHERE id = ?", (game_id,))
        if exists is None and self._legacy_problem(game_id) is None:
            return None
        return game_id

    @last_id.setter
    def last_id(self, game_id: str | None) -> None:
        if game_id is not None:
            check_id(game_id)

        def mark(conn: sqlite3.Connection) -> None:
            if game_id is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (LAST_GAME_KEY,))
            else:
                set_meta(conn, LAST_GAME_KEY, game_id)

        self._writer.submit(Job(mark)).wait(SAVE_TIMEOUT_S)

    def load_last(self) -> tuple[str, Game] | None:
        """The last game and its id, or None when there is none (a damaged one raises)."""
        game_id = self.last_id
        if game_id is None:
            return None
        return game_id, self.load(game_id)

    # -- export and import -------------------------------------------------------------
    def export(self, game_id: str, dest: Path) -> Path:
        """Write a saved game's log to `dest` (a file, or a folder to put `<id>.json` in)."""
        game = self.load(game_id)
        dest = Path(dest)
        if dest.is_dir():
            dest = dest / f"{game_id}.json"
        try:
            atomic_write_text(dest, game.to_json())
        except OSError as exc:
            raise StoreError(f"{dest}: cannot be written ({exc.strerror or exc})") from exc
        return dest

    def import_file(self, src: Path) -> str:
        """Validate a game-log file and add it as a new saved game; returns its id."""
        game = imports.read_json(Path(src))
        game_id = self.new_id()
        self.submit(change_of(game_id, Journal(game), mark=False, whole=True)).wait(SAVE_TIMEOUT_S)
        return game_id

    # -- internals: told by the writer thread ------------------------------------------
    def _committed(self, jobs: builtins.list[Job]) -> None:
        reached: dict[str, int] = {}
        for job in jobs:
            change = job.tag
            if isinstance(change, Change):
                reached[change.game_id] = max(reached.get(change.game_id, -1), change.sequence)
        self.durability.committed(reached)

    def _failed(self, job: Job) -> None:
        change = job.tag
        if not isinstance(change, Change):
            return
        # The cached fingerprint may be of a row that was rolled back; what the recorder
        # counted as written is not there either: its next save writes the game whole.
        self._rows.forget(change.game_id)
        for recorder in builtins.list(self._recorders):
            recorder.written_elsewhere(change.game_id)
        self.durability.failed(change.game_id, str(job.error))

    def _save_failed(self, game_id: str, message: str) -> None:
        for recorder in builtins.list(self._recorders):
            recorder.save_failed(game_id, message)

    # -- internals: reading ----------------------------------------------------------------
    def _query_one(self, sql: str, params: tuple[object, ...]) -> tuple[object, ...] | None:
        with self._read_lock:
            row: tuple[object, ...] | None = self._read_conn.execute(sql, params).fetchone()
            return row

    def _query_all(self, sql: str, params: tuple[object, ...]) -> Rows:
        with self._read_lock:
            return self._read_conn.execute(sql, params).fetchall()

    def _cover_of(self, game_id: str) -> str | None:
        """The cover the database holds for that game (None: none, or another game's)."""
        row = self._query_one("SELECT value FROM meta WHERE key = ?", (COVER_KEY,))
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

    # -- internals: JSON saves of earlier versions ------------------------------------------
    def _legacy_problem(self, game_id: str) -> str | None:
        row = self._query_one(
            "SELECT problem FROM imported WHERE file = ? AND problem IS NOT NULL",
            (f"{game_id}.json",),
        )
        if row is None or not self.path_of(game_id).exists():
            return None
        return str(row[0])

    def _import_legacy(self, only: Path | None = None) -> None:
        """Take in JSON saves not taken in yet (or changed since they failed)."""
        done = {
            str(file): float(str(mtime))
            for file, mtime in self._query_all("SELECT file, mtime FROM imported", ())
        }
        jobs = [self._take_in(found) for found in imports.to_take_in(self.folder, done, only)]
        marker = self.root / LAST_GAME_FILE
        if only is None and marker.exists():
            jobs.append(self._writer.submit(Job(lambda conn: imports.import_marker(conn, marker))))
        for job in jobs:
            try:
                job.wait(SAVE_TIMEOUT_S)
            except StoreError as exc:  # tried again at the next start
                log.warning("a saved game could not be taken in: %s", exc)

    def _take_in(self, found: imports.Found) -> Job:
        name, mtime = found.path.name, found.mtime
        if found.game is None:
            problem = found.problem

            def note(conn: sqlite3.Connection) -> None:
                imports.record_import(conn, name, mtime, problem=problem)

            return self._writer.submit(Job(note))
        game_id = found.path.stem
        for recorder in self._recorders:
            recorder.written_elsewhere(game_id)
        # An imported game keeps its own date.
        change = change_of(game_id, Journal(found.game), mark=False, whole=True, when=mtime)

        def write(conn: sqlite3.Connection) -> None:
            self._rows.write(conn, change)
            imports.record_import(conn, name, mtime, game_id=game_id)

        return self._writer.submit(Job(write, tag=change))
