"""Killed at any moment, the store keeps every action it reported saved and stays readable.

A child process (forked, so it starts in a millisecond) plays a known log onto the store
with the app's autosave (`save_soon`), now and then undoing and redoing, and tells the
parent through a pipe each time a save is reported durable. The parent kills it with
SIGKILL at a random moment, reopens the store, and checks the game.
"""

from __future__ import annotations

import os
import random
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from companion.core import BaseAction, Game, GameSetup
from companion.core.randomplay import random_game
from companion.store import GameStore, StoreError

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
    saved = {}

    def durable(_game_id: str, sequence: int) -> None:
        recorded = saved.get(sequence)
        if recorded is not None:
            os.write(report, f"{recorded}\n".encode())

    store.durable_listeners.add(durable)
    try:
        game = store.load(GAME_ID)
    except StoreError:  # the first child of all: nothing saved yet
        game = Game(setup)
    if game.can_redo:
        game.redo(game.recorded - game.revision)
    while game.revision < len(intended):
        game.apply(intended[game.revision])
        if game.revision % 7 == 0:
            saved[store.save_soon(GAME_ID, game)] = game.recorded
            game.undo(2)
            saved[store.save_soon(GAME_ID, game)] = game.recorded
            game.redo(2)
        saved[store.save_soon(GAME_ID, game)] = game.recorded
    store.flush()
    time.sleep(10)  # wait to be killed


def test_sigkill_at_random_moments_loses_nothing_reported_saved(tmp_path: Path) -> None:
    full = random_game(INTENDED, seed=5, allow_win=False)
    intended = full.log
    finished_at = None
    rnd = random.Random(1)
    best_reported = 0
    for kill in range(KILLS):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            status = 1
            try:
                os.close(read_end)
                play(tmp_path, full.setup, intended, write_end)
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        moment = time.monotonic() + rnd.uniform(0.0, 0.12)
        reported = b""
        while (left := moment - time.monotonic()) > 0:
            ready, _, _ = select.select([read_end], [], [], left)
            if ready:
                reported += os.read(read_end, 65536)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        reported += _drain(read_end)
        os.close(read_end)
        for line in reported.decode().split():
            best_reported = max(best_reported, int(line))

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


def _drain(fd: int) -> bytes:
    data = b""
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data
