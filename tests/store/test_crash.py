"""Killed at any moment, the store keeps every action it reported saved and stays readable.

A child process (forked, so it starts in a millisecond) plays a known log with the
game's recorder following it, now and then undoing and redoing, and tells the parent
through a pipe each time a save is reported durable. The parent kills it with
SIGKILL at a random moment, reopens the store, and checks the game.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import pytest

from companion.core import BaseAction, Game, GameSetup
from companion.core.randomplay import random_game
from companion.store import GameStore, StoreError
from tests.store.fault_tools import child_reports

KILLS = 200
# Long enough that the children are still playing at the last kill (about 40 each).
INTENDED = 12_000
GAME_ID = "crash"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork to start children quickly"),
]


def play(folder: Path, setup: GameSetup, intended: tuple[BaseAction, ...], report: int) -> None:
    """The child: resume the game and keep playing the intended log until killed."""
    store = GameStore(folder)
    saved: dict[int, int] = {}

    def durable(_game_id: str, sequence: int) -> None:
        recorded = saved.get(sequence)
        if recorded is not None:
            os.write(report, f"{recorded}\n".encode())

    store.durability.durable_listeners.add(durable)
    try:
        game = store.load(GAME_ID)
    except StoreError:  # the first child of all: nothing saved yet
        game = Game(setup)
    # The recorder queues every change at once (the app waits for a frame first).
    store.recorder().follow(GAME_ID, game)
    game.subscribe(lambda _state: saved.__setitem__(game.sequence, game.recorded))
    if game.can_redo:
        game.redo(game.recorded - game.revision)
    while game.revision < len(intended):
        game.apply(intended[game.revision])
        if game.revision % 7 == 0:
            game.undo(2)
            game.redo(2)
    store.flush()
    time.sleep(10)  # wait to be killed


def test_sigkill_at_random_moments_loses_nothing_reported_saved(tmp_path: Path) -> None:
    full = random_game(INTENDED, seed=5, allow_win=False)
    intended = full.log
    finished_at = None
    rnd = random.Random(1)
    best_reported = 0
    for kill in range(KILLS):
        reported = child_reports(
            lambda report: play(tmp_path, full.setup, intended, report),
            kill_at_s=rnd.uniform(0.0, 0.12),
        )
        best_reported = max(best_reported, reported)

        store = GameStore(tmp_path)  # never unreadable
        try:
            listed = store.list()
            if best_reported == 0 and not listed:
                continue
            game = store.load(GAME_ID)
            recorded = game.recorded_actions()
            assert len(recorded) >= best_reported, f"kill {kill}: a reported save was lost"
            assert tuple(recorded) == intended[: len(recorded)], f"kill {kill}: wrong actions"
            assert [s.actions for s in listed] == [game.revision]
            if finished_at is None and game.revision == len(intended):
                finished_at = kill
        finally:
            store.close()
    # Most kills must strike a child that is still playing, or the test proves little.
    assert finished_at is None or finished_at > KILLS * 3 // 4, f"all played by kill {finished_at}"
    print(f"{KILLS} kills, {best_reported} actions reported saved", file=sys.stderr)
