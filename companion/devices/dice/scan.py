"""Finding dice in range: listen to advertisements, tell the makers apart, open a source.

A Pixels die advertises its service (`a6b90001-…` on firmware built since late
2024, `6e400001-…` before), its Pixel id and firmware build time as service data
under Device Information's 16-bit UUID (`180a`), and its state (LED count, die
type, roll state, face, battery) as 5 bytes of manufacturer data under company id
0xFFFF or 0x0D39 (`pixels_protocol.parse_advert`). A GoDice is known by its
advertised name ("GoDice_…"), as its maker's own tools find it; its service is
the Nordic UART one, which older Pixels dice and many other gadgets share, so
the service alone says nothing. Gadgets that are neither are left out.
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
    """A die heard advertising; ``advert`` is what a Pixels die said of itself."""

    maker: str  # PIXELS or GODICE
    device: BLEDevice
    name: str
    rssi: int | None
    advert: pixels_protocol.Advert | None = None


def classify(device: BLEDevice, adv: AdvertisementData) -> str | None:
    """Which maker's die this advertisement comes from, or None if it is no die."""
    name = adv.local_name or device.name or ""
    if name.startswith(godice_protocol.NAME_PREFIX):
        return GODICE
    if not set(pixels_protocol.SERVICE_UUIDS) & set(adv.service_uuids):
        return None
    info = adv.service_data.get(pixels_protocol.INFO_SERVICE_DATA_UUID)
    if info is not None:
        try:
            pixels_protocol.pixel_id_from_service_data(info)
        except DecodeError:
            return None
        return PIXELS
    # No service data heard yet (it comes in the scan response): the die's state in its
    # manufacturer data tells it too.
    state = [adv.manufacturer_data.get(c) for c in pixels_protocol.COMPANY_IDS]
    if any(v is not None and len(v) >= pixels_protocol.MANUFACTURER_DATA_SIZE for v in state):
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
            advert = None
            if maker == PIXELS:
                advert = pixels_protocol.parse_advert(adv.service_data, adv.manufacturer_data)
                earlier = found.get(device.address)
                if advert is None and earlier is not None:
                    advert = earlier.advert  # the scan response came first: keep what it said
            found[device.address] = FoundDie(maker, device, name, adv.rssi, advert)

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
