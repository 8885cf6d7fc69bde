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
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from companion.core import Game, GameSetup
from companion.core.errors import validation_error_line
from companion.core.game import GameLogError, action_text, collector_paused
from companion.core.log_versions import (
    LOG_VERSION,
    LogReadError,
    read_actions,
    readable_version,
    upgrade_setup,
)
from companion.core.models import SAVED_GAME
from companion.plumbing.errors import StoreError
from companion.plumbing.files import atomic_write_text
from companion.plumbing.listeners import Listeners
from companion.plumbing.places import data_dir
from companion.store import checkpoints, imports, merging, salvage
from companion.store.cover import LAST_GAME_KEY
from companion.store.database import (
    DATABASE_FILE,
    DamagedDatabaseError,
    check,
    connect,
    device_full,
)
from companion.store.durability import Durability
from companion.store.imports import GAMES_DIR, LAST_GAME_FILE, check_id
from companion.store.journal import Change, Journal, RowWriter, change_of, set_meta, write_cover
from companion.store.opening import damaged_copies, open_games
from companion.store.owner import Holder, Owner, claim
from companion.store.people import PeopleShelf, forget_people_without_games
from companion.store.plays import PlayedGames, played_games
from companion.store.reading import Reader, SavedGame, close_all
from companion.store.recorder import SAVE_TIMEOUT_S, Later, Recorder, Schedule
from companion.store.shelf import StatisticsShelf
from companion.store.stats import COUNT_DELETED, StoredStatistics, Summarising
from companion.store.writer import Job, Writer

log = logging.getLogger(__name__)
# How long after the games folder last changed its JSON files are looked through on
# every listing (see `GameStore._import_legacy`).
LEGACY_SETTLED_NS = 2_000_000_000

Rows = builtins.list[tuple[object, ...]]
T = TypeVar("T")

# While saves go to a temporary database, the user's is tried again this often (s).
REOPEN_EVERY_S = 15.0
# How long a listing waits for saves on their way to the disk (s).
LIST_WAIT_S = 0.1
# Meta key prefix: a damaged copy set aside was recovered (its name follows).
_RECOVERED_KEY = "recovered:"


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

    def __init__(self, folder: Path | None = None, program: str | None = None) -> None:
        self.root = folder if folder is not None else data_dir()
        # A folder that cannot be made or written still lets the app open (see `notice`).
        with contextlib.suppress(OSError):
            self.root.mkdir(parents=True, exist_ok=True)
        # One program at a time writes a data folder (see `companion.store.owner`);
        # `program` is how this one is named to another that finds the folder taken.
        self._program = program
        claimed = claim(self.root, program)
        self._owner: Owner | None = claimed if isinstance(claimed, Owner) else None
        #: Who holds the folder while another program does (None: this one, or no one).
        self.held_by: Holder | None = claimed if isinstance(claimed, Holder) else None
        # Game logs found here (saves of earlier versions, or files put there by hand)
        # are taken in; the folder is made so the place is easy to find.
        self.folder = self.root / GAMES_DIR
        with contextlib.suppress(OSError):
            self.folder.mkdir(exist_ok=True)
        # Where the user's games live; `database` is where saves go (a temporary one
        # while that cannot be written, see `companion.store.opening`).
        self.home = self.root / DATABASE_FILE
        opened = open_games(
            self.home, None if self.held_by is None else self.held_by.sentence(self.root)
        )
        self.database = opened.path
        self._reader = Reader(opened.conn, opened.source, opened.path, self.home)
        # A sentence for the first screen when the database could not be used as it is.
        self.problem = opened.problem
        # What the Saved games screen keeps saying while it holds (None: nothing).
        self.notice = opened.notice
        self._next_reopen = time.monotonic() + REOPEN_EVERY_S if opened.reopen else None
        self.durability = Durability()
        self.durability.problem_listeners.add(self._save_failed)
        self._rows = RowWriter(self.database)
        self._writer = self._new_writer()
        self._recorders: builtins.list[Recorder] = []
        self._loaded: dict[str, _Loaded] = {}
        # Every id `new_id` handed out, so none is handed out twice before it is written.
        self._issued: set[str] = set()
        # Games played here while another program owned the folder, kept beside the
        # owner's under a new id once it had gone: old id -> new.
        self._renames: dict[str, str] = {}
        #: Told (old id, new id, sentence) when the open game goes on under a new id.
        self.moved: Listeners[[str, str, str]] = Listeners()
        # Game logs being taken in: (file, id, job, how it stood to the saved game).
        self._taken_in: builtins.list[tuple[Path, str, Job, merging.Merged]] = []
        # What loads found and put right, for the player (see `news`).
        self._news: builtins.list[str] = []
        # A store dropped without close() still closes its connections and lets go of
        # the folder.
        weakref.finalize(self, close_all, self._reader.connections())
        if self._owner is not None:
            weakref.finalize(self, self._owner.release)
        # The games folder's modification time when it was last looked through.
        self._legacy_seen: int | None = None
        # Games saved before statistics were kept, being summarised (see `summarise_waiting`).
        # The statistics summaries: read, cached, and made for older games.
        self._shelf = StatisticsShelf(
            self._reader,
            lambda job: self._writer.submit(job),
            lambda: self._writer.wait_idle(SAVE_TIMEOUT_S),
        )
        #: The people who played here: listed, renamed, merged (`companion.store.people`).
        self.people = PeopleShelf(
            self._reader,
            lambda job: self._writer.submit(job),
            lambda: self.flush(timeout=LIST_WAIT_S),
            SAVE_TIMEOUT_S,
        )
        self._import_legacy()
        if self.database == self.home and device_full(self.home):
            self.problem = "; ".join(
                filter(
                    None,
                    [
                        self.problem,
                        f"the device holding {self.home} is full: free some space, or the "
                        "next changes cannot be saved",
                    ],
                )
            )
        # Damaged databases set aside (now or at an earlier start) that can be recovered.
        self.recoverable: builtins.list[Path] = self._not_recovered()
        if self.recoverable and not (self.problem and "recover" in self.problem):
            names = ", ".join(path.name for path in self.recoverable)
            said = f"damaged copies of your saved games are kept aside ({names})"
            self.problem = "; ".join(
                filter(None, [self.problem, f"{said}; Saved games can recover what they hold"])
            )

    @property
    def saves_home(self) -> bool:
        """Whether saves go to the user's saved games (not a temporary database, kept only
        until the program closes, while those cannot be written or another program owns
        them)."""
        return self.database == self.home

    def _new_writer(self) -> Writer:
        return Writer(
            self.database, self._committed, self._failed, self._reader.stale, self._game_open
        )

    def _game_open(self) -> bool:
        """True while a recorder follows a game: its writer thread then stays up."""
        return any(recorder.game is not None for recorder in builtins.list(self._recorders))

    def keep_writing(self) -> None:
        """Have the writer thread up before an open game's first change (see Writer.warm)."""
        self._writer.warm()

    # -- ids and paths ---------------------------------------------------------------
    def new_id(self) -> str:
        """A fresh id that sorts by creation time, e.g. `20261121-195502-3fa1`, and names
        no game saved, waiting to be written, or handed out before: the same second comes
        round again when a clock is set back or the hour repeats at the end of daylight
        saving, and an id taken twice would write one game over another."""
        while True:
            game_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"
            if game_id not in self._issued and not self._holds(game_id):
                self._issued.add(game_id)
                return game_id

    def _holds(self, game_id: str) -> bool:
        """Whether a saved game, or an old save waiting in the games folder, has this id."""
        if self.path_of(game_id).exists():
            return True
        try:
            _conn, row = self._reader.holding(game_id, "SELECT 1 FROM games WHERE id = ?")
        except (StoreError, sqlite3.Error):  # unreadable now: the ids handed out still count
            return False
        return row is not None

    def path_of(self, game_id: str) -> Path:
        """Where a JSON save of an earlier version with this id lives (refuses ids that
        could escape the games folder)."""
        check_id(game_id)
        return self.folder / f"{game_id}.json"

    # -- saving ------------------------------------------------------------------------
    def recorder(self, schedule: Schedule | None = None, later: Later | None = None) -> Recorder:
        """A recorder that keeps the game it follows saved (see `Recorder`): `schedule`
        says when a change is written (None: at once), `later` when a save that failed
        is tried again (None: with the next change)."""
        recorder = Recorder(self, schedule, later)
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
        self._maybe_reopen()
        # A change made before the game was kept under a new id goes there too.
        change.game_id = self._renames.get(change.game_id, change.game_id)
        rows = self._rows
        return self._writer.submit(Job(lambda conn: rows.write(conn, change), tag=change))

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
        self._shelf.stop(SAVE_TIMEOUT_S)
        for recorder in self._recorders:
            recorder.close()
        self._recorders.clear()
        self._writer.close()
        self._reader.close_all()
        if self._owner is not None:
            self._owner.release()

    # -- loading and listing -------------------------------------------------------------
    def load(self, game_id: str) -> Game:
        """Read a saved game, resuming from its newest checkpoint the log agrees with.

        A damaged game raises StoreError naming the file and the cause.
        """
        check_id(game_id)
        self.flush()
        query = "SELECT setup, revision, recorded, log_version FROM games WHERE id = ?"
        conn, row = self._reader.holding(game_id, query)
        if row is None:
            self._import_legacy(only=self.path_of(game_id))
            problem = self._legacy_problem(game_id)
            if problem is not None:
                raise StoreError(problem)
            conn, row = self._reader.holding(game_id, query)
            if row is None:
                raise StoreError(f"{self.path_of(game_id)}: no such saved game")
        setup_text, revision, recorded, version = row
        if not isinstance(revision, int) or not isinstance(recorded, int):
            raise StoreError(f"{self.database} (game {game_id}): its summary is damaged")
        here = conn is self._reader.conn
        where = f"{self.database if here else self.home} (game {game_id})"
        with collector_paused():
            bodies = self._reader.bodies(conn, game_id)
            applied: int = revision
            found = self._reader.read(conn, lambda c: checkpoints.newest(c, game_id, applied))
            digests, intact = self._reader.verified(conn, game_id, bodies, found)
            if intact < recorded:
                # A row lost, a bad byte in an action's text, or one SQLite cannot see: the
                # game opens up to its last intact action. Before anything is written over
                # it, it is set aside whole, so what can still be read after the damage is
                # offered back (Saved games, recover).
                self._damaged(where, intact, recorded, set_aside=here)
                bodies = bodies[:intact]
                revision = min(revision, intact)
            try:
                raw_setup = json.loads(str(setup_text))
                setup = GameSetup.model_validate(
                    upgrade_setup(readable_version(version), raw_setup),
                    context={SAVED_GAME: True},  # its names stay as they were taken
                )
            except LogReadError as exc:
                raise StoreError(f"{where}: {exc}") from None
            except ValueError as exc:  # not JSON, or not a setup (ValidationError)
                line = validation_error_line(exc) if isinstance(exc, ValidationError) else exc
                raise StoreError(f"{where}: bad setup: {line}") from None
            try:
                actions = read_actions(version, "[" + ",".join(bodies) + "]")
            except LogReadError as exc:
                raise StoreError(f"{where}: {exc}") from None
            current = version == LOG_VERSION
            if not current:  # written by an earlier version: written anew below
                bodies = [action_text(action) for action in actions]
            checkpoint = checkpoints.trusted(found, digests if current else None)
            try:
                game = Game.resume(setup, actions, revision, checkpoint)
            except GameLogError as exc:
                if checkpoint is not None or not actions:
                    raise StoreError(f"{where}: not a valid game log: {exc}") from exc
                # An action that no longer follows the rules: the game opens before it.
                game = salvage.fold(setup, actions, revision)
                self._damaged(where, game.recorded, recorded, set_aside=here)
        if not here:  # read from the user's database, read-only: saves go elsewhere whole
            return game
        trusted = checkpoint is not None and game.resumed_from == checkpoint.revision
        journal = Journal(
            game,
            rows=game.recorded if current else 0,
            checkpoint=checkpoint.revision if trusted and checkpoint is not None else 0,
            exists=True,
            sequence=game.sequence,
            cover=self._reader.cover_of(game_id),
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

    def _damaged(self, where: str, intact: int, recorded: int, *, set_aside: bool) -> None:
        """Say that a game opened only up to action `intact` of `recorded`, having first
        kept a copy of the saved games that still holds it whole (`set_aside`)."""
        lost = recorded - intact
        said = f"{where}: damaged after action {intact} of {recorded}; it was opened up to there"
        if not set_aside:
            self._news.append(f"{said}, and the {lost} actions after it are not shown")
            return
        try:
            kept = self._reader.read(None, lambda conn: salvage.keep_copy(conn, self.home))
        except (OSError, StoreError, sqlite3.Error) as exc:
            log.warning("a damaged game could not be set aside: %s", exc)
            self._news.append(
                f"{said}; a copy could not be kept ({exc}), so the {lost} actions after it are lost"
            )
            return
        if kept not in self.recoverable:
            self.recoverable.append(kept)
        self._news.append(
            f"{said}. Your saved games were copied first as {kept.name}: Saved games can "
            f"bring back what can still be read of the {lost} actions after it"
        )

    def news(self) -> builtins.list[str]:
        """What the loads since the last call found damaged and put right, in sentences
        for the player (then forgotten)."""
        news, self._news = self._news, []
        return news

    def count(self) -> int:
        """How many games are saved (JSON saves that could not be taken in not counted)."""
        self.flush()
        return len(self._reader.summaries(None))

    def list(self, limit: int | None = None) -> builtins.list[SavedGame]:
        """The saved games, the one played last first (the first `limit` only, if given),
        from their summaries, in one query: no game is opened. JSON saves that could not
        be taken in are listed too, with their problem.

        What is due is queued first, but a save on its way to a slow disk is waited for
        only a moment (the list is drawn on the app's thread): the list then shows the
        games as they were before it."""
        self._import_legacy()
        self.flush(timeout=LIST_WAIT_S)
        found = [SavedGame.of_summary(row) for row in self._reader.summaries(limit)]
        damaged = [
            SavedGame.not_taken_in(Path(str(file)).stem, mtime, str(problem))
            for file, mtime, problem in self._reader.all(
                "SELECT file, mtime, problem FROM imported WHERE problem IS NOT NULL", ()
            )
            if (self.folder / str(file)).exists()
        ]
        # The game played last first (not by date: a clock can be set back); the files
        # that could not be taken in after the games, newest first.
        damaged.sort(key=lambda saved: saved.updated, reverse=True)
        listed = found + damaged
        return listed if limit is None else listed[:limit]

    def delete(self, game_id: str) -> None:
        """Remove a saved game (forgetting it as the last game too)."""
        check_id(game_id)
        holder, row = self._reader.holding(game_id, "SELECT 1 FROM games WHERE id = ?")
        if row is not None and holder is not self._reader.conn:
            raise StoreError(f"{self.home} cannot be changed now, so game {game_id} stays")
        for recorder in self._recorders:
            recorder.deleted(game_id)
        self._loaded.pop(game_id, None)
        rows = self._rows

        def remove(conn: sqlite3.Connection) -> None:
            for table in ("actions", "checkpoints", "stats", "seats"):
                conn.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
            conn.execute("DELETE FROM meta WHERE key = ? AND value = ?", (LAST_GAME_KEY, game_id))
            forget_people_without_games(conn)
            conn.execute(COUNT_DELETED)
            rows.forget(game_id)

        self._writer.submit(Job(remove)).wait(SAVE_TIMEOUT_S)
        self.durability.forget(game_id)
        # A JSON save it was taken in from goes too (its import stays recorded, so it
        # does not come back).
        self.path_of(game_id).unlink(missing_ok=True)

    # -- statistics ----------------------------------------------------------------------
    def statistics(self) -> StoredStatistics:
        """Every saved game's statistics summary (see `StatisticsShelf.read`); saves on
        their way are waited for only a moment."""
        self.flush(timeout=LIST_WAIT_S)
        return self._shelf.read()

    def read_statistics_ahead(self) -> None:
        """Read every game's statistics summary on a worker thread now, so that opening
        the statistics later reads only what changed since."""
        self._shelf.read_ahead()

    def summarise_waiting(self) -> Summarising:
        """Summarise, once, on a worker thread, the games saved before statistics were
        kept (or by an older way of making them); returns how far it has got."""
        return self._shelf.summarise_waiting()

    def played(self) -> PlayedGames:
        """Every summarised game as a play, with the times it was first and last saved,
        the one started first first (see `companion.store.plays`)."""
        stored = self.statistics()
        return played_games(self._reader, self._shelf.by_game(), stored.waiting, stored.unreadable)

    # -- the game to resume ------------------------------------------------------------
    @property
    def last_id(self) -> str | None:
        """Id of the game to resume on start, if it is still saved (or was a JSON save
        that could not be taken in: loading it then says why)."""
        self.flush()
        query = "SELECT value FROM meta WHERE key = ?"
        row = self._reader.one(query, (LAST_GAME_KEY,))
        if row is None and self._reader.source is not None:
            row = self._reader.one(query, (LAST_GAME_KEY,), self._reader.source)
        if row is None:
            return None
        game_id = str(row[0])
        _conn, exists = self._reader.holding(game_id, "SELECT 1 FROM games WHERE id = ?")
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

    # -- recovering ---------------------------------------------------------------------
    def recover(self, path: Path | None = None) -> salvage.Salvage:
        """Bring back what SQLite can still read of a damaged database set aside (the
        oldest one offered in `recoverable` when None). A game the store already holds
        as far or further is kept as it is. The copy itself is left where it is."""
        if path is None:
            if not self.recoverable:
                raise StoreError("there is no damaged copy of the saved games to recover")
            path = self.recoverable[0]
        report = self._copy_games(path)
        name = path.name

        def done(conn: sqlite3.Connection) -> None:
            set_meta(conn, _RECOVERED_KEY + name, str(time.time()))

        self._writer.submit(Job(done)).wait(SAVE_TIMEOUT_S)
        self.recoverable = [kept for kept in self.recoverable if kept != path]
        return report

    def _copy_games(self, path: Path) -> salvage.Salvage:
        """Write every game that can be read from the database at `path` into this store,
        weighed against the game saved under its id (see `companion.store.merging`): an
        older state of a saved game is passed over, one that went another way is kept
        beside it under a new id."""
        report = salvage.Salvage()
        waiting: builtins.list[tuple[salvage.Found, Job, merging.Merged]] = []
        try:
            for found in salvage.read_games(path, report.lost):
                job, merged = self._merge(
                    found.game_id, found.game, when=found.updated, pass_older=True
                )
                waiting.append((found, job, merged))
        except OSError as exc:
            raise StoreError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
        for found, job, merged in waiting:
            job.wait(SAVE_TIMEOUT_S)
            if merged.written_as is None:
                report.kept.append(found.game_id)
                continue
            if merged.written_as != found.game_id:
                report.beside.append((found.game_id, merged.written_as))
            (report.whole if found.whole else report.shortened).append(merged.written_as)
        return report

    def _merge(
        self,
        game_id: str,
        game: Game,
        *,
        when: float | None,
        pass_older: bool,
        then: Callable[[sqlite3.Connection, str | None], None] | None = None,
    ) -> tuple[Job, merging.Merged]:
        """Queue `game`, come from elsewhere, to be written under `game_id` unless that
        would replace a game saved further along or gone another way: it is then kept
        beside it under a new id (an older state of it is passed over with `pass_older`).
        `then(conn, written_as)` runs in the same transaction."""
        for recorder in self._recorders:
            recorder.written_elsewhere(game_id)
        run, merged = merging.merge(
            self._rows, game_id, game, when=when, pass_older=pass_older, then=then
        )
        return self._writer.submit(Job(run)), merged

    def _not_recovered(self) -> builtins.list[Path]:
        done = {
            str(key).removeprefix(_RECOVERED_KEY)
            for (key,) in self._reader.all(
                "SELECT key FROM meta WHERE key >= ? AND key < ?",
                (_RECOVERED_KEY, _RECOVERED_KEY[:-1] + chr(ord(_RECOVERED_KEY[-1]) + 1)),
            )
        }
        return [path for path in damaged_copies(self.root) if path.name not in done]

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

    # -- internals: the user's database, again ------------------------------------------
    def _maybe_reopen(self) -> None:
        """While saves go to a temporary database, try the user's again now and then;
        once it opens, the games played meanwhile are written into it."""
        if self._next_reopen is None or time.monotonic() < self._next_reopen:
            return
        self._next_reopen = time.monotonic() + REOPEN_EVERY_S
        if self.held_by is not None:  # another program owns the folder: not while it runs
            claimed = claim(self.root, self._program)
            if not isinstance(claimed, Owner):
                return
            self._owner, self.held_by = claimed, None
            weakref.finalize(self, claimed.release)
        try:
            conn = connect(self.home)
        except StoreError:
            return
        try:
            check(conn, self.home)
        except DamagedDatabaseError:
            conn.close()
            return
        except StoreError:
            pass
        log.info("%s can be written again", self.home)
        self._next_reopen = None
        temporary = self.database
        self._writer.close()  # what was queued is written into the temporary database
        self._reader.switch(conn, self.home)
        self.database = self.home
        self._rows = RowWriter(self.database)
        self._writer = self._new_writer()
        self.notice = None
        report = self._copy_games(temporary)
        for recorder in self._recorders:
            recorder.written_elsewhere(recorder.game_id)
        for game_id, kept_as in report.beside:
            # The game played here goes on under the id it was kept as.
            self._renames[game_id] = kept_as
            for recorder in self._recorders:
                recorder.renamed(game_id, kept_as)
            self.moved.emit(game_id, kept_as, merging.kept_beside(game_id, kept_as, "played here"))

    # -- internals: told by the writer thread ------------------------------------------
    def _committed(self, jobs: builtins.list[Job]) -> None:
        reached: dict[str, int] = {}
        for job in jobs:
            change = job.tag
            if isinstance(change, Change):
                reached[change.game_id] = max(reached.get(change.game_id, -1), change.sequence)
        for old, new in self._renames.items():
            if new in reached:  # whoever waits on the old id is told too
                reached[old] = reached[new]
        if self.database == self.home:
            self.durability.committed(reached)
            return
        # A temporary database is gone when the app closes: nothing in it is saved, and
        # whoever waits (a counter's press) is told so; the recorder keeps trying, which
        # opens the user's database again as soon as it can be written.
        for game_id in reached:
            self.durability.failed(
                game_id, f"{self.home} cannot be written now; this game is not saved"
            )

    def _failed(self, job: Job) -> None:
        change = job.tag
        if not isinstance(change, Change):
            return
        # The cached fingerprint may be of a row that was rolled back; what the recorder
        # counted as written is not there either (see `Recorder.save_failed`).
        self._rows.forget(change.game_id)
        for recorder in builtins.list(self._recorders):
            recorder.change_failed(change)
        self.durability.failed(change.game_id, str(job.error))

    def _save_failed(self, game_id: str, message: str) -> None:
        for recorder in builtins.list(self._recorders):
            recorder.save_failed(game_id, message)

    # -- internals: JSON saves of earlier versions ------------------------------------------
    def _legacy_problem(self, game_id: str) -> str | None:
        row = self._reader.one(
            "SELECT problem FROM imported WHERE file = ? AND problem IS NOT NULL",
            (f"{game_id}.json",),
        )
        if row is None or not self.path_of(game_id).exists():
            return None
        return str(row[0])

    def _import_legacy(self, only: Path | None = None) -> None:
        """Take in JSON saves not taken in yet (or changed since they failed).

        The whole folder is looked through only when it changed since the last look (its
        own modification time moves when a file is added, removed or replaced): with a
        thousand old saves beside the database, a listing would otherwise read every
        file's details each time. A file edited in place is seen at the next start.
        """
        if only is None:
            try:
                seen = self.folder.stat().st_mtime_ns
            except OSError:
                seen = None
            # A folder changed within the last moments is looked through again: a file
            # system stamps times coarsely, so a file added just after the last look
            # could leave the same stamp.
            settled = seen is not None and time.time_ns() - seen > LEGACY_SETTLED_NS
            if settled and seen == self._legacy_seen:
                return
            self._legacy_seen = seen
        done = {
            str(file): float(str(mtime))
            for file, mtime in self._reader.all("SELECT file, mtime FROM imported", ())
        }
        jobs = [self._take_in(found) for found in imports.to_take_in(self.folder, done, only)]
        self._wait_taken_in(jobs)
        if only is None:
            self._take_in_marker()

    def _take_in_marker(self) -> None:
        marker = self.root / LAST_GAME_FILE
        if marker.exists():
            self._wait_taken_in(
                [self._writer.submit(Job(lambda conn: imports.import_marker(conn, marker)))]
            )

    def _wait_taken_in(self, jobs: builtins.list[Job]) -> None:
        for job in jobs:
            try:
                job.wait(SAVE_TIMEOUT_S)
            except StoreError as exc:  # tried again at the next start
                log.warning("a saved game could not be taken in: %s", exc)
        taken_in, self._taken_in = self._taken_in, []
        for path, game_id, job, merged in taken_in:
            if job.error is None and merged.written_as not in (None, game_id):
                said = merging.kept_beside(game_id, str(merged.written_as), f"in {path}")
                log.warning("%s", said)
                self._news.append(said)

    def _take_in(self, found: imports.Found) -> Job:
        name, mtime = found.path.name, found.mtime
        if found.game is None:
            problem = found.problem

            def note(conn: sqlite3.Connection) -> None:
                imports.record_import(conn, name, mtime, problem=problem)

            return self._writer.submit(Job(note))
        game_id = found.path.stem

        def record(conn: sqlite3.Connection, written_as: str | None) -> None:
            imports.record_import(conn, name, mtime, game_id=written_as or game_id)

        # An imported game keeps its own date; it never replaces a game saved further.
        job, merged = self._merge(game_id, found.game, when=mtime, pass_older=False, then=record)
        self._taken_in.append((found.path, game_id, job, merged))
        return job
