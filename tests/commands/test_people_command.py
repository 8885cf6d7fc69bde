"""`companion people` lists, renames and merges the people who played here; `companion
stats --player` then counts a renamed or merged player's games under the name kept."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from companion.cli import main
from companion.store import GameStore
from tests.core.test_statistics import first_game, second_game
from tests.store.test_people import won_by


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    store = GameStore(tmp_path)
    store.save("20261129-040000-0001", first_game())  # Ann, Bo, Cy: Ann wins
    store.save("20261129-050000-0002", second_game())  # Ann, Bo: Bo wins
    store.save("20261129-060000-0003", won_by(["Anne", "Dee"], 0))  # Anne wins
    store.close()
    return tmp_path


def _player(folder: Path, name: str, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    assert main(["stats", "--data-dir", str(folder), "--player", name, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["players"]


def test_list_rename_and_merge(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(folder)]
    assert main(["people", *data]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] in (["Anne  1 game", "Dee   1 game"], ["Dee   1 game", "Anne  1 game"])
    assert "Ann   2 games" in lines

    [ann] = _player(folder, "Ann", capsys)
    assert (ann["games"], ann["wins"], ann["kills"]) == (2, 1, 3)
    assert main(["people", "rename", "Ann", "Annabel", *data]) == 0
    assert capsys.readouterr().out == "Ann is now called Annabel (2 games)\n"
    [annabel] = _player(folder, "annabel", capsys)
    # Every figure is hers still; the records name her as she is called now.
    for record in ("fastest_win", "longest_game"):
        assert annabel[record]["players"] == ["Annabel", "Bo", "Cy"]
        annabel[record]["players"][0] = "Ann"
    assert {**annabel, "name": "Ann"} == ann
    assert _player(folder, "Ann", capsys) == []

    assert main(["people", *data, "merge", "Anne", "Annabel"]) == 0
    assert capsys.readouterr().out == "Anne counts as Annabel now (3 games)\n"
    [merged] = _player(folder, "Annabel", capsys)
    assert (merged["games"], merged["wins"], merged["kills"]) == (3, 2, 4)
    assert main(["people", "list", "--json", *data]) == 0
    listed = {p["name"]: p["games"] for p in json.loads(capsys.readouterr().out)}
    assert listed == {"Annabel": 3, "Bo": 2, "Cy": 1, "Dee": 1}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["rename", "Zed", "Zoe"], "Nobody called “Zed” has played here"),
        (["rename", "Bo", " "], "A player's name cannot be blank or invisible"),
        (
            ["rename", "Bo", "CY"],
            "“CY” looks like “Cy”, who has played here: merge them instead",
        ),
        (["merge", "Ann", "Bo"], "“Ann” and “Bo” played in the same game, so they are two people"),
        (["merge", "Zed", "Bo"], "Nobody called “Zed” has played here"),
        (["merge", "", "Bo"], "A player's name cannot be blank or invisible"),
    ],
)
def test_errors_are_one_line_and_change_nothing(
    folder: Path, args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["people", "--data-dir", str(folder), *args]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"companion people: {said}\n"
    with closing(sqlite3.connect(folder / "games.sqlite3")) as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM people")}
    assert names == {"Ann", "Anne", "Bo", "Cy", "Dee"}


def test_games_saved_before_people_are_linked_first(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with closing(sqlite3.connect(folder / "games.sqlite3")) as conn, conn:
        conn.execute("DELETE FROM seats")
        conn.execute("DELETE FROM people")
    assert main(["people", "--data-dir", str(folder), "merge", "Anne", "Ann"]) == 0
    captured = capsys.readouterr()
    assert "Linking 3 games saved before people were kept" in captured.err
    assert captured.out == "Anne counts as Ann now (3 games)\n"
