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


PLAYS = EXAMPLE.with_name("table-plays.json")
NO_LIMIT = EXAMPLE.with_name("no-limit.json")


def replay_json(capsys: pytest.CaptureFixture[str], path: Path, at: int) -> dict:  # type: ignore[type-arg]
    assert main(["replay", "--json", "--at", str(at), str(path)]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_table_plays_example_names_its_edition_by_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert json.loads(PLAYS.read_text())["setup"]["edition"] == "fu"
    assert main(["replay", str(PLAYS)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Martial arts: 3 players, to Level 10\n")


def test_trait_bonuses_count_in_combat_and_outlive_death(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fight = replay_json(capsys, PLAYS, 5)  # Mei, Monk with Tiger +3 and Crane +1, wears +1
    assert fight["combat"]["players_strength"] == 1 + 3 + 1 + 1
    end = replay_json(capsys, PLAYS, 23)
    ravi = end["players"][1]
    assert ravi["dead"] and ravi["classes"] == ["Ninja"]
    [ninja] = ravi["trait_bonuses"]
    assert (ninja["kind"], ninja["name"], ninja["bonus"]) == ("class", "Ninja", 1)
    assert ravi["strength"] == 2


def test_named_bad_stuff_takes_the_headgear_and_the_chosen_style(
    capsys: pytest.CaptureFixture[str],
) -> None:
    state = replay_json(capsys, PLAYS, 18)
    mei = state["players"][0]
    assert mei["items"] == [] and mei["styles"] == ["Tiger"] and mei["level"] == 1
    roll = state["last_combat"]["rolls"][0]
    assert roll["items_lost"] == ["Iron Headband"] and roll["traits_lost"] == ["Crane"]
    assert main(["replay", "--at", "18", str(PLAYS)]) == 0
    assert (
        "  Mei rolled 2 (+0) against Headband Thief: caught: "
        "lost a level; lost Iron Headband; lost Crane"
    ) in capsys.readouterr().out.splitlines()


def test_a_sale_over_the_cap_stops_at_9_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_json(capsys, PLAYS, 20)["players"][0]["level"] == 9
    assert main(["replay", "--at", "20", str(PLAYS)]) == 0
    assert (
        "Last action: Mei sells items worth 2900 gold: up to Level 9, "
        "the rest is lost (levels lost: 1)"
    ) in capsys.readouterr().out


def test_treasure_after_a_defeat_without_a_kill(capsys: pytest.CaptureFixture[str]) -> None:
    edited = replay_json(capsys, PLAYS, 12)["last_combat"]
    assert edited["outcome"] == "defeat" and edited["treasure"] == 3
    shown = replay_json(capsys, PLAYS, 15)["last_combat"]  # a card removed the only monster
    assert shown["outcome"] == "defeat" and shown["treasure"] == 1


def test_no_limit_goes_past_10_without_a_winner(capsys: pytest.CaptureFixture[str]) -> None:
    state = replay_json(capsys, NO_LIMIT, 6)
    assert state["setup"]["variants"]["no_limit"] is True
    assert state["players"][0]["level"] == 15 and state["winners"] == []
    assert main(["replay", str(NO_LIMIT)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Classic fantasy: 2 players, no limit"
    assert out[-1] == "No winner yet (no limit: nobody wins by Level)"


def test_errors_count_as_the_file_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(PLAYS.read_text())
    data["actions"][10] = {"type": "remove_monster", "monster": 2}
    crane = data["actions"][2]
    data["actions"][2] = {"type": "gain_trait", "player": 0, "kind": "style", "nmae": "Crane"}
    bad = tmp_path / "typo.json"
    bad.write_text(json.dumps(data))
    assert main(["replay", str(bad)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"companion replay: {bad}: action 3 is malformed: gain_trait: unknown field 'nmae' "
        "(and 1 more)"
    )
    data["actions"][2] = crane
    bad.write_text(json.dumps(data))
    assert main(["replay", str(bad)]) == 1
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(
            "action 11 (remove_monster) breaks a rule: "
            "There is no monster 2 in this combat (monsters count from 0)"
        )
    )


def test_an_old_version_1_log_still_replays(capsys: pytest.CaptureFixture[str]) -> None:
    assert json.loads(EXAMPLE.read_text())["version"] == 1
    assert main(["replay", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Won by Cy and Ann: Cy reached Level 10"
