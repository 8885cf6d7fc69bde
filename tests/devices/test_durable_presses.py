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

from companion.core import GoUpLevel
from companion.devices import wire
from companion.devices.sim.fleet import VirtualSetup

from .helpers import shows, until, virtual_table

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


async def started(tmp_path, save: SlowSave | None):
    persist = save.persist if save is not None else None
    return await virtual_table(tmp_path, ONE_SERIAL_TRACKER, players=2, persist=persist)


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
    table = await started(tmp_path, save)
    game, manager = table.game, table.manager
    try:
        tracker = table.counters[0]
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
        await table.stop()


async def test_a_press_sent_again_during_a_slow_save_is_applied_once_and_acked_after_it(tmp_path):
    save = SlowSave()
    table = await started(tmp_path, save)
    game, manager = table.game, table.manager
    try:
        buttons = count_buttons(manager)
        tracker = table.counters[0]
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
        await table.stop()


async def test_a_press_whose_save_fails_is_not_acknowledged(tmp_path, caplog):
    save = SlowSave()
    save.fail = True
    table = await started(tmp_path, save)
    game = table.game
    try:
        tracker = table.counters[0]
        with caplog.at_level(logging.ERROR, logger="companion.plumbing.tasks"):
            tracker.press("plus")
            await until(lambda: game.state.players[0].level == 2)
            save.gate.set()
            await until(lambda: "the disk is full" in caplog.text)
        # Whatever the app sends now reaches the counter after any ACK it sent before: once
        # the counter shows a later change, an ACK of the press would have been heard.
        game.apply(GoUpLevel(player=1))
        await until(lambda: shows(tracker, game))
        assert tracker.acked_presses == []
    finally:
        await table.stop()


async def test_without_a_save_hook_a_press_is_acknowledged_once_applied(tmp_path):
    table = await started(tmp_path, None)
    game = table.game
    try:
        tracker = table.counters[0]
        tracker.press("plus")
        await until(lambda: bool(tracker.acked_presses))
        assert game.state.players[0].level == 2
    finally:
        await table.stop()
