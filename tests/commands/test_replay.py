"""`companion replay GAME.json` prints the final state, or one clear line and a non-zero exit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "game.json"


def test_the_example_game_replays_to_its_winners(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(EXAMPLE)]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["winners"] == [2, 0]  # Cy's kill, shared with the helper Ann
    assert state["phase"] == "game_over"
    assert [p["level"] for p in state["players"]] == [1, 2, 10]
    assert state["revision"] == len(json.loads(EXAMPLE.read_text())["actions"])


def test_compact_output_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--compact", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.count("\n") == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{oops", "not valid JSON"),
        (b"\xff\xfe\x00", "not valid JSON"),
        (b'{"format": "something else"}', "not a game log"),
        (b"[]", "a JSON object"),
    ],
)
def test_a_corrupt_file_gives_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    assert main(["replay", str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert str(bad) in lines[0] and message in lines[0]


def test_an_illegal_action_names_its_number_and_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(EXAMPLE.read_text())
    data["actions"].insert(1, {"type": "go_up_level", "player": 0, "levels": 9})
    bad = tmp_path / "cheat.json"
    bad.write_text(json.dumps(data))
    assert main(["replay", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "action 2 (go_up_level) breaks a rule" in err and "Level 10" in err


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.json"
    assert main(["replay", str(missing)]) == 1
    assert "cannot read" in capsys.readouterr().err
