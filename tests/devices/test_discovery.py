"""Discovery: USB-id filtering, BLE scan by service UUID, HELLO confirmation on both carriers."""

from __future__ import annotations

import pytest
from serial.tools.list_ports_common import ListPortInfo

from companion.devices import framing, wire
from companion.devices.discovery import (
    discover,
    hello,
    scan_ble,
    serial_candidates,
)
from companion.devices.serial_link import SerialLink
from companion.devices.session import CounterVersionError, NotACounterError
from companion.devices.sim.pty_port import PtyPort
from companion.devices.sim.virtual_peripheral import VirtualPeripheral

TRACKER_HELLO = wire.Hello(
    role=wire.ROLE_TRACKER,
    firmware=(1, 2, 3),
    slots=1,
    led_count=10,
    caps=wire.CAP_CLAIMED | wire.CAP_SEGMENTS,
    counter_id=42,
)
BOARD_HELLO = wire.Hello(
    role=wire.ROLE_BOARD, firmware=(0, 9, 0), slots=6, led_count=60, counter_id=42
)


def usb_port(device: str, vid: int | None, pid: int | None) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    return info


def test_only_ports_of_known_boards_are_candidates():
    ports = [
        usb_port("/dev/ttyACM1", 0x2E8A, 0x0005),  # Pico W
        usb_port("/dev/ttyACM0", 0x303A, 0x1001),  # ESP32-C3 native USB
        usb_port("/dev/ttyUSB0", 0x1A86, 0x7523),  # CH340
        usb_port("/dev/ttyUSB1", 0x1A86, 0x0001),  # other WCH product
        usb_port("/dev/ttyS0", None, None),  # built-in UART
        usb_port("/dev/ttyACM9", 0x2341, 0x0043),  # Arduino Uno
    ]

    found = serial_candidates(ports)

    assert [(c.port, c.board) for c in found] == [
        ("/dev/ttyACM0", "Espressif native USB"),
        ("/dev/ttyACM1", "Raspberry Pi RP2040/RP2350"),
        ("/dev/ttyUSB0", "WCH CH340"),
    ]


class PtyCounter:
    """A serial far end that answers HELLO with `answer` (or stays silent if None)."""

    def __init__(self, path, answers: list[bytes] | None) -> None:
        self.port = PtyPort(path)
        self.answers = answers
        self.deframer = framing.Deframer()
        self.port.on_data(self._on_data)
        self.port.plug()

    def _on_data(self, data: bytes) -> None:
        for payload in self.deframer.feed(data):
            if self.answers is not None and isinstance(wire.decode(payload), wire.Hello):
                for answer in self.answers:
                    self.port.write(framing.frame(answer))


@pytest.fixture
async def pty_counter(tmp_path):
    made: list[PtyCounter] = []

    def make(name: str, answers: list[bytes] | None) -> PtyCounter:
        counter = PtyCounter(tmp_path / name, answers)
        made.append(counter)
        return counter

    yield make
    for counter in made:
        counter.port.close()


async def test_hello_skips_noise_and_returns_the_counters_hello(pty_counter):
    noise = [b"\xff\x00", wire.encode(wire.Ping(token=1))]
    counter = pty_counter("c", [*noise, TRACKER_HELLO.encode()])

    async with SerialLink(counter.port.path) as link:
        answer = await hello(link, timeout_s=1)

    assert answer == TRACKER_HELLO


async def test_a_counter_with_another_protocol_major_is_named_as_such(pty_counter):
    newer = wire.encode(wire.Error(wire.ERR_VERSION, detail=f"need {wire.PROTOCOL_MAJOR + 1}.x"))
    counter = pty_counter("c", [newer])

    async with SerialLink(counter.port.path) as link:
        with pytest.raises(CounterVersionError, match=rf"protocol {wire.PROTOCOL_MAJOR}\.x"):
            await hello(link, timeout_s=1)


async def test_a_silent_port_is_not_a_counter(pty_counter):
    counter = pty_counter("c", None)

    async with SerialLink(counter.port.path) as link:
        with pytest.raises(NotACounterError, match="no HELLO"):
            await hello(link, timeout_s=0.1)


class BleHelloCounter:
    def __init__(self, radio, name: str, answer: bool, on_connection_change=None) -> None:
        self.answer = answer
        self.peripheral = VirtualPeripheral(
            radio,
            name,
            service_uuid=wire.SERVICE_UUID,
            write_uuid=wire.RX_CHAR_UUID,
            notify_uuid=wire.TX_CHAR_UUID,
            on_write=self._on_write,
            on_connection_change=on_connection_change,
        )

    async def _on_write(self, payload: bytes) -> None:
        if self.answer and isinstance(wire.decode(payload), wire.Hello):
            await self.peripheral.notify(TRACKER_HELLO.encode())


@pytest.mark.slow
async def test_scan_lists_advertising_counters(radio, make_counter):
    await make_counter("MCounter-B")

    found = await scan_ble(radio.bleak_backend(), timeout_s=0.1)

    assert [c.name for c in found] == ["MCounter-B"]


@pytest.mark.slow
async def test_discover_confirms_counters_on_both_carriers(radio, pty_counter):
    serial_counter = pty_counter("ok", [BOARD_HELLO.encode()])
    silent = pty_counter("silent", None)
    ble_counters = [
        BleHelloCounter(radio, "MCounter-1", answer=True),
        BleHelloCounter(radio, "Impostor", answer=False),
    ]
    for counter in ble_counters:
        await counter.peripheral.start()

    try:
        found = await discover(
            backend=radio.bleak_backend(),
            serial_ports=[serial_counter.port.path, silent.port.path],
            scan_timeout_s=0.1,
            hello_timeout_s=0.3,
        )
    finally:
        for counter in ble_counters:
            await counter.peripheral.stop()

    summary = sorted((c.transport, c.address, c.name, c.role, c.firmware, c.claimed) for c in found)
    assert summary == [
        ("ble", ble_counters[0].peripheral.address, "MCounter-1", "tracker", "1.2.3", True),
        ("serial", serial_counter.port.path, serial_counter.port.path, "board", "0.9.0", False),
    ]
    assert all(c.hello.counter_id == 42 for c in found)


@pytest.mark.slow
async def test_ble_counters_are_probed_one_at_a_time(radio):
    connected: set[str] = set()
    most_at_once = 0

    def tracker(name: str):
        def changed(is_connected: bool) -> None:
            nonlocal most_at_once
            (connected.add if is_connected else connected.discard)(name)
            most_at_once = max(most_at_once, len(connected))

        return changed

    counters = []
    for name in ("MCounter-1", "MCounter-2", "MCounter-3"):
        counter = BleHelloCounter(radio, name, answer=True, on_connection_change=tracker(name))
        await counter.peripheral.start()
        counters.append(counter)
    try:
        found = await discover(backend=radio.bleak_backend(), serial_ports=[], scan_timeout_s=0.1)
    finally:
        for counter in counters:
            await counter.peripheral.stop()

    assert sorted(c.name for c in found) == ["MCounter-1", "MCounter-2", "MCounter-3"]
    assert most_at_once == 1
