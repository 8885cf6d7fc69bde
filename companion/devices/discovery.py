"""Finding counters: serial ports by USB vendor/product id, BLE devices by service UUID, both
confirmed by a HELLO exchange.

A USB id only says "this could be a microcontroller board"; the HELLO answer
says it is one of our counters, which role it plays and which firmware it runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bleak.backends.device import BLEDevice
from bleak.exc import BleakError
from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo

from companion.devices import wire
from companion.devices.ble_link import BleBackend, BleLink
from companion.devices.link import Link, LinkError
from companion.devices.links import link_to
from companion.devices.session import HELLO_TIMEOUT_S, Session
from companion.devices.status import Role

_LOGGER = logging.getLogger(__name__)

SCAN_TIMEOUT_S = 3.0  # s: counters advertise at least every 500 ms; three seconds hears each often
BLE_PROBES_AT_ONCE = 1  # BLE stacks handle one connection attempt at a time; serial is unlimited
BATTERY_WAIT_S = 0.3  # s: after an accepted AUTH, how long a scan waits for a BATTERY report


@dataclass(frozen=True)
class UsbId:
    """A USB vendor (and optionally product) id that counters' boards show up with."""

    vid: int
    pid: int | None
    label: str

    def matches(self, vid: int | None, pid: int | None) -> bool:
        return vid == self.vid and (self.pid is None or pid == self.pid)


KNOWN_USB_IDS: tuple[UsbId, ...] = (
    UsbId(0x303A, None, "Espressif native USB"),  # ESP32-C3/S3 USB-Serial-JTAG and TinyUSB CDC
    UsbId(0x2E8A, None, "Raspberry Pi RP2040/RP2350"),  # Pico W running MicroPython: 0x0005
    UsbId(0x10C4, 0xEA60, "Silicon Labs CP210x"),
    UsbId(0x1A86, 0x7523, "WCH CH340"),
    UsbId(0x1A86, 0x55D4, "WCH CH9102"),
    UsbId(0x1A86, 0x55D3, "WCH CH343"),
    UsbId(0x0403, 0x6001, "FTDI FT232R"),
    UsbId(0x0403, 0x6010, "FTDI FT2232"),
    UsbId(0x0403, 0x6014, "FTDI FT232H"),
    UsbId(0x0403, 0x6015, "FTDI FT231X"),
)


@dataclass(frozen=True)
class SerialCandidate:
    """A serial port whose USB id fits a counter's board (not yet confirmed)."""

    port: str
    board: str
    description: str = ""
    serial_number: str | None = None


@dataclass(frozen=True)
class BleCandidate:
    """A BLE device advertising the counter service (not yet confirmed)."""

    device: BLEDevice
    name: str | None
    rssi: int

    @property
    def address(self) -> str:
        return self.device.address


@dataclass(frozen=True)
class CounterInfo:
    """A confirmed counter: where it is and what its HELLO said."""

    transport: str  # "serial" or "ble"
    address: str  # serial port path or BLE address
    name: str
    hello: wire.Hello
    #: The BLE device the scan found (None for serial): what `BleLink` connects to.
    device: BLEDevice | None = field(default=None, compare=False)
    #: Charge in percent, if the counter told (BLE Battery service, or a session of ours).
    battery_percent: int | None = None
    #: True if this app holds the counter's token and the counter accepted it.
    ours: bool = False

    @property
    def role(self) -> Role | None:
        """A board or a tracker, as its HELLO says (None for a role this app does not know)."""
        return Role.of_hello(self.hello.role)

    @property
    def claimed(self) -> bool:
        """True if the counter belongs to some app (ours or another table's)."""
        return bool(self.hello.caps & wire.CAP_CLAIMED)

    @property
    def firmware(self) -> str:
        """Firmware version as "major.minor.patch"."""
        return ".".join(str(part) for part in self.hello.firmware)


def serial_candidates(ports: Iterable[ListPortInfo] | None = None) -> list[SerialCandidate]:
    """Serial ports whose USB vendor/product id belongs to a board counters run on.

    `ports` defaults to the system's ports (`serial.tools.list_ports.comports()`).
    """
    found = []
    for info in list_ports.comports() if ports is None else ports:
        for usb_id in KNOWN_USB_IDS:
            if usb_id.matches(info.vid, info.pid):
                found.append(
                    SerialCandidate(
                        port=info.device,
                        board=usb_id.label,
                        description=info.description or "",
                        serial_number=info.serial_number,
                    )
                )
                break
    return sorted(found, key=lambda candidate: candidate.port)


async def scan_ble(
    backend: BleBackend | None = None, timeout_s: float = SCAN_TIMEOUT_S
) -> list[BleCandidate]:
    """BLE devices advertising the counter service, strongest signal first."""
    backend = backend or BleBackend()
    scanner = backend.new_scanner(service_uuids=[wire.SERVICE_UUID])
    async with scanner:
        await asyncio.sleep(timeout_s)
    found = [
        BleCandidate(device, adv.local_name or device.name, adv.rssi)
        for device, adv in scanner.discovered_devices_and_advertisement_data.values()
        if wire.SERVICE_UUID in adv.service_uuids
    ]
    return sorted(found, key=lambda candidate: -candidate.rssi)


async def hello(link: Link, *, timeout_s: float = HELLO_TIMEOUT_S) -> wire.Hello:
    """Send the app's HELLO on an open link and return the counter's.

    Messages that are not a counter's HELLO are skipped (a counter may still be
    flushing what it sent before); raises `NotACounterError` if none comes within
    `timeout_s`, `CounterVersionError` if the counter speaks another protocol major.
    """
    session = Session(link)
    with session.listening():
        return await session.start(timeout_s)


class TokenLookup(Protocol):
    """Where probing finds the app's claim tokens (`companion.devices.tokens.TokenStore`)."""

    def get(self, counter_id: int) -> bytes | None: ...


async def probe(
    link: Link,
    name: str,
    *,
    timeout_s: float = HELLO_TIMEOUT_S,
    tokens: TokenLookup | None = None,
) -> CounterInfo:
    """Open `link`, exchange HELLO, close it again; raises a `LinkError` if it is no counter.

    With `tokens`, a claimed counter this app holds the token of is authenticated
    (which proves it is ours, and lets it report its battery); a BLE counter's
    battery is read from its Battery service.
    """
    battery: int | None = None
    ours = False
    reported: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def on_other(message: wire.Message) -> None:
        if isinstance(message, wire.Battery) and not reported.done():
            reported.set_result(message.percent)

    session = Session(link)
    async with link:
        with session.listening(on_other):
            answer = await session.start(timeout_s)
            token = tokens.get(answer.counter_id) if tokens is not None else None
            if token is not None and answer.caps & wire.CAP_CLAIMED:
                ours = await _authenticate(session, token, timeout_s)
                if ours:
                    battery = await _battery_report(reported)
        if isinstance(link, BleLink):
            battery = await link.read_battery_percent()
    device = link.device if isinstance(link, BleLink) else None
    return CounterInfo(
        transport=link.transport,
        address=link.address,
        name=name,
        hello=answer,
        device=device,
        battery_percent=battery,
        ours=ours,
    )


async def _authenticate(session: Session, token: bytes, timeout_s: float) -> bool:
    """Answer the counter's CHALLENGE with `token`; True if it accepted (False on any trouble)."""
    try:
        return await session.authenticate(token, timeout_s=timeout_s, auth_timeout_s=timeout_s)
    except LinkError:
        return False


async def _battery_report(reported: asyncio.Future[int]) -> int | None:
    """The BATTERY report an accepted session brings, if it comes within `BATTERY_WAIT_S`."""
    try:
        async with asyncio.timeout(BATTERY_WAIT_S):
            return await reported
    except TimeoutError:
        return None  # an accepted session that reported no battery (yet)


async def discover(
    *,
    backend: BleBackend | None = None,
    serial_ports: Sequence[str] | None = None,
    use_ble: bool = True,
    scan_timeout_s: float = SCAN_TIMEOUT_S,
    hello_timeout_s: float = HELLO_TIMEOUT_S,
    tokens: TokenLookup | None = None,
) -> list[CounterInfo]:
    """Every counter that answers HELLO, on serial and BLE.

    Serial ports are probed all at once, BLE devices one after another (beside
    the serial ones), since BLE stacks refuse or stall a second connection attempt.
    `serial_ports` replaces the USB-id filtered system ports (the simulator
    passes its pty paths here). Ports and devices that do not answer are left out.
    """
    links: list[tuple[Link, str]] = []
    ports = (
        list(serial_ports) if serial_ports is not None else [c.port for c in serial_candidates()]
    )
    links += [(link_to("serial", port), port) for port in ports]
    if use_ble:
        try:
            candidates = await scan_ble(backend, scan_timeout_s)
        except (BleakError, OSError) as exc:  # no adapter, no BlueZ, no permission
            _LOGGER.info("BLE scan not possible: %s", exc)
            candidates = []
        links += [
            (link_to("ble", c.address, device=c.device, backend=backend), c.name or c.address)
            for c in candidates
        ]
    ble_turns = asyncio.Semaphore(BLE_PROBES_AT_ONCE)

    async def probe_one(link: Link, name: str) -> CounterInfo:
        if isinstance(link, BleLink):
            async with ble_turns:
                return await probe(link, name, timeout_s=hello_timeout_s, tokens=tokens)
        return await probe(link, name, timeout_s=hello_timeout_s, tokens=tokens)

    results = await asyncio.gather(
        *(probe_one(link, name) for link, name in links), return_exceptions=True
    )
    found = []
    for (link, _name), result in zip(links, results, strict=True):
        if isinstance(result, CounterInfo):
            found.append(result)
        elif isinstance(result, LinkError):
            _LOGGER.info("%s: not a counter: %s", link.name, result)
        elif isinstance(result, BaseException):
            raise result
    return found
