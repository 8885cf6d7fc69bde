"""The whole board program (counter.app) under CPython with fake pins, talking over a pipe."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import types
from pathlib import Path

import pytest
from mpvm import PINOUTS

from companion.devices import seal, wire

pytestmark = pytest.mark.slow

HOLD_S = 1.7  # a little over the firmware's long press


class Wires:
    """Shared state of the fake pins: levels and the log of writes (for the TM1637 bus)."""

    def __init__(self) -> None:
        self.levels: dict[int, int] = {}
        self.log: list[tuple[int, int]] = []


def fake_machine(wires: Wires) -> types.ModuleType:
    class Pin:
        IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 2, 3

        def __init__(self, n: int, mode: int = 0, pull: int | None = None, value=None) -> None:
            self.n = n
            if value is not None:
                wires.levels[n] = value
            elif n not in wires.levels:
                wires.levels[n] = 1 if pull == Pin.PULL_UP else 0

        def value(self, v=None):
            if v is None:
                return wires.levels[self.n]
            wires.levels[self.n] = 1 if v else 0
            wires.log.append((self.n, wires.levels[self.n]))
            return None

        __call__ = value

    class ADC:
        ATTN_11DB = 3

        def __init__(self, pin: Pin) -> None:
            self.pin = pin

        def atten(self, value: int) -> None:
            self.attenuation = value

        def read_uv(self) -> int:
            return 1_950_000

    machine = types.ModuleType("machine")
    machine.Pin = Pin
    machine.ADC = ADC
    machine.unique_id = lambda: b"\x10\x20\x30\x40\x50\x60"
    return machine


def fake_neopixel(strips: list) -> types.ModuleType:
    class NeoPixel:
        def __init__(self, pin, n: int) -> None:
            self.buf = bytearray(3 * n)
            self.writes = 0
            strips.append(self)

        def write(self) -> None:
            self.writes += 1

    module = types.ModuleType("neopixel")
    module.NeoPixel = NeoPixel
    return module


@pytest.fixture
def board_env(monkeypatch: pytest.MonkeyPatch):
    wires = Wires()
    strips: list = []
    kbd = []
    mp = types.ModuleType("micropython")
    mp.const = lambda x: x
    mp.kbd_intr = kbd.append
    mp.alloc_emergency_exception_buf = lambda n: None
    monkeypatch.setitem(sys.modules, "machine", fake_machine(wires))
    monkeypatch.setitem(sys.modules, "neopixel", fake_neopixel(strips))
    monkeypatch.setitem(sys.modules, "micropython", mp)
    monkeypatch.setattr(time, "sleep_us", lambda us: None, raising=False)  # MicroPython's
    import counter

    # Fresh copies bound to this test's fakes (the package keeps submodules as attributes).
    for name in ("hw", "app"):
        monkeypatch.delitem(sys.modules, f"counter.{name}", raising=False)
        monkeypatch.delattr(counter, name, raising=False)
    from counter import app

    return types.SimpleNamespace(app=app, wires=wires, strips=strips, kbd=kbd)


class Host:
    """The app's end of the serial line: two pipes standing in for USB CDC."""

    def __init__(self) -> None:
        r_in, self.w_in = os.pipe()
        self.r_out, w_out = os.pipe()
        os.set_blocking(self.r_out, False)
        self.stdin = open(r_in, "rb", buffering=0)  # noqa: SIM115  (closed in close())
        self.stdout = open(w_out, "wb", buffering=0)  # noqa: SIM115
        self.deframer = wire.Deframer()
        self.seq = 0
        self.sealer: seal.Sealer | None = None  # once a session is open

    async def expect(self, count: int, timeout_s: float = 3.0) -> list[wire.Message]:
        got: list[wire.Message] = []
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout_s
        while len(got) < count and loop.time() < end:
            try:
                data = os.read(self.r_out, 256)
            except BlockingIOError:
                data = b""
            for payload in self.deframer.feed(data):
                if self.sealer is not None and wire.peek_type(payload) in wire.SEALED:
                    payload = self.sealer.open(payload)
                    assert payload is not None, "a sealed message with a wrong tag"
                got.append(wire.decode(payload))
            await asyncio.sleep(0.01)
        return got

    async def send(self, msg: wire.Message, replies: int = 1) -> list[wire.Message]:
        payload = wire.encode(msg)
        if self.sealer is not None and msg.TYPE in wire.SEALED:
            payload = self.sealer.seal(payload)
        os.write(self.w_in, wire.frame(payload))
        return await self.expect(replies)

    async def authenticate(self, token: bytes, seq: int) -> None:
        """Open a session as the app does (HELLO ``seq``, AUTH ``seq + 1``); later sends seal."""
        hello, challenge = await self.send(wire.Hello(wire.ROLE_APP, seq=seq), replies=2)
        app_nonce = bytes(range(8))
        script = seal.transcript(challenge.nonce, app_nonce, hello.counter_id, seal.NO_LINK_ID)
        auth = wire.Auth(app_nonce, seal.app_proof(token, script), seq=seq + 1)
        (proof,) = await self.send(auth)
        assert proof.proof == seal.counter_proof(token, script, seal.NO_LINK_ID)
        self.sealer = seal.session_sealer(token, script, seal.TO_COUNTER)

    def close(self) -> None:
        os.close(self.w_in)
        os.close(self.r_out)
        self.stdin.close()
        self.stdout.close()


async def hold(wires: Wires, pins: list[int], seconds: float) -> None:
    for pin in pins:
        wires.levels[pin] = 0  # active low
    await asyncio.sleep(seconds)
    for pin in pins:
        wires.levels[pin] = 1


def tm1637_bytes(log: list[tuple[int, int]], clk: int, dio: int) -> list[list[int]]:
    """Decode the bit-banged bus: the bytes of each start..stop transaction."""
    level = {clk: 1, dio: 1}
    transactions: list[list[int]] = []
    bits: list[int] | None = None
    for pin, value in log:
        if pin not in level:
            continue
        before = level[pin]
        level[pin] = value
        if pin == dio and level[clk] == 1 and before != value:
            if value == 0:
                bits = []
            elif bits is not None:
                transactions.append(
                    [sum(bits[i * 9 + b] << b for b in range(8)) for i in range(len(bits) // 9)]
                )
                bits = None
        elif pin == clk and value == 1 and before == 0 and bits is not None:
            bits.append(level[dio])
    return transactions


async def test_level_board_claims_shows_the_snapshot_and_gives_back_the_repl(
    board_env, tmp_path: Path
) -> None:
    host = Host()
    data = tmp_path / "data"
    task = asyncio.create_task(
        board_env.app.main(
            str(PINOUTS / "levelboard-esp32s3.json"),
            stdin=host.stdin,
            stdout=host.stdout,
            data_dir=str(data),
        )
    )
    try:
        (hello,) = await host.send(wire.Hello(wire.ROLE_APP, seq=1))
        assert hello.role == wire.ROLE_BOARD and hello.led_count == 60
        assert board_env.kbd == [-1]  # Ctrl-C off while the protocol runs
        # Ctrl-C bytes inside frames are only data.
        (pong,) = await host.send(wire.Ping(0x03030303, seq=1))
        assert pong.token == 0x03030303
        refused = await host.send(wire.Snapshot(1, [2], seq=2))
        assert refused[0].code == wire.ERR_NOT_AUTHENTICATED
        await hold(board_env.wires, [0], HOLD_S)  # the BOOT button is the claim button
        (opened,) = await host.expect(1)
        assert isinstance(opened, wire.ClaimOpen)
        (ack,) = await host.send(wire.Claim(bytes(range(16)), seq=3))
        assert isinstance(ack, wire.Ack)
        refused = await host.send(wire.Snapshot(1, [2], seq=4))  # a claim opens no session
        assert refused[0].code == wire.ERR_NOT_AUTHENTICATED
        await host.authenticate(bytes(range(16)), seq=5)
        await host.send(wire.ConfigBrightness(255, seq=7))
        await host.send(wire.ConfigBudget(5000, seq=8))
        (ack,) = await host.send(wire.Snapshot(7, [3], seq=9))
        assert ack.ref_type == wire.MSG_SNAPSHOT
        await asyncio.sleep(0.1)
        (strip,) = board_env.strips
        k = (3 - 1) * 6 * 3  # slot 0 at level 3: space 3, first LED
        assert strip.buf[k : k + 3] == bytes([30, 230, 30])  # red in GRB order
        assert sum(strip.buf) == 290 and strip.writes > 3
        os.write(host.w_in, b"\x00" + b"\x03\x03\x03 counter: back to the REPL \x03\x03\x03")
        from counter.serial_link import ReplRequested

        with pytest.raises(ReplRequested):
            await asyncio.wait_for(task, 2)
        assert board_env.kbd == [-1, 3]  # Ctrl-C is back for the REPL
        assert (data / "token.bin").read_bytes() == bytes(range(16))
        assert (data / "state.bin").exists()
    finally:
        task.cancel()
        host.close()


async def test_tracker_chord_claims_and_the_digits_show_the_level(board_env, tmp_path) -> None:
    host = Host()
    task = asyncio.create_task(
        board_env.app.main(
            str(PINOUTS / "tracker-esp32c3.json"),
            stdin=host.stdin,
            stdout=host.stdout,
            data_dir=str(tmp_path / "data"),
        )
    )
    try:
        await host.send(wire.Hello(wire.ROLE_APP, seq=1))
        await hold(board_env.wires, [6, 7], HOLD_S)  # + and - together
        (opened,) = await host.expect(1)
        assert isinstance(opened, wire.ClaimOpen)
        (weak,) = await host.send(wire.Claim(bytes(16), seq=2))
        assert weak.code == wire.ERR_WEAK_TOKEN
        token = bytes(range(100, 116))
        await host.send(wire.Claim(token, seq=3))
        await host.authenticate(token, seq=4)
        await host.send(wire.Snapshot(1, [7], seq=6))
        await asyncio.sleep(0.1)
        shown = tm1637_bytes(board_env.wires.log, clk=4, dio=5)
        assert [0xC0, 0x40, 0x40] in shown  # address 0, then "--" before any snapshot
        assert shown[-2] == [0xC0, 0x00, 0x07]  # and now " 7"
        # A short press of + is a level-up intent for this tracker's slot.
        await hold(board_env.wires, [6], 0.1)
        (intent,) = await host.expect(1)
        assert (intent.intent, intent.slot) == (wire.INTENT_LEVEL_UP, 0)
    finally:
        task.cancel()
        host.close()
