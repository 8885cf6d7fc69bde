"""The Bumble-backed bleak backend, driven through bleak's own public classes."""

from __future__ import annotations

import asyncio

import pytest
from bleak import BleakClient, BleakScanner
from bleak.exc import BleakError, BleakGATTProtocolError, BleakGATTProtocolErrorCode
from bumble.att import ATT_Error, ErrorCode

from companion.devices import wire
from companion.devices.sim.bumble_backend import (
    BumbleBleakClient,
    BumbleBleakScanner,
)
from companion.devices.sim.virtual_peripheral import VirtualPeripheral

from .helpers import until

pytestmark = pytest.mark.slow


async def test_scanner_finds_counters_by_service_uuid_with_their_names(radio, make_counter):
    first = await make_counter("MCounter-1A2B")  # a real counter's name length
    second = await make_counter("MCounter-B")

    found = await BleakScanner.discover(
        timeout=0.2,
        service_uuids=[wire.SERVICE_UUID],
        return_adv=True,
        backend=BumbleBleakScanner,
        radio=radio,
    )

    by_address = {device.address: adv for device, adv in found.values()}
    assert set(by_address) == {first.peripheral.address, second.peripheral.address}
    assert by_address[first.peripheral.address].local_name == "MCounter-1A2B"
    assert wire.SERVICE_UUID in by_address[second.peripheral.address].service_uuids


async def test_scanner_filter_hides_devices_without_our_service(radio, make_counter):
    await make_counter()
    other_service = "0000180d-0000-1000-8000-00805f9b34fb"  # heart rate

    found = await BleakScanner.discover(
        timeout=0.1, service_uuids=[other_service], backend=BumbleBleakScanner, radio=radio
    )

    assert found == []


async def test_client_discovers_writes_and_gets_notified(radio, make_counter):
    counter = await make_counter()
    device = await BleakScanner.find_device_by_address(
        counter.peripheral.address, timeout=1, backend=BumbleBleakScanner, radio=radio
    )
    assert device is not None
    notified: asyncio.Queue[bytes] = asyncio.Queue()

    async with BleakClient(device, backend=BumbleBleakClient, radio=radio) as client:
        char = client.services.get_characteristic(wire.RX_CHAR_UUID)
        assert "write-without-response" in char.properties
        assert client.services.get_characteristic(wire.TX_CHAR_UUID).properties == ["notify"]
        assert char.max_write_without_response_size == 20
        await client.start_notify(wire.TX_CHAR_UUID, lambda _c, data: notified.put_nowait(data))
        await client.write_gatt_char(wire.RX_CHAR_UUID, b"\x01" * 20, response=False)
        echoed = await asyncio.wait_for(notified.get(), 1)

    assert counter.received == [b"\x01" * 20]
    assert echoed == bytearray(b"\x01" * 20)
    assert not counter.peripheral.is_connected


async def test_client_reports_a_disconnect_from_the_counter_side(radio, make_counter):
    counter = await make_counter()
    gone = asyncio.Event()
    client = BleakClient(
        counter.peripheral.address,
        disconnected_callback=lambda _client: gone.set(),
        backend=BumbleBleakClient,
        radio=radio,
    )
    await client.connect()
    assert client.is_connected

    await counter.peripheral.disconnect()

    await asyncio.wait_for(gone.wait(), 1)
    assert not client.is_connected
    with pytest.raises(BleakError):
        await client.write_gatt_char(wire.RX_CHAR_UUID, b"x", response=False)


async def test_own_disconnect_does_not_call_the_disconnected_callback(radio, make_counter):
    counter = await make_counter()
    calls: list[object] = []
    client = BleakClient(
        counter.peripheral.address,
        disconnected_callback=calls.append,
        backend=BumbleBleakClient,
        radio=radio,
    )
    await client.connect()
    # It returns once the disconnection was reported, callbacks and all.
    await client.disconnect()

    assert calls == []
    assert not client.is_connected


async def test_connecting_to_an_absent_address_fails_at_once(radio):
    client = BleakClient("C0:00:00:00:99:99", backend=BumbleBleakClient, radio=radio)

    with pytest.raises(BleakError, match="nothing at"):
        await client.connect()


async def test_counter_can_be_reconnected_after_a_cut(radio, make_counter):
    counter = await make_counter()
    client = BleakClient(counter.peripheral.address, backend=BumbleBleakClient, radio=radio)
    await client.connect()
    await counter.peripheral.disconnect()
    await until(lambda: not client.is_connected)

    await client.connect()
    await client.write_gatt_char(wire.RX_CHAR_UUID, b"again", response=False)
    await until(lambda: bool(counter.received))

    assert counter.received == [b"again"]
    assert counter.peripheral.connections == 2
    await client.disconnect()


async def test_the_counter_hears_the_app_come_and_go(radio):
    changes: list[bool] = []
    peripheral = VirtualPeripheral(
        radio,
        "MCounter-7",
        service_uuid=wire.SERVICE_UUID,
        write_uuid=wire.RX_CHAR_UUID,
        notify_uuid=wire.TX_CHAR_UUID,
        on_write=lambda _payload: None,
        on_connection_change=changes.append,
    )
    await peripheral.start()
    client = BleakClient(peripheral.address, backend=BumbleBleakClient, radio=radio)

    await client.connect()
    await client.disconnect()
    await until(lambda: len(changes) == 2)
    await peripheral.stop()

    assert changes == [True, False]


async def test_closing_the_radio_cuts_every_connection(radio, make_counter):
    counter = await make_counter()
    gone = asyncio.Event()
    client = BleakClient(
        counter.peripheral.address,
        disconnected_callback=lambda _client: gone.set(),
        backend=BumbleBleakClient,
        radio=radio,
    )
    await client.connect()

    await radio.close()

    await asyncio.wait_for(gone.wait(), 1)
    assert not counter.peripheral.is_connected


async def test_a_refused_write_with_response_surfaces_as_a_gatt_protocol_error(radio):
    def refuse(_payload: bytes) -> None:
        raise ATT_Error(ErrorCode.WRITE_NOT_PERMITTED)

    peripheral = VirtualPeripheral(
        radio,
        "MCounter-8",
        service_uuid=wire.SERVICE_UUID,
        write_uuid=wire.RX_CHAR_UUID,
        notify_uuid=wire.TX_CHAR_UUID,
        on_write=refuse,
    )
    await peripheral.start()
    try:
        async with BleakClient(peripheral.address, backend=BumbleBleakClient, radio=radio) as c:
            with pytest.raises(BleakGATTProtocolError) as caught:
                await c.write_gatt_char(wire.RX_CHAR_UUID, b"x", response=True)
    finally:
        await peripheral.stop()

    assert caught.value.code == BleakGATTProtocolErrorCode.WRITE_NOT_PERMITTED


async def test_connecting_a_connected_client_again_keeps_its_one_connection(radio, make_counter):
    counter = await make_counter()
    client = BleakClient(counter.peripheral.address, backend=BumbleBleakClient, radio=radio)

    await client.connect()
    await client.connect()

    assert counter.peripheral.connections == 1
    await client.disconnect()
