"""An outdated counter is asked to update, and a low battery reaches the app's status."""

from __future__ import annotations

import pytest

from companion.devices import firmware_host, wire
from companion.devices.serial_link import SerialLink
from companion.devices.session import MIN_FIRMWARE, firmware_outdated, update_advice
from companion.devices.sim.counters import SerialVirtualCounter
from companion.devices.status import Access, Role

from .helpers import fast_manager, new_game, until

pytestmark = pytest.mark.slow


def test_the_firmware_gate_compares_versions_as_numbers() -> None:
    assert MIN_FIRMWARE == (1, 0, 0)
    assert firmware_outdated(wire.Hello(wire.ROLE_TRACKER, (0, 9, 12)))
    assert not firmware_outdated(wire.Hello(wire.ROLE_TRACKER, (1, 0, 0)))
    assert not firmware_outdated(wire.Hello(wire.ROLE_TRACKER, (1, 10, 0)))
    assert update_advice(wire.Hello(wire.ROLE_TRACKER, (0, 9, 12))) == (
        "update this counter: its firmware 0.9.12 is older than 1.0.0"
    )


async def test_an_outdated_counter_is_told_to_update_and_gets_nothing(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw = firmware_host.load()
    monkeypatch.setattr(fw.logic, "FIRMWARE_VERSION", (0, 9, 0))
    counter = SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "old", claim_on_hello=True)
    await counter.start()
    manager = fast_manager(tmp_path)
    try:
        manager.set_game(new_game())
        manager.add_link(SerialLink(counter.address))
        await until(lambda: manager.statuses()[0].access is Access.VERSION)
        status = manager.statuses()[0]
        assert status.firmware == "0.9.0"
        assert status.last_problem == "update this counter: its firmware 0.9.0 is older than 1.0.0"
        assert not counter.counter.claimed and counter.counter.state.rev == 0
    finally:
        await manager.stop()
        await counter.stop()


async def test_a_low_battery_reaches_the_status(tmp_path) -> None:
    counter = SerialVirtualCounter(
        Role.TRACKER, link_path=tmp_path / "tracker", battery_mv=3350, claim_on_hello=True
    )
    await counter.start()
    manager = fast_manager(tmp_path)
    try:
        manager.set_game(new_game())
        manager.add_link(SerialLink(counter.address))
        await until(lambda: manager.statuses()[0].battery_percent is not None, 10)
        status = manager.statuses()[0]
        assert status.battery_percent < 10 and status.battery_low and not status.charging
        assert status.players == (0,)
    finally:
        await manager.stop()
        await counter.stop()


async def test_a_counter_in_safe_mode_is_shown_as_such_and_never_claimed(tmp_path) -> None:
    counter = SerialVirtualCounter(Role.TRACKER, link_path=tmp_path / "safe", claim_on_hello=True)
    await counter.start()
    counter.start_in_safe_mode(5)
    manager = fast_manager(tmp_path)
    try:
        manager.set_game(new_game())
        manager.add_link(SerialLink(counter.address))
        await until(lambda: manager.statuses()[0].failed_starts == 5)
        status = manager.statuses()[0]
        assert status.safe_mode and status.access is not Access.OURS
        assert "safe mode" in status.last_problem
        assert status.role is Role.TRACKER and status.firmware == "1.0.0"
        assert not counter.counter.claimed  # no claim, no session: only an install helps
    finally:
        await manager.stop()
        await counter.stop()
