"""`companion stats` prints the figures of the saved games, for the table and per player."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from companion.cli import main
from companion.store import GameStore
from tests.core.test_statistics import first_game, second_game, unfinished_game


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    store = GameStore(tmp_path)
    for number, game in enumerate((first_game(), second_game(), unfinished_game())):
        store.save(f"20261129-04000{number}-000{number}", game)
    store.close()
    return tmp_path


def test_the_table_and_every_player(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--data-dir", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == ["3 games saved", "Editions: classic 2, fu 1"]
    assert "The table: 3 games, 2 won (67%), average finishing Level 3.7" in out
    assert "  kills 5, deaths 2, helped kills 1, levels from kills 5" in out
    assert "  fastest win: 1 turn (Ann, Bo); longest game: 4 turns (Ann, Bo, Cy)" in out
    assert "Ann: 3 games, 1 win (33%), average finishing Level 4.0" in out
    assert "  kills 3, deaths 0, helped kills 1, levels from kills 3" in out
    assert "  sales 1 (1 item, 1 level)" in out
    assert "  monsters that killed most: Nasty 12 (2)" in out
    assert "Cy: 1 game, 0 wins (0%), average finishing Level 2.0" in out


def test_one_player_of_one_edition_as_json(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["stats", "--data-dir", str(folder), "--player", "BO", "--edition", "classic"]
    assert main([*args, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["games"], found["editions"]) == (2, {"classic": 2})
    [bo] = found["players"]
    assert (bo["name"], bo["games"], bo["wins"], bo["deaths"]) == ("Bo", 2, 0, 2)
    assert bo["monsters_that_killed"] == {"Nasty 12": 2}
    assert bo["fastest_win"] is None


def test_a_damaged_game_is_counted(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with closing(sqlite3.connect(folder / "games.sqlite3")) as conn, conn:
        conn.execute("UPDATE stats SET summary = 'damaged' WHERE game_id LIKE '%-0000'")
    assert main(["stats", "--data-dir", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["2 games saved", "1 game could not be read (left out)"]
