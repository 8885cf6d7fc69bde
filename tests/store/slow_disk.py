"""A slow disk for the writer: its connection's commits and checkpoints take as long as
the test says, one at a time, and are counted (SQLite's own syncs cannot be slowed from
Python; these are the statements that wait for them)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.store import writer

COMMIT = "commit"
CHECKPOINT = "checkpoint"


class SlowDisk:
    """Every COMMIT of the writer costs one sync, every checkpoint two (the log's, then
    the database file's); `sync` is called for each, on the writer thread, one at a time
    (one disk). `ops` lists what was synced, in order."""

    def __init__(self, sync: Callable[[str], None] = lambda _what: None) -> None:
        self.sync = sync
        self.ops: list[str] = []
        self._disk = threading.Lock()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = writer.connect
        monkeypatch.setattr(writer, "connect", lambda path: _SlowConnection(real(path), self))

    def cost(self, what: str) -> None:
        with self._disk:
            syncs = 2 if what == CHECKPOINT else 1
            for _ in range(syncs):
                self.sync(what)
            self.ops.append(what)


class _SlowConnection:
    def __init__(self, conn: sqlite3.Connection, disk: SlowDisk) -> None:
        self._conn = conn
        self._disk = disk

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "COMMIT":
            self._disk.cost(COMMIT)
        elif sql.startswith("PRAGMA wal_checkpoint"):
            self._disk.cost(CHECKPOINT)
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def wal_of(path: Path) -> Path:
    return Path(f"{path}-wal")
