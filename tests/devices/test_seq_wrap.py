"""A counter repeating one press far past 65,535 times over a pty: the app's sequence numbers
stay in range (a fresh session, as the protocol says), every task survives, nothing dies silently.

The far end is a scripted counter on the pty, fast enough to flood: it answers
HELLO (claimed) with a CHALLENGE, accepts the right AUTH with its PROOF and
seals its side from then on, acknowledges state changes, answers PINGs, and
keeps sending the same BUTTON while it counts the app's ACKs.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from companion.core import GoUpLevel
from companion.devices import framing, seal, wire
from companion.devices.serial_link import SerialLink
from companion.devices.session import MIN_FIRMWARE
from companion.devices.sim.fleet import VirtualFleet, VirtualSetup
from companion.devices.sim.pty_port import PtyPort

from .helpers import fast_manager, new_game, until

pytestmark = pytest.mark.slow

COUNTER_ID = 0x5EC0
TOKEN = bytes(range(32, 48))
NONCE = bytes(16)
FLOOD = 70_000  # ACKs the app must send: more than the 65,535 numbers of one session
WINDOW = 64  # presses in flight at once (the app remembers the last 64 seqs)
FLOOD_TIMEOUT_S = 240.0  # s: a loaded 2-core machine needs about a minute


class FloodingCounter:
    """A claimed counter on a pty that repeats one press as fast as the app acknowledges it."""

    def __init__(self, path) -> None:
        self.port = PtyPort(path)
        self.port.on_data(self._on_data)
        self.deframer = framing.Deframer()
        self.seq = 0
        self.app_seqs: list[int] = []
        self.hellos = 0
        self.auths = 0
        self.pings = 0
        self.acked = 0
        self.in_flight = 0
        self.authenticated = False
        self.press_seq = 0
        self.acked_seqs: set[int] = set()
        self.sealer: seal.Sealer | None = None
        self.more = asyncio.Event()
        self.port.plug()

    def _next(self) -> int:
        self.seq = self.seq % 0xFFFF + 1  # 1..65535, wrapping to 1 (§3)
        return self.seq

    def _out(self, message: wire.Message) -> bytes:
        payload = wire.encode(message)
        if self.sealer is not None and message.TYPE in wire.SEALED:
            payload = self.sealer.seal(payload)
        return framing.frame(payload)

    def send(self, message: wire.Message) -> None:
        message.seq = self._next()
        self.port.write(self._out(message))

    def press(self, seq: int) -> None:
        self.port.write(self._out(wire.Button(wire.INTENT_LEVEL_UP, seq=seq)))

    def _on_data(self, data: bytes) -> None:
        for payload in self.deframer.feed(data):
            if self.sealer is not None and wire.peek_type(payload) in wire.SEALED:
                opened = self.sealer.open(payload)
                assert opened is not None, "a sealed message from the app with a wrong tag"
                payload = opened
            message = wire.decode(payload)  # raises (and fails the test) on a seq past 65535
            self.app_seqs.append(message.seq)
            if isinstance(message, wire.Hello):
                self.hellos += 1
                self.authenticated = False
                self.sealer = None
                self.send(
                    wire.Hello(
                        role=wire.ROLE_TRACKER,
                        firmware=MIN_FIRMWARE,  # older firmware is only told to update
                        slots=1,
                        caps=wire.CAP_CLAIMED,
                        counter_id=COUNTER_ID,
                    )
                )
                self.send(wire.Challenge(NONCE))
            elif isinstance(message, wire.Auth):
                script = seal.transcript(NONCE, message.app_nonce, COUNTER_ID, seal.NO_LINK_ID)
                if message.proof == seal.app_proof(TOKEN, script):
                    self.auths += 1
                    self.authenticated = True
                    proof = seal.counter_proof(TOKEN, script, seal.NO_LINK_ID)
                    self.send(wire.Proof(proof, seal.NO_LINK_ID))
                    self.sealer = seal.session_sealer(TOKEN, script, seal.TO_APP)
                else:
                    self.send(wire.Error(wire.ERR_AUTH_FAILED, message.seq))
            elif isinstance(message, wire.Ping):
                self.pings += 1
                self.send(wire.Pong(message.token))
            elif isinstance(message, wire.Ack):
                if message.ref_type == wire.MSG_BUTTON:
                    self.acked += 1
                    self.acked_seqs.add(message.ref_seq)
                    self.in_flight = max(0, self.in_flight - 1)
                    self.more.set()
            elif message.TYPE in wire.STATE_CHANGING:
                self.send(wire.Ack(message.seq, message.TYPE))

    async def flood(self, acks: int) -> None:
        """Repeat one press until the app acknowledged it `acks` times in all."""
        self.press_seq = self._next()
        while self.acked < acks:
            if self.authenticated:
                for _ in range(WINDOW - self.in_flight):
                    self.press(self.press_seq)
                    self.in_flight += 1
            self.more.clear()
            try:
                async with asyncio.timeout(0.2):
                    await self.more.wait()
            except TimeoutError:
                self.in_flight = 0  # presses sent while the app renewed its session: gone

    def close(self) -> None:
        self.port.close()


async def test_a_press_flood_past_65535_keeps_seqs_in_range_and_every_task_alive(tmp_path, caplog):
    counter = FloodingCounter(tmp_path / "flood")
    game = new_game(2)
    manager = fast_manager(tmp_path, refresh_interval_s=1.0)
    manager.tokens.put(COUNTER_ID, TOKEN)
    manager.set_game(game)
    try:
        with caplog.at_level(logging.WARNING):
            manager.add_link(SerialLink(counter.port.path))
            await manager.wait_ready(timeout_s=10)
            assert manager.statuses()[0].ours  # else no press is ever acknowledged
            async with asyncio.timeout(FLOOD_TIMEOUT_S):
                await counter.flood(FLOOD)

            # One press, applied once, however often it came.
            assert game.state.players[0].level == 2
            assert len(manager.presses) == 1
            # The app never numbered past 65535: it opened a fresh session on the same
            # connection instead, and the counter stayed connected and authenticated.
            assert max(counter.app_seqs) <= 0xFFFF
            assert counter.hellos >= 2 and counter.auths >= 2
            assert manager.statuses()[0].reconnects == 0
            assert manager.statuses()[0].ours

            # Every task is still at work: pings are answered, a new press is applied
            # and acknowledged, a game change reaches the counter.
            pings = counter.pings
            await until(lambda: counter.pings > pings, timeout_s=5)
            new_press = counter._next()
            counter.press(new_press)
            await until(lambda: game.state.players[0].level == 3)
            await until(lambda: new_press in counter.acked_seqs)
            await manager.wait_synced(timeout_s=5)
        problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert problems == [], [r.getMessage() for r in problems]
    finally:
        await manager.stop()
        counter.close()


class FailingOnce:
    """Timing whose ping interval breaks the first time it is read (a bug in the ping task)."""

    def __init__(self, timing) -> None:
        self._timing = timing
        self.failed = False

    def __getattr__(self, name: str):
        if name == "ping_interval_s" and not self.failed:
            self.failed = True
            raise RuntimeError("the ping task tripped")
        return getattr(self._timing, name)


async def test_a_task_that_fails_is_logged_and_started_again(tmp_path, caplog):
    game = new_game(2)
    setup = VirtualSetup(boards=0, trackers=1, tracker_transport="serial", animate=False)
    manager = fast_manager(tmp_path, ping_interval_s=0.05)
    manager.timing = FailingOnce(manager.timing)  # type: ignore[assignment]
    manager.set_game(game)
    fleet = VirtualFleet()
    try:
        with caplog.at_level(logging.ERROR, logger="companion.plumbing.tasks"):
            await fleet.start(setup, players=2)
            await fleet.join(manager)
            await until(lambda: "the ping task tripped" in caplog.text)
        assert ": ping failed" in caplog.text  # named, not "never retrieved"
        await manager.wait_ours(timeout_s=10)
        await until(lambda: manager.statuses()[0].rtt_ms is not None)  # pings run again
        game.apply(GoUpLevel(player=0))
        await manager.wait_synced(timeout_s=5)
    finally:
        await manager.stop()
        await fleet.stop()
