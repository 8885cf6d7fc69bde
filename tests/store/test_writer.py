"""The writer on a slow disk: what waits during one commit goes in the next, alone; a
commit is reported durable at once, and the log is moved into the database file only
once nothing waits."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from companion.store.database import connect
from companion.store.writer import Job, Writer
from tests.store.slow_disk import CHECKPOINT, COMMIT, SlowDisk, wal_of


def note(key: str) -> Job:
    """A job writing one small fact."""
    return Job(
        lambda conn: conn.execute("INSERT INTO meta (key, value) VALUES (?, 'x')", (key,)),
        tag=key,
    )


class Reports:
    """What the writer reported, and which disk operations had been done by then."""

    def __init__(self, disk: SlowDisk) -> None:
        self.disk = disk
        self.committed: list[tuple[list[object], int]] = []
        self.failed: list[object] = []

    def on_committed(self, jobs: list[Job]) -> None:
        self.committed.append(([job.tag for job in jobs], len(self.disk.ops)))

    def on_failed(self, job: Job) -> None:
        self.failed.append(job.tag)


def saved_keys(path: Path) -> set[str]:
    conn = connect(path)
    try:
        return {row[0] for row in conn.execute("SELECT key FROM meta")}
    finally:
        conn.close()


def test_what_waits_during_a_slow_commit_goes_in_one_commit_reported_before_any_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_first = threading.Event()
    let_go = threading.Event()

    def sync(what: str) -> None:
        if what == COMMIT and not in_first.is_set():  # the first commit's sync hangs
            in_first.set()
            assert let_go.wait(10)

    disk = SlowDisk(sync)
    disk.install(monkeypatch)
    path = tmp_path / "games.sqlite3"
    connect(path).close()
    reports = Reports(disk)
    writer = Writer(path, reports.on_committed, reports.on_failed, stay_up=lambda: True)
    first = writer.submit(note("first"))
    assert in_first.wait(10)
    waiting = [writer.submit(note(f"press {i}")) for i in range(10)]
    let_go.set()
    for job in [first, *waiting]:
        job.wait(10)

    # Two commits, one sync each; the ten that waited were reported together, as soon as
    # their commit returned: no checkpoint stood between them and the first commit.
    assert disk.ops == [COMMIT, COMMIT]
    assert reports.committed == [(["first"], 1), ([f"press {i}" for i in range(10)], 2)]
    writer.close()
    assert disk.ops == [COMMIT, COMMIT, CHECKPOINT]  # moved into the database on closing
    assert saved_keys(path) == {"first", *(f"press {i}" for i in range(10))}
    assert reports.failed == []


def test_without_a_game_open_the_log_is_moved_once_the_writer_is_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = threading.Event()

    def sync(what: str) -> None:
        if what == CHECKPOINT:
            moved.set()

    disk = SlowDisk(sync)
    disk.install(monkeypatch)
    path = tmp_path / "games.sqlite3"
    reports = Reports(disk)
    writer = Writer(path, reports.on_committed, reports.on_failed)
    writer.submit(note("a")).wait(10)
    assert moved.wait(10)  # before any close: the writer was quiet
    writer.close()
    assert disk.ops == [COMMIT, CHECKPOINT]
    assert saved_keys_from_file_only(path) == {"a"}


def saved_keys_from_file_only(path: Path) -> set[str]:
    """What the database file itself holds, without its log."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return {row[0] for row in conn.execute("SELECT key FROM meta")}
    finally:
        conn.close()


def test_a_log_written_over_before_its_checkpoint_loses_nothing_reported_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = SlowDisk()
    disk.install(monkeypatch)
    path = tmp_path / "games.sqlite3"
    connect(path).close()
    reports = Reports(disk)
    writer = Writer(path, reports.on_committed, reports.on_failed, stay_up=lambda: True)
    writer.submit(note("a")).wait(10)
    writer.submit(note("b")).wait(10)
    assert [tags for tags, _ops in reports.committed] == [["a"], ["b"]]  # reported durable
    with wal_of(path).open("r+b") as log:  # a cleaner app writes over the log
        log.write(os.urandom(4096))
    writer.submit(note("c")).wait(10)  # the writer notices, and writes a and b again
    writer.close()
    assert reports.failed == []
    assert saved_keys_from_file_only(path) == {"a", "b", "c"}
