"""`companion replay GAME.json` says where the game stands (the whole state with --json, at
any action with --at), or gives one clear line and a non-zero exit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "game.json"


def test_the_example_game_replays_to_its_winners(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--json", str(EXAMPLE)]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["winners"] == [2, 0]  # Cy's kill, shared with the helper Ann
    assert state["phase"] == "game_over"
    assert [p["level"] for p in state["players"]] == [1, 2, 10]
    assert state["revision"] == len(json.loads(EXAMPLE.read_text())["actions"])


def test_compact_output_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--json", "--compact", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.count("\n") == 1
    assert main(["replay", "--compact", str(EXAMPLE)]) == 0  # --compact alone means JSON too
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and json.loads(out)["winners"] == [2, 0]


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


def test_the_summary_says_who_is_where_the_last_combat_and_the_winners(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Classic fantasy: 3 players, to Level 10, shared victory"
    assert lines[1] == "At action 25 of 25: turn 4, Cy's turn (game over)"
    assert lines[2] == "Last action: Cy kills the monsters"
    assert "  2  Cy   Level 10  strength 11  Wizard  wears Pointy Hat (+1)" in lines
    assert "Last combat: Cy killed Tiny Dragon (levels: 2, treasure: 3)" in lines
    assert lines[-1] == "Won by Cy and Ann: Cy reached Level 10"


def test_at_n_gives_the_state_after_n_actions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--json", "--at", "0", str(EXAMPLE)]) == 0
    start = json.loads(capsys.readouterr().out)
    assert start["revision"] == 0 and [p["level"] for p in start["players"]] == [1, 1, 1]
    assert main(["replay", "--json", "--at", "9", str(EXAMPLE)]) == 0
    nine = json.loads(capsys.readouterr().out)
    assert nine["revision"] == 9 and nine["winners"] == [] and nine["turn"] == 2
    assert main(["replay", "--at", "9", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "At action 9 of 25: turn 2, Ann's turn (loot or trouble)" in out
    assert out.rstrip().endswith("No winner yet (the game is played to Level 10)")


@pytest.mark.parametrize("at", ["-1", "26"])
def test_at_outside_the_log_is_one_line(capsys: pytest.CaptureFixture[str], at: str) -> None:
    assert main(["replay", "--at", at, str(EXAMPLE)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        f"companion replay: {EXAMPLE}: --at {at} is not in the log: it has actions 0 to 25"
    ]
