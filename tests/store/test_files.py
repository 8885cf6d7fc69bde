"""Crash-safe files: what a crash mid-save leaves behind is cleaned up, damaged files kept."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from companion.plumbing.files import PARTIAL_WRITE_AGE_S, remove_partial_writes, set_aside
from companion.store import StoreError, atomic_write_text


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_partial_writes_left_by_a_crash_are_removed(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    left = [tmp_path / ".settings.json.k3j_9x2a.tmp", games / ".20260101-abcd.json.0a1b2c3d.tmp"]
    for path in left:
        path.write_text('{"half": ')
        _age(path, PARTIAL_WRITE_AGE_S + 5)
    in_progress = tmp_path / ".counters.json.zz99yy88.tmp"
    in_progress.write_text("{")
    keep = [
        tmp_path / "settings.json",
        tmp_path / "notes.tmp",  # not a name the app gives its temporary files
        games / "20260101-abcd.json",
    ]
    for path in keep:
        path.write_text("{}")
        _age(path, PARTIAL_WRITE_AGE_S + 5)

    removed = remove_partial_writes(tmp_path)

    assert sorted(removed) == sorted(left)
    assert not any(path.exists() for path in left)
    assert in_progress.exists(), "a write another process may still be making is left alone"
    assert all(path.exists() for path in keep)


def test_a_real_interrupted_write_leaves_a_file_that_is_then_cleaned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "settings.json"
    atomic_write_text(target, "old")

    def power_cut(*_args: object) -> None:
        raise KeyboardInterrupt  # stands for the process dying between write and rename

    monkeypatch.setattr(os, "replace", power_cut)
    monkeypatch.setattr(os, "unlink", lambda *_a: None)  # a killed process cleans nothing
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "new")
    monkeypatch.undo()
    (partial,) = tmp_path.glob(".settings.json.*.tmp")
    _age(partial, PARTIAL_WRITE_AGE_S + 1)

    assert remove_partial_writes(tmp_path) == [partial]
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_set_aside_keeps_every_damaged_copy(tmp_path: Path) -> None:
    path = tmp_path / "counters.json"
    path.write_text("first")
    first = set_aside(path)
    path.write_text("second")
    second = set_aside(path)
    assert first != second
    assert (first.read_text(), second.read_text()) == ("first", "second")
    assert first.name.startswith("counters.json.damaged-")
    assert not path.exists()


def test_set_aside_that_cannot_rename_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="could not be set aside"):
        set_aside(tmp_path / "missing.json")
