"""Virtual counters in a process of their own, served to the app over a pipe.

    python -m companion.devices.sim.host [--prestart]

The app starts this process as it opens (see `remote`): the BLE stack, the virtual
radio and the firmware logic of every virtual counter are imported and run here, on
another core, instead of on the app's own loop between its frames. The app talks to
it over this process's standard input and output, nothing else can: one JSON object
a line, each way.

The app asks (every request carries an "id", every answer repeats it as "re", with
"error" instead of the result when it failed):
  start {players, setup[, connect_ahead]}
                             start the counters a `VirtualSetup` plans for the table;
                             with connect_ahead, connect to the BLE ones at once, as
                             an OS does to devices it knows: the app's connect takes
                             the connection; asked again (with more trackers), it
                             starts more: a larger table
  remove {key}               switch one counter off (a smaller table)
  connect {conn, address}    connect this process's adapter to a peripheral; its GATT
                             services come back, then "notification" and
                             "disconnected" events name `conn`
  notify {conn, handle, on}  subscribe to a characteristic's notifications, or not
  write / read {conn, handle[, data, response]}, write_desc / read_desc
  disconnect {conn}
  press {key, button, long}  a person's press on a counter ("claim" long: its claim)
  animate {on}               the app shows the LEDs or not: the counters' animation runs
                             only while it does (a change of state is pictured anyway)
  echo {names}               peripherals with the counter service that notify back every
                             write: the bare carrier a benchmark compares the app with
  stop                       switch everything off; the process then ends
Events the app hears: "ready" once the stack is loaded, "notification",
"disconnected", and "frames" (the counters' latest LED pictures, at most
`FRAME_RATE_HZ` times a second). The app knows where its counters are from "start"'s
answer, so nothing here scans. With --prestart the counters the app starts by default
(`VirtualSetup()` for the largest table) start at once, before the app asks: "start"
keeps those it needs. The process also ends when its input closes, so it never
outlives the app, however the app ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import selectors
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from bleak import BleakClient
from bleak.backends.device import BLEDevice
from bleak.exc import BleakError

from companion.devices import wire
from companion.devices.sim.bumble_backend import (
    ADVERTISING_INTERVAL_MS,
    BumbleBleakClient,
    VirtualRadio,
)
from companion.devices.sim.counters import VirtualCounter
from companion.devices.sim.fleet import MAX_VIRTUAL_TRACKERS, VirtualFleet, VirtualSetup
from companion.devices.sim.frames import LedFrame
from companion.devices.sim.virtual_peripheral import VirtualPeripheral
from companion.devices.status import Role

log = logging.getLogger(__name__)

PROTOCOL = 2  # the version of these messages; the app refuses a host that speaks another
FRAME_RATE_HZ = 15  # LED pictures go to the app this often at most (its screen draws at 15)
MAX_LINE_BYTES = 1 << 20  # a request longer than this is not the app's
CONNECT_AHEAD_S = 10.0  # s: a counter just started advertises every 20 ms


def echo_peripheral(radio: VirtualRadio, name: str) -> VirtualPeripheral:
    """A GATT server with the counter service that notifies back every write (not started)."""
    peripherals: list[VirtualPeripheral] = []

    async def echo_back(payload: bytes) -> None:
        await peripherals[0].notify(payload)

    peripheral = VirtualPeripheral(
        radio,
        name,
        service_uuid=wire.SERVICE_UUID,
        write_uuid=wire.RX_CHAR_UUID,
        notify_uuid=wire.TX_CHAR_UUID,
        on_write=echo_back,
    )
    peripherals.append(peripheral)
    return peripheral


def frame_message(frame: LedFrame) -> dict[str, Any]:
    """One LED frame as JSON (`remote.frame_from` reads it back)."""
    return {
        "name": frame.name,
        "role": str(frame.role),
        "rgb": frame.rgb.hex(),
        "text": frame.text,
        "rev": frame.rev,
        "number": frame.number,
        "spaces": frame.spaces,
        "positions": frame.positions,
    }


def services_message(client: BleakClient) -> list[dict[str, Any]]:
    """A connected client's GATT services, characteristics and descriptors as JSON."""
    services = []
    for service in client.services:
        services.append(
            {
                "uuid": service.uuid,
                "handle": service.handle,
                "chars": [
                    {
                        "uuid": char.uuid,
                        "handle": char.handle,
                        "properties": list(char.properties),
                        "descriptors": [
                            {"uuid": desc.uuid, "handle": desc.handle} for desc in char.descriptors
                        ],
                    }
                    for char in service.characteristics
                ],
            }
        )
    return services


class Host:
    """Serves one app: its requests in, answers and events out through `write`."""

    def __init__(self, write: Callable[[dict[str, Any]], None]) -> None:
        self._write = write
        self.fleet = VirtualFleet()
        self.radio = self.fleet.radio
        self._clients: dict[int, BleakClient] = {}
        self._echoes: list[Any] = []
        # Connections made ahead, by address, until the app's `connect` takes them.
        self._ahead: dict[str, asyncio.Future[tuple[BleakClient, dict[str, Any]] | None]] = {}
        self._prestarting: asyncio.Future[tuple[VirtualSetup, list[VirtualCounter]]] | None = None
        self._frames: dict[str, LedFrame] = {}
        self._frames_due = asyncio.Event()
        self._taken: set[str] = set()  # the counters the app asked for (their frames go out)
        self._animating = True  # until the app says whether it shows the LEDs ("animate")
        self._tasks: set[asyncio.Task[None]] = set()
        # The latest request of each connection: the next one on it waits for it.
        self._last: dict[object, asyncio.Task[None]] = {}
        self.fleet.on_frame(self._frame)
        self._handlers: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {
            "start": self._start,
            "remove": self._remove,
            "connect": self._connect,
            "notify": self._notify,
            "write": self._write_char,
            "read": self._read_char,
            "write_desc": self._write_desc,
            "read_desc": self._read_desc,
            "disconnect": self._disconnect,
            "press": self._press,
            "echo": self._echo,
            "animate": self._animate_leds,
        }

    def handle(self, request: dict[str, Any]) -> None:
        """Start answering one request. Each runs in a task of its own (a slow connect holds
        no other), but those on one connection run in the order they came: a counter's
        messages are numbered, and one overtaken by the next is refused as a replay."""
        conn = request.get("conn")
        before = self._last.get(conn) if conn is not None else None
        task = asyncio.ensure_future(self._answer(request, before))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if conn is not None:
            self._last[conn] = task
            task.add_done_callback(
                lambda done: self._last.get(conn) is done and self._last.pop(conn)
            )

    async def _answer(self, request: dict[str, Any], before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await asyncio.wait([before])
        ident = request.get("id")
        handler = self._handlers.get(str(request.get("op")))
        try:
            if handler is None:
                raise ValueError(f"unknown request {request.get('op')!r}")
            result = await handler(request)
        except Exception as exc:  # every request is answered: the app never waits it out
            if not isinstance(exc, (BleakError, TimeoutError, ValueError, KeyError, OSError)):
                log.exception("%s failed", request.get("op"))
            kind = "timeout" if isinstance(exc, TimeoutError) else "error"
            self._write({"re": ident, "error": str(exc) or type(exc).__name__, "kind": kind})
        else:
            self._write({"re": ident, **result})

    async def send_frames(self) -> None:
        """Pass the counters' newest LED frames on, at most `FRAME_RATE_HZ` times a second.

        A frame that shows a new state waits its turn too: sent at once, nine of them
        landed on the app's loop while it took the counters' acknowledgements of that
        very state (the app's Devices screen draws at that rate anyway)."""
        while True:
            await self._frames_due.wait()
            self._frames_due.clear()
            frames, self._frames = self._frames, {}
            self._write(
                {"ev": "frames", "frames": {k: frame_message(f) for k, f in frames.items()}}
            )
            await asyncio.sleep(1 / FRAME_RATE_HZ)

    def _frame(self, key: str, frame: LedFrame) -> None:
        if key not in self._taken:
            return  # started ahead and not (yet) the app's: nobody to show it to
        self._frames[key] = frame
        self._frames_due.set()

    # -- requests ------------------------------------------------------------------------
    def prestart(self, setup: VirtualSetup) -> None:
        """Start, before the app asks, the counters it most likely asks for: `setup`'s for
        the largest table. `start` keeps those its plan needs and switches the rest off."""

        async def prestarting() -> tuple[VirtualSetup, list[VirtualCounter]]:
            plan = setup.plan(MAX_VIRTUAL_TRACKERS)
            started = await self._start_counters(plan, setup, spread=True)
            await self.radio.central()  # the adapter the app connects through, powered on
            return setup, started

        self._prestarting = asyncio.ensure_future(prestarting())

    async def _start(self, request: dict[str, Any]) -> dict[str, Any]:
        setup = VirtualSetup(**request.get("setup", {}))
        plan = setup.plan(int(request["players"]))
        started = await self._take_prestarted(setup, plan)
        if started is None:
            started = await self._start_counters(plan, setup)
        for counter in started:  # what each shows now goes after the answer
            self._taken.add(counter.key)
            counter.set_animating(self._animating)
            self._frame(counter.key, counter.frame)
            if request.get("connect_ahead") and counter.transport == "ble":
                self._connect_ahead(counter.address)
        return {
            "counters": [
                {
                    "key": c.key,
                    "role": str(c.role),
                    "transport": c.transport,
                    "address": c.address,
                    "name": c.name,
                }
                for c in started
            ]
        }

    async def _remove(self, request: dict[str, Any]) -> dict[str, Any]:
        counter = self.fleet.counter(str(request["key"]))
        if counter is None:
            raise KeyError(f"no virtual counter {request['key']}")
        self._taken.discard(counter.key)
        self._frames.pop(counter.key, None)
        ahead = self._ahead.pop(counter.address, None)
        if ahead is not None:  # the app never took the connection made ahead
            made = await ahead
            if made is not None:
                with contextlib.suppress(BleakError, TimeoutError):
                    await made[0].disconnect()
        await self.fleet.remove(counter)
        return {}

    async def _take_prestarted(
        self, setup: VirtualSetup, plan: list[tuple[Role, str]]
    ) -> list[VirtualCounter] | None:
        """The counters started ahead that `plan` needs (the others are switched off); None
        when there are none or they are not the ones asked for."""
        prestarting, self._prestarting = self._prestarting, None
        if prestarting is None:
            return None
        try:
            ready_setup, ready = await prestarting
        except Exception as exc:  # the app asks again, and hears what fails then
            log.warning("starting the counters ahead failed: %s", exc)
            return None
        kept: list[VirtualCounter] = []
        spare = list(ready)
        if ready_setup == setup:
            for role, transport in plan:
                found = next((c for c in spare if (c.role, c.transport) == (role, transport)), None)
                if found is None:
                    break
                kept.append(found)
                spare.remove(found)
        if len(kept) != len(plan):
            kept, spare = [], list(ready)
        for counter in spare:
            await self.fleet.remove(counter)
        return kept or None

    async def _start_counters(
        self, plan: list[tuple[Role, str]], setup: VirtualSetup, *, spread: bool = False
    ) -> list[VirtualCounter]:
        """Start `plan`'s counters. With `spread`, the BLE ones start advertising spread
        over one advertising interval, as devices switched on at different moments do:
        started together, they advertise together, and an adapter that connects to one
        at a time waits a whole interval for each next one."""
        started = []
        ble = sum(1 for _role, transport in plan if transport == "ble")
        for role, transport in plan:
            counter = await self.fleet.add(
                role, transport, animate=setup.animate, claim_on_hello=setup.claim_on_hello
            )
            started.append(counter)
            if spread:  # started ahead: nobody sees it until the app takes it
                counter.set_animating(False)
            if spread and transport == "ble":
                await asyncio.sleep(ADVERTISING_INTERVAL_MS / 1000 / ble)
        return started

    def _new_client(
        self, target: BLEDevice | str, owner: dict[str, Any], timeout_s: float
    ) -> BleakClient:
        """A client on this process's adapter; `owner["conn"]` names it to the app once
        the app has it (until then a loss is only noted there)."""

        def lost(_client: BleakClient) -> None:
            conn = owner.get("conn")
            if conn is None:
                owner["lost"] = True
            elif self._clients.pop(conn, None) is not None:
                self._write({"ev": "disconnected", "conn": conn})

        return BleakClient(
            target,
            disconnected_callback=lost,
            timeout=timeout_s,
            backend=BumbleBleakClient,
            radio=self.radio,
        )

    def _connect_ahead(self, address: str) -> None:
        """Connect to a counter the app is about to connect to, as an OS connects to the
        devices it knows in the background: its `connect` then takes this connection."""
        owner: dict[str, Any] = {}
        client = self._new_client(address, owner, CONNECT_AHEAD_S)

        async def connecting() -> tuple[BleakClient, dict[str, Any]] | None:
            try:
                await client.connect()
            except (BleakError, TimeoutError) as exc:  # the app's own connect tries again
                log.info("connecting ahead to %s failed: %s", address, exc)
                return None
            return client, owner

        self._ahead[address] = asyncio.ensure_future(connecting())

    async def _connect(self, request: dict[str, Any]) -> dict[str, Any]:
        conn = int(request["conn"])
        address = str(request["address"])
        ahead = self._ahead.pop(address, None)
        made = await ahead if ahead is not None else None
        if made is not None and made[0].is_connected and not made[1].get("lost"):
            client, owner = made
            owner["conn"] = conn
        else:
            timeout_s = float(request.get("timeout", 10.0))
            client = self._new_client(address, {"conn": conn}, timeout_s)
            await client.connect()
        self._clients[conn] = client
        return {"services": services_message(client), "mtu": client.mtu_size, "name": client.name}

    def _client(self, request: dict[str, Any]) -> BleakClient:
        client = self._clients.get(int(request["conn"]))
        if client is None:
            raise BleakError(f"connection {request['conn']} is not open")
        return client

    async def _notify(self, request: dict[str, Any]) -> dict[str, Any]:
        client = self._client(request)
        conn, handle = int(request["conn"]), int(request["handle"])
        if request.get("on", True):

            def heard(_char: Any, data: bytearray) -> None:
                message = {"ev": "notification", "conn": conn, "handle": handle}
                self._write({**message, "data": bytes(data).hex()})

            await client.start_notify(handle, heard)
        else:
            await client.stop_notify(handle)
        return {}

    async def _write_char(self, request: dict[str, Any]) -> dict[str, Any]:
        client = self._client(request)
        data = bytes.fromhex(str(request["data"]))
        await client.write_gatt_char(
            int(request["handle"]), data, response=bool(request.get("response"))
        )
        return {}

    async def _read_char(self, request: dict[str, Any]) -> dict[str, Any]:
        value = await self._client(request).read_gatt_char(int(request["handle"]))
        return {"data": bytes(value).hex()}

    async def _write_desc(self, request: dict[str, Any]) -> dict[str, Any]:
        data = bytes.fromhex(str(request["data"]))
        await self._client(request).write_gatt_descriptor(int(request["handle"]), data)
        return {}

    async def _read_desc(self, request: dict[str, Any]) -> dict[str, Any]:
        value = await self._client(request).read_gatt_descriptor(int(request["handle"]))
        return {"data": bytes(value).hex()}

    async def _disconnect(self, request: dict[str, Any]) -> dict[str, Any]:
        client = self._clients.pop(int(request["conn"]), None)
        if client is not None:
            await client.disconnect()
        return {}

    async def _animate_leds(self, request: dict[str, Any]) -> dict[str, Any]:
        """The app shows the LEDs (its Devices screen), or not: the counters' animation
        runs only while it does; a change of state is pictured either way."""
        self._animating = bool(request.get("on"))
        for counter in self.fleet.counters:
            if counter.key in self._taken:
                counter.set_animating(self._animating)
        return {}

    async def _press(self, request: dict[str, Any]) -> dict[str, Any]:
        counter = self.fleet.counter(str(request["key"]))
        if counter is None:
            raise KeyError(f"no virtual counter {request['key']}")
        counter.press(str(request["button"]), long=bool(request.get("long")))
        return {}

    async def _echo(self, request: dict[str, Any]) -> dict[str, Any]:
        addresses = []
        for name in request["names"]:
            peripheral = echo_peripheral(self.radio, str(name))
            await peripheral.start()
            self._echoes.append(peripheral)
            addresses.append(peripheral.address)
        return {"addresses": addresses}

    async def close(self) -> None:
        """Switch everything off: connections, the counters and the radio."""
        if self._prestarting is not None:
            # Let it finish (tens of ms): cut off while the adapter powers on, Bumble
            # later answers a command nobody waits for any more, and says so on stderr.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._prestarting), PRESTART_END_S)
            self._prestarting.cancel()
            await asyncio.gather(self._prestarting, return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        ahead = list(self._ahead.values())
        self._ahead.clear()
        for connecting in ahead:
            connecting.cancel()
        for made in await asyncio.gather(*ahead, return_exceptions=True):
            if isinstance(made, tuple):
                with contextlib.suppress(BleakError, TimeoutError):
                    await made[0].disconnect()
        for client in list(self._clients.values()):
            with contextlib.suppress(BleakError, TimeoutError):
                await client.disconnect()
        self._clients.clear()
        for peripheral in self._echoes:
            await peripheral.stop()
        await self.fleet.stop()
        await self.radio.close()


async def serve(input_fd: int, output_fd: int, *, prestart: bool = False) -> None:
    """Serve the app on these two pipes until it says stop or its end closes; with
    `prestart`, the counters the app starts by default are started at once."""
    loop = asyncio.get_running_loop()
    readline = await _line_reader(input_fd)
    transport, _protocol = await loop.connect_write_pipe(
        asyncio.Protocol, os.fdopen(output_fd, "wb", buffering=0)
    )

    def write(message: dict[str, Any]) -> None:
        if not transport.is_closing():
            transport.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    host = Host(write)
    frames = asyncio.ensure_future(host.send_frames())
    if prestart:
        host.prestart(VirtualSetup())
    write({"ev": "ready", "protocol": PROTOCOL, "pid": os.getpid()})
    stop_id: object = None
    try:
        while True:
            try:
                line = await readline()
            except ValueError:  # a line over the limit: not the app's; the pipe is not usable
                log.warning("a request over %d bytes: stopping", MAX_LINE_BYTES)
                break
            if not line:
                break  # the app is gone, however it ended
            try:
                request = json.loads(line)
            except ValueError:
                log.warning("a line that is not JSON was ignored: %.80r", line)
                continue
            if not isinstance(request, dict):
                continue
            if request.get("op") == "stop":
                stop_id = request.get("id")
                break
            host.handle(request)
    finally:
        frames.cancel()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(STOP_TIMEOUT_S):
                await host.close()
        if stop_id is not None:
            write({"re": stop_id})
        await asyncio.sleep(0)
        transport.close()


STOP_TIMEOUT_S = 3.0  # s: switching every counter off takes milliseconds; past this, just end
PRESTART_END_S = 1.0  # s: counters started ahead are up in ~100 ms; the stop waits that long


async def _line_reader(input_fd: int) -> Callable[[], Awaitable[bytes]]:
    """Reads the requests a line at a time; b"" once the input ends.

    The app's pipe is watched by the loop. An input the loop cannot watch (a file, or
    /dev/null: Linux refuses to poll either) is read on a thread instead: watched, it
    would never report its end, and this process would outlive whoever started it."""
    loop = asyncio.get_running_loop()
    if _pollable(input_fd):
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(input_fd, "rb", buffering=0)
        )
        return reader.readline
    stream = os.fdopen(input_fd, "rb")

    async def read_line() -> bytes:
        line = await loop.run_in_executor(None, stream.readline, MAX_LINE_BYTES + 1)
        if len(line) > MAX_LINE_BYTES:
            raise ValueError("a request over the limit")
        return line

    return read_line


def _pollable(fd: int) -> bool:
    selector = selectors.DefaultSelector()
    try:
        selector.register(fd, selectors.EVENT_READ)
    except (OSError, ValueError):
        return False
    finally:
        selector.close()
    return True


def plain_packet_strings() -> None:
    """Make Bumble's debug lines cheap when nobody reads them.

    Bumble writes a line for its debug log about every packet it passes (HCI, ATT,
    L2CAP), built before the logger is asked whether debug is on: each packet formatted
    field by field, in terminal colours. With nine counters that was most of this
    process's time. Unless Bumble's debug log is on, a packet here reads as its class
    name and colours are left out; nothing but those lines uses either.
    """
    import importlib

    if logging.getLogger("bumble").isEnabledFor(logging.DEBUG):
        return
    from bumble import att, hci, l2cap

    packets = (hci.HCI_Packet, att.ATT_PDU, l2cap.L2CAP_PDU, l2cap.L2CAP_Control_Frame)
    for module in (hci, att, l2cap):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, packets) and "__str__" in vars(value):
                value.__str__ = _class_name  # type: ignore[method-assign]
    for name in (
        "controller",
        "device",
        "gatt_client",
        "gatt_server",
        "hci",
        "host",
        "l2cap",
        "link",
        "smp",
        "att",
        "gatt",
    ):
        module = importlib.import_module(f"bumble.{name}")
        if callable(getattr(module, "color", None)):
            module.color = _plain  # type: ignore[attr-defined]


def _class_name(packet: object) -> str:
    return type(packet).__name__


def _plain(text: object, *_style: object, **_more: object) -> str:
    return str(text)


def main() -> int:
    # Standard output carries the messages alone: whatever else prints goes to standard error.
    output_fd = os.dup(1)
    os.dup2(2, 1)
    logging.basicConfig(
        level=logging.WARNING,
        stream=sys.stderr,
        format="companion counters: %(levelname)s %(name)s: %(message)s",
    )
    plain_packet_strings()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(0, output_fd, prestart="--prestart" in sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
