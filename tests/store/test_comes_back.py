"""A game log that comes back into the games folder (a restore, a sync tool, a copy to a
new machine) never replaces a saved game that went further or another way: both are
kept, and the player is told."""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from companion.core import Game, GoUpLevel
from companion.store import GameStore
from tests.store.test_games import make_game

GAME = "20261129-040000-beef"


def _game(levels: int) -> Game:
    """Ada, Bo and Cy (as the other store tests have them) go up a Level in turn."""
    game = make_game(levels=0)
    for step in range(levels):
        game.apply(GoUpLevel(player=step % 3))
    return game


def _touch(path: Path) -> None:
    """A new modification time, as a sync tool or a restore gives the file."""
    later = time.time() + 60
    os.utime(path, (later, later))


def _played_on_after_taking_in(tmp_path: Path, file_levels: int) -> tuple[Path, Game]:
    """A JSON save taken in, then played on in the app to 9 actions."""
    folder = tmp_path / "games"
    folder.mkdir()
    save = folder / f"{GAME}.json"
    save.write_text(_game(file_levels).to_json(), encoding="utf-8")
    store = GameStore(tmp_path)
    game = store.load(GAME)
    assert game.revision == file_levels
    recorder = store.recorder()
    recorder.follow(GAME, game)
    for step in range(file_levels, 9):
        game.apply(GoUpLevel(player=step % 3))
    store.close()
    return save, game


def test_an_old_save_touched_after_the_game_went_on_is_kept_beside_it(tmp_path: Path) -> None:
    save, played = _played_on_after_taking_in(tmp_path, 4)
    _touch(save)
    store = GameStore(tmp_path)
    listed = {saved.id: saved.actions for saved in store.list()}
    assert listed.pop(GAME) == 9  # the five actions played on are all there
    (copy_id, copy_actions), *others = listed.items()
    assert not others and copy_actions == 4  # the file's game beside it
    assert store.load(GAME).state == played.state
    news = " ".join(store.news())
    assert GAME in news and copy_id in news and "both are kept" in news
    store.close()
    # Listed again, and at the next start, nothing more is taken in.
    store = GameStore(tmp_path)
    assert len(store.list()) == 2
    store.close()


def test_a_save_that_went_further_elsewhere_replaces_the_older_one(tmp_path: Path) -> None:
    save, played = _played_on_after_taking_in(tmp_path, 4)
    further = Game.from_actions(played.setup, [*played.log, GoUpLevel(player=1)])
    save.write_text(further.to_json(), encoding="utf-8")
    _touch(save)
    store = GameStore(tmp_path)
    assert [(saved.id, saved.actions) for saved in store.list()] == [(GAME, 10)]
    assert store.news() == []
    store.close()


def test_the_same_game_put_back_changes_nothing(tmp_path: Path) -> None:
    save, played = _played_on_after_taking_in(tmp_path, 4)
    save.write_text(played.to_json(), encoding="utf-8")
    _touch(save)
    store = GameStore(tmp_path)
    assert [(saved.id, saved.actions) for saved in store.list()] == [(GAME, 9)]
    assert store.news() == []
    store.close()


def test_the_game_played_last_comes_first_whatever_the_clock_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(tmp_path)
    ours, theirs = _game(2), _game(3)
    store.save("20261129-040000-0001", ours)
    store.save("20261129-050000-0002", theirs)
    real = time.time()
    with monkeypatch.context() as clock:
        clock.setattr(time, "time", lambda: real - 86_400)  # the clock set back a day
        ours.apply(GoUpLevel(player=2))
        store.save("20261129-040000-0001", ours)
    assert [saved.id for saved in store.list()] == ["20261129-040000-0001", "20261129-050000-0002"]
    assert [saved.id for saved in store.list(limit=1)] == ["20261129-040000-0001"]
    store.close()


def test_saved_games_of_the_earlier_schema_keep_their_order_by_date(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    for number, game_id in enumerate(("20261129-040000-0001", "20261129-040000-0002")):
        store.save(game_id, _game(number + 1))
    store.close()
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        conn.execute("DROP INDEX games_by_play")
        conn.execute("ALTER TABLE games DROP COLUMN played")
        conn.execute("UPDATE games SET updated = 1000 WHERE id = '20261129-040000-0002'")
        conn.execute("PRAGMA user_version = 1")
    store = GameStore(tmp_path)
    assert [saved.id for saved in store.list()] == ["20261129-040000-0001", "20261129-040000-0002"]
    store.save("20261129-040000-0002", _game(4))
    assert store.list()[0].id == "20261129-040000-0002"
    store.close()
