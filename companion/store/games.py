"""Saved games in one SQLite database: each action one appended row, a summary per game,
checkpoints for a quick resume; the JSON game log is the export and import format.

A save writes only what changed since the last one (usually one action row and the
game's summary row, in one transaction), so it costs the same at action 10 and
10,000. `save_soon` queues it for the writer thread and returns at once (the app's
path after a tap); `save` waits until it is on disk. Whoever must not act before a
change is durable (a counter's button press is acknowledged only then) awaits
`wait_durable(game_id, game.sequence)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import re
import secrets
import sqlite3
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

import companion.core as core_package
from companion.core import Game, GameSetup, GameState
from companion.core.actions import ACTION_ADAPTER, Action
from companion.core.errors import validation_error_line
from companion.core.game import (
    CHECKPOINT_INTERVAL,
    GameLogError,
    action_text,
    collector_paused,
    log_digest,
)
from companion.core.listeners import Listeners
from companion.core.log_versions import (
    LOG_VERSION,
    READABLE_VERSIONS,
    upgrade_actions,
    upgrade_setup,
)
from companion.store.cover import COVER_KEY, LAST_GAME_KEY, cover_record
from companion.store.database import DATABASE_FILE, NewerDatabaseError, connect
from companion.store.files import StoreError, atomic_write_text, data_dir
from companion.store.writer import Job, Writer

log = logging.getLogger(__name__)

GAMES_DIR = "games"
LAST_GAME_FILE = "last-game"
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$")
# A checkpoint of the state is saved every this many actions, so a resume folds at most
# this many (a multiple of the in-memory interval, so it also serves undo at once).
SAVED_CHECKPOINT_INTERVAL = 8 * CHECKPOINT_INTERVAL
# How long a blocking `save` waits for the writer before reporting a problem (s).
SAVE_TIMEOUT_S = 30.0
_MARKER_IMPORTED_KEY = "last_game_file_imported"


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


class _Journal:
    """What of one open `Game` is already in the database, followed through its changes."""

    def __init__(self, game: Game, written: int, checkpoint: int, exists: bool) -> None:
        self.game = game
        # Recorded actions 1..written are in the database as they are in the game.
        self.written = written
        # The newest checkpoint revision known to be saved and still valid.
        self.checkpoint = checkpoint
        self.exists = exists
        self.stop = game.record_changes.add(self._changed)

    def _changed(self, first: int) -> None:
        self.written = min(self.written, first)
        self.checkpoint = min(self.checkpoint, first - first % SAVED_CHECKPOINT_INTERVAL)


@dataclass
class _Change:
    """One save of one game, built on the caller's thread, written by the writer."""

    game_id: str
    sequence: int
    setup: str | None  # set when the game's row is (re)created
    first: int  # rows after this number are replaced by `rows`
    rows: list[str]
    revision: int
    recorded: int
    players: str
    levels: str
    winners: str
    when: float
    checkpoint: GameState | None
    reset_checkpoints: bool
    mark_last: bool
    cover: str | None  # the game to resume's cover (see `companion.store.cover`)


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
        self._writer = Writer(self.database, self._committed, self._failed)
        self._journals: dict[str, _Journal] = {}
        # Writer-thread only: the chained fingerprint of each game's last written row.
        self._chains: dict[str, tuple[int, str]] = {}
        self._state_lock = threading.Lock()
        self._durable: dict[str, int] = {}
        self._waiters: list[tuple[str, int, asyncio.Future[None]]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._marked: str | None = None
        # Told (game id, sequence) once the change numbered `sequence` is on disk; called
        # on the asyncio loop the saves came from, or on the writer thread without one.
        self.durable_listeners: Listeners[[str, int]] = Listeners()
        # Told (game id, message) when a save could not be written.
        self.problem_listeners: Listeners[[str, str]] = Listeners()
        # Makes the cover of the game to resume from it (see `companion.store.cover`);
        # called by `save` on the caller's thread, with the rest of the snapshot, so it
        # sees the game as saved. None: no covers.
        self.cover: Callable[[Game], str] | None = None
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
        _check_id(game_id)
        return self.folder / f"{game_id}.json"

    # -- saving ------------------------------------------------------------------------
    def save_soon(self, game_id: str, game: Game) -> int:
        """Queue what changed in `game` for writing and return at once.

        Returns the game's `sequence` this save covers: `wait_durable(game_id, it)`
        finishes once it is on disk. Costs one action's JSON, not the whole log.
        """
        self._remember_loop()
        change = self._change(game_id, game)
        self._writer.submit(Job(lambda conn: self._write(conn, change), tag=change))
        return change.sequence

    def save(self, game_id: str, game: Game) -> None:
        """Write what changed in `game` and return once it is on disk (and mark it as the
        game to resume). Raises StoreError when it cannot be written."""
        change = self._change(game_id, game)
        job = self._writer.submit(Job(lambda conn: self._write(conn, change), tag=change))
        job.wait(SAVE_TIMEOUT_S)

    def flush(self, timeout: float | None = SAVE_TIMEOUT_S) -> None:
        """Wait until every queued save is written (or has failed)."""
        self._writer.wait_idle(timeout)

    def is_durable(self, game_id: str, sequence: int) -> bool:
        """Whether the change numbered `sequence` of that game is on disk."""
        with self._state_lock:
            return self._durable.get(game_id, -1) >= sequence

    async def wait_durable(self, game_id: str, sequence: int) -> None:
        """Finish once the change numbered `sequence` (a `Game.sequence`) is on disk.

        Raises StoreError when the save carrying it failed. Only changes handed to
        `save_soon`/`save` become durable; waiting for another one waits until one is.
        """
        loop = asyncio.get_running_loop()
        self._loop = loop
        with self._state_lock:
            if self._durable.get(game_id, -1) >= sequence:
                return
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((game_id, sequence, future))
        await future

    def close(self) -> None:
        """Write what is queued, stop the writer and close the database."""
        self._writer.close()
        for journal in self._journals.values():
            journal.stop()
        self._journals.clear()
        with self._read_lock:
            self._read_conn.close()

    # -- loading and listing -------------------------------------------------------------
    def load(self, game_id: str) -> Game:
        """Read a saved game, resuming from its newest checkpoint the log agrees with.

        A damaged game raises StoreError naming the file and the cause.
        """
        _check_id(game_id)
        self.flush()
        row = self._query_one(
            "SELECT setup, revision, recorded, log_version FROM games WHERE id = ?", (game_id,)
        )
        if row is None:
            self._import_legacy(only=self.path_of(game_id))
            problem = self._legacy_problem(game_id)
            if problem is not None:
                raise StoreError(problem)
            row = self._query_one(
                "SELECT setup, revision, recorded, log_version FROM games WHERE id = ?",
                (game_id,),
            )
            if row is None:
                raise StoreError(f"{self.path_of(game_id)}: no such saved game")
        setup_text, revision, recorded, version = row
        where = f"{self.database} (game {game_id})"
        with collector_paused():
            bodies = [
                body
                for (body,) in self._query_all(
                    "SELECT body FROM actions WHERE game_id = ? ORDER BY number", (game_id,)
                )
            ]
            if len(bodies) != recorded:
                raise StoreError(f"{where}: {recorded} actions expected, {len(bodies)} found")
            try:
                raw_setup = json.loads(setup_text)  # type: ignore[arg-type]
                setup = GameSetup.model_validate(upgrade_setup(version, raw_setup))  # type: ignore[arg-type]
            except (ValidationError, ValueError) as exc:
                line = validation_error_line(exc) if isinstance(exc, ValidationError) else exc
                raise StoreError(f"{where}: bad setup: {line}") from None
            if version not in READABLE_VERSIONS:
                raise StoreError(
                    f"{where}: written in game-log version {version}, which this version "
                    f"of the companion cannot read"
                )
            try:
                if version == LOG_VERSION:
                    actions = _log_adapter().validate_json("[" + ",".join(bodies) + "]")
                else:  # written by an earlier version: upgraded, then written anew below
                    raws = upgrade_actions(version, [json.loads(body) for body in bodies])
                    actions = [ACTION_ADAPTER.validate_python(raw) for raw in raws]
                    bodies = [action_text(action) for action in actions]
            except ValidationError as exc:
                raise StoreError(f"{where}: {_malformed(exc)}") from None
            checkpoint = self._trusted_checkpoint(game_id, revision, bodies)
            try:
                game = Game.resume(setup, actions, revision, checkpoint)
            except GameLogError as exc:
                raise StoreError(f"{where}: not a valid game log: {exc}") from exc
        trusted = checkpoint is not None and game.resumed_from == checkpoint.revision
        current = version == LOG_VERSION
        self._follow(
            game_id,
            game,
            written=game.recorded if current else 0,
            exists=True,
            checkpoint=checkpoint.revision if trusted and checkpoint is not None else 0,
        )
        if (
            not current
            or (not trusted and self._has_checkpoints(game_id, revision))
            or game.recorded != recorded
        ):
            # The log is the truth: a checkpoint that disagrees with it is replaced now,
            # undone actions that no longer fold are dropped from the database too, and a
            # log of an earlier version is written anew in today's.
            change = self._change(game_id, game, reset_checkpoints=True, mark=False)
            self._writer.submit(Job(lambda conn: self._write(conn, change), tag=change))
        return game

    def count(self) -> int:
        """How many games are saved (JSON saves that could not be taken in not counted)."""
        self.flush()
        row = self._query_one("SELECT count(*) FROM games", ())
        return int(row[0]) if row is not None else 0

    def list(self, limit: int | None = None) -> list[SavedGame]:
        """The saved games, newest first (the newest `limit` only, if given), from their
        summaries, in one query: no game is opened. JSON saves that could not be taken
        in are listed too, with their problem."""
        self._import_legacy()
        self.flush()
        found = [
            SavedGame(
                id=game_id,
                updated=datetime.fromtimestamp(updated, tz=UTC),
                players=tuple(json.loads(players)),
                actions=revision,
                winners=tuple(json.loads(winners)),
                levels=tuple(json.loads(levels)),
            )
            for game_id, updated, players, revision, winners, levels in self._query_all(
                "SELECT id, updated, players, revision, winners, levels FROM games "
                "ORDER BY updated DESC LIMIT ?",
                (-1 if limit is None else limit,),
            )
        ]
        damaged = [
            SavedGame(Path(file).stem, datetime.fromtimestamp(mtime, tz=UTC), (), 0, (), problem)
            for file, mtime, problem in self._query_all(
                "SELECT file, mtime, problem FROM imported WHERE problem IS NOT NULL", ()
            )
            if (self.folder / file).exists()
        ]
        listed = sorted(found + damaged, key=lambda saved: saved.updated, reverse=True)
        return listed if limit is None else listed[:limit]

    def delete(self, game_id: str) -> None:
        """Remove a saved game (forgetting it as the last game too)."""
        _check_id(game_id)
        journal = self._journals.pop(game_id, None)
        if journal is not None:
            journal.stop()

        def remove(conn: sqlite3.Connection) -> None:
            for table, column in (("actions", "game_id"), ("checkpoints", "game_id")):
                conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
            conn.execute("DELETE FROM meta WHERE key = ? AND value = ?", (LAST_GAME_KEY, game_id))
            self._chains.pop(game_id, None)

        self._writer.submit(Job(remove)).wait(SAVE_TIMEOUT_S)
        if self._marked == game_id:
            self._marked = None
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
        game_id = row[0]
        exists = self._query_one("SELECT 1 FROM games WHERE id = ?", (game_id,))
        if exists is None and self._legacy_problem(game_id) is None:
            return None
        return game_id

    @last_id.setter
    def last_id(self, game_id: str | None) -> None:
        if game_id is not None:
            _check_id(game_id)

        def mark(conn: sqlite3.Connection) -> None:
            if game_id is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (LAST_GAME_KEY,))
            else:
                _set_meta(conn, LAST_GAME_KEY, game_id)

        self._writer.submit(Job(mark)).wait(SAVE_TIMEOUT_S)
        self._marked = game_id

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
        game = _read_json(Path(src))
        game_id = self.new_id()
        self._write_whole(game_id, game, mark=False).wait(SAVE_TIMEOUT_S)
        return game_id

    # -- internals: building and writing changes ----------------------------------------
    def _follow(
        self, game_id: str, game: Game, written: int, exists: bool, checkpoint: int
    ) -> _Journal:
        old = self._journals.get(game_id)
        if old is not None:
            old.stop()
        journal = _Journal(game, written, checkpoint, exists)
        self._journals[game_id] = journal
        return journal

    def _change(
        self, game_id: str, game: Game, reset_checkpoints: bool = False, mark: bool = True
    ) -> _Change:
        _check_id(game_id)
        journal = self._journals.get(game_id)
        if journal is None or journal.game is not game:
            # Another game object under this id (or a first save): write it whole.
            journal = self._follow(game_id, game, written=0, exists=False, checkpoint=0)
            reset_checkpoints = True
        first = journal.written
        rows = [action_text(action) for action in game.recorded_actions(first)]
        state = game.state
        revision = game.revision
        due = revision - revision % SAVED_CHECKPOINT_INTERVAL
        checkpoint = None
        if due > 0 and (due > journal.checkpoint or reset_checkpoints):
            checkpoint = game.state_at(due)
            journal.checkpoint = due
        names = [player.name for player in state.players]
        change = _Change(
            game_id=game_id,
            sequence=game.sequence,
            setup=None if journal.exists else game.setup.model_dump_json(),
            first=first,
            rows=rows,
            revision=revision,
            recorded=game.recorded,
            players=json.dumps(names, ensure_ascii=False),
            levels=json.dumps([player.level for player in state.players]),
            winners=json.dumps([names[i] for i in state.winners], ensure_ascii=False),
            when=time.time(),
            checkpoint=checkpoint,
            reset_checkpoints=reset_checkpoints,
            mark_last=mark and self._marked != game_id,
            cover=self._cover_of(game) if mark else None,
        )
        journal.written = game.recorded
        journal.exists = True
        if change.mark_last:
            self._marked = game_id
        return change

    def _write(self, conn: sqlite3.Connection, change: _Change) -> None:
        """Runs on the writer thread, inside a transaction."""
        game_id = change.game_id
        if change.setup is not None:
            conn.execute(
                "INSERT INTO games (id, setup, log_version, revision, recorded, players, "
                "levels, winners, created, updated) VALUES (?, ?, ?, 0, 0, '[]', '[]', '[]', ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET setup = excluded.setup",
                (game_id, change.setup, LOG_VERSION, change.when, change.when),
            )
        conn.execute(
            "DELETE FROM actions WHERE game_id = ? AND number > ?", (game_id, change.first)
        )
        if change.reset_checkpoints:
            conn.execute("DELETE FROM checkpoints WHERE game_id = ?", (game_id,))
        else:
            conn.execute(
                "DELETE FROM checkpoints WHERE game_id = ? AND revision > ?",
                (game_id, change.first),
            )
        chain = self._chain_at(conn, game_id, change.first)
        number = change.first
        rows = []
        for body in change.rows:
            number += 1
            chain = log_digest([body], start=chain)
            rows.append((game_id, number, body, chain))
        conn.executemany(
            "INSERT INTO actions (game_id, number, body, chain) VALUES (?, ?, ?, ?)", rows
        )
        self._chains[game_id] = (number, chain)
        updated = conn.execute(
            "UPDATE games SET revision = ?, recorded = ?, players = ?, levels = ?, "
            "winners = ?, updated = ?, log_version = ? WHERE id = ?",
            (
                change.revision,
                change.recorded,
                change.players,
                change.levels,
                change.winners,
                change.when,
                LOG_VERSION,
                game_id,
            ),
        )
        if updated.rowcount != 1:
            raise StoreError(f"{self.database}: game {game_id} is not in the database")
        if change.checkpoint is not None:
            at = change.checkpoint.revision
            digest = self._chain_at(conn, game_id, at)
            conn.execute(
                "INSERT OR REPLACE INTO checkpoints (game_id, revision, digest, engine, state) "
                "VALUES (?, ?, ?, ?, ?)",
                (game_id, at, digest, engine_fingerprint(), change.checkpoint.model_dump_json()),
            )
        if change.mark_last:
            _set_meta(conn, LAST_GAME_KEY, game_id)
        if change.cover is not None:
            _set_meta(conn, COVER_KEY, cover_record(game_id, change.cover))

    def _cover_of(self, game: Game) -> str | None:
        if self.cover is None:
            return None
        try:
            return self.cover(game)
        except Exception:  # a cover is a nicety: it never stands in the way of a save
            log.exception("the cover of a saved game could not be made")
            return None

    def _chain_at(self, conn: sqlite3.Connection, game_id: str, number: int) -> str:
        if number == 0:
            return ""
        cached = self._chains.get(game_id)
        if cached is not None and cached[0] == number:
            return cached[1]
        row = conn.execute(
            "SELECT chain FROM actions WHERE game_id = ? AND number = ?", (game_id, number)
        ).fetchone()
        if row is None:
            raise StoreError(f"{self.database}: game {game_id} has no action {number}")
        return row[0]

    def _write_whole(
        self,
        game_id: str,
        game: Game,
        mark: bool,
        mtime: float | None = None,
        imported: str | None = None,
    ) -> Job:
        """Queue a game written whole under `game_id` (replacing any rows it had); the
        store does not follow that game object afterwards."""
        old = self._journals.pop(game_id, None)
        if old is not None:
            old.stop()
        change = self._change(game_id, game, reset_checkpoints=True, mark=mark)
        self._journals.pop(game_id).stop()
        if mtime is not None:  # an imported game keeps its own date
            change.when = mtime

        def run(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
            self._write(conn, change)
            if imported is not None:
                _record_import(conn, imported, change.when, game_id=game_id)

        return self._writer.submit(Job(run))

    # -- internals: durability -------------------------------------------------------------
    def _remember_loop(self) -> None:
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return

    def _committed(self, jobs: list[Job]) -> None:
        """Writer thread: note the newest durable change of each game and tell whoever waits."""
        reached: dict[str, int] = {}
        for job in jobs:
            change = job.tag
            if isinstance(change, _Change):
                reached[change.game_id] = max(reached.get(change.game_id, -1), change.sequence)
        if not reached:
            return
        with self._state_lock:
            for game_id, sequence in reached.items():
                if sequence > self._durable.get(game_id, -1):
                    self._durable[game_id] = sequence
        self._on_loop(self._announce, reached)

    def _failed(self, job: Job) -> None:
        """Writer thread: a save was rolled back."""
        change = job.tag
        if not isinstance(change, _Change):
            return
        # The cached fingerprint may be of a row that was rolled back; the next save of
        # this game finds the missing rows (see `_chain_at`) and is then written whole.
        self._chains.pop(change.game_id, None)
        self._on_loop(self._announce_failure, change.game_id, str(job.error))

    def _on_loop(self, callback: Callable[..., None], *args: object) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(callback, *args)
                return
            except RuntimeError:  # the loop closed in the meantime
                pass
        callback(*args)

    def _announce(self, reached: dict[str, int]) -> None:
        with self._state_lock:
            ready = [w for w in self._waiters if reached.get(w[0], -1) >= w[1]]
            self._waiters = [w for w in self._waiters if w not in ready]
        for _game_id, _sequence, future in ready:
            if not future.done():
                future.set_result(None)
        for game_id, sequence in reached.items():
            self.durable_listeners.emit(game_id, sequence)

    def _announce_failure(self, game_id: str, message: str) -> None:
        journal = self._journals.get(game_id)
        if journal is not None:
            # What failed is not on disk: the next save writes the game whole.
            journal.written = 0
            journal.exists = False
            journal.checkpoint = 0
        with self._state_lock:
            failed = [w for w in self._waiters if w[0] == game_id]
            self._waiters = [w for w in self._waiters if w[0] != game_id]
        for _game_id, _sequence, future in failed:
            if not future.done():
                future.set_exception(StoreError(message))
        self.problem_listeners.emit(game_id, message)

    # -- internals: reading ----------------------------------------------------------------
    def _query_one(self, sql: str, params: tuple[object, ...]) -> tuple[object, ...] | None:
        with self._read_lock:
            return self._read_conn.execute(sql, params).fetchone()

    def _query_all(self, sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
        with self._read_lock:
            return self._read_conn.execute(sql, params).fetchall()

    def _has_checkpoints(self, game_id: str, revision: int) -> bool:
        return (
            self._query_one(
                "SELECT 1 FROM checkpoints WHERE game_id = ? AND revision <= ? LIMIT 1",
                (game_id, revision),
            )
            is not None
        )

    def _trusted_checkpoint(
        self, game_id: str, revision: int, bodies: list[str]
    ) -> GameState | None:
        """The newest checkpoint at or before `revision` whose log prefix is the one we
        read (same fingerprint) and whose rules version is ours; else None."""
        row = self._query_one(
            "SELECT revision, digest, engine, state FROM checkpoints "
            "WHERE game_id = ? AND revision <= ? ORDER BY revision DESC LIMIT 1",
            (game_id, revision),
        )
        if row is None:
            return None
        at, digest, engine, state = row
        if engine != engine_fingerprint() or digest != log_digest(bodies[:at]):
            return None
        try:
            checkpoint = GameState.model_validate_json(state)
        except ValidationError:
            return None
        return checkpoint if checkpoint.revision == at else None

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
        """Take in JSON saves not taken in yet (or changed since they failed).

        Each file is written with its record of having been imported in one transaction,
        and the files themselves are left in place, so an interrupted import loses
        nothing and simply carries on at the next start.
        """
        try:
            candidates = [only] if only is not None else list(self.folder.glob("*.json"))
        except OSError:
            return
        done = {
            file: mtime for file, mtime in self._query_all("SELECT file, mtime FROM imported", ())
        }
        jobs = []
        for path in candidates:
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            if done.get(path.name) == mtime or not _ID_RE.match(path.stem):
                continue
            try:
                game = _read_json(path)
            except StoreError as exc:
                record = functools.partial(_record_import, file=path.name, mtime=mtime)
                jobs.append(self._writer.submit(Job(functools.partial(record, problem=str(exc)))))
                continue
            jobs.append(
                self._write_whole(path.stem, game, mark=False, mtime=mtime, imported=path.name)
            )
        marker = self.root / LAST_GAME_FILE
        if only is None and marker.exists():
            jobs.append(self._writer.submit(Job(lambda conn: _import_marker(conn, marker))))
        for job in jobs:
            job.wait(SAVE_TIMEOUT_S)


def _import_marker(conn: sqlite3.Connection, marker: Path) -> None:
    """The `last-game` file of earlier versions becomes the game to resume, once."""
    seen = conn.execute("SELECT 1 FROM meta WHERE key = ?", (_MARKER_IMPORTED_KEY,)).fetchone()
    if seen is not None:
        return
    try:
        game_id = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        game_id = ""
    if _ID_RE.match(game_id):
        _set_meta(conn, LAST_GAME_KEY, game_id)
    _set_meta(conn, _MARKER_IMPORTED_KEY, "1")


def _record_import(
    conn: sqlite3.Connection,
    file: str,
    mtime: float,
    game_id: str | None = None,
    problem: str | None = None,
) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO imported (file, game_id, mtime, problem) VALUES (?, ?, ?, ?)",
        (file, game_id, mtime, problem),
    )


def _set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


@functools.cache
def engine_fingerprint() -> str:
    """Which rules wrote a checkpoint: the log version and a digest of the rules engine's
    source. A checkpoint is only trusted by the very rules that computed it; after an
    update it is rebuilt from the log."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(Path(core_package.__file__).parent.rglob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return f"{LOG_VERSION}/{digest.hexdigest()}"


@functools.cache
def _log_adapter() -> TypeAdapter[list[Action]]:
    """Validates a whole stored log in one call (built on first use: it takes a moment)."""
    return TypeAdapter(list[Action])


def _check_id(game_id: str) -> None:
    if not _ID_RE.match(game_id):
        raise StoreError(f"'{game_id}' is not a valid saved-game id")


def _read_json(path: Path) -> Game:
    """A game-log file; StoreError naming the file and the cause when it is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise StoreError(f"{path}: no such saved game") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path}: cannot be read ({exc})") from exc
    try:
        return Game.from_json(text)
    except ValueError as exc:
        raise StoreError(f"{path}: not a valid game log: {_one_line(exc)}") from exc


def _malformed(exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = list(first["loc"])
    number = loc.pop(0) + 1 if loc and isinstance(loc[0], int) else "?"
    where = ".".join(str(part) for part in loc)
    return f"action {number} is malformed: {where + ': ' if where else ''}{first['msg']}"


def _one_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
