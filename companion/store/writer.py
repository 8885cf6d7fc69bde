"""The one thread that writes the saved-games database, so a save never holds up a frame.

Writes are queued as jobs; the thread takes every job waiting, runs each inside its
own savepoint of one transaction and commits once (a burst of taps costs one disk
sync, not one each). A job that fails is rolled back alone and reported; the others
still commit. The thread starts on the first job and ends after a quiet spell, so a
store that is not writing holds no thread.

A commit is reported durable as soon as it returns (`synchronous=FULL`: the log is
synced): nothing else stands between a save and its report, so on a disk that takes
1.5 s a sync a save waiting behind the one being written is durable within two syncs,
inside a counter's patience for its press's ACK. Moving the write-ahead log into the
database file (a checkpoint) costs two more syncs, and the commit after it one more
(SQLite syncs the log's new header), so it is done once the writer has been quiet a
moment (and after many commits, and before the thread ends), never while saves wait.

What is saved then does not depend on the log surviving: a cleaner app or a sync tool
that deletes or damages it loses nothing. The log is looked at after every commit,
before the save is reported, and at each checkpoint. A log removed or replaced under
the open connection: what that connection committed is moved into the database file
from the log it still holds, and every connection is opened again. A log emptied or
written over in place cannot give back what it held: SQLite is made to forget it (the
database stays as its last checkpoint left it), and the writer writes again every job
committed since that checkpoint, then moves them into the database file at once; a job
that cannot be written again is reported failed, and its game written again by its
recorder.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from companion.plumbing.errors import StoreError
from companion.store.database import (
    connect,
    device_full,
    forget_wal_index,
    store_error,
    wal_identity,
    wal_overwritten,
)

log = logging.getLogger(__name__)

# A thread with nothing to write for this long ends (unless told to stay up: a game is
# open); the next job starts a new one.
IDLE_EXIT_S = 2.0
# Write errors a job may raise (anything else is a bug and is logged as one).
WRITE_ERRORS = (sqlite3.Error, OSError, StoreError, ValueError)
# Quiet this long after a commit, the writer looks at the log (a stat and four bytes: no
# sync), so a log deleted or damaged under it is written again before much can happen.
CHECK_QUIET_S = 0.5
# With a game open, the log is moved into the database file once the writer has been
# quiet this long (s); at once without one. A press landing in a checkpoint waits for
# its syncs: on a slow card that is seconds, so not between the presses of a turn.
CHECKPOINT_QUIET_S = 10.0
# ... and after this many jobs, or once the log is this big, even while saves keep coming.
CHECKPOINT_AFTER_JOBS = 200
CHECKPOINT_LOG_BYTES = 1024 * 1024
# Once moved, the log is cut back to this size: a log that grew while saves kept coming
# does not keep its room on a device that fills up.
LOG_KEPT_BYTES = 256 * 1024
# The header SQLite begins a write-ahead log with (a log shorter than this after a
# commit was emptied under it).
WAL_HEADER_BYTES = 32


class Job:
    """One unit of writing: `run(conn)` inside a transaction; `done` is set once it is
    committed or has failed (`error` then says why)."""

    def __init__(self, run: Callable[[sqlite3.Connection], None], tag: object = None) -> None:
        self.run = run
        # What the job is about, for whoever is told it committed or failed.
        self.tag = tag
        self.done = threading.Event()
        self.error: Exception | None = None

    def wait(self, timeout: float | None = None) -> None:
        """Block until the job is committed; raise StoreError if it failed or timed out."""
        if not self.done.wait(timeout):
            raise StoreError("the save did not finish in time")
        if self.error is not None:
            raise StoreError(str(self.error)) from self.error


class Writer:
    """Runs jobs in the order they were submitted, on one background thread."""

    def __init__(
        self,
        path: Path,
        committed: Callable[[list[Job]], None],
        failed: Callable[[Job], None],
        log_lost: Callable[[], None] = lambda: None,
        stay_up: Callable[[], bool] = lambda: False,
    ) -> None:
        self.path = path
        # Asked (on the writer thread) when it has been idle a while: True keeps it up, so
        # the next change of an open game does not wait for a thread and a connection.
        self._stay_up = stay_up
        self._committed = committed
        self._failed = failed
        # Told (on the writer thread) when the write-ahead log was removed or replaced
        # under the writer: every other connection must be opened again.
        self._log_lost = log_lost
        # Which file the write-ahead log was when the writer's connection opened it.
        self._log: tuple[int, int] | None = None
        self._cond = threading.Condition()
        self._pending: deque[Job] = deque()
        self._in_flight = 0
        # Jobs committed since the log was last moved into the database file (writer
        # thread only): written again should the log be lost.
        self._unsettled: list[Job] = []
        self._thread: threading.Thread | None = None
        self._closing = False

    def submit(self, job: Job) -> Job:
        """Queue a job; returns it (call `job.wait()` to block until it is committed)."""
        with self._cond:
            if self._closing:
                raise StoreError(f"{self.path}: the store is closed")
            self._pending.append(job)
            if self._thread is None:
                self._start()
            self._cond.notify_all()
        return job

    def warm(self) -> None:
        """Start the writer thread now if it is not running (before the first job)."""
        with self._cond:
            if self._thread is None and not self._closing:
                self._start()

    @property
    def running(self) -> bool:
        """True while the writer thread is up."""
        with self._cond:
            return self._thread is not None

    def _start(self) -> None:
        """Start the writer thread (the caller holds the condition's lock)."""
        self._thread = threading.Thread(
            target=self._run, name="companion-store-writer", daemon=True
        )
        self._thread.start()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every job submitted so far is committed or failed."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not self._pending and not self._in_flight, timeout=timeout
            )

    def close(self) -> None:
        """Finish the queued jobs, then stop the thread."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        while thread is not None:  # a thread whose connection was lost hands over to another
            thread.join()
            with self._cond:
                thread = self._thread if self._thread is not thread else None

    def _run(self) -> None:
        try:
            conn: sqlite3.Connection | None = self._connect()
        except StoreError as exc:
            self._fail_everything(exc)
            return
        try:
            # Since the last write: the log was looked at (`checked`), moved (`tried`).
            checked = tried = False
            while conn is not None:
                with self._cond:
                    if tried or not self._unsettled:
                        quiet_s = IDLE_EXIT_S
                    else:
                        quiet_s = CHECKPOINT_QUIET_S if checked else CHECK_QUIET_S
                    self._cond.wait_for(lambda: self._pending or self._closing, timeout=quiet_s)
                    batch = list(self._pending)
                    self._pending.clear()
                    self._in_flight = len(batch)
                    if not batch and (tried or not self._unsettled):
                        if not self._closing and self._stay_up():
                            continue
                        self._thread = None
                        self._cond.notify_all()
                        return
                    # Quiet: with a game open, the log is only looked at, at first (see
                    # the module's doc); moved once quiet longer, or closing, or no game.
                    settle = bool(batch) or checked or self._closing or not self._stay_up()
                try:
                    if batch:
                        checked = tried = False
                        conn = self._write(conn, batch)
                        if conn is not None and (self._checkpoint_due() or _full(batch, self.path)):
                            conn = self._settle(conn)
                    elif settle:
                        checked = tried = True
                        conn = self._settle(conn)
                    else:
                        checked = True
                        conn = self._look(conn)
                finally:
                    with self._cond:
                        self._in_flight = 0
                        self._cond.notify_all()
            with self._cond:  # the connection was lost: a new thread takes what is queued
                self._thread = None
                if self._pending:
                    self._start()
                self._cond.notify_all()
        finally:
            if conn is not None:
                conn.close()

    def _connect(self) -> sqlite3.Connection:
        conn = connect(self.path)
        try:
            # Checkpoints are the writer's to time (see the module's doc): SQLite's own
            # would run inside a commit, while a counter waits for it.
            conn.execute("PRAGMA wal_autocheckpoint = 0")
            conn.execute(f"PRAGMA journal_size_limit = {LOG_KEPT_BYTES}")
        except sqlite3.Error as exc:
            conn.close()
            raise store_error(self.path, exc) from exc
        self._log = wal_identity(self.path)
        return conn

    def _transaction(self, conn: sqlite3.Connection, batch: list[Job]) -> list[Job]:
        """Run a batch in one transaction, each job in its savepoint; returns the jobs
        committed (the others' `error` says why not)."""
        ok: list[Job] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for job in batch:
                conn.execute("SAVEPOINT job")
                try:
                    job.run(conn)
                except Exception as exc:  # one bad job must not sink the others
                    if not isinstance(exc, WRITE_ERRORS):
                        log.exception("a save job failed unexpectedly")
                    conn.execute("ROLLBACK TO job")
                    job.error = exc
                else:
                    ok.append(job)
                conn.execute("RELEASE job")
            conn.execute("COMMIT")
        except WRITE_ERRORS as exc:
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            error = store_error(self.path, exc) if isinstance(exc, sqlite3.Error) else exc
            for job in batch:
                job.error = job.error or error
            return []
        return ok

    def _write(self, conn: sqlite3.Connection, batch: list[Job]) -> sqlite3.Connection | None:
        """Write a batch in one transaction and report it; returns the connection to go
        on with (None: it was lost and could not be opened again)."""
        ok = self._transaction(conn, batch)
        after: sqlite3.Connection | None = conn
        try:
            if ok:
                self._unsettled += ok
                problem = self._log_problem()
                if problem is not None:  # before the batch is reported durable
                    after = self._lost(conn, problem, batch)
                    ok = [job for job in ok if job.error is None]
            for job in batch:
                if job.error is not None:
                    log.warning("a save failed: %s", job.error)
                    self._failed(job)
            if ok:
                self._committed(ok)
        finally:
            for job in batch:
                job.done.set()
        return after

    def _checkpoint_due(self) -> bool:
        """Whether the log is to be moved now, saves waiting or not."""
        if len(self._unsettled) >= CHECKPOINT_AFTER_JOBS:
            return True
        try:
            return os.stat(f"{self.path}-wal").st_size >= CHECKPOINT_LOG_BYTES
        except OSError:
            return False

    def _settle(self, conn: sqlite3.Connection) -> sqlite3.Connection | None:
        """Move the log into the database file; the jobs it held are then safe from
        whatever happens to the log. Returns the connection to go on with."""
        problem = self._log_problem(committed=False)
        if problem is None:
            try:
                busy, frames, moved = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as exc:  # it could not be read back whole
                problem = f"could not be read back ({exc})"
            else:
                if not busy and moved >= frames:  # else a reader holds part: next time
                    self._unsettled = []
                return conn
        return self._lost(conn, problem)

    def _look(self, conn: sqlite3.Connection) -> sqlite3.Connection | None:
        """Look at the log without syncing anything; recover what it lost."""
        problem = self._log_problem(committed=False)
        return conn if problem is None else self._lost(conn, problem)

    def _lost(
        self, conn: sqlite3.Connection, problem: str, batch: list[Job] | None = None
    ) -> sqlite3.Connection | None:
        """Recover from a log lost under `conn`; a job reported durable before (not in
        `batch`, reported by the caller) that could not be saved again is reported failed."""
        after, failed = self._recover(conn, problem)
        for job in failed:
            if batch is None or job not in batch:
                log.warning("a save was lost with the write-ahead log: %s", job.error)
                self._failed(job)
        return after

    def _log_problem(self, *, committed: bool = True) -> str | None:
        """What happened to the write-ahead log under the writer's connection (None:
        nothing). Cheap (a stat and four bytes): asked after every commit."""
        if wal_identity(self.path) != self._log:
            return "was removed or replaced"
        if wal_overwritten(self.path):
            return "was written over"
        if committed:
            try:
                size = os.stat(f"{self.path}-wal").st_size
            except OSError:
                size = 0
            if size < WAL_HEADER_BYTES:  # a commit just wrote to it
                return "was emptied"
        return None

    def _recover(
        self, conn: sqlite3.Connection, problem: str
    ) -> tuple[sqlite3.Connection | None, list[Job]]:
        """The log was lost under the connection: get what it held into the database
        file, open every connection again. Returns the connection to go on with and the
        jobs that could not be saved after all (their `error` says why)."""
        log.warning("the write-ahead log of %s %s", self.path, problem)
        unsettled, self._unsettled = self._unsettled, []
        if wal_identity(self.path) != self._log:
            # Removed or replaced: what this connection committed is only in the log file
            # it still holds open. Move all of it into the database file now.
            again: list[Job] = []
            try:
                busy, frames, moved = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if busy or moved < frames:
                    again = unsettled
            except sqlite3.Error:
                again = unsettled
        else:
            # SQLite is made to read the log again as it is now (nothing it can use): the
            # database stays as the last checkpoint left it, and what was committed since
            # is written again.
            forget_wal_index(self.path)
            again = unsettled
        conn.close()
        self._log_lost()
        try:
            fresh = self._connect()
        except StoreError as exc:  # this thread ends; the next job's thread tries again
            log.warning("the saved-games database cannot be opened again: %s", exc)
            for job in again:
                job.error = exc
            return None, again
        if not again:
            return fresh, []
        replayed = self._transaction(fresh, again)
        if replayed:
            problem_now = self._log_problem()
            try:
                if problem_now is not None:
                    raise StoreError(f"{self.path}: its write-ahead log {problem_now}")
                busy, frames, moved = fresh.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if busy or moved < frames:
                    self._unsettled = replayed
            except (sqlite3.Error, StoreError) as exc:
                # Lost again at once: not tried a third time; the recorders write again.
                forget_wal_index(self.path)
                error = store_error(self.path, exc) if isinstance(exc, sqlite3.Error) else exc
                for job in replayed:
                    job.error = error
        return fresh, [job for job in again if job.error is not None]

    def _fail_everything(self, exc: StoreError) -> None:
        with self._cond:
            batch = list(self._pending)
            self._pending.clear()
            self._thread = None
            self._cond.notify_all()
        for job in batch:
            job.error = exc
            self._failed(job)
            job.done.set()


def _full(batch: list[Job], path: Path) -> bool:
    """Whether a job of the batch failed for want of room: the log is moved (and cut
    back) at once, so the room it holds is the database's again."""
    return any(job.error is not None for job in batch) and device_full(path)
