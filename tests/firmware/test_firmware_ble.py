"""The BLE carrier's session handling, with aioble and bluetooth replaced by fakes.

The fakes behave as aioble does where the carrier depends on it: ``written()``
waits for a write with no timeout of its own, ``disconnected()`` returns when the
link drops, ``notify`` on a dropped link raises. Every check waits for the event it
is about (a notification, a new advertisement), never for a guessed time.
"""

from __future__ import annotations

import asyncio
import sys
import types

import pytest
from mpvm import PINOUTS

from companion.devices import wire

WAIT_S = 10.0  # s: only reached when something is broken
CAPTURE_QUEUE_LIMIT = 10  # aioble: captured writes waiting to be read, the oldest dropped beyond
BUFFER_BYTES = 20  # MicroPython's default characteristic buffer: longer writes are cut


class FakeConnection:
    def __init__(self) -> None:
        self.connected = True
        self.device = types.SimpleNamespace(addr=bytes.fromhex("f0f1f2f3f4f5"))
        self.gone = asyncio.Event()
        self.disconnects = 0  # how often the counter dropped the link itself

    def is_connected(self) -> bool:
        return self.connected

    def drop(self) -> None:
        self.connected = False
        self.gone.set()

    async def disconnected(self, timeout_ms=60000) -> None:
        assert timeout_ms is None, "the carrier must wait for the link as long as it lasts"
        await self.gone.wait()

    async def disconnect(self) -> None:
        self.disconnects += 1
        self.drop()


class Radio:
    """What the fakes saw, with a way to wait for it."""

    def __init__(self) -> None:
        self.services: list = []
        self.chars: dict = {}
        self.notified: list[bytes] = []
        self.advertised: list = []
        self.registered: list = []
        self.connect = asyncio.Event()
        self.connection = FakeConnection()
        self.written_calls = 0
        self.changed = asyncio.Condition()
        self.fail_notify: Exception | None = None

    async def until(self, condition) -> None:
        async with asyncio.timeout(WAIT_S), self.changed:
            await self.changed.wait_for(condition)

    def poke(self) -> None:
        async def notify() -> None:
            async with self.changed:
                self.changed.notify_all()

        asyncio.get_running_loop().create_task(notify())

    async def write(self, message: wire.Message) -> None:
        """A write from the app, as aioble takes it: cut to the 20-byte buffer, queued
        with at most 10 waiting (the oldest goes)."""
        queue = self.chars[wire.RX_CHAR_UUID].queue
        if queue.qsize() >= CAPTURE_QUEUE_LIMIT:
            queue.get_nowait()
        queue.put_nowait((self.connection, wire.encode(message)[:BUFFER_BYTES]))


def fake_ble(radio: Radio) -> tuple[types.ModuleType, types.ModuleType]:
    bluetooth = types.ModuleType("bluetooth")
    bluetooth.UUID = lambda value: ("uuid", value)
    own = (0, bytes.fromhex("c098e5490001"))
    bluetooth.BLE = lambda: types.SimpleNamespace(
        config=lambda name: own if name == "mac" else None
    )

    class Service:
        def __init__(self, uuid) -> None:
            self.uuid = uuid
            radio.services.append(self)

    class Characteristic:
        def __init__(self, service, uuid, **flags) -> None:
            self.uuid = uuid
            self.flags = flags
            self.value = b""
            self.queue: asyncio.Queue = asyncio.Queue()
            radio.chars[uuid[1]] = self

        def write(self, value, send_update=False) -> None:
            self.value = bytes(value)

        def notify(self, connection, data) -> None:
            if radio.fail_notify is not None:
                raise radio.fail_notify
            if not connection.is_connected():
                raise OSError(107, "not connected")
            radio.notified.append(bytes(data))
            radio.poke()

        async def written(self, timeout_ms=None):
            radio.written_calls += 1
            if timeout_ms is None:
                return await self.queue.get()
            return await asyncio.wait_for(self.queue.get(), timeout_ms / 1000)

    async def advertise(interval_us, name=None, services=None):
        radio.advertised.append((name, services))
        radio.poke()
        await radio.connect.wait()
        radio.connect.clear()
        return radio.connection

    aioble = types.ModuleType("aioble")
    aioble.Service = Service
    aioble.Characteristic = Characteristic
    aioble.advertise = advertise
    aioble.register_services = lambda *services: radio.registered.extend(services)
    return aioble, bluetooth


@pytest.fixture
def radio(monkeypatch: pytest.MonkeyPatch):
    state = Radio()
    aioble, bluetooth = fake_ble(state)
    monkeypatch.setitem(sys.modules, "aioble", aioble)
    monkeypatch.setitem(sys.modules, "bluetooth", bluetooth)
    import counter

    monkeypatch.delitem(sys.modules, "counter.ble_link", raising=False)
    monkeypatch.delattr(counter, "ble_link", raising=False)
    return state


def carrier_for(pinout: str, counter_id: int):
    from counter import board
    from counter.ble_link import BleCarrier
    from counter.logic import Counter
    from counter.outbox import Outbox

    counter = Counter(board.load(str(PINOUTS / f"{pinout}.json")), counter_id=counter_id)
    outbox = Outbox(["ble"])
    return counter, outbox, BleCarrier(counter, outbox, wire.counter_name(counter_id))


async def test_ble_carrier_serves_gatt_and_keeps_sessions_apart(radio) -> None:
    counter, outbox, carrier = carrier_for("tracker-esp32c3", 5)
    rx = radio.chars[wire.RX_CHAR_UUID]
    assert rx.flags == {"write": True, "write_no_response": True, "capture": True}
    assert radio.chars[wire.TX_CHAR_UUID].flags == {"notify": True}
    assert radio.chars[wire.MODEL_CHAR_UUID].value == b"tracker-esp32c3"
    assert radio.chars[wire.FIRMWARE_REV_CHAR_UUID].value == b"1.0.0"
    assert len(radio.registered) == 3

    task = asyncio.create_task(carrier.run())
    try:
        await radio.until(lambda: radio.advertised)
        assert radio.advertised == [("MCounter-0005", [("uuid", wire.SERVICE_UUID)])]
        radio.connect.set()
        await radio.write(wire.Hello(wire.ROLE_APP, seq=1))
        await radio.write(wire.Snapshot(1, [2], seq=2))
        await radio.until(lambda: len(radio.notified) == 2)
        kinds = [type(wire.decode(n)).__name__ for n in radio.notified]
        assert kinds == ["Hello", "Error"]
        assert len(counter.sessions) == 2  # the default one and this connection's
        # Both addresses, as each side sees them, for the session's proofs.
        assert counter.sessions[1].link_id == bytes.fromhex("c098e5490001")
        assert counter.sessions[1].peer_id == bytes.fromhex("f0f1f2f3f4f5")
        outbox.put(wire.encode(wire.Button(1, 0, seq=10)))  # not for an unauthenticated app
        outbox.put(wire.encode(wire.ClaimOpen(seq=9)), to_all=True)
        await radio.until(lambda: len(radio.notified) == 3)
        assert [wire.decode(n).TYPE for n in radio.notified[2:]] == [wire.MSG_CLAIM_OPEN]
        radio.connection.drop()
        await radio.until(lambda: len(radio.advertised) == 2)  # advertising again
        assert len(counter.sessions) == 1  # the link's session is gone with it
        carrier.battery_percent(42)
        assert radio.chars[wire.BATTERY_LEVEL_CHAR_UUID].value == b"\x2a"
    finally:
        task.cancel()


async def test_a_quiet_link_waits_for_a_write_and_never_polls(radio) -> None:
    """aioble's written() waits on a flag its write handler sets; the carrier waits on it."""
    _, outbox, carrier = carrier_for("tracker-esp32c3", 7)
    task = asyncio.create_task(carrier.run())
    try:
        await radio.until(lambda: radio.advertised)
        radio.connect.set()
        await radio.write(wire.Hello(wire.ROLE_APP, seq=1))
        await radio.until(lambda: len(radio.notified) == 1)
        calls = radio.written_calls
        # Loop time moves on past what a 100 ms poll would have used twice over; every
        # timer due before this sleep ends has run by the time it does.
        await asyncio.sleep(0.3)
        assert radio.written_calls == calls  # still the one wait for the next write
        outbox.put(wire.encode(wire.ClaimOpen(seq=9)), to_all=True)
        await radio.until(lambda: len(radio.notified) == 2)  # the outbox woke the link
    finally:
        task.cancel()


async def test_a_failing_serve_drops_the_app_so_it_can_reconnect(radio) -> None:
    counter, _, carrier = carrier_for("tracker-esp32c3", 8)
    task = asyncio.create_task(carrier.run())
    try:
        await radio.until(lambda: radio.advertised)
        radio.connect.set()
        radio.fail_notify = OSError(5, "notify failed")
        await radio.write(wire.Hello(wire.ROLE_APP, seq=1))
        with pytest.raises(OSError, match="notify failed"):
            await asyncio.wait_for(task, WAIT_S)
        # Left connected, the app would wait on a counter that no longer serves it.
        assert radio.connection.disconnects == 1
        assert len(counter.sessions) == 1
    finally:
        task.cancel()


async def test_a_mains_board_has_no_battery_service_and_stale_prompts_are_dropped(radio) -> None:
    counter, outbox, carrier = carrier_for("levelboard-esp32s3", 6)
    assert wire.BATTERY_LEVEL_CHAR_UUID not in radio.chars
    assert [s.uuid[1] for s in radio.registered] == [
        wire.SERVICE_UUID,
        wire.DEVICE_INFO_SERVICE_UUID,
    ]
    carrier.battery_percent(50)  # nothing to update, and no error
    # Someone long-presses while no app is connected: that prompt is not for a later app.
    (prompt,) = counter.press("claim", True)
    outbox.put(prompt, to_all=True)
    task = asyncio.create_task(carrier.run())
    try:
        await radio.until(lambda: radio.advertised)
        assert radio.advertised == [("MCounter-0006", [("uuid", wire.SERVICE_UUID)])]
        radio.connect.set()
        # The HELLO's answer is the first notification: the stale prompt was not sent.
        await radio.write(wire.Hello(wire.ROLE_APP, seq=1))
        await radio.until(lambda: radio.notified)
        assert [wire.decode(n).TYPE for n in radio.notified] == [wire.MSG_HELLO]
        outbox.put(prompt, to_all=True)  # a press while this app is connected does reach it
        await radio.until(lambda: len(radio.notified) == 2)
        assert wire.decode(radio.notified[1]).TYPE == wire.MSG_CLAIM_OPEN
    finally:
        task.cancel()
