"""`companion export` writes the finished games as BG Stats plays and as CSV, says in one
line what is wrong with what it was asked, and never leaves a file half written."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest

from companion.cli import main
from tests.store.test_exports import FIRST, SECOND, THIRD, BgsPlay, folder  # noqa: F401

pytestmark = pytest.mark.usefixtures("utc")


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def export(folder: Path, *args: str) -> int:  # noqa: F811
    return main(["export", "--data-dir", str(folder), *args])


def test_every_finished_game_as_plays_and_as_rows(
    folder: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plays, rows = tmp_path / "plays.json", tmp_path / "plays.csv"
    assert export(folder, "--bgstats", str(plays), "--csv", str(rows)) == 0
    assert capsys.readouterr().out == f"Wrote 2 finished games to {plays}, {rows}\n"
    found = [BgsPlay.model_validate(play) for play in json.loads(plays.read_text("utf-8"))]
    assert [(play.sourcePlayId, play.playDate) for play in found] == [
        (FIRST, "2026-11-20 19:30:00"),
        (SECOND, "2026-11-21 18:00:00"),
    ]
    with rows.open(newline="", encoding="utf-8-sig") as handle:
        table = list(csv.DictReader(handle))
    assert [(row["game"], row["player"], row["level"], row["won"]) for row in table] == [
        (FIRST, "Ann", "10", "1"),
        (FIRST, "Bo", "1", "0"),
        (FIRST, "Cy", "2", "0"),
        (SECOND, "Ann", "1", "0"),
        (SECOND, "Bo", "10", "1"),
    ]


def test_one_game_is_one_play_with_its_bg_stats_link(
    folder: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plays = tmp_path / "one.json"
    assert export(folder, "--bgstats", str(plays), "--game", SECOND) == 0
    play = BgsPlay.model_validate(json.loads(plays.read_text("utf-8")))
    assert (play.sourcePlayId, play.board) == (SECOND, "Martial arts")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"Wrote 1 finished game to {plays}"
    assert out[1].startswith("Open it in BG Stats: bgstats://app.bgstatsapp.com/createPlay.html?")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "say where to write: --bgstats FILE, --csv FILE, or both"),
        (("--csv", "{out}", "--since", "yesterday"), "'yesterday' is not a date like 2025-01-31"),
        (("--csv", "{out}", "--game", "nope"), "no saved game has the id 'nope'"),
        (("--csv", "{out}", "--game", THIRD), f"game {THIRD} is not finished"),
        (("--csv", "{out}", "--edition", "oz"), "no finished game matches"),
        (("--csv", "{blocked}/plays.csv"), "{blocked}/plays.csv: cannot be written"),
    ],
)
def test_bad_input_is_said_in_one_line_and_nothing_is_written(
    folder: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    said: str,
) -> None:
    where = tmp_path / "out"
    where.mkdir()
    out = where / "plays.csv"
    out.write_text("kept as it was\n", encoding="utf-8")
    blocked = where / "a-file"
    blocked.write_text("", encoding="utf-8")
    filled = [arg.format(out=out, blocked=blocked) for arg in args]
    assert export(folder, *filled) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"companion export: {said.format(blocked=blocked)}")
    assert err.count("\n") == 1
    assert out.read_text(encoding="utf-8") == "kept as it was\n"
    assert sorted(path.name for path in where.iterdir()) == ["a-file", "plays.csv"]
