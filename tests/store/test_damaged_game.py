"""One saved game damaged inside (a bad byte in an action's text, a byte that still
reads as text, a row lost): it opens up to the damage, it is set aside whole before
anything is written over it, and what can still be read after the damage comes back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from companion.core import CLASSIC, Game, GameSetup, GoUpLevel, PlayerSetup, Sex
from companion.store import GameStore

GAME = "20261129-050000-cafe"
ACTIONS = 30
DAMAGED = 10  # the action damaged: 9 stay whole before it, 20 can be read after it
COLOURS = ("#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00")


def _game() -> Game:
    setup = GameSetup(
        players=tuple(
            PlayerSetup(name=name, colour=colour, sex=Sex.NONE)
            for name, colour in zip(("Ada", "Bo", "Cy", "Di", "Ed", "Flo"), COLOURS, strict=True)
        ),
        edition=CLASSIC,
    )
    game = Game(setup)
    for step in range(ACTIONS):
        game.apply(GoUpLevel(player=step % 6))
    return game


def _bad_byte(conn: sqlite3.Connection) -> None:
    """A byte that makes the action's text no text at all."""
    (body,) = conn.execute(
        "SELECT body FROM actions WHERE game_id = ? AND number = ?", (GAME, DAMAGED)
    ).fetchone()
    raw = bytearray(body.encode())
    raw[3] = 0xFF
    conn.execute(
        "UPDATE actions SET body = CAST(? AS TEXT) WHERE game_id = ? AND number = ?",
        (bytes(raw), GAME, DAMAGED),
    )


def _readable_byte(conn: sqlite3.Connection) -> None:
    """A byte that still reads as text: another player, by the look of it."""
    (body,) = conn.execute(
        "SELECT body FROM actions WHERE game_id = ? AND number = ?", (GAME, DAMAGED)
    ).fetchone()
    assert '"player":3' in body
    conn.execute(
        "UPDATE actions SET body = ? WHERE game_id = ? AND number = ?",
        (body.replace('"player":3', '"player":4'), GAME, DAMAGED),
    )


def _row_lost(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM actions WHERE game_id = ? AND number = ?", (GAME, DAMAGED))


DAMAGES: dict[str, Callable[[sqlite3.Connection], None]] = {
    "bad byte": _bad_byte,
    "readable byte": _readable_byte,
    "row lost": _row_lost,
}


def _damaged_store(folder: Path, damage: Callable[[sqlite3.Connection], None]) -> Game:
    store = GameStore(folder)
    game = _game()
    store.save(GAME, game)
    store.close()
    with closing(sqlite3.connect(folder / "games.sqlite3")) as conn, conn:
        damage(conn)
    return game


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_game_opens_up_to_the_damage_and_the_rest_comes_back(
    tmp_path: Path, damage: Callable[[sqlite3.Connection], None]
) -> None:
    whole = _damaged_store(tmp_path, damage)
    store = GameStore(tmp_path)
    assert store.recoverable == []
    last = store.load_last()
    assert last is not None and last[0] == GAME
    assert last[1].revision == DAMAGED - 1
    (said,) = store.news()
    assert f"damaged after action {DAMAGED - 1} of {ACTIONS}" in said
    (kept,) = store.recoverable
    assert kept.name in said and kept.exists()
    report = store.recover(kept)
    assert report.shortened == [GAME], report
    back = store.load(GAME)
    # Every action but the damaged one, in order: they still follow the rules. After a
    # lost row, the next one cannot be checked against it, and stays out too.
    after = DAMAGED + 1 if damage is _row_lost else DAMAGED
    assert back.log == whole.log[: DAMAGED - 1] + whole.log[after:]
    store.close()


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_playing_on_from_the_damage_keeps_what_came_after_it_beside(
    tmp_path: Path, damage: Callable[[sqlite3.Connection], None]
) -> None:
    _damaged_store(tmp_path, damage)
    store = GameStore(tmp_path)
    last = store.load_last()
    assert last is not None
    game_id, game = last
    store.news()
    recorder = store.recorder()
    recorder.follow(game_id, game)
    game.apply(GoUpLevel(player=0))  # the next save writes over the damaged rows
    store.flush()
    (kept,) = store.recoverable
    report = store.recover(kept)
    ((same, beside),) = report.beside
    assert same == GAME
    assert store.load(GAME).revision == DAMAGED  # what was played on is as it was
    # ... and the rest of the game beside it (after a lost row, the next stays out too)
    assert store.load(beside).revision == ACTIONS - (2 if damage is _row_lost else 1)
    store.close()
