"""A bleak backend over Google Bumble's in-process virtual controllers: BLE without a radio.

`VirtualRadio` is a Bumble `LocalLink` (the air) with the app's own virtual
controller and host stack on it (the adapter). Counters join it as
`VirtualPeripheral`s (`virtual_peripheral.py`): a Bumble GATT server with the counter
service, advertising like a real board. The app reaches them through its ordinary bleak code, only
with `backend=BumbleBleakClient` / `BumbleBleakScanner` (see
`VirtualRadio.bleak_backend()`), so scanning, connecting, service discovery,
write-without-response, notifications and disconnects all run through real
ATT/L2CAP/HCI code paths.

Used by the tests, by the simulator and by the app's virtual mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import math
import uuid as uuid_lib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bleak.args import SizedBuffer
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient, NotifyCallback
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, AdvertisementDataCallback, BaseBleakScanner
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection
from bleak.exc import BleakError, BleakGATTProtocolError
from bumble import core, hci
from bumble.att import ATT_Error
from bumble.controller import Controller
from bumble.core import AdvertisingData
from bumble.device import (
    Advertisement,
    Connection,
    Device,
    Peer,
)
from bumble.gatt import Characteristic
from bumble.gatt_client import CharacteristicProxy, DescriptorProxy, ServiceProxy
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink

from companion.plumbing.listeners import Listeners

if TYPE_CHECKING:
    from companion.devices.ble_link import BleBackend

_LOGGER = logging.getLogger(__name__)

MAX_NAME_BYTES = 29  # bytes: the longest name a real counter's scan response can carry
LEGACY_ADVERTISING_BYTES = 31  # bytes: an advertisement or scan response in legacy PDUs
ATT_HEADER = 3  # bytes of every ATT write/notification that are not payload
ADVERTISING_INTERVAL_MS = 20.0  # ms: the fastest legal interval, so virtual scans finish at once
VIRTUAL_CONNECT_TIMEOUT_S = 2.0  # s: an advertising virtual peer connects in about 1 ms
DISCONNECT_TIMEOUT_S = 2.0  # s: an in-process link answers in microseconds; longer means it is gone
ATT_MTU = 247  # bytes: what phone and desktop stacks ask for right after connecting
DEFAULT_ATT_MTU = 23  # bytes: a peripheral that never raised its MTU (the counters' firmware)

_PROPERTY_NAMES = {
    Characteristic.Properties.BROADCAST: "broadcast",
    Characteristic.Properties.READ: "read",
    Characteristic.Properties.WRITE_WITHOUT_RESPONSE: "write-without-response",
    Characteristic.Properties.WRITE: "write",
    Characteristic.Properties.NOTIFY: "notify",
    Characteristic.Properties.INDICATE: "indicate",
    Characteristic.Properties.AUTHENTICATED_SIGNED_WRITES: "authenticated-signed-writes",
    Characteristic.Properties.EXTENDED_PROPERTIES: "extended-properties",
}


def _property_names(properties: int) -> list[Any]:
    return [name for flag, name in _PROPERTY_NAMES.items() if properties & flag]


def bleak_uuid(value: core.UUID) -> str:
    """A Bumble UUID in bleak's spelling: lower-case, always the full 128 bits."""
    return str(uuid_lib.UUID(bytes=bytes(reversed(value.to_bytes(force_128=True)))))


@dataclass(frozen=True)
class VirtualDeviceDetails:
    """What a `BLEDevice` found on the virtual radio carries in `details`."""

    radio: VirtualRadio
    address: hci.Address


_SCAN_RESPONSE_REPORT = hci.HCI_LE_Extended_Advertising_Report_Event.EventType.SCAN_RESPONSE
_LEGACY_SCAN_RESPONSE = hci.HCI_LE_Advertising_Report_Event.EventType.SCAN_RSP
_SCANNABLE = hci.HCI_LE_Set_Extended_Advertising_Parameters_Command.AdvertisingProperties
_REPORT_EVENTS = (hci.HCI_LE_Extended_Advertising_Report_Event, hci.HCI_LE_Advertising_Report_Event)


class _RadioController(Controller):
    """Bumble's virtual controller, answered by a scannable advertiser as on a real radio.

    Bumble's controller reports every advertisement twice, the second time as the
    scan response but with the advertising data again. Here that second report
    carries what the advertiser's scannable advertising set holds as its scan
    response (a Pixels die puts its service and id there), and it is lost
    altogether while `VirtualRadio.scan_responses_heard` is False. Advertisers that
    are not scannable (the counters) are reported as Bumble reports them.
    """

    def __init__(self, radio: VirtualRadio, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._radio = radio

    def send_hci_packet(self, packet: hci.HCI_Packet) -> None:
        if isinstance(packet, _REPORT_EVENTS):
            reports = [answered for r in packet.reports if (answered := self._answer(r))]
            if not reports:
                return
            packet = dataclasses.replace(packet, reports=reports)  # type: ignore[arg-type]
        super().send_hci_packet(packet)

    def _answer(self, report: Any) -> Any:
        """The report as the air carries it: a scannable advertiser's own scan response."""
        if isinstance(report, hci.HCI_LE_Advertising_Report_Event.Report):
            is_response = report.event_type == _LEGACY_SCAN_RESPONSE
        else:
            is_response = bool(report.event_type & _SCAN_RESPONSE_REPORT)
        response = self._radio.scan_response_of(report.address) if is_response else None
        if response is None:
            return report
        if not self._radio.scan_responses_heard:
            return None
        return dataclasses.replace(report, data=response)


class VirtualRadio:
    """The shared air of in-process BLE: one Bumble `LocalLink` plus the app's adapter on it.

    `scan_responses_heard = False` makes the air lose every scan response (a passive
    scan, a crowded room): scanners hear advertisements only.
    """

    def __init__(self) -> None:
        self.link = LocalLink()
        self.scan_responses_heard = True
        self._addresses = itertools.count(1)
        self._central: Device | None = None
        self._central_lock = asyncio.Lock()
        # The adapter has one pending connection at a time (`connect`): who holds it, and
        # who waits for it with the future that gives it to them.
        self._connecting = False
        self._waiting: list[tuple[hci.Address, asyncio.Future[None]]] = []
        self._scan_listeners: Listeners[[Advertisement]] = Listeners()
        self._controllers: dict[Device, Controller] = {}

    def new_device(self, name: str, address: str | None = None) -> Device:
        """A Bumble device (controller + host) on this radio; not yet powered on."""
        if address is None:
            # Random static addresses: the two top bits must be set.
            number = next(self._addresses)
            address = f"C0:00:00:00:{number >> 8:02X}:{number & 0xFF:02X}"
        controller = _RadioController(self, name, link=self.link, public_address=address)
        host = Host(controller, AsyncPipeSink(controller))
        device = Device(name=name, address=hci.Address(address), host=host)
        self._controllers[device] = controller
        return device

    def remove_device(self, device: Device) -> None:
        """Take a device's controller off the air: it can no longer be heard or reached."""
        controller = self._controllers.pop(device, None)
        if controller is not None and controller in self.link.controllers:
            self.link.remove_controller(controller)

    def bleak_backend(self) -> BleBackend:
        """The bleak client and scanner classes, bound to this radio."""
        # Here, not at the top: the counters' process (`host`) never needs the app's BLE
        # link, nor bleak-retry-connector's D-Bus modules it brings (~25 ms of its start).
        from companion.devices.ble_link import BleBackend

        return BleBackend(
            client=BumbleBleakClient, scanner=BumbleBleakScanner, kwargs={"radio": self}
        )

    async def central(self) -> Device:
        """The app's adapter, powered on the first time it is needed."""
        async with self._central_lock:
            if self._central is None:
                device = self.new_device("companion")
                await device.power_on()
                device.on(Device.EVENT_ADVERTISEMENT, self._on_advertisement)
                self._central = device
            return self._central

    async def close(self) -> None:
        """Switch the app's adapter off and take it off the air."""
        self._scan_listeners.clear()
        central, self._central = self._central, None
        if central is None:
            return
        for connection in list(central.connections.values()):
            with contextlib.suppress(core.BaseBumbleError, hci.HCI_Error, TimeoutError):
                async with asyncio.timeout(DISCONNECT_TIMEOUT_S):
                    await connection.disconnect()
        if central.is_scanning:
            await central.stop_scanning()
        await central.power_off()
        self.remove_device(central)

    def scan_response_of(self, address: hci.Address) -> bytes | None:
        """What the advertiser at `address` answers a scan with; None if it is not scannable."""
        controller = self.link.find_le_controller(address)
        for advertising in getattr(controller, "advertising_sets", {}).values():
            parameters = advertising.parameters
            if (
                advertising.enabled
                and advertising.address == address
                and parameters is not None
                and parameters.advertising_event_properties & _SCANNABLE.SCANNABLE_ADVERTISING
            ):
                return bytes(advertising.scan_response_data)
        return None

    def has_device(self, address: hci.Address) -> bool:
        """True if some controller on this radio answers to `address`."""
        return self.link.find_le_controller(address) is not None

    async def connect(self, address: hci.Address, timeout_s: float) -> Connection:
        """Connect the app's adapter to a peripheral; one connection attempt at a time.

        A controller connects when it next hears the peripheral advertise. Of several
        connections asked for at once, the adapter makes first the one whose peripheral
        advertises soonest, rather than the first asked: six trackers advertising every
        20 ms are all connected in about 30 ms of air time instead of 60.
        """
        central = await self.central()
        async with self._connect_turn(address):
            wanted = address.to_string(False)
            for stale in list(central.connections.values()):
                if stale.peer_address.to_string(False) == wanted:
                    # An earlier connection whose teardown never finished (a machine so
                    # busy the disconnect timed out): end it, or the controller refuses
                    # every new connection to this peer.
                    with contextlib.suppress(core.BaseBumbleError, hci.HCI_Error, TimeoutError):
                        async with asyncio.timeout(DISCONNECT_TIMEOUT_S):
                            await stale.disconnect()
            return await central.connect(address, timeout=timeout_s)

    @contextlib.asynccontextmanager
    async def _connect_turn(self, address: hci.Address) -> AsyncIterator[None]:
        """Hold the adapter's one pending connection (see `connect`)."""
        if self._connecting:
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.append((address, turn))
            try:
                await turn
            except BaseException:
                if turn.done() and not turn.cancelled():
                    self._pass_turn()  # granted just as it was cancelled: the next one goes
                else:
                    self._waiting = [w for w in self._waiting if w[1] is not turn]
                raise
        self._connecting = True
        try:
            yield
        finally:
            self._pass_turn()

    def _pass_turn(self) -> None:
        waiting = [w for w in self._waiting if not w[1].done()]
        if not waiting:
            self._waiting = []
            self._connecting = False
            return
        _address, turn = min(waiting, key=lambda w: self._next_advertising(w[0]))
        self._waiting = [w for w in waiting if w[1] is not turn]
        turn.set_result(None)  # `_connecting` stays True: the turn passes on

    def _next_advertising(self, address: hci.Address) -> float:
        """When the peripheral at `address` advertises next (loop time; inf if unknown)."""
        controller = self.link.find_le_controller(address)
        soonest = math.inf
        for advertising in getattr(controller, "advertising_sets", {}).values():
            handle = getattr(advertising, "timer_handle", None)
            if getattr(advertising, "enabled", False) and isinstance(handle, asyncio.TimerHandle):
                soonest = min(soonest, handle.when())
        return soonest

    async def add_scan_listener(
        self, listener: Callable[[Advertisement], None]
    ) -> Callable[[], Awaitable[None]]:
        """Start hearing advertisements; await the returned function to stop hearing them.

        The adapter scans while anyone listens: it stops with the last listener.
        """
        central = await self.central()
        remove = self._scan_listeners.add(listener)
        if not central.is_scanning:
            await central.start_scanning(filter_duplicates=False)

        async def stop_listening() -> None:
            remove()
            central = self._central
            if not self._scan_listeners and central is not None and central.is_scanning:
                await central.stop_scanning()

        return stop_listening

    def _on_advertisement(self, advertisement: Advertisement) -> None:
        self._scan_listeners.emit(advertisement)


def _radio_from(device: BLEDevice | str, kwargs: dict[str, Any]) -> VirtualRadio:
    if isinstance(device, BLEDevice) and isinstance(device.details, VirtualDeviceDetails):
        return device.details.radio
    radio = kwargs.get("radio")
    if not isinstance(radio, VirtualRadio):
        raise BleakError("the virtual BLE backend needs radio=VirtualRadio(...)")
    return radio


class BumbleBleakScanner(BaseBleakScanner):
    """bleak scanner backend: hears advertisements on a `VirtualRadio`."""

    def __init__(
        self,
        detection_callback: AdvertisementDataCallback | None,
        service_uuids: list[str] | None,
        scanning_mode: str = "active",
        *,
        radio: VirtualRadio | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(detection_callback, service_uuids)
        if radio is None:
            raise BleakError("the virtual BLE scanner needs radio=VirtualRadio(...)")
        self._radio = radio
        self._stop_listening: Callable[[], Awaitable[None]] | None = None

    async def start(self) -> None:
        self.seen_devices = {}
        if self._stop_listening is None:
            self._stop_listening = await self._radio.add_scan_listener(self._on_advertisement)

    async def stop(self) -> None:
        stop_listening, self._stop_listening = self._stop_listening, None
        if stop_listening is not None:
            await stop_listening()

    def _on_advertisement(self, advertisement: Advertisement) -> None:
        address = advertisement.address.to_string(False)
        key = address
        previous = self.seen_devices.get(key)
        adv = _advertisement_data(advertisement, previous[1] if previous else None)
        if not self.is_allowed_uuid(adv.service_uuids):
            return
        device = self.create_or_update_device(
            key,
            address,
            adv.local_name,
            VirtualDeviceDetails(self._radio, advertisement.address),
            adv,
        )
        self.call_detection_callbacks(device, adv)


def _advertisement_data(
    advertisement: Advertisement, previous: AdvertisementData | None
) -> AdvertisementData:
    """Translate one advertising report, merged with what the same device said before.

    Advertising data and scan response arrive as separate reports, as on real
    radios; the merge is what every OS stack shows its applications.
    """
    name = previous.local_name if previous else None
    manufacturer = dict(previous.manufacturer_data) if previous else {}
    service_data = dict(previous.service_data) if previous else {}
    service_uuids = list(previous.service_uuids) if previous else []
    tx_power = previous.tx_power if previous else None
    for ad_type, value in advertisement.data.ad_structures:
        if ad_type in (AdvertisingData.SHORTENED_LOCAL_NAME, AdvertisingData.COMPLETE_LOCAL_NAME):
            name = value.decode(errors="replace")
        elif ad_type in _UUID_LIST_SIZES:
            size = _UUID_LIST_SIZES[ad_type]
            for start in range(0, len(value) - size + 1, size):
                text = bleak_uuid(core.UUID.from_bytes(value[start : start + size]))
                if text not in service_uuids:
                    service_uuids.append(text)
        elif ad_type == AdvertisingData.MANUFACTURER_SPECIFIC_DATA and len(value) >= 2:
            manufacturer[int.from_bytes(value[:2], "little")] = bytes(value[2:])
        elif ad_type in _SERVICE_DATA_SIZES:
            size = _SERVICE_DATA_SIZES[ad_type]
            service_data[bleak_uuid(core.UUID.from_bytes(value[:size]))] = bytes(value[size:])
        elif ad_type == AdvertisingData.TX_POWER_LEVEL and value:
            tx_power = int.from_bytes(value[:1], "little", signed=True)
    return AdvertisementData(
        local_name=name,
        manufacturer_data=manufacturer,
        service_data=service_data,
        service_uuids=service_uuids,
        tx_power=tx_power,
        rssi=advertisement.rssi,
        platform_data=(advertisement,),
    )


_UUID_LIST_SIZES = {
    AdvertisingData.INCOMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS: 2,
    AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS: 2,
    AdvertisingData.INCOMPLETE_LIST_OF_32_BIT_SERVICE_CLASS_UUIDS: 4,
    AdvertisingData.COMPLETE_LIST_OF_32_BIT_SERVICE_CLASS_UUIDS: 4,
    AdvertisingData.INCOMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS: 16,
    AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS: 16,
}
_SERVICE_DATA_SIZES = {
    AdvertisingData.SERVICE_DATA_16_BIT_UUID: 2,
    AdvertisingData.SERVICE_DATA_32_BIT_UUID: 4,
    AdvertisingData.SERVICE_DATA_128_BIT_UUID: 16,
}


class BumbleBleakClient(BaseBleakClient):
    """bleak client backend: a GATT client on the app's adapter of a `VirtualRadio`."""

    def __init__(
        self,
        address_or_ble_device: BLEDevice | str,
        *,
        disconnected_callback: Callable[[], None] | None = None,
        timeout: float = 10.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            address_or_ble_device, disconnected_callback=disconnected_callback, timeout=timeout
        )
        self._radio = _radio_from(address_or_ble_device, kwargs)
        if isinstance(address_or_ble_device, BLEDevice):
            self._name = address_or_ble_device.name
            details = address_or_ble_device.details
            self._target = (
                details.address
                if isinstance(details, VirtualDeviceDetails)
                else hci.Address(address_or_ble_device.address)
            )
        else:
            self._name = None
            self._target = hci.Address(address_or_ble_device)
        self._connection: Connection | None = None
        self._peer: Peer | None = None
        self._disconnecting = False
        self._subscribers: dict[int, Callable[[bytes], None]] = {}

    @property
    def name(self) -> str:
        return self._name or self.address

    @property
    def mtu_size(self) -> int:
        return self._connection.att_mtu if self._connection is not None else 23

    @property
    def is_connected(self) -> bool:
        return self._connection is not None

    async def connect(self, pair: bool, **kwargs: Any) -> None:
        if self._connection is not None:
            return
        if pair:
            _LOGGER.debug("virtual radio: pairing not supported, connecting without it")
        timeout_s = min(float(kwargs.get("timeout", self._timeout)), VIRTUAL_CONNECT_TIMEOUT_S)
        if not self._radio.has_device(self._target):
            # A plain BleakError, not BleakDeviceNotFoundError: bleak-retry-connector
            # reads the latter as "adapter out of slots" and backs off 4 s per try.
            raise BleakError(f"nothing at {self.address} on the virtual radio")
        try:
            connection = await self._radio.connect(self._target, timeout_s)
        except core.TimeoutError as exc:
            raise TimeoutError(f"no answer from {self.address} in {timeout_s} s") from exc
        except (core.BaseBumbleError, hci.HCI_Error) as exc:
            raise BleakError(f"cannot connect to {self.address}: {exc}") from exc
        self._connection = connection
        self._disconnecting = False
        connection.on(Connection.EVENT_DISCONNECTION, self._on_disconnection)
        try:
            self._peer = Peer(connection)
            # Real stacks exchange the MTU on their own after connecting; peers whose
            # messages outgrow the default 20-byte payload (smart dice) rely on it,
            # peers that keep the default (the counters) answer 23 and stay at 20.
            await self._peer.request_mtu(ATT_MTU)
            self.services = await self._discover(self._peer)
        except BaseException:
            await self.disconnect()
            raise

    async def _discover(self, peer: Peer) -> BleakGATTServiceCollection:
        collection = BleakGATTServiceCollection()
        await peer.discover_services()
        for service_proxy in peer.services:
            service = BleakGATTService(
                service_proxy, service_proxy.handle, bleak_uuid(service_proxy.uuid)
            )
            collection.add_service(service)
            await peer.discover_characteristics(service=service_proxy)
            for char_proxy in service_proxy.characteristics:
                characteristic = BleakGATTCharacteristic(
                    char_proxy,
                    char_proxy.handle,
                    bleak_uuid(char_proxy.uuid),
                    _property_names(char_proxy.properties),
                    lambda: self.mtu_size - ATT_HEADER,
                    service,
                )
                collection.add_characteristic(characteristic)
                for desc_proxy in await peer.discover_descriptors(char_proxy):
                    collection.add_descriptor(
                        BleakGATTDescriptor(
                            desc_proxy,
                            desc_proxy.handle,
                            bleak_uuid(desc_proxy.type),
                            characteristic,
                        )
                    )
        return collection

    def _on_disconnection(self, reason: int) -> None:
        self._connection = None
        self._peer = None
        self._subscribers.clear()
        if not self._disconnecting and self._disconnected_callback is not None:
            self._disconnected_callback()

    async def disconnect(self) -> None:
        connection = self._connection
        if connection is None:
            return
        self._disconnecting = True
        try:
            async with asyncio.timeout(DISCONNECT_TIMEOUT_S):
                await connection.disconnect()
        except (TimeoutError, core.BaseBumbleError, hci.HCI_Error) as exc:
            _LOGGER.debug("%s: disconnect failed: %s", self.address, exc)
        self._connection = None
        self._peer = None

    async def pair(self, *args: Any, **kwargs: Any) -> None:
        raise BleakError(
            "the virtual radio does not pair: counters authenticate in the application protocol"
        )

    async def unpair(self) -> None:
        raise BleakError("the virtual radio keeps no pairings to remove")

    def _require_connection(self) -> Peer:
        if self._peer is None:
            raise BleakError(f"not connected to {self.address}")
        return self._peer

    async def read_gatt_char(
        self, characteristic: BleakGATTCharacteristic, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        self._require_connection()
        proxy: CharacteristicProxy[bytes] = characteristic.obj
        try:
            return bytearray(await proxy.read_value())
        except ATT_Error as exc:
            raise BleakGATTProtocolError(exc.error_code) from exc

    async def read_gatt_descriptor(
        self, descriptor: BleakGATTDescriptor, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        self._require_connection()
        proxy: DescriptorProxy = descriptor.obj
        try:
            return bytearray(await proxy.read_value())
        except ATT_Error as exc:
            raise BleakGATTProtocolError(exc.error_code) from exc

    async def write_gatt_char(
        self, characteristic: BleakGATTCharacteristic, data: SizedBuffer, response: bool
    ) -> None:
        self._require_connection()
        if not response and "write-without-response" not in characteristic.properties:
            # BlueZ refuses a write the characteristic does not declare, before it is sent.
            raise BleakError(f"{characteristic.uuid}: write without response not permitted")
        proxy: CharacteristicProxy[bytes] = characteristic.obj
        try:
            await proxy.write_value(bytes(data), with_response=response)
        except ATT_Error as exc:
            raise BleakGATTProtocolError(exc.error_code) from exc

    async def write_gatt_descriptor(
        self, descriptor: BleakGATTDescriptor, data: SizedBuffer
    ) -> None:
        self._require_connection()
        proxy: DescriptorProxy = descriptor.obj
        try:
            await proxy.write_value(bytes(data), with_response=True)
        except ATT_Error as exc:
            raise BleakGATTProtocolError(exc.error_code) from exc

    async def start_notify(
        self, characteristic: BleakGATTCharacteristic, callback: NotifyCallback, **kwargs: Any
    ) -> None:
        self._require_connection()
        proxy: CharacteristicProxy[bytes] = characteristic.obj

        def subscriber(value: bytes) -> None:
            callback(bytearray(value))

        self._subscribers[characteristic.handle] = subscriber
        try:
            await proxy.subscribe(subscriber, prefer_notify=True)
        except ATT_Error as exc:
            raise BleakGATTProtocolError(exc.error_code) from exc

    async def stop_notify(self, characteristic: BleakGATTCharacteristic) -> None:
        self._require_connection()
        proxy: CharacteristicProxy[bytes] = characteristic.obj
        subscriber = self._subscribers.pop(characteristic.handle, None)
        try:
            await proxy.unsubscribe(subscriber)
        except ATT_Error as exc:
            raise BleakGATTProtocolError(exc.error_code) from exc


__all__ = [
    "BumbleBleakClient",
    "BumbleBleakScanner",
    "ServiceProxy",
    "VirtualDeviceDetails",
    "VirtualRadio",
    "bleak_uuid",
]
