"""The cover of the game to resume: written with every save of it, read back cheaply,
and never trusted when it is damaged or belongs to another game."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from companion.core import GoUpLevel
from companion.store import GameStore
from companion.store.cover import read_cover
from tests.store.test_games import make_game


def levels_cover(game) -> str:  # type: ignore[no-untyped-def]
    return json.dumps([player.level for player in game.state.players])


def test_each_save_of_the_game_to_resume_leaves_its_cover(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.cover = levels_cover
    game = make_game(levels=2)
    game_id = store.new_id()
    store.save(game_id, game)
    assert read_cover(tmp_path) == (game_id, "[1, 3, 1]")

    game.apply(GoUpLevel(player=0))
    store.save_soon(game_id, game)
    store.flush()
    assert read_cover(tmp_path) == (game_id, "[2, 3, 1]")
    store.close()


def test_the_cover_follows_the_game_to_resume(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.cover = levels_cover
    first, second = store.new_id(), store.new_id() + "b"
    store.save(first, make_game(levels=1))
    store.save(second, make_game(levels=4))
    assert read_cover(tmp_path) == (second, "[1, 5, 1]")
    store.delete(second)
    assert read_cover(tmp_path) is None  # the game it showed is gone
    store.close()


def test_no_cover_without_a_maker_or_a_database(tmp_path: Path) -> None:
    assert read_cover(tmp_path) is None
    store = GameStore(tmp_path)
    store.save(store.new_id(), make_game())
    assert read_cover(tmp_path) is None
    store.close()


def test_a_cover_maker_that_fails_does_not_stop_the_save(tmp_path: Path) -> None:
    def broken(_game) -> str:  # type: ignore[no-untyped-def]
        raise ValueError("no cover today")

    store = GameStore(tmp_path)
    store.cover = broken
    game_id = store.new_id()
    store.save(game_id, make_game(levels=3))
    store.close()
    assert GameStore(tmp_path).load(game_id).state.players[1].level == 4
    assert read_cover(tmp_path) is None


def test_damaged_covers_and_databases_are_passed_over(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.cover = levels_cover
    game_id = store.new_id()
    store.save(game_id, make_game())
    store.close()
    database = tmp_path / "games.sqlite3"

    def set_cover(value: str) -> None:
        with sqlite3.connect(database) as conn:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'cover'", (value,))

    for damaged in (
        "{not json",
        json.dumps(["a", "list"]),
        json.dumps({"game": game_id, "cover": 7}),
        json.dumps({"game": "someone-else", "cover": "[1]"}),
        json.dumps({"game": game_id, "cover": "x" * 70_000}),
    ):
        set_cover(damaged)
        assert read_cover(tmp_path) is None, damaged
    database.write_bytes(b"this is not a database at all" * 100)
    assert read_cover(tmp_path) is None


def test_reading_a_cover_loads_neither_pydantic_nor_the_rules(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.cover = levels_cover
    store.save(store.new_id(), make_game())
    store.close()
    script = (
        "import sys\n"
        "from companion.store.cover import read_cover\n"
        f"assert read_cover({str(tmp_path)!r}) is not None\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('pydantic', 'companion.core')))\n"
        "print(heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_an_unreadable_data_folder_has_no_cover(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.cover = levels_cover
    store.save(store.new_id(), make_game())
    store.close()
    tmp_path.chmod(0o000)
    try:
        if os.access(tmp_path, os.R_OK):  # running as a user no permission stops
            (tmp_path / "games.sqlite3").write_bytes(b"")
        assert read_cover(tmp_path) is None
    finally:
        tmp_path.chmod(0o755)
