"""A counter or die on the virtual radio: a Bumble GATT server with its service,
advertising like the real device (`bumble_backend.VirtualRadio` is the air it joins)."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable

from bumble import core, hci
from bumble.core import AdvertisingData
from bumble.device import (
    AdvertisingEventProperties,
    AdvertisingParameters,
    AdvertisingSet,
    Connection,
    Device,
)
from bumble.gatt import Characteristic, CharacteristicValue, Service

from companion.devices import wire
from companion.devices.sim.bumble_backend import (
    ADVERTISING_INTERVAL_MS,
    DEFAULT_ATT_MTU,
    DISCONNECT_TIMEOUT_S,
    LEGACY_ADVERTISING_BYTES,
    MAX_NAME_BYTES,
    VirtualRadio,
)

_LOGGER = logging.getLogger(__name__)

WriteHandler = Callable[[bytes], Awaitable[None] | None]


class VirtualPeripheral:
    """A counter's BLE side on the virtual radio.

    One primary service with a write-without-response characteristic (app to
    counter, every write handed to `on_write`) and a notify characteristic
    (counter to app, `notify()`). It advertises the service UUID and its name,
    and advertises again after every disconnection, as the firmware does.
    `on_connection_change(connected)` hears the app come and go (a counter
    forgets the app's authentication when it leaves).
    """

    def __init__(
        self,
        radio: VirtualRadio,
        name: str,
        *,
        service_uuid: str,
        write_uuid: str,
        notify_uuid: str,
        on_write: WriteHandler,
        on_connection_change: Callable[[bool], None] | None = None,
        address: str | None = None,
        battery: Callable[[], int] | None = None,
        advertising_extra: tuple[tuple[int, bytes], ...] = (),
        scan_response: tuple[tuple[int, bytes], ...] = (),
        att_mtu: int = DEFAULT_ATT_MTU,
        write_without_response: bool = True,
    ) -> None:
        self.radio = radio
        # More advertising structures after the name (service data, manufacturer data),
        # for peripherals that say more about themselves than a counter does.
        self._advertising_extra = advertising_extra
        # Given, the peripheral advertises as a Pixels die does: legacy PDUs, scannable,
        # the advertisement holding flags, name and `advertising_extra`, the scan response
        # these structures (its service UUID among them, if it lists it at all).
        self._scan_response = scan_response
        self.name = name
        self.service_uuid = service_uuid
        self._on_write = on_write
        self._on_connection_change = on_connection_change
        self.device = radio.new_device(name, address)
        # The MTU this side accepts in the exchange the app starts; the lower one wins.
        self.device.gatt_server.max_mtu = att_mtu
        self.address = self.device.random_address.to_string(False)
        self._notify_char = Characteristic(
            notify_uuid, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b""
        )
        # A peripheral may declare write with response only (as some dice do).
        write_kinds = Characteristic.Properties.WRITE
        if write_without_response:
            write_kinds |= Characteristic.Properties.WRITE_WITHOUT_RESPONSE
        write_char: Characteristic[bytes] = Characteristic(
            write_uuid,
            write_kinds,
            Characteristic.WRITEABLE,
            CharacteristicValue(write=self._written),
        )
        self.device.add_service(Service(service_uuid, [write_char, self._notify_char]))
        if battery is not None:
            # The standard Battery service, as the firmware offers it beside its own.
            level: Characteristic[bytes] = Characteristic(
                f"{wire.BATTERY_LEVEL_CHAR_UUID:04X}",
                Characteristic.Properties.READ,
                Characteristic.READABLE,
                CharacteristicValue(read=lambda _connection: bytes([battery()])),
            )
            self.device.add_service(Service(f"{wire.BATTERY_SERVICE_UUID:04X}", [level]))
        self._started = False
        self._advertising_set: AdvertisingSet | None = None
        self.connections = 0  # how many times the app connected, for tests and the sim
        self.device.on(Device.EVENT_CONNECTION, self._on_connection)

    @property
    def is_connected(self) -> bool:
        """True while the app holds a connection."""
        return bool(self.device.connections)

    async def start(self) -> None:
        """Power on and advertise."""
        if self._started:
            return
        await self.device.power_on()
        if self._scan_response:
            await self._advertise_with_scan_response()
            self._started = True
            return
        # Extended advertising (BLE 5): Bumble's virtual controller answers an active
        # scan with the advertising data again instead of the scan response, and the
        # legacy 31 bytes cannot hold the 128-bit service UUID beside a name like
        # "MCounter-1A2B". One extended advertisement carries both, so the app sees
        # what it sees from a real counter's advertisement plus scan response.
        advertising = AdvertisingData(
            [
                (AdvertisingData.FLAGS, bytes([0x06])),  # LE general discoverable, no BR/EDR
                (
                    AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS,
                    core.UUID(self.service_uuid).to_bytes(),
                ),
                (AdvertisingData.COMPLETE_LOCAL_NAME, self.name.encode()[:MAX_NAME_BYTES]),
                *self._advertising_extra,
            ]
        )
        await self._advertising_set_of(bytes(advertising), legacy=False)
        self._started = True

    async def _advertise_with_scan_response(self) -> None:
        """Legacy scannable advertising: 31 bytes of advertisement, 31 of scan response."""
        name = self.name.encode()
        advertising = self._legacy_advertisement(name, AdvertisingData.COMPLETE_LOCAL_NAME)
        while len(bytes(advertising)) > LEGACY_ADVERTISING_BYTES and name:
            name = name[:-1]  # the name that does not fit is shortened, as stacks do
            advertising = self._legacy_advertisement(name, AdvertisingData.SHORTENED_LOCAL_NAME)
        await self._advertising_set_of(
            bytes(advertising),
            legacy=True,
            scan_response=bytes(AdvertisingData(list(self._scan_response))),
        )

    async def _advertising_set_of(
        self, advertising: bytes, *, legacy: bool, scan_response: bytes | None = None
    ) -> None:
        """Advertise, connectable, every ADVERTISING_INTERVAL_MS: extended advertising, or
        legacy with a scan response when one is given."""
        self._advertising_set = await self.device.create_advertising_set(
            advertising_parameters=AdvertisingParameters(
                advertising_event_properties=AdvertisingEventProperties(
                    is_connectable=True, is_scannable=scan_response is not None, is_legacy=legacy
                ),
                primary_advertising_interval_min=ADVERTISING_INTERVAL_MS,
                primary_advertising_interval_max=ADVERTISING_INTERVAL_MS,
            ),
            advertising_data=advertising,
            scan_response_data=scan_response or b"",
            auto_restart=True,
        )

    def _legacy_advertisement(self, name: bytes, name_type: int) -> AdvertisingData:
        return AdvertisingData(
            [
                (AdvertisingData.FLAGS, bytes([0x06])),  # LE general discoverable, no BR/EDR
                (name_type, name),
                *self._advertising_extra,
            ]
        )

    async def notify(self, payload: bytes) -> None:
        """Send one message to the app if it is connected and subscribed; else it is lost."""
        if self.is_connected:
            await self.device.notify_subscribers(self._notify_char, bytes(payload))

    @property
    def peer(self) -> str | None:
        """The address of the app connected now, as this counter sees it (None: nobody)."""
        for connection in self.device.connections.values():
            return str(connection.peer_address.to_string(False))
        return None

    async def disconnect(self) -> None:
        """Drop the connection from the counter's side (reset, out of range)."""
        for connection in list(self.device.connections.values()):
            try:
                async with asyncio.timeout(DISCONNECT_TIMEOUT_S):
                    await connection.disconnect()
            except (TimeoutError, core.BaseBumbleError, hci.HCI_Error) as exc:
                _LOGGER.debug("%s: disconnect failed: %s", self.name, exc)

    async def stop(self) -> None:
        """Disconnect, stop advertising and leave the radio: the counter is switched off."""
        await self.disconnect()
        if self._started:
            if self._advertising_set is not None:
                await self._advertising_set.stop()
                self._advertising_set = None
            await self.device.power_off()
            self._started = False
        self.radio.remove_device(self.device)

    def _on_connection(self, connection: Connection) -> None:
        self.connections += 1
        connection.on(Connection.EVENT_DISCONNECTION, self._on_disconnection)
        if self._on_connection_change is not None:
            self._on_connection_change(True)

    def _on_disconnection(self, reason: int) -> None:
        if self._on_connection_change is not None:
            self._on_connection_change(False)

    async def _written(self, connection: Connection, value: bytes) -> None:
        result = self._on_write(bytes(value))
        if inspect.isawaitable(result):
            await result


# -- the app side: bleak backend ----------------------------------------------------------
