"""The one thread that writes the saved-games database, so a save never holds up a frame.

Writes are queued as jobs; the thread takes every job waiting, runs each inside its
own savepoint of one transaction and commits once (a burst of taps costs one disk
sync, not one each). A job that fails is rolled back alone and reported; the others
still commit. The thread starts on the first job and ends after a quiet spell, so a
store that is not writing holds no thread.

After each commit the write-ahead log is moved into the database file (a checkpoint),
so what is saved does not depend on the log surviving: a cleaner app or a sync tool
that deletes or damages it loses nothing. A log removed or replaced under the open
connection is noticed at once: what that connection committed is moved into the
database file from the log it still holds before the save is reported durable, and
every connection is opened again. A log emptied or written over in place cannot give
back what it held: SQLite is made to forget it (the database stays as its last
checkpoint left it), the save is not reported durable, and it is written again.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from companion.plumbing.errors import StoreError
from companion.store.database import (
    connect,
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
            conn: sqlite3.Connection | None = connect(self.path)
        except StoreError as exc:
            self._fail_everything(exc)
            return
        self._log = wal_identity(self.path)
        try:
            while conn is not None:
                with self._cond:
                    self._cond.wait_for(lambda: self._pending or self._closing, timeout=IDLE_EXIT_S)
                    if not self._pending and not self._closing and self._stay_up():
                        continue
                    if not self._pending:
                        self._thread = None
                        self._cond.notify_all()
                        return
                    batch = list(self._pending)
                    self._pending.clear()
                    self._in_flight = len(batch)
                try:
                    conn = self._write(conn, batch)
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

    def _write(self, conn: sqlite3.Connection, batch: list[Job]) -> sqlite3.Connection | None:
        """Write a batch in one transaction; returns the connection to go on with (None:
        it was lost and could not be opened again)."""
        ok: list[Job] = []
        after: sqlite3.Connection | None = conn
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
            ok = []
        if ok:
            after, lost = self._after_commit(conn)
            if lost is not None:
                for job in ok:
                    job.error = lost
                ok = []
        try:
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

    def _after_commit(
        self, conn: sqlite3.Connection
    ) -> tuple[sqlite3.Connection | None, StoreError | None]:
        """Move the committed log into the database file; returns the connection to go
        on with, and why the commit is not durable after all (None: it is)."""
        lost: StoreError | None = None
        if wal_identity(self.path) == self._log:
            # The same log file; but emptied or written over in place, it no longer holds
            # what was committed, and a checkpoint would copy what it holds now (zeros,
            # past the hole an emptied log gets when SQLite writes on) over the database.
            problem = "was written over" if wal_overwritten(self.path) else None
            if problem is None:
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    return conn, None
                except sqlite3.Error as exc:  # it could not be read back whole
                    problem = f"could not be read back ({exc})"
            log.warning("the write-ahead log of %s %s", self.path, problem)
            # SQLite is made to read the log again as it is now (nothing it can use): the
            # database stays as the last checkpoint left it, and this commit is saved again.
            forget_wal_index(self.path)
            lost = StoreError(f"{self.path}: its write-ahead log {problem}; saving again")
        else:
            # The log was removed or replaced: what this connection committed is only in the
            # log file it still holds open. Move all of it into the database file now.
            log.warning("the write-ahead log of %s was removed or replaced", self.path)
            try:
                busy, frames, moved = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if busy or moved < frames:
                    lost = StoreError(f"{self.path}: its write-ahead log was removed; saving again")
            except sqlite3.Error as exc:
                lost = store_error(self.path, exc)
        conn.close()
        self._log_lost()
        try:
            fresh: sqlite3.Connection | None = connect(self.path)
        except StoreError as exc:  # this thread ends; the next job's thread tries again
            log.warning("the saved-games database cannot be opened again: %s", exc)
            fresh = None
        self._log = wal_identity(self.path)
        return fresh, lost

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
