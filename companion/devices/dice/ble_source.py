"""A die reached over Bluetooth LE: the shared link, reconnect and decode loop of every maker.

Each maker's source (`PixelsSource`, `GoDiceSource`) names its characteristics,
its decoder and its handshake; this base connects through the counters' own
stack (`BleLink`: bleak + bleak-retry-connector, the injectable `BleBackend`),
keeps the die connected with the counters' `Reconnector`, feeds every
notification to the decoder, and drops (and counts) what does not decode.
"""

from __future__ import annotations

import abc
import logging
from typing import Any, ClassVar

from bleak import BleakClient
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.device import BLEDevice

from companion.devices.ble_link import BleBackend, BleLink
from companion.devices.dice.model import DecodeError, DieType, Motion
from companion.devices.dice.source import DiceSource
from companion.devices.link import Link, LinkClosedError, LinkState
from companion.devices.reconnect import Backoff, Reconnector

_LOGGER = logging.getLogger(__name__)

DIE_MAX_BACKOFF_S = 5.0  # s: a die carried back to the table should be back within seconds
IDENTIFY_TIMEOUT_S = 3.0  # s: a die answers WhoAreYou within a few connection intervals
CONNECT_ATTEMPTS = 2  # tries per reconnect round: the reconnect loop retries anyway


class DieLink(BleLink):
    """The message link to one die: one message per GATT write or notification.

    A maker may have changed its service over the years: the link takes the first
    (write, notify) pair of ``characteristics`` the die offers. Writes wait for the
    die's response where the characteristic allows it, as every maker's own client
    writes (bleak's ``response=None`` rule): on Linux a write of a kind the
    characteristic does not declare is refused, and the die would seem lost.
    """

    peer_kind = "dice"

    def __init__(
        self,
        device: BLEDevice,
        *,
        backend: BleBackend | None,
        characteristics: tuple[tuple[str, str], ...],
    ) -> None:
        super().__init__(device, backend=backend, max_attempts=CONNECT_ATTEMPTS)
        self.characteristics = characteristics
        self.write_char_uuid, self.notify_char_uuid = characteristics[0]

    def _characteristics(
        self, client: BleakClient
    ) -> tuple[BleakGATTCharacteristic | None, BleakGATTCharacteristic | None]:
        for write_uuid, notify_uuid in self.characteristics:
            write = client.services.get_characteristic(write_uuid)
            notify = client.services.get_characteristic(notify_uuid)
            if write is not None and notify is not None:
                self.write_char_uuid, self.notify_char_uuid = write_uuid, notify_uuid
                return write, notify
        return None, None

    def _write_with_response(self, char: BleakGATTCharacteristic) -> bool:
        return "write" in char.properties


class BleDieSource(DiceSource):
    """A die over BLE; subclasses decode its messages and run its handshake."""

    #: The (write, notify) characteristic pairs the maker's dice offer, the preferred first.
    characteristics: ClassVar[tuple[tuple[str, str], ...]]

    def __init__(
        self,
        device: BLEDevice,
        *,
        backend: BleBackend | None = None,
        name: str | None = None,
        die_type: DieType = DieType.UNKNOWN,
    ) -> None:
        super().__init__(device.address, name or device.name or device.address, die_type)
        self.link = DieLink(device, backend=backend, characteristics=self.characteristics)
        self.link.on_message(self._on_bytes)
        self.link.on_state_change(self._on_link_state)
        self._reconnector = Reconnector(
            self.link, on_open=self._on_open, backoff=Backoff(max_s=DIE_MAX_BACKOFF_S)
        )

    async def start(self) -> None:
        self._reconnector.start()

    async def stop(self) -> None:
        await self._reconnector.stop()

    async def wait_connected(self) -> None:
        """Return once the die is connected and identified (use with a timeout)."""
        await self._reconnector.wait_open()

    async def send(self, payload: bytes) -> bool:
        """Send one message; False if the die is not connected (nothing is raised)."""
        if not self.link.is_open:
            return False
        try:
            await self.link.send(payload)
        except LinkClosedError:
            return False
        return True

    def _on_bytes(self, data: bytes) -> None:
        try:
            message = self.decode(data)
        except DecodeError as exc:
            self.malformed += 1
            _LOGGER.debug("%s: ignored a notification: %s", self.name, exc)
            return
        self.handle(message)

    def _on_link_state(self, state: LinkState) -> None:
        connected = state is LinkState.OPEN
        if state in (LinkState.LOST, LinkState.CLOSED) and self.connected:
            mid_roll = self.motion in (Motion.ROLLING, Motion.HANDLING)
            self._report(connected=False, motion=Motion.UNKNOWN)
            self.lost.emit(mid_roll)
        elif connected != self.connected:
            self._report(connected=connected)

    @abc.abstractmethod
    def decode(self, data: bytes) -> Any:
        """The maker's decoder: bytes into one message, or `DecodeError`."""

    @abc.abstractmethod
    def handle(self, message: Any) -> None:
        """Act on one decoded message."""

    @abc.abstractmethod
    async def _on_open(self, link: Link) -> None:
        """The handshake after every (re)connect; raise a `LinkError` to retry later."""
