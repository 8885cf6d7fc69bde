"""Counters under faults, through the real carriers and the firmware's own logic: one damaged
HELLO disables nothing, a press is never taken twice nor lost to the counter's numbers
wrapping, and another program on the line neither knocks the app off nor goes unsaid."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from companion.core import GoUpLevel, LoseLevel
from companion.devices import framing, status, wire
from companion.devices.ble_link import BleLink
from companion.devices.serial_link import SerialLink
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.counters import BleVirtualCounter, SerialVirtualCounter
from companion.devices.status import Access, Role
from companion.devices.sync import DeviceManager

from .helpers import InThePath, PortIntruder, fast_manager, new_game, shows, until

pytestmark = pytest.mark.slow


def first_hello_damaged(at: int, change: Callable[[int], int]) -> Callable[[bytes], bytes]:
    """Change byte `at` of the first HELLO the counter sends that the change changes (noise
    on the air)."""
    done: list[bool] = []

    def tamper(payload: bytes) -> bytes:
        if payload[:1] != bytes([wire.MSG_HELLO]) or done or change(payload[at]) == payload[at]:
            return payload
        done.append(True)
        damaged = bytearray(payload)
        damaged[at] = change(damaged[at])
        return bytes(damaged)

    return tamper


@contextlib.asynccontextmanager
async def ble_tracker(
    tmp_path: Path, tamper: Callable[[bytes], bytes | None] | None = None
) -> AsyncIterator[tuple[BleVirtualCounter, DeviceManager, InThePath]]:
    """A BLE tracker on the virtual radio, and the app's manager holding it over a link with
    something in the path; the manager follows a new game."""
    radio = VirtualRadio()
    tracker = BleVirtualCounter(Role.TRACKER, radio=radio, claim_on_hello=True)
    await tracker.start()
    manager = fast_manager(tmp_path, backend=radio.bleak_backend())
    manager.set_game(new_game())
    try:
        path = InThePath(await BleLink.find(tracker.address, backend=radio.bleak_backend()), tamper)
        manager.add_link(path)
        yield tracker, manager, path
    finally:
        await manager.stop()
        await tracker.stop()
        await radio.close()


# -- a damaged HELLO ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("at", "change"),
    [
        (3, lambda major: major + 1),  # the protocol's major version
        (5, lambda _major: 0),  # the firmware's major version: 1.0.0 reads 0.0.0
        (13, lambda caps: caps & 0x7F),  # the high byte of its caps, without CAP_CLAIMED
    ],
    ids=["another protocol major", "an outdated firmware", "unclaimed"],
)
async def test_one_damaged_hello_over_ble_does_not_disable_the_counter(tmp_path, at, change):
    async with ble_tracker(tmp_path, first_hello_damaged(at, change)) as (tracker, manager, _):
        await manager.wait_ours(timeout_s=10)  # asked again, and it was the counter after all
        game = manager.game
        assert game is not None
        game.apply(GoUpLevel(player=0))
        await until(lambda: shows(tracker, game))
        assert manager.statuses()[0].access is Access.OURS


# -- presses: once each, whatever comes again ------------------------------------------------


async def test_a_press_a_relay_replays_after_64_newer_ones_is_not_taken_again(tmp_path):
    async with ble_tracker(tmp_path) as (tracker, manager, relay):
        game = manager.game
        assert game is not None
        await manager.wait_ours(timeout_s=10)
        for i in range(66):
            tracker.press("plus" if i % 2 == 0 else "minus")
            await until(lambda i=i: len(tracker.acked_presses) == i + 1)
        first = next(p for p in relay.heard if p[:1] == bytes([wire.MSG_BUTTON]))
        assert len(manager.presses) == 66 and game.state.players[0].level == 1

        relay.replay(first)  # the counter's own sealed "plus", 65 presses later
        tracker.press("plus")  # read after the copy: once it is taken, the copy was judged
        await until(lambda: len(tracker.acked_presses) == 67)
        assert len(manager.presses) == 67  # the copy was never taken
        assert game.state.players[0].level == 2


async def test_a_press_numbered_as_one_before_the_wrap_is_still_taken(tmp_path):
    tracker = SerialVirtualCounter(
        Role.TRACKER, link_path=tmp_path / "tracker", claim_on_hello=True
    )
    await tracker.start()
    # Nothing of the app's own in between: the counter's numbers move by its reports alone.
    manager = fast_manager(tmp_path, ping_interval_s=600, refresh_interval_s=600)
    game = new_game()
    manager.set_game(game)
    try:
        manager.add_link(SerialLink(tracker.address))
        await manager.wait_ours(timeout_s=10)
        await manager.wait_synced()
        tracker.press("plus")
        await until(lambda: bool(tracker.acked_presses))
        (seq, _intent) = tracker.sent_presses[0]
        # Some 36 hours of a mains board's messages: round the counter's numbers once, to
        # just before that press's number. The app hears every one of them. Batches of 250,
        # each heard within 30 s (120 ms a message): a loaded machine took over 30 s for
        # 2,000, and a machine loaded with more than the suite's three busy processes took
        # over 30 s for 500.
        batch = 0
        while tracker.counter._seq != seq - 1:
            left = (seq - 1 - tracker.counter._seq) % 0xFFFF
            batch += 1
            millivolts = 3300 + batch % 900  # each batch ends on a reading of its own

            # In play the app pings every few seconds and the counter keeps its session
            # (its pings are off here: their answers would take numbers). Alone this loop
            # takes ~10 s, the very time after which a counter ends a silent app's
            # session and reports to nobody: on a busy machine it did, and the test hung.
            # So the counter counts the app as heard all along, however long a batch takes.
            def heard(mv: int = millivolts) -> bool:
                now = tracker.counter.clock()
                for session in tracker.counter.sessions:
                    session.heard_at = now
                tracker.counter._app_seen = now
                # Nor does its serial line go quiet (it would forget the app's HELLO).
                tracker._protocol.heard_at = tracker._serial.timebase.ticks_ms()
                return manager.statuses()[0].battery_mv == mv

            heard()
            for _ in range(min(left, 250)):
                tracker.report_battery(millivolts)
            await until(heard, 90)
        # The app listened without a word (its pings are off here, for their answers would
        # take numbers): on a loaded machine that outlasts the 15 s after which a tracker
        # counts itself offline and keeps its presses. In play the app pings every few
        # seconds; the counter heard it just now.
        tracker.counter._app_seen = tracker.counter.clock()
        tracker.press("plus")
        assert tracker.sent_presses[1][0] == seq  # the same number as the first press
        await until(lambda: len(tracker.acked_presses) == 2)
        await until(lambda: game.state.players[0].level == 3)  # taken, not taken for the first
        assert len(manager.presses) == 2
    finally:
        await manager.stop()
        await tracker.stop()


# -- another program on the line -----------------------------------------------------------


@pytest.fixture
def quick_calm(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line counts as calm again a second after the last sign, not ten."""
    monkeypatch.setattr(status, "DISTURBANCE_WINDOW_S", 1.0, raising=False)


@pytest.mark.parametrize("what", ["an AUTH without a body", "junk", "a HELLO flood"])
async def test_another_program_on_the_line_is_said_and_knocks_nothing_off(
    tmp_path, what, quick_calm
):
    board = SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "board", claim_on_hello=True)
    await board.start()
    manager = fast_manager(tmp_path)
    game = new_game()
    manager.set_game(game)
    intruder = None
    try:
        manager.add_link(SerialLink(board.address))
        await manager.wait_ours(timeout_s=10)
        (connection,) = manager.connections.values()
        reconnects = connection.status.reconnects
        intruder = PortIntruder(board.address)
        round_ = 0
        # The counter reports dropped junk at most once a second and the screen needs a
        # few signs: junk keeps coming (each round one play) until it is said.
        while round_ < 40 or (what == "junk" and not connection.status.disturbed and round_ < 4000):
            round_ += 1
            if what == "junk":
                intruder.write(os.urandom(100))
            elif what == "a HELLO flood":  # each answered with the counter's own HELLO
                hello = wire.encode(wire.Hello(role=wire.ROLE_APP))
                for _ in range(5):
                    intruder.write(framing.frame(hello))
            else:
                # The counter answers each with an unsealed ERROR about the stranger's seq.
                intruder.write(framing.frame(bytes([wire.MSG_AUTH, round_ + 1, 0])))
            game.apply(GoUpLevel(player=0) if round_ % 2 == 0 else LoseLevel(player=0))
            await until(lambda: shows(board, game) and connection.synced, 10)
        # Nothing knocked off: no reconnect, and the counter is still the app's.
        assert connection.status.reconnects == reconnects
        assert connection.status.access is Access.OURS
        # The counter tells of the junk it dropped; the stranger's answers reach the
        # app too: either way the Devices screen says so.
        assert connection.status.disturbed, "the Devices screen must say so"
        intruder.close()
        intruder = None
        await manager.wait_for(lambda: not connection.status.disturbed, 10)  # calm again
    finally:
        if intruder is not None:
            intruder.close()
        await manager.stop()
        await board.stop()
