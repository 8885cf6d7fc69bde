"""A counter's press is shown at once but acknowledged only once its action is saved.

The save here is a fake that takes as long as the test says: the counters must
show the new state while it runs, the press must not be acknowledged before it
finishes, a press the counter sends again meanwhile is the same press, and a
save that fails leaves the press unacknowledged.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from companion.devices import wire
from companion.devices.fleet import VirtualSetup

from .helpers import fast_manager, new_game, shows, until

pytestmark = pytest.mark.slow

ONE_SERIAL_TRACKER = VirtualSetup(boards=0, trackers=1, tracker_transport="serial", animate=False)
RESEND_WAIT_S = 2.5  # s: the firmware sends an unacknowledged press again after about 1-2 s


class SlowSave:
    """A save that finishes only when the test opens the gate (or fails if told to)."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.asked: list[int] = []
        self.saved: list[int] = []
        self.fail = False

    async def persist(self, sequence: int) -> None:
        self.asked.append(sequence)
        await self.gate.wait()
        if self.fail:
            raise OSError("the disk is full")
        self.saved.append(sequence)


async def started(tmp_path, save: SlowSave):
    game = new_game(2)
    manager = fast_manager(tmp_path, virtual=ONE_SERIAL_TRACKER, persist=save.persist)
    await manager.start(game, discover_hardware=False)
    await manager.wait_ready(timeout_s=10)
    return game, manager


def count_buttons(manager) -> list[int]:
    """The seq of every BUTTON the app receives from its one counter, resends included."""
    seen: list[int] = []

    def on_message(payload: bytes) -> None:
        if payload[:1] == bytes([wire.MSG_BUTTON]):
            seen.append(wire.peek_seq(payload))

    (connection,) = manager.connections.values()
    connection.link.on_message(on_message)
    return seen


async def test_the_counters_show_a_press_at_once_and_hear_its_ack_after_the_save(tmp_path):
    save = SlowSave()
    game, manager = await started(tmp_path, save)
    try:
        tracker = manager.virtual_counters[0]
        tracker.press("plus")

        await until(lambda: game.state.players[0].level == 2)
        await until(lambda: shows(tracker, game))  # told first, while the save still runs
        assert save.asked == [game.sequence]
        assert tracker.acked_presses == []  # never acknowledged before it is durable

        save.gate.set()
        await until(lambda: bool(tracker.acked_presses))
        assert save.saved == [game.sequence]
        assert [(p.action, p.refused) for p in manager.presses] == [("go_up_level", "")]
    finally:
        await manager.stop()


async def test_a_press_sent_again_during_a_slow_save_is_applied_once_and_acked_after_it(tmp_path):
    save = SlowSave()
    game, manager = await started(tmp_path, save)
    try:
        buttons = count_buttons(manager)
        tracker = manager.virtual_counters[0]
        tracker.press("plus")

        await until(lambda: len(buttons) >= 2, timeout_s=RESEND_WAIT_S * 2)  # resent
        assert len(set(buttons)) == 1  # the same press, numbered the same
        assert tracker.acked_presses == []
        assert game.state.players[0].level == 2  # applied once, not once per copy
        assert len(manager.presses) == 1

        save.gate.set()
        await until(lambda: bool(tracker.acked_presses))
        assert game.state.players[0].level == 2
        assert len(save.asked) == 1
    finally:
        await manager.stop()


async def test_a_press_whose_save_fails_is_not_acknowledged(tmp_path, caplog):
    save = SlowSave()
    save.fail = True
    game, manager = await started(tmp_path, save)
    try:
        tracker = manager.virtual_counters[0]
        with caplog.at_level(logging.ERROR, logger="companion.devices.tasks"):
            tracker.press("plus")
            await until(lambda: game.state.players[0].level == 2)
            save.gate.set()
            await until(lambda: "the disk is full" in caplog.text)
        await asyncio.sleep(0.3)  # an ACK would have arrived by now
        assert tracker.acked_presses == []
    finally:
        await manager.stop()


async def test_without_a_save_hook_a_press_is_acknowledged_once_applied(tmp_path):
    game = new_game(2)
    manager = fast_manager(tmp_path, virtual=ONE_SERIAL_TRACKER)
    await manager.start(game, discover_hardware=False)
    await manager.wait_ready(timeout_s=10)
    try:
        tracker = manager.virtual_counters[0]
        tracker.press("plus")
        await until(lambda: bool(tracker.acked_presses))
        assert game.state.players[0].level == 2
    finally:
        await manager.stop()
