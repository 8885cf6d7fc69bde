"""BleLink over the virtual radio: the app's real bleak code path end to end."""

from __future__ import annotations

import asyncio
import threading

import pytest

from companion.devices.ble_link import BleLink
from companion.devices.link import LinkClosedError, LinkLostError, LinkOpenError, LinkState

from .helpers import until

pytestmark = pytest.mark.slow


async def open_link(radio, counter) -> BleLink:
    link = await BleLink.find(
        counter.peripheral.address, backend=radio.bleak_backend(), timeout_s=1
    )
    await link.open()
    return link


async def test_messages_travel_both_ways(radio, make_counter):
    counter = await make_counter()
    link = await open_link(radio, counter)

    await link.send(b"\x02snapshot")
    echoed = await asyncio.wait_for(link.recv(), 1)
    await counter.peripheral.notify(b"\x05button")
    pressed = await asyncio.wait_for(link.recv(), 1)

    assert counter.received == [b"\x02snapshot"]
    assert (echoed, pressed) == (b"\x02snapshot", b"\x05button")
    await link.close()
    assert link.state is LinkState.CLOSED


async def test_a_cut_is_reported_and_the_link_reopens_with_notifications(radio, make_counter):
    counter = await make_counter()
    link = await open_link(radio, counter)
    states: list[LinkState] = []
    link.on_state_change(states.append)

    await counter.peripheral.disconnect()
    with pytest.raises(LinkLostError):
        await asyncio.wait_for(link.recv(), 1)
    assert link.state is LinkState.LOST
    with pytest.raises(LinkLostError):
        await link.send(b"late")

    await link.open()
    await counter.peripheral.notify(b"after")
    assert await asyncio.wait_for(link.recv(), 1) == b"after"
    assert states == [LinkState.LOST, LinkState.OPENING, LinkState.OPEN]
    await link.close()


async def test_iteration_ends_when_the_counter_goes_away(radio, make_counter):
    counter = await make_counter(echo=False)
    link = await open_link(radio, counter)
    for payload in (b"a", b"b"):
        await counter.peripheral.notify(payload)
    await until(lambda: link._queue.qsize() == 2)  # both arrived before the counter goes
    await counter.peripheral.disconnect()

    received = [payload async for payload in link]

    assert received == [b"a", b"b"]


async def test_opening_a_switched_off_counter_fails_cleanly(radio, make_counter):
    counter = await make_counter()
    link = await BleLink.find(counter.peripheral.address, backend=radio.bleak_backend())
    await counter.peripheral.stop()

    with pytest.raises(LinkOpenError):
        await link.open()
    assert link.state is LinkState.CLOSED
    with pytest.raises(LinkClosedError):
        await link.send(b"x")


async def test_find_accepts_the_advertised_name(radio, make_counter):
    await make_counter("MCounter-A")
    wanted = await make_counter("MCounter-B")

    link = await BleLink.find("mcounter-b", backend=radio.bleak_backend(), timeout_s=1)

    assert link.address == wanted.peripheral.address


async def test_find_gives_up_on_an_address_nobody_advertises(radio):
    with pytest.raises(LinkOpenError, match="no counter"):
        await BleLink.find("C0:00:00:00:99:99", backend=radio.bleak_backend(), timeout_s=0.1)


async def test_concurrent_opens_make_one_connection(radio, make_counter):
    counter = await make_counter()
    link = await BleLink.find(counter.peripheral.address, backend=radio.bleak_backend())

    await asyncio.gather(link.open(), link.open(), link.open())

    assert counter.peripheral.connections == 1
    await link.close()


async def test_ble_io_runs_on_the_loop_without_threads(radio, make_counter):
    counter = await make_counter()
    before = set(threading.enumerate())

    link = await open_link(radio, counter)
    await link.send(b"ping")
    assert await asyncio.wait_for(link.recv(), 1) == b"ping"
    await counter.peripheral.disconnect()
    await link.open()
    await link.close()

    assert set(threading.enumerate()) <= before
