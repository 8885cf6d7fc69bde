"""An effect is a moment, a resync restores the game: a die roll plays once on every counter,
for its moment, and no periodic refresh, reconnect or reset plays it again.

Every counter runs the real firmware logic behind a real carrier (the level board on a
pty serial port, the trackers on the virtual Bluetooth radio). The firmware's clock is
stepped by hand, so a roll ends on a counter exactly when the test says it is over there.
"""

from __future__ import annotations

import pytest

from companion.core import GoUpLevel, RollDie
from companion.devices import wire
from companion.devices.projection import Part
from companion.devices.sim.counters import (
    BleVirtualCounter,
    SerialVirtualCounter,
    VirtualCounter,
)
from companion.devices.sim.fleet import VirtualSetup
from companion.devices.status import Access
from companion.devices.sync import DeviceManager

from .helpers import READY_S, new_game, shows, until, virtual_table

pytestmark = pytest.mark.slow

TABLE = VirtualSetup(
    boards=1, trackers=2, board_transport="serial", tracker_transport="ble", animate=False
)
REFRESH_S = 0.05  # s: the periodic resync, often enough to see several in a short test
LONG_ROLL_S = 60.0  # s: a roll's moment as the app counts it, far longer than a test
SHORT_ROLL_S = 0.3  # s: ... and shortened like the refresh, to see it end
RESYNCS = 3  # periodic resyncs each counter goes through before it is looked at


class SteppedClock:
    """A counter's millisecond ticks, moved on only by `step`."""

    def __init__(self, start_ms: int) -> None:
        self.now_ms = start_ms

    def __call__(self) -> int:
        return self.now_ms

    def step(self, ms: int) -> None:
        self.now_ms = (self.now_ms + ms) & 0x3FFFFFFF


def stepped(counter: VirtualCounter) -> SteppedClock:
    """Give the counter's firmware a clock the test steps, starting where its own stands."""
    clock = SteppedClock(counter.counter.clock())
    counter.counter.clock = clock
    return clock


def past_the_roll(counters: list[VirtualCounter], clocks: list[SteppedClock]) -> None:
    """Move every counter's clock past a roll's moment and let its housekeeping run."""
    for counter, clock in zip(counters, clocks, strict=True):
        clock.step(wire.ROLL_SHOW_MS + 100)
        counter.counter.poll()


def shows_the_game(counter: VirtualCounter, game: object) -> bool:
    """The counter shows the game's levels and flags, and no effect."""
    return shows(counter, game) and counter.counter.state.effect == wire.SHOW_CLEAR  # type: ignore[arg-type]


async def resyncs(manager: DeviceManager, count: int = RESYNCS) -> None:
    """Wait until every counter went through `count` more periodic resyncs and acknowledged
    all they brought."""
    seen = {key: 0 for key in manager.connections}
    for key, connection in manager.connections.items():
        resync = connection.resync

        def counted(key: str = key, resync: object = resync) -> None:
            seen[key] += 1
            resync()  # type: ignore[operator]

        connection.resync = counted  # type: ignore[method-assign]
    try:
        await until(lambda: min(seen.values()) >= count, READY_S)
        await manager.wait_synced(READY_S)
    finally:
        for connection in manager.connections.values():
            del connection.resync


async def test_periodic_resyncs_never_play_a_roll_again(tmp_path):
    table = await virtual_table(
        tmp_path, TABLE, refresh_interval_s=REFRESH_S, roll_show_s=LONG_ROLL_S
    )
    game, manager, counters = table.game, table.manager, table.counters
    try:
        assert isinstance(counters[0], SerialVirtualCounter)
        assert all(isinstance(counter, BleVirtualCounter) for counter in counters[1:])
        await manager.wait_synced(READY_S)
        clocks = [stepped(counter) for counter in counters]

        game.apply(RollDie(player=1, roll=4, purpose="dice"))
        await until(lambda: all(c.counter.state.effect == wire.SHOW_ROLL for c in counters))
        started = [counter.counter.state.effect_start for counter in counters]
        for clock in clocks:
            clock.step(1000)  # a second into the roll: one played again would start afresh
        # Resyncs within the roll's moment do not start it again.
        await resyncs(manager)
        assert [c.counter.state.effect for c in counters] == [wire.SHOW_ROLL] * len(counters)
        assert [c.counter.state.effect_start for c in counters] == started

        # The roll ends on each counter by itself; resyncs bring back exactly the game.
        past_the_roll(counters, clocks)
        assert all(shows_the_game(counter, game) for counter in counters)
        await resyncs(manager)
        assert all(shows_the_game(counter, game) for counter in counters)
    finally:
        await table.stop()


async def test_once_a_roll_is_over_resyncs_bring_back_exactly_the_game(tmp_path):
    table = await virtual_table(
        tmp_path, TABLE, refresh_interval_s=REFRESH_S, roll_show_s=SHORT_ROLL_S
    )
    game, manager, counters = table.game, table.manager, table.counters
    try:
        await manager.wait_synced(READY_S)
        clocks = [stepped(counter) for counter in counters]
        game.apply(RollDie(player=2, roll=2, purpose="dice"))
        # The app counts the roll's moment over: every counter should show the game again.
        await until(
            lambda: all(
                isinstance(c.desired(Part.SHOW), wire.ShowClear)
                for c in manager.connections.values()
            )
        )
        past_the_roll(counters, clocks)
        await resyncs(manager)
        assert all(shows_the_game(counter, game) for counter in counters)

        # A change of the game afterwards brings its levels, and still no roll.
        game.apply(GoUpLevel(player=0))
        await resyncs(manager)
        assert all(shows_the_game(counter, game) for counter in counters)
    finally:
        await table.stop()


async def test_a_roll_over_is_not_played_again_after_a_reconnect_or_a_reset(tmp_path):
    table = await virtual_table(tmp_path, TABLE)
    game, manager, counters = table.game, table.manager, table.counters
    try:
        board, tracker = counters[0], counters[1]
        assert isinstance(board, SerialVirtualCounter)
        assert isinstance(tracker, BleVirtualCounter)
        await manager.wait_synced(READY_S)
        clocks = [stepped(counter) for counter in counters]

        game.apply(RollDie(player=0, roll=6, purpose="dice"))
        await until(lambda: all(c.counter.state.effect == wire.SHOW_ROLL for c in counters))
        past_the_roll(counters, clocks)
        assert all(shows_the_game(counter, game) for counter in counters)

        # The board is reset (its firmware starts afresh from its flash), a tracker loses
        # its radio link: both come back to exactly the game.
        board.reset()
        await tracker.disconnect()
        await until(lambda: board.counter.authenticated and tracker.counter.authenticated)
        await manager.wait_for(
            lambda: all(s.access is Access.OURS for s in manager.statuses()), READY_S
        )
        await manager.wait_synced(READY_S)
        stepped(board)
        manager.resync()
        await manager.wait_synced(READY_S)
        assert all(shows_the_game(counter, game) for counter in counters)
    finally:
        await table.stop()


async def test_a_game_taken_up_again_does_not_play_its_last_roll(tmp_path):
    table = await virtual_table(tmp_path, TABLE)
    game, manager, counters = table.game, table.manager, table.counters
    try:
        await manager.wait_synced(READY_S)
        clocks = [stepped(counter) for counter in counters]
        game.apply(RollDie(player=0, roll=3, purpose="dice"))
        await until(lambda: all(c.counter.state.effect == wire.SHOW_ROLL for c in counters))
        past_the_roll(counters, clocks)

        # A saved game of the same table whose last action was a roll, resumed.
        saved = new_game(3)
        saved.apply(RollDie(player=2, roll=5, purpose="dice"))
        manager.set_game(saved)
        await until(lambda: all(shows(counter, saved) for counter in counters))
        manager.resync()
        await manager.wait_synced(READY_S)
        assert all(shows_the_game(counter, saved) for counter in counters)
    finally:
        await table.stop()
