"""The one place a link is built from where a counter is: a serial port, a BLE device or address."""

from __future__ import annotations

from bleak.backends.device import BLEDevice

from companion.devices.ble_link import BleBackend, BleLink
from companion.devices.link import Link
from companion.devices.serial_link import SerialLink

TRANSPORTS = ("serial", "ble")


def link_to(
    transport: str,
    address: str,
    *,
    device: BLEDevice | None = None,
    backend: BleBackend | None = None,
) -> Link:
    """The link to a counter at `address`: a serial port path, or for BLE the `device` scanned."""
    if transport == "serial":
        return SerialLink(address)
    if transport == "ble":
        if device is None:
            raise ValueError(f"{address}: a BLE counter needs the device found by the scan")
        return BleLink(device, backend=backend)
    raise ValueError(f"a counter is reached over {' or '.join(TRANSPORTS)}, not {transport!r}")


async def find_link(transport: str, address: str, *, backend: BleBackend | None = None) -> Link:
    """The link to a counter known only by its address: a BLE one is listened for first.

    Raises `LinkOpenError` if a BLE counter by that address or name is not heard.
    """
    if transport == "ble":
        return await BleLink.find(address, backend=backend)
    return link_to(transport, address)
