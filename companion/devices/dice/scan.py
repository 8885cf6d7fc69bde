"""Finding dice in range: listen to advertisements, tell the makers apart, open a source.

A Pixels die advertises its service (`6e400001-…`) with its Pixel id in the
service data and its state in manufacturer data. A GoDice is known by its
advertised name ("GoDice_…"), as its maker's own tools find it; its service is
the Nordic UART one, which a Pixels die and many other gadgets share, so the
service alone says nothing. Gadgets that are neither are left out.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData

from companion.devices.ble_link import BleBackend
from companion.devices.dice import godice_protocol, pixels_protocol
from companion.devices.dice.ble_source import BleDieSource
from companion.devices.dice.godice import GoDiceSource
from companion.devices.dice.model import DecodeError, DieType
from companion.devices.dice.pixels import PixelsSource

SCAN_TIME_S = 5.0  # s: dice advertise several times a second while awake
PIXELS_STATE_BYTES = 5  # LED count, design, roll state, face, battery: a Pixels die's maker data
PIXELS = "Pixels"
GODICE = "GoDice"


@dataclass(frozen=True)
class FoundDie:
    """A die heard advertising."""

    maker: str  # PIXELS or GODICE
    device: BLEDevice
    name: str
    rssi: int | None


def classify(device: BLEDevice, adv: AdvertisementData) -> str | None:
    """Which maker's die this advertisement comes from, or None if it is no die."""
    name = adv.local_name or device.name or ""
    if name.startswith(godice_protocol.NAME_PREFIX):
        return GODICE
    if pixels_protocol.SERVICE_UUID not in adv.service_uuids:
        return None
    data = adv.service_data.get(pixels_protocol.SERVICE_UUID)
    if data is not None:
        try:
            pixels_protocol.pixel_id_from_service_data(data)
        except DecodeError:
            return None
        return PIXELS
    # No service data heard yet (it may come in the scan response): the die's state in
    # its manufacturer data tells it too.
    if any(len(value) >= PIXELS_STATE_BYTES for value in adv.manufacturer_data.values()):
        return PIXELS
    return None


async def scan(
    *, backend: BleBackend | None = None, timeout_s: float = SCAN_TIME_S
) -> list[FoundDie]:
    """Every die heard within `timeout_s`, strongest signal first."""
    backend = backend or BleBackend()
    found: dict[str, FoundDie] = {}

    def heard(device: BLEDevice, adv: AdvertisementData) -> None:
        maker = classify(device, adv)
        if maker is not None:
            name = adv.local_name or device.name or device.address
            found[device.address] = FoundDie(maker, device, name, adv.rssi)

    # No service filter: a GoDice is found by its name, whatever it advertises.
    scanner = backend.new_scanner(detection_callback=heard)
    await scanner.start()
    try:
        await asyncio.sleep(timeout_s)
    finally:
        await scanner.stop()
    return sorted(found.values(), key=lambda die: -(die.rssi if die.rssi is not None else -999))


def open_source(
    found: FoundDie, *, backend: BleBackend | None = None, shell: DieType = DieType.D6
) -> BleDieSource:
    """A dice source for a found die (not started yet); `shell` matters for GoDice only."""
    if found.maker == GODICE:
        return GoDiceSource(found.device, backend=backend, name=found.name, shell=shell)
    return PixelsSource(found.device, backend=backend, name=found.name)
