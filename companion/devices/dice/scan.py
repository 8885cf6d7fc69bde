"""Finding dice in range: listen to advertisements, tell the makers apart, open a source.

A Pixels die splits what it says in two, as its firmware does: the
advertisement lists Device Information's 16-bit UUID (`180a`) and carries the
die's state (LED count, die type, roll state, face, battery) as 5 bytes of
manufacturer data under company id 0xFFFF or 0x0D39; only the scan response
lists its service (`a6b90001-…` on firmware built since late 2024, `6e400001-…`
before) and carries its Pixel id and firmware build time as service data under
`180a` (`pixels_protocol.parse_advert` reads the two together). A die is known
by either half: a scan that misses the response (passive, or lost in a crowded
room) still finds it by its advertisement. A GoDice is known by its
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
    # The advertisement alone (the scan response not heard yet, or never): Device
    # Information listed and the die's state as manufacturer data.
    if pixels_protocol.is_die_advertisement(adv.service_uuids, adv.manufacturer_data):
        return PIXELS
    # The scan response: the die's service with its id and build time as service data.
    if not set(pixels_protocol.SERVICE_UUIDS) & set(adv.service_uuids):
        return None
    info = adv.service_data.get(pixels_protocol.INFO_SERVICE_DATA_UUID)
    if info is None:
        # A stack that dropped the 16-bit list: the die's state tells it too.
        state = pixels_protocol.advertised_state(adv.manufacturer_data)
        return PIXELS if state is not None else None
    try:
        pixels_protocol.pixel_id_from_service_data(info)
    except DecodeError:
        return None
    return PIXELS


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
                    advert = earlier.advert  # a later packet said less: keep what was heard
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
