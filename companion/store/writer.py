"""The one thread that writes the saved-games database, so a save never holds up a frame.

Writes are queued as jobs; the thread takes every job waiting, runs each inside its
own savepoint of one transaction and commits once (a burst of taps costs one disk
sync, not one each). A job that fails is rolled back alone and reported; the others
still commit. The thread starts on the first job and ends after a quiet spell, so a
store that is not writing holds no thread.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from companion.store.database import connect
from companion.store.files import StoreError

log = logging.getLogger(__name__)

# A thread with nothing to write for this long ends; the next job starts a new one.
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
    ) -> None:
        self.path = path
        self._committed = committed
        self._failed = failed
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
                self._thread = threading.Thread(
                    target=self._run, name="companion-store-writer", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()
        return job

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
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        try:
            conn = connect(self.path)
        except StoreError as exc:
            self._fail_everything(exc)
            return
        try:
            while True:
                with self._cond:
                    self._cond.wait_for(lambda: self._pending or self._closing, timeout=IDLE_EXIT_S)
                    if not self._pending:
                        self._thread = None
                        self._cond.notify_all()
                        return
                    batch = list(self._pending)
                    self._pending.clear()
                    self._in_flight = len(batch)
                try:
                    self._write(conn, batch)
                finally:
                    with self._cond:
                        self._in_flight = 0
                        self._cond.notify_all()
        finally:
            conn.close()

    def _write(self, conn: sqlite3.Connection, batch: list[Job]) -> None:
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
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            for job in batch:
                job.error = job.error or exc
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
