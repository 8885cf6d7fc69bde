"""The Bluetooth LE carrier: a `Link` over bleak, one message per GATT write or notification.

The counter offers one primary service (`wire.SERVICE_UUID`) with a
write-without-response characteristic for app-to-counter messages
(`wire.RX_CHAR_UUID`) and a notify characteristic for counter-to-app messages
(`wire.TX_CHAR_UUID`). Connections go through bleak-retry-connector's
`establish_connection`, which retries the transient failures BLE stacks are
known for; notifications are subscribed again on every (re)connect, since a
new connection starts with none.

Which bleak backend runs is chosen in one place, a `BleBackend`: the platform's
own by default, or `VirtualRadio.bleak_backend()` for in-process virtual counters.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bleak import BleakClient, BleakScanner
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, BaseBleakScanner
from bleak.exc import BleakError
from bleak.uuids import normalize_uuid_16
from bleak_retry_connector import establish_connection

from companion.devices import wire
from companion.devices.link import Link, LinkLostError, LinkOpenError

_LOGGER = logging.getLogger(__name__)

CONNECT_ATTEMPTS = 3  # tries per open: transient stack errors usually clear on the 2nd or 3rd
FIND_TIMEOUT_S = 10.0  # s: a counter advertises every 100-500 ms, ten seconds is many chances
DISCONNECT_TIMEOUT_S = 5.0  # s: BlueZ may take seconds to tear down; past that it is gone anyway
WRITE_TIMEOUT_S = 5.0  # s: a write-without-response only waits for a free buffer; stuck = dead
# Writes a counter holds before it has read them: aioble queues captured writes in one
# 10-entry deque and drops the oldest beyond (a counter sent 14 at once answered 10).
COUNTER_WRITE_QUEUE = 10


@dataclass(frozen=True)
class BleBackend:
    """Which bleak backend classes to use, and extra keyword arguments for them.

    `BleBackend()` is the platform's own stack (BlueZ, CoreBluetooth, WinRT,
    Android); `VirtualRadio.bleak_backend()` is the in-process virtual radio.
    """

    client: type[BaseBleakClient] | None = None
    scanner: type[BaseBleakScanner] | None = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def new_scanner(self, **kwargs: Any) -> BleakScanner:
        """A `BleakScanner` on this backend."""
        return BleakScanner(backend=self.scanner, **self.kwargs, **kwargs)


class BleLink(Link):
    """A counter reached over BLE, found beforehand by scanning (see `discovery`)."""

    transport = "ble"
    send_window = COUNTER_WRITE_QUEUE
    #: The GATT characteristics messages go out on and come in on, and what the peer is called
    #: when they are missing; other BLE peers speaking one message per write/notification
    #: (smart dice, say) subclass with their own.
    write_char_uuid = wire.RX_CHAR_UUID
    notify_char_uuid = wire.TX_CHAR_UUID
    peer_kind = "counter"

    def __init__(
        self,
        device: BLEDevice,
        *,
        backend: BleBackend | None = None,
        max_attempts: int = CONNECT_ATTEMPTS,
    ) -> None:
        super().__init__(device.address)
        self.device = device
        self.backend = backend or BleBackend()
        self.max_attempts = max_attempts
        self._client: BleakClient | None = None
        self._write_char: BleakGATTCharacteristic | None = None

    @classmethod
    async def find(
        cls,
        address_or_name: str,
        *,
        backend: BleBackend | None = None,
        timeout_s: float = FIND_TIMEOUT_S,
    ) -> BleLink:
        """A link to the counter advertising under this address or name.

        Raises `LinkOpenError` if nothing by that address or name is heard within `timeout_s`.
        """
        backend = backend or BleBackend()
        wanted = address_or_name.casefold()

        def matches(device: BLEDevice, adv: AdvertisementData) -> bool:
            name = adv.local_name or device.name or ""
            return wanted in (device.address.casefold(), name.casefold())

        options: dict[str, Any] = dict(backend.kwargs)
        if backend.scanner is not None:  # else bleak picks the platform's own
            options["backend"] = backend.scanner
        device = await BleakScanner.find_device_by_filter(matches, timeout=timeout_s, **options)
        if device is None:
            raise LinkOpenError(
                f"no counter called {address_or_name} answered within {timeout_s:g} s"
            )
        return cls(device, backend=backend)

    async def _open(self) -> None:
        try:
            client = await establish_connection(
                BleakClient,
                self.device,
                self.device.name or self.device.address,
                disconnected_callback=self._on_disconnect,
                max_attempts=self.max_attempts,
                backend=self.backend.client,
                **self.backend.kwargs,
            )
        except (BleakError, TimeoutError) as exc:
            raise LinkOpenError(f"cannot connect to {self.device.address}: {exc}") from exc
        self._client = client
        try:
            write_char, notify_char = self._characteristics(client)
            if write_char is None or notify_char is None:
                raise LinkOpenError(
                    f"{self.device.address} does not offer the {self.peer_kind} service"
                )
            self._write_char = write_char
            await client.start_notify(notify_char, self._on_notify)
        except BaseException:
            await self._close()
            raise

    def _characteristics(
        self, client: BleakClient
    ) -> tuple[BleakGATTCharacteristic | None, BleakGATTCharacteristic | None]:
        """The (write, notify) characteristics this peer offers (None where it has none)."""
        services = client.services
        return (
            services.get_characteristic(self.write_char_uuid),
            services.get_characteristic(self.notify_char_uuid),
        )

    def _write_with_response(self, char: BleakGATTCharacteristic) -> bool:
        """Whether a write to ``char`` waits for the peer's response (a counter's never does)."""
        return False

    async def read_battery_percent(self) -> int | None:
        """The standard Battery Level characteristic (percent), or None if the counter has none."""
        client = self._client
        if client is None:
            raise self.lost_reason or LinkLostError(f"{self.name} is not open")
        char = client.services.get_characteristic(normalize_uuid_16(wire.BATTERY_LEVEL_CHAR_UUID))
        if char is None:
            return None
        try:
            async with asyncio.timeout(WRITE_TIMEOUT_S):
                value = await client.read_gatt_char(char)
        except (BleakError, TimeoutError) as exc:
            _LOGGER.debug("%s: battery level unreadable: %s", self.name, exc)
            return None
        return min(100, value[0]) if value else None

    def _on_notify(self, _characteristic: BleakGATTCharacteristic, data: bytearray) -> None:
        self._deliver(bytes(data))

    def _on_disconnect(self, client: BleakClient) -> None:
        if client is self._client:
            self._client = None
            self._carrier_lost("disconnected")

    async def _send(self, payload: bytes) -> None:
        client, char = self._client, self._write_char
        if client is None or char is None:
            raise self.lost_reason or LinkLostError(f"{self.name} lost")
        try:
            async with asyncio.timeout(WRITE_TIMEOUT_S):
                await client.write_gatt_char(
                    char, payload, response=self._write_with_response(char)
                )
        except (BleakError, TimeoutError) as exc:
            self._carrier_lost(f"write failed: {exc}")
            raise self.lost_reason or LinkLostError(f"{self.name} lost") from exc

    async def _close(self) -> None:
        client, self._client = self._client, None
        self._write_char = None
        if client is None:
            return
        try:
            async with asyncio.timeout(DISCONNECT_TIMEOUT_S):
                await client.disconnect()
        except (BleakError, TimeoutError) as exc:
            _LOGGER.debug("%s: disconnect did not complete: %s", self.name, exc)
