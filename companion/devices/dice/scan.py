"""Finding dice in range: scan by the advertised service, tell the makers apart, open a source.

Pixels and GoDice advertise the same service UUID (the Nordic UART one), so
the service alone only says "maybe a die". A GoDice is told by its advertised
name ("GoDice_..."); a Pixels die by the Pixel id it puts in its service data.
Other gadgets advertising that service are not dice and are left out.
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
    data = adv.service_data.get(pixels_protocol.SERVICE_UUID)
    if data is not None:
        try:
            pixels_protocol.pixel_id_from_service_data(data)
        except DecodeError:
            return None
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

    scanner = backend.new_scanner(
        detection_callback=heard, service_uuids=[pixels_protocol.SERVICE_UUID]
    )
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
