"""The cover of the game to resume: handed to its recorder by whoever drew it, written
with its saves (never an older one), read back cheaply, and never trusted when it is
damaged or belongs to another game."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.core import Game, GoUpLevel
from companion.store import GameStore
from companion.store.cover import read_cover
from tests.store.test_games import make_game


def levels_cover(game: Game) -> str:
    return json.dumps([player.level for player in game.state.players])


def saved_with_cover(folder: Path, game: Game) -> str:
    """A game saved as the app saves the one it shows, with the cover it drew."""
    store = GameStore(folder)
    recorder = store.recorder()
    game_id = store.new_id()
    recorder.follow(game_id, game)
    recorder.offer_cover(levels_cover(game))
    recorder.save()
    store.close()
    return game_id


def test_each_save_of_the_game_to_resume_leaves_the_cover_handed_over(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    waiting: list[Callable[[], None]] = []
    recorder = store.recorder(schedule=waiting.append)
    game = make_game(levels=2)
    game_id = store.new_id()
    recorder.follow(game_id, game)
    recorder.offer_cover(levels_cover(game))
    recorder.save()
    assert read_cover(tmp_path) == (game_id, "[1, 3, 1]")

    game.apply(GoUpLevel(player=0))
    recorder.offer_cover(levels_cover(game))  # drawn before the change is written
    waiting.pop()()
    store.flush()
    assert read_cover(tmp_path) == (game_id, "[2, 3, 1]")
    store.close()


def test_a_change_written_before_its_cover_leaves_none_then_the_cover_alone(
    tmp_path: Path,
) -> None:
    store = GameStore(tmp_path)
    recorder = store.recorder()  # writes at once: before anyone drew the change
    game = make_game(levels=2)
    game_id = store.new_id()
    recorder.follow(game_id, game)
    recorder.save()
    assert read_cover(tmp_path) is None
    recorder.offer_cover(levels_cover(game))  # drawn after its save: written alone
    store.flush()
    assert read_cover(tmp_path) == (game_id, "[1, 3, 1]")
    game.apply(GoUpLevel(player=0))
    store.flush()
    assert read_cover(tmp_path) is None  # never the older picture
    recorder.offer_cover(levels_cover(game))
    store.flush()
    assert read_cover(tmp_path) == (game_id, "[2, 3, 1]")
    store.close()


def test_a_cover_drawn_again_unchanged_is_not_written_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = make_game()
    game_id = saved_with_cover(tmp_path, game)
    store = GameStore(tmp_path)
    loaded = store.load(game_id)
    recorder = store.recorder()
    recorder.follow(game_id, loaded)
    covers: list[str] = []
    monkeypatch.setattr(store, "submit_cover", lambda _game_id, cover: covers.append(cover))
    recorder.offer_cover(levels_cover(loaded))  # the resumed game drawn as it was saved
    assert covers == []
    store.close()


def test_the_cover_follows_the_game_to_resume(tmp_path: Path) -> None:
    first = saved_with_cover(tmp_path, make_game(levels=1))
    second = saved_with_cover(tmp_path, make_game(levels=4))
    assert read_cover(tmp_path) == (second, "[1, 5, 1]")
    store = GameStore(tmp_path)
    store.delete(second)
    assert read_cover(tmp_path) is None  # the game it showed is gone
    assert store.load(first).state.players[1].level == 2
    store.close()


def test_no_cover_unless_one_was_handed_over(tmp_path: Path) -> None:
    assert read_cover(tmp_path) is None
    store = GameStore(tmp_path)
    store.save(store.new_id(), make_game())
    assert read_cover(tmp_path) is None
    store.close()


def test_damaged_covers_and_databases_are_passed_over(tmp_path: Path) -> None:
    game_id = saved_with_cover(tmp_path, make_game())
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
    saved_with_cover(tmp_path, make_game())
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
    saved_with_cover(tmp_path, make_game())
    tmp_path.chmod(0o000)
    try:
        if os.access(tmp_path, os.R_OK):  # running as a user no permission stops
            (tmp_path / "games.sqlite3").write_bytes(b"")
        assert read_cover(tmp_path) is None
    finally:
        tmp_path.chmod(0o755)
