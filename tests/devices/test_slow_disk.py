"""Counters' presses on a slow disk (1.5 s a sync, an SD card or a busy phone): every
press is applied once and acknowledged before its counter gives up sending it again,
and the event loop never waits for the disk."""

from __future__ import annotations

import asyncio
import time

import pytest

from companion.devices.sim.fleet import VirtualSetup
from companion.store.games import GameStore
from tests.store.slow_disk import COMMIT, SlowDisk

from .helpers import until, virtual_table

pytestmark = pytest.mark.slow

SYNC_S = 1.5  # s: one sync of the slow card
TRACKERS = 5
PRESS_GAP_S = 0.3  # s: the players press one after another
# The firmware sends an unacknowledged press again every second, three times in all
# (firmware/counter/logic.py: _RESEND_MS, _RESEND_TRIES): it gives up 3 to 4 s after it.
PATIENCE_S = 3.0
LOOP_LAG_MAX_S = 0.25  # s: generous for a loaded machine; waiting for a sync is 1.5 s


async def test_presses_on_a_slow_disk_are_acknowledged_in_time_and_applied_once(
    tmp_path, monkeypatch
):
    disk = SlowDisk(lambda _what: time.sleep(SYNC_S))  # on the writer thread: the card
    disk.install(monkeypatch)
    store = GameStore(tmp_path / "data")
    recorder = store.recorder()
    setup = VirtualSetup(boards=0, trackers=TRACKERS, tracker_transport="serial", animate=False)
    table = await virtual_table(tmp_path, setup, players=TRACKERS, persist=recorder.wait_durable)
    loop = asyncio.get_running_loop()
    lag = [0.0]

    async def tick() -> None:
        while True:
            before = loop.time()
            await asyncio.sleep(0.005)
            lag[0] = max(lag[0], loop.time() - before - 0.005)

    ticker = asyncio.create_task(tick())
    try:
        recorder.follow("slow", table.game)
        await asyncio.to_thread(store.save, "slow", table.game)  # the game is saved first
        commits = disk.ops.count(COMMIT)
        lag[0] = 0.0
        for counter in table.counters:
            counter.press("plus")
            await asyncio.sleep(PRESS_GAP_S)
        await until(
            lambda: not any(c.counter.pending_presses for c in table.counters),
            timeout_s=PATIENCE_S + 3,
        )
        for counter in table.counters:  # acknowledged while the counter still waited
            assert counter.acked_presses == [seq for seq, _intent in counter.sent_presses]
        assert [p.level for p in table.game.state.players] == [2] * TRACKERS  # once each
        assert len(table.manager.presses) == TRACKERS
        # Five presses over 1.2 s share commits: the first alone, the rest together.
        assert disk.ops.count(COMMIT) - commits <= 3
        assert lag[0] < LOOP_LAG_MAX_S, f"the loop stalled {lag[0] * 1000:.0f} ms"
    finally:
        ticker.cancel()
        await table.stop()
        await asyncio.to_thread(store.close)
