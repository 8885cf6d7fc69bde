"""The whole board program (counter.app) under CPython with fake pins, talking over a pipe."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from boardfakes import Wires
from mpvm import PINOUTS

from companion.devices import framing, seal, wire
from tests.waiting import until

pytestmark = pytest.mark.slow

HOLD_S = 1.7  # a little over the firmware's long press
TOKEN = bytes.fromhex("e2177a03c95d48b1f60e2c9b73a45d18")  # a strong claim token, drawn once
WAIT_S = 10.0  # s: only reached when something is broken


class Host:
    """The app's end of the serial line: two pipes standing in for USB CDC."""

    def __init__(self) -> None:
        r_in, self.w_in = os.pipe()
        self.r_out, w_out = os.pipe()
        os.set_blocking(self.r_out, False)
        self.stdin = open(r_in, "rb", buffering=0)  # noqa: SIM115  (closed in close())
        self.stdout = open(w_out, "wb", buffering=0)  # noqa: SIM115
        self.deframer = framing.Deframer()
        self.seq = 0
        self.sealer: seal.Sealer | None = None  # once a session is open

    async def expect(self, count: int, timeout_s: float = WAIT_S) -> list[wire.Message]:
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
        os.write(self.w_in, framing.frame(payload))
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
        (ack,) = await host.send(wire.Claim(TOKEN, seq=3))
        assert isinstance(ack, wire.Ack)
        refused = await host.send(wire.Snapshot(1, [2], seq=4))  # a claim opens no session
        assert refused[0].code == wire.ERR_NOT_AUTHENTICATED
        await host.authenticate(TOKEN, seq=5)
        await host.send(wire.ConfigBrightness(255, seq=7))
        await host.send(wire.ConfigBudget(5000, seq=8))
        (ack,) = await host.send(wire.Snapshot(7, [3], seq=9))
        assert ack.ref_type == wire.MSG_SNAPSHOT
        (strip,) = board_env.strips
        k = (3 - 1) * 6 * 3  # slot 0 at level 3: space 3, first LED
        await until(lambda: strip.buf[k : k + 3] == bytes([30, 230, 30]))  # red in GRB order
        assert sum(strip.buf) == 290 and strip.writes >= 2  # dark at start, then the table
        # A steady picture is not sent again: ten frames later the strip saw no write.
        counter = board_env.app.RUNNING
        frames = []
        render = counter.frame
        counter.frame = lambda now=None: frames.append(1) or render(now)
        writes = strip.writes
        await until(lambda: len(frames) >= 10)
        assert strip.writes == writes
        os.write(host.w_in, b"\x00" + b"\x03\x03\x03 counter: back to the REPL \x03\x03\x03")
        from counter.serial_link import ReplRequested

        with pytest.raises(ReplRequested):
            await asyncio.wait_for(task, 2)
        # Ctrl-C stays off while the board resets; main.py gives it back to the REPL.
        assert board_env.kbd == [-1]
        assert (data / "token.bin").read_bytes() == TOKEN
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
        token = TOKEN
        await host.send(wire.Claim(token, seq=3))
        await host.authenticate(token, seq=4)
        await host.send(wire.Snapshot(1, [7], seq=6))
        await until(lambda: [0xC0, 0x00, 0x07] in tm1637_bytes(board_env.wires.log, 4, 5))
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


@pytest.mark.parametrize(
    ("pinout", "boots_before", "expected"),
    [("levelboard-esp32s3", "2", "safe"), ("x", "0", "safe")],
)
def test_boot_after_two_short_boots_is_safe_mode_shown_on_the_strip(
    board_env, tmp_path: Path, pinout: str, boots_before: str, expected: str
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "boots").write_text(boots_before)
    assert board_env.start.boot(str(PINOUTS / f"{pinout}.json"), str(data)) == expected
    if pinout == "x":  # no pin map at all: nothing to drive, the REPL stays
        assert board_env.strips == []
        return
    (strip,) = board_env.strips
    lit = [i for i in range(60) if strip.buf[3 * i : 3 * i + 3] != bytes(3)]
    assert lit == list(range(0, 60, 4)) and strip.writes == 1
    assert strip.buf[0:3] == bytes([25, 60, 0])  # amber, in GRB order
    assert (data / "boots").read_text() == "0"  # the next reset tries a normal start
    assert board_env.wires.watchdog_ms == 0  # safe mode starts no watchdog


def test_safe_mode_on_a_tracker_says_sf_on_its_digits(board_env, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "boots").write_text("2")
    assert board_env.start.boot(str(PINOUTS / "tracker-esp32c3.json"), str(data)) == "safe"
    shown = tm1637_bytes(board_env.wires.log, clk=4, dio=5)
    assert [0xC0, 0x6D, 0x71] in shown


async def test_the_watchdog_is_fed_while_the_counter_runs_and_a_good_boot_resets_the_count(
    board_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from counter import supervisor
    from counter.store import FileStore

    monkeypatch.setattr(supervisor, "STABLE_MS", 300)
    host = Host()
    data = tmp_path / "data"
    guard = board_env.start.BootGuard(FileStore(str(data)))
    guard.starting(board_env.wires.cause)
    watchdog = board_env.app.hw.Watchdog(board_env.start.WATCHDOG_MS)
    task = asyncio.create_task(
        board_env.app.main(
            str(PINOUTS / "tracker-esp32c3-bar.json"),
            stdin=host.stdin,
            stdout=host.stdout,
            data_dir=str(data),
            watchdog=watchdog,
            guard=guard,
        )
    )
    try:
        await until(lambda: (data / "boots").read_text() == "0")  # after STABLE_MS of running
        assert board_env.wires.watchdog_ms == 8000 and board_env.wires.feeds >= 1
    finally:
        task.cancel()
        host.close()
