"""The app saves after the frame that shows a change, and never loses one on the way.

The game's recorder follows the game by itself: the store hears each change once, and
the cover saved with it is what the Table drew, not a second Table made for the save.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any

import pytest

from companion.core import GoUpLevel
from companion.store.games import GameStore
from ui.conftest import Harness


def saved_cover(ui: Harness) -> dict[str, Any] | None:
    """The Table view kept as the cover of the game to resume, or None."""
    with closing(sqlite3.connect(ui.app.session.games.database)) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'cover'").fetchone()
    if row is None:
        return None
    record = json.loads(row[0])
    assert record["game"] == ui.app.session.game_id
    return json.loads(record["cover"])


def test_a_change_is_saved_after_its_frame(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    session = ui.app.session
    assert session.act(GoUpLevel, player=1)
    sequence = session.game.sequence
    assert not session.recorder.is_durable(sequence)  # the frame comes first
    ui.pump()
    session.games.flush()
    assert session.recorder.is_durable(sequence)
    assert session.games.load(session.game_id).state.players[1].level == 2


def test_reopening_the_open_game_right_after_a_change_keeps_the_change(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    session = ui.app.session
    assert session.act(GoUpLevel, player=0)  # no frame yet: its save is still due
    assert session.open(session.game_id)
    assert session.game.state.players[0].level == 2
    ui.pump()
    assert session.act(GoUpLevel, player=0)
    session.save()
    assert session.games.load(session.game_id).state.players[0].level == 3


def test_a_tap_is_written_once_with_the_table_it_drew(
    ui: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.ui.screens.table as table_module

    ui.start_game(["Anna", "Bram", "Cleo"])
    ui.pump()
    table = ui.screen("table")
    views: list[dict[str, Any]] = []
    real_view = table_module.table_view

    def counted_view(*args: Any, **kwargs: Any) -> dict[str, Any]:
        views.append(real_view(*args, **kwargs))
        return views[-1]

    submitted: list[Any] = []
    real_submit = GameStore.submit

    def counted_submit(self: GameStore, change: Any) -> Any:
        submitted.append(change)
        return real_submit(self, change)

    monkeypatch.setattr(table_module, "table_view", counted_view)
    monkeypatch.setattr(GameStore, "submit", counted_submit)
    ui.tap(table.tiles[2].ids.level.ids.plus)
    ui.pump(frames=5)
    ui.app.session.games.flush()

    assert len(views) == 1, "one Table view per tap: the one on screen"
    assert len(submitted) == 1, "the store hears the change once"
    assert [len(change.rows) for change in submitted] == [1]
    assert saved_cover(ui) == views[0]
    assert saved_cover(ui)["tiles"][2]["level"] == 2


def test_a_change_made_on_another_screen_never_leaves_an_older_cover(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    ui.pump()
    session = ui.app.session
    before = saved_cover(ui)
    assert before is not None and before["tiles"][0]["level"] == 1
    ui.app.show("history")
    ui.pump()
    assert session.act(GoUpLevel, player=0)  # the Table does not draw it
    ui.pump(frames=5)
    session.games.flush()
    assert saved_cover(ui) is None, "no cover rather than one showing Level 1"
    ui.app.show("table")  # the Table draws it: its cover is written alone
    ui.pump(frames=5)
    session.games.flush()
    cover = saved_cover(ui)
    assert cover is not None and cover["tiles"][0]["level"] == 2


def test_closing_on_another_screen_saves_a_true_cover(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    ui.pump()
    session = ui.app.session
    ui.app.show("history")
    ui.pump()
    assert session.act(GoUpLevel, player=1)
    session.save()  # what closing the window does
    cover = saved_cover(ui)
    assert cover is not None and cover["tiles"][1]["level"] == 2


def test_a_save_that_fails_is_said(ui: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    ui.start_game(["Anna", "Bram"])
    ui.pump()
    session = ui.app.session

    def refuse(*_args: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr("companion.store.journal.RowWriter.write", refuse)
    assert session.act(GoUpLevel, player=1)
    ui.wait_until(lambda: "could not be saved" in ui.banner())
    assert "disk I/O error" in ui.banner()


def test_a_failed_save_stays_said_on_the_table_and_is_tried_again(
    ui: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.store.journal import RowWriter

    ui.start_game(["Anna", "Bram"])
    ui.pump()
    session = ui.app.session
    table = ui.screen("table")
    real_write = RowWriter.write
    broken = [True]

    def flaky(self: RowWriter, conn: Any, change: Any) -> None:
        if broken[0]:
            raise sqlite3.OperationalError("disk I/O error")
        real_write(self, conn, change)

    monkeypatch.setattr(RowWriter, "write", flaky)
    ui.tap(table.tiles[1].ids.level.ids.plus)
    ui.wait_until(lambda: bool(session.save_problem))
    assert "disk I/O error" in ui.banner(), "said at once"
    line = table.ids.save_problem
    assert "disk I/O error" in line.text and line.height > 0 and line.opacity == 1
    assert not session.recorder.is_durable(session.game.sequence), "never reported saved"

    broken[0] = False  # the disk works again: a later try writes the change
    ui.wait_until(lambda: not session.save_problem, timeout_s=20)
    assert line.height == 0
    assert session.recorder.is_durable(session.game.sequence)
    assert session.games.load(session.game_id).state.players[1].level == 2
