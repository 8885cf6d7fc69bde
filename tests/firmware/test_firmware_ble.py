"""The BLE carrier's session handling, with aioble and bluetooth replaced by fakes."""

from __future__ import annotations

import asyncio
import sys
import types

import pytest
from mpvm import PINOUTS

from companion.devices import wire


class FakeConnection:
    def __init__(self) -> None:
        self.connected = True
        self.device = types.SimpleNamespace(addr=bytes.fromhex("f0f1f2f3f4f5"))

    def is_connected(self) -> bool:
        return self.connected


def fake_ble(radio: types.SimpleNamespace) -> tuple[types.ModuleType, types.ModuleType]:
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
            radio.notified.append(bytes(data))

        async def written(self, timeout_ms=None):
            try:
                return await asyncio.wait_for(self.queue.get(), timeout_ms / 1000)
            except TimeoutError:
                raise TimeoutError from None

    async def advertise(interval_us, name=None, services=None):
        radio.advertised.append((name, services))
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
    state = types.SimpleNamespace(
        services=[],
        chars={},
        notified=[],
        advertised=[],
        registered=[],
        connect=asyncio.Event(),
        connection=FakeConnection(),
    )
    aioble, bluetooth = fake_ble(state)
    monkeypatch.setitem(sys.modules, "aioble", aioble)
    monkeypatch.setitem(sys.modules, "bluetooth", bluetooth)
    import counter

    monkeypatch.delitem(sys.modules, "counter.ble_link", raising=False)
    monkeypatch.delattr(counter, "ble_link", raising=False)
    return state


async def test_ble_carrier_serves_gatt_and_keeps_sessions_apart(radio) -> None:
    from counter import board
    from counter.ble_link import BleCarrier
    from counter.logic import Counter
    from counter.outbox import Outbox

    counter = Counter(board.load(str(PINOUTS / "tracker-esp32c3.json")), counter_id=5)
    outbox = Outbox(["ble"])
    carrier = BleCarrier(counter, outbox, "MCounter-0005")
    rx = radio.chars[wire.RX_CHAR_UUID]
    assert rx.flags == {"write": True, "write_no_response": True, "capture": True}
    assert radio.chars[wire.TX_CHAR_UUID].flags == {"notify": True}
    assert radio.chars[wire.MODEL_CHAR_UUID].value == b"tracker-esp32c3"
    assert radio.chars[wire.FIRMWARE_REV_CHAR_UUID].value == b"1.0.0"
    assert len(radio.registered) == 3

    task = asyncio.create_task(carrier.run())
    try:
        await asyncio.sleep(0.01)
        assert radio.advertised == [("MCounter-0005", [("uuid", wire.SERVICE_UUID)])]
        radio.connect.set()
        await rx.queue.put((radio.connection, wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
        await rx.queue.put((radio.connection, wire.encode(wire.Snapshot(1, [2], seq=2))))
        await asyncio.sleep(0.3)
        kinds = [type(wire.decode(n)).__name__ for n in radio.notified]
        assert kinds == ["Hello", "Error"]
        assert len(counter.sessions) == 2  # the default one and this connection's
        # Both addresses, as each side sees them, for the session's proofs.
        assert counter.sessions[1].link_id == bytes.fromhex("c098e5490001")
        assert counter.sessions[1].peer_id == bytes.fromhex("f0f1f2f3f4f5")
        outbox.put(wire.encode(wire.ClaimOpen(seq=9)), to_all=True)
        outbox.put(wire.encode(wire.Button(1, 0, seq=10)))  # not for an unauthenticated app
        await asyncio.sleep(0.3)
        assert [wire.decode(n).TYPE for n in radio.notified[2:]] == [wire.MSG_CLAIM_OPEN]
        radio.connection.connected = False
        await asyncio.sleep(0.3)
        assert len(counter.sessions) == 1  # the link's session is gone with it
        assert len(radio.advertised) == 2  # advertising again
        carrier.battery_percent(42)
        assert radio.chars[wire.BATTERY_LEVEL_CHAR_UUID].value == b"\x2a"
    finally:
        task.cancel()


async def test_a_mains_board_has_no_battery_service_and_stale_prompts_are_dropped(radio) -> None:
    from counter import board
    from counter.ble_link import BleCarrier
    from counter.logic import Counter
    from counter.outbox import Outbox

    counter = Counter(board.load(str(PINOUTS / "levelboard-esp32s3.json")), counter_id=6)
    outbox = Outbox(["ble"])
    carrier = BleCarrier(counter, outbox, wire.counter_name(counter.counter_id))
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
        await asyncio.sleep(0.01)
        assert radio.advertised == [("MCounter-0006", [("uuid", wire.SERVICE_UUID)])]
        radio.connect.set()
        await asyncio.sleep(0.3)
        assert radio.notified == []
        outbox.put(prompt, to_all=True)  # a press while this app is connected does reach it
        await asyncio.sleep(0.3)
        assert [wire.decode(n).TYPE for n in radio.notified] == [wire.MSG_CLAIM_OPEN]
    finally:
        task.cancel()
