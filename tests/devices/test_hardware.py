"""Real counters, opt-in: `pytest --hw-port /dev/ttyACM0` or `pytest --hw-ble AA:BB:...`.

Without a board these tests are skipped (see tests/conftest.py).
"""

from __future__ import annotations

import pytest

from companion.devices import wire
from companion.devices.ble_link import BleLink
from companion.devices.discovery import hello, serial_candidates
from companion.devices.serial_link import SerialLink

pytestmark = pytest.mark.hw


async def test_a_real_serial_counter_answers_hello(request):
    port = request.config.getoption("--hw-port")
    if not port:
        pytest.skip("no --hw-port given")

    async with SerialLink(port) as link:
        answer = await hello(link)

    assert answer.role in (wire.ROLE_BOARD, wire.ROLE_TRACKER)
    assert answer.major == wire.PROTOCOL_MAJOR


def test_the_real_serial_counter_is_a_discovery_candidate(request):
    port = request.config.getoption("--hw-port")
    if not port:
        pytest.skip("no --hw-port given")

    assert port in [candidate.port for candidate in serial_candidates()]


async def test_a_real_ble_counter_answers_hello_and_survives_a_reconnect(request):
    address = request.config.getoption("--hw-ble")
    if not address:
        pytest.skip("no --hw-ble given")

    link = await BleLink.find(address)
    for _ in range(2):
        async with link:
            answer = await hello(link)
            assert answer.role in (wire.ROLE_BOARD, wire.ROLE_TRACKER)


async def test_the_sync_manager_reaches_a_real_counter_and_keeps_it_in_step(request, tmp_path):
    port = request.config.getoption("--hw-port")
    if not port:
        pytest.skip("no --hw-port given")
    from companion.devices.link import LinkState
    from companion.devices.status import Access, Role
    from companion.devices.sync import DeviceManager
    from companion.devices.tokens import TokenStore

    from .helpers import new_game

    manager = DeviceManager(tokens=TokenStore(tmp_path / "counters.json"))
    await manager.start(new_game(), serial_ports=[port], use_ble=False)
    try:
        await manager.wait_ready(timeout_s=15)
        (status,) = manager.statuses()
        # A board fresh from deploy is unclaimed; one claimed by a real app is another table's.
        assert status.access in (Access.UNCLAIMED, Access.CLAIMED_ELSEWHERE, Access.OURS)
        assert status.role in (Role.BOARD, Role.TRACKER)
        assert status.connection is LinkState.OPEN
    finally:
        await manager.stop()
