"""The app's side of virtual counters that run in a process of their own (`host`).

The BLE stack (Bumble), the virtual radio and the firmware logic of every virtual
counter cost the app a third of a second to import and a share of every frame to
run. In a `HostProcess` they load on another core while the app opens, and run
there while the table plays. The app reaches the counters exactly as it reaches
real ones: the level board through the pseudo-terminal the host opened (a serial
port, as `/dev/ttyACM0`), the trackers through bleak with a backend whose every call
is carried to the host's adapter over the pipe (`RemoteBleakClient`). Nothing scans
there: the host says where each counter is as it starts it, and the link connects as
to a counter a scan found. `RemoteFleet` offers what the app's device service uses of
a `VirtualFleet`.

Where no second Python process can be started (Android), `can_spawn()` is False and
the app keeps the in-process `VirtualFleet`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bleak.args import SizedBuffer
from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient, NotifyCallback
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.device import BLEDevice
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection
from bleak.exc import BleakError

from companion.devices.ble_link import BleBackend
from companion.devices.link import Link
from companion.devices.links import link_to
from companion.devices.sim.fleet import LinkTaker, VirtualSetup
from companion.devices.sim.frames import LedFrame
from companion.devices.sim.process import (
    READY_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    STOP_TIMEOUT_S,
    HostError,
    HostGoneError,
    HostProcess,
    take_host,
)
from companion.devices.status import Role
from companion.plumbing.listeners import Listeners
from companion.plumbing.tasks import guarded

log = logging.getLogger(__name__)

ATT_HEADER = 3  # bytes of a write's ATT header within the MTU
DEFAULT_MTU = 23


# -- bleak backend over the pipe ----------------------------------------------------------


@dataclass(frozen=True)
class RemoteDeviceDetails:
    """What a `BLEDevice` found through the host carries: the host, and the address there."""

    host: HostProcess
    address: str


async def _ask(host: HostProcess, op: str, **fields: Any) -> dict[str, Any]:
    """A request to the host, its failures said as bleak says them."""
    try:
        return await host.request(op, **fields)
    except HostError as exc:
        raise BleakError(str(exc)) from exc


class RemoteBleakClient(BaseBleakClient):
    """bleak client backend: a GATT client on the host's adapter, every call over the pipe."""

    _numbers = itertools.count(1)

    def __init__(
        self,
        address_or_ble_device: BLEDevice | str,
        *,
        disconnected_callback: Callable[[], None] | None = None,
        timeout: float = 10.0,
        host: HostProcess | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            address_or_ble_device, disconnected_callback=disconnected_callback, timeout=timeout
        )
        self._name: str | None = None
        if isinstance(address_or_ble_device, BLEDevice):
            self._name = address_or_ble_device.name
            details = address_or_ble_device.details
            if isinstance(details, RemoteDeviceDetails):
                host = details.host
        if host is None:
            raise BleakError("the remote BLE backend needs host=HostProcess(...)")
        self._host = host
        self._conn: int | None = None
        self._mtu = DEFAULT_MTU
        self._callbacks: dict[int, NotifyCallback] = {}
        self._unlisten: list[Callable[[], None]] = []

    @property
    def name(self) -> str:
        return self._name or self.address

    @property
    def mtu_size(self) -> int:
        return self._mtu

    @property
    def is_connected(self) -> bool:
        return self._conn is not None

    async def connect(self, pair: bool, **kwargs: Any) -> None:
        if self._conn is not None:
            return
        if pair:
            log.debug("virtual radio: pairing not supported, connecting without it")
        timeout_s = float(kwargs.get("timeout", self._timeout))
        conn = next(self._numbers)
        self._unlisten = [
            self._host.listen("notification", self._notified),
            self._host.listen("disconnected", self._disconnected),
            self._host.listen("gone", self._host_gone),
        ]
        try:
            answer = await _ask(
                self._host,
                "connect",
                conn=conn,
                address=self.address,
                timeout=timeout_s,
                timeout_s=timeout_s + REQUEST_TIMEOUT_S,
            )
        except BaseException:
            self._forget()
            raise
        self._conn = conn
        self._mtu = int(answer.get("mtu", DEFAULT_MTU))
        self._name = self._name or answer.get("name")
        self.services = self._collection(answer["services"])

    def _collection(self, services: list[dict[str, Any]]) -> BleakGATTServiceCollection:
        collection = BleakGATTServiceCollection()
        for entry in services:
            service = BleakGATTService(None, int(entry["handle"]), str(entry["uuid"]))
            collection.add_service(service)
            for char_entry in entry["chars"]:
                characteristic = BleakGATTCharacteristic(
                    None,
                    int(char_entry["handle"]),
                    str(char_entry["uuid"]),
                    list(char_entry["properties"]),
                    lambda: self._mtu - ATT_HEADER,
                    service,
                )
                collection.add_characteristic(characteristic)
                for desc_entry in char_entry["descriptors"]:
                    collection.add_descriptor(
                        BleakGATTDescriptor(
                            None, int(desc_entry["handle"]), str(desc_entry["uuid"]), characteristic
                        )
                    )
        return collection

    def _forget(self) -> None:
        for unlisten in self._unlisten:
            unlisten()
        self._unlisten = []
        self._callbacks.clear()

    def _notified(self, message: dict[str, Any]) -> None:
        if message.get("conn") != self._conn or self._conn is None:
            return
        callback = self._callbacks.get(int(message["handle"]))
        if callback is not None:
            callback(bytearray.fromhex(str(message["data"])))

    def _disconnected(self, message: dict[str, Any]) -> None:
        if message.get("conn") == self._conn and self._conn is not None:
            self._lose()

    def _host_gone(self, _message: dict[str, Any]) -> None:
        if self._conn is not None:
            self._lose()

    def _lose(self) -> None:
        self._conn = None
        self._forget()
        if self._disconnected_callback is not None:
            self._disconnected_callback()

    async def disconnect(self) -> None:
        conn, self._conn = self._conn, None
        self._forget()
        if conn is None:
            return
        try:
            await _ask(self._host, "disconnect", conn=conn, timeout_s=STOP_TIMEOUT_S)
        except (BleakError, TimeoutError) as exc:
            log.debug("%s: disconnect did not complete: %s", self.address, exc)

    async def pair(self, *args: Any, **kwargs: Any) -> None:
        raise BleakError(
            "the virtual radio does not pair: counters authenticate in the application protocol"
        )

    async def unpair(self) -> None:
        raise BleakError("the virtual radio keeps no pairings to remove")

    def _open(self) -> int:
        if self._conn is None:
            raise BleakError(f"not connected to {self.address}")
        return self._conn

    async def read_gatt_char(
        self, characteristic: BleakGATTCharacteristic, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        answer = await _ask(self._host, "read", conn=self._open(), handle=characteristic.handle)
        return bytearray.fromhex(str(answer["data"]))

    async def read_gatt_descriptor(
        self, descriptor: BleakGATTDescriptor, *, use_cached: bool = False, **kwargs: Any
    ) -> bytearray:
        answer = await _ask(self._host, "read_desc", conn=self._open(), handle=descriptor.handle)
        return bytearray.fromhex(str(answer["data"]))

    async def write_gatt_char(
        self, characteristic: BleakGATTCharacteristic, data: SizedBuffer, response: bool
    ) -> None:
        conn = self._open()
        payload = bytes(data).hex()
        if response:
            await _ask(self._host, "write", conn=conn, handle=characteristic.handle, data=payload)
            return
        if "write-without-response" not in characteristic.properties:
            # BlueZ refuses a write the characteristic does not declare, before it is sent.
            raise BleakError(f"{characteristic.uuid}: write without response not permitted")
        # Without response a write is done once it is handed to the adapter, as on every
        # stack: the peer's answer to it may come back before the adapter says it sent it.
        # A write the host could not make means the connection is gone.
        try:
            sent = self._host.post(
                "write", conn=conn, handle=characteristic.handle, data=payload, response=False
            )
        except HostError as exc:
            raise BleakError(str(exc)) from exc
        sent.add_done_callback(lambda done: self._written(conn, done))

    def _written(self, conn: int, done: asyncio.Future[dict[str, Any]]) -> None:
        problem = done.exception() if not done.cancelled() else None
        if problem is None and "error" in done.result():
            problem = done.result()["error"]
        if problem is not None and conn == self._conn:
            log.debug("%s: a write failed: %s", self.address, problem)
            self._lose()

    async def write_gatt_descriptor(
        self, descriptor: BleakGATTDescriptor, data: SizedBuffer
    ) -> None:
        await _ask(
            self._host,
            "write_desc",
            conn=self._open(),
            handle=descriptor.handle,
            data=bytes(data).hex(),
        )

    async def start_notify(
        self, characteristic: BleakGATTCharacteristic, callback: NotifyCallback, **kwargs: Any
    ) -> None:
        conn = self._open()
        self._callbacks[characteristic.handle] = callback
        await _ask(self._host, "notify", conn=conn, handle=characteristic.handle, on=True)

    async def stop_notify(self, characteristic: BleakGATTCharacteristic) -> None:
        conn = self._open()
        self._callbacks.pop(characteristic.handle, None)
        await _ask(self._host, "notify", conn=conn, handle=characteristic.handle, on=False)


# -- the fleet ----------------------------------------------------------------------------


def frame_from(message: dict[str, Any]) -> LedFrame:
    """An LED frame from its JSON (`host.frame_message`)."""
    return LedFrame(
        name=str(message["name"]),
        role=Role(message["role"]),
        rgb=bytes.fromhex(str(message["rgb"])),
        text=str(message["text"]),
        rev=int(message["rev"]),
        number=int(message["number"]),
        spaces=int(message["spaces"]),
        positions=int(message["positions"]),
    )


@dataclass(frozen=True)
class RemoteCounter:
    """A virtual counter the host runs, as the app knows it."""

    host: HostProcess
    key: str
    role: Role
    transport: str
    address: str
    name: str

    def press(self, button: str, long: bool = False) -> None:
        """A person's press on the counter ("plus", "minus", "next" or "claim")."""
        self.host.send("press", key=self.key, button=button, long=long)

    def open_claim_window(self) -> None:
        """The long press that lets an app claim this counter."""
        self.press("claim", long=True)


class RemoteFleet:
    """Virtual counters run by a `HostProcess`, offered as a `VirtualFleet` offers its own."""

    def __init__(self, host: HostProcess | None = None) -> None:
        self._host = host
        self.counters: list[RemoteCounter] = []
        self._frames: dict[str, LedFrame] = {}
        self._frame_listeners: Listeners[[str, LedFrame]] = Listeners()
        self._gone_listeners: Listeners[[str]] = Listeners()
        self._unlisten: list[Callable[[], None]] = []
        self._stopping = False

    @property
    def host(self) -> HostProcess:
        """The host process (the one started early, or a new one, on first use)."""
        if self._host is None:
            self._host = take_host()
        return self._host

    def _backend(self) -> BleBackend:
        """The bleak client backend that reaches the host's BLE counters (connections
        only: it has no scanner)."""
        return BleBackend(client=RemoteBleakClient, kwargs={"host": self.host})

    def counter(self, key: str) -> RemoteCounter | None:
        """The fleet's counter the app knows by `key`, if it is one."""
        return next((c for c in self.counters if c.key == key), None)

    def frames(self) -> dict[str, LedFrame]:
        """The latest LED frame of every counter, by key."""
        return dict(self._frames)

    def on_frame(self, listener: Callable[[str, LedFrame], None]) -> Callable[[], None]:
        """Call `listener(key, frame)` on every new frame of any counter; returns an unregister."""
        return self._frame_listeners.add(guarded(listener, "frame listener"))

    def on_gone(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener(why)` if the host ends while the fleet runs (not on `stop`)."""
        return self._gone_listeners.add(guarded(listener, "virtual counters gone"))

    async def start(self, setup: VirtualSetup, players: int) -> list[RemoteCounter]:
        """Start the counters `setup` asks for a table of `players`."""
        host = self.host
        await host.attach()
        if not self._unlisten:
            self._unlisten = [host.listen("frames", self._framed), host.listen("gone", self._gone)]
        # The app connects to them next: the host's adapter starts at once (`host`). The
        # app's default counters may have been asked for ahead (`start_counters_ahead`).
        fields = {
            "players": players,
            "setup": {} if setup == VirtualSetup() else dataclasses.asdict(setup),
            "connect_ahead": True,
        }
        answer = await host.take_ahead("start", timeout_s=READY_TIMEOUT_S, **fields)
        if answer is None:
            answer = await host.request("start", timeout_s=READY_TIMEOUT_S, **fields)
        started = [
            RemoteCounter(
                host,
                key=str(entry["key"]),
                role=Role(entry["role"]),
                transport=str(entry["transport"]),
                address=str(entry["address"]),
                name=str(entry["name"]),
            )
            for entry in answer["counters"]
        ]
        self.counters.extend(started)
        return started

    def animate(self, on: bool) -> None:
        """Whether the app shows the counters' LEDs now: their animation runs only then."""
        if self._host is not None and self._host.alive:
            with contextlib.suppress(HostError):
                self._host.send("animate", on=on)

    async def echo(self, names: list[str]) -> list[str]:
        """Peripherals on the host's radio that notify back every write (a benchmark's bare
        carrier); their addresses."""
        host = self.host
        await host.attach()
        answer = await host.request("echo", names=names)
        return [str(address) for address in answer["addresses"]]

    async def link(self, counter: RemoteCounter) -> Link:
        """The app's link to one of this fleet's counters.

        The host said where each counter is as it started them, so a BLE one is not
        listened for first: the link connects to it as to a counter a scan found."""
        device = None
        if counter.transport == "ble":
            device = BLEDevice(
                counter.address, counter.name, RemoteDeviceDetails(self.host, counter.address)
            )
        link = link_to(counter.transport, counter.address, device=device, backend=self._backend())
        link.forgets_claims = True  # its flash is memory: a claim ends with the host
        return link

    async def join(self, taker: LinkTaker, counters: list[RemoteCounter] | None = None) -> None:
        """Hand the app's link to each counter (default: all of them) to `taker`."""
        for counter in self.counters if counters is None else counters:
            taker.add_link(await self.link(counter))

    async def remove(self, counter: RemoteCounter) -> None:
        """Switch one of the fleet's counters off and forget it (a smaller table)."""
        if counter in self.counters:
            self.counters.remove(counter)
        self._frames.pop(counter.key, None)
        with contextlib.suppress(HostGoneError):  # gone with the host already
            await self.host.request("remove", key=counter.key, timeout_s=STOP_TIMEOUT_S)

    async def stop(self) -> None:
        """Switch every counter off and end the host."""
        self._stopping = True
        for unlisten in self._unlisten:
            unlisten()
        self._unlisten = []
        self.counters = []
        self._frames = {}
        if self._host is not None:
            await self._host.stop()

    def _framed(self, message: dict[str, Any]) -> None:
        ours = {counter.key for counter in self.counters}
        for key, entry in message["frames"].items():
            if key not in ours:  # a counter started ahead that the app did not take
                continue
            frame = frame_from(entry)
            self._frames[key] = frame
            self._frame_listeners.emit(key, frame)

    def _gone(self, message: dict[str, Any]) -> None:
        if not self._stopping:
            self._gone_listeners.emit(str(message.get("why", "")))
