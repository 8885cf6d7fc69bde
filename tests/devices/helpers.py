"""Shared pieces of the sync tests: a small table, a fast manager, waiting for a condition."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, Sex
from companion.devices import framing, wire
from companion.devices.link import Link, LinkState
from companion.devices.projection import snapshot_of
from companion.devices.reconnect import Backoff
from companion.devices.sim.counters import VirtualCounter
from companion.devices.sim.fleet import VirtualFleet, VirtualSetup
from companion.devices.sync import DeviceManager
from companion.devices.tokens import TokenStore

COLOURS = (
    "#ff0000",
    "#0000ff",
    "#00ff00",
    "#ffff00",
    "#ff00ff",
    "#00ffff",
    "#ff8000",
    "#8000ff",
)
READY_S = 10.0  # s: a virtual counter is claimed and synced in milliseconds; generous when loaded


def new_game(players: int = 3) -> Game:
    setup = GameSetup(
        players=tuple(
            PlayerSetup(name=f"P{i + 1}", colour=COLOURS[i], sex=Sex.NONE) for i in range(players)
        ),
        edition=CLASSIC,
    )
    return Game(setup)


def fast_manager(tmp_path: Path, **kwargs: object) -> DeviceManager:
    """A manager with test-sized timeouts and backoff, and tokens in a temp folder."""
    options: dict[str, object] = {
        "tokens": TokenStore(tmp_path / "counters.json"),
        "backoff": lambda: Backoff(initial_s=0.01, max_s=0.05),
        "hello_timeout_s": 0.5,
        "auth_timeout_s": 0.5,
        "ack_timeout_s": 0.1,
        "ping_interval_s": 0.5,
    }
    options.update(kwargs)
    return DeviceManager(**options)  # type: ignore[arg-type]


@dataclass
class VirtualTable:
    """A game, the app's manager following it, and virtual counters whose links it took."""

    game: Game
    manager: DeviceManager
    fleet: VirtualFleet

    @property
    def counters(self) -> list[VirtualCounter]:
        return self.fleet.counters

    async def stop(self) -> None:
        await self.manager.stop()
        await self.fleet.stop()


async def virtual_table(
    tmp_path: Path, setup: VirtualSetup, players: int = 3, **kwargs: object
) -> VirtualTable:
    """Start `setup`'s counters for a new game of `players` and wait until the manager holds
    them: every one ours and synced (claimed for the user), or settled when nobody claims."""
    game = new_game(players)
    manager = fast_manager(tmp_path, **kwargs)
    manager.set_game(game)
    fleet = VirtualFleet()
    table = VirtualTable(game, manager, fleet)
    try:
        await fleet.start(setup, players)
        await fleet.join(manager)
        if setup.claim_on_hello:
            await manager.wait_ours(READY_S)
        else:
            await manager.wait_ready(READY_S)
    except BaseException:
        await table.stop()
        raise
    return table


async def until(condition: Callable[[], bool], timeout_s: float = READY_S) -> None:
    """Poll `condition` every few milliseconds; fail the test if it never holds."""
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.005)


def shows(counter: VirtualCounter, game: Game) -> bool:
    """True when the counter's firmware state is the game's snapshot."""
    want = snapshot_of(game.state, game.sequence)
    state = counter.counter.state
    n = len(game.state.players)
    return (
        state.rev == want.rev
        and bytes(state.levels[:n]) == bytes(want.levels[:n])
        and bytes(state.flags[:n]) == bytes(want.flags[:n])
    )


def board_led(counter: VirtualCounter, level: int, position: int) -> tuple[int, int, int]:
    """The LED of `position` in level space `level` of a level board's last frame."""
    return counter.frame.pixels[(level - 1) * counter.frame.positions + position]


def bar_lit(counter: VirtualCounter) -> int:
    """How many LEDs of a tracker's bar are lit in its last frame."""
    return sum(1 for pixel in counter.frame.pixels[: counter.frame.spaces] if any(pixel))


class PortIntruder:
    """A second program on a serial port: opens the tty plainly (no lock) and writes frames."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.deframer = framing.Deframer()
        self.heard: list[wire.Message] = []

    def send(self, payloads: list[bytes]) -> None:
        for payload in payloads:
            os.write(self.fd, framing.frame(payload))

    def write(self, data: bytes) -> None:
        """Raw bytes, framed or not."""
        os.write(self.fd, data)

    def read(self) -> list[wire.Message]:
        """What it caught of the counter's answers so far (it shares them with the app)."""
        with contextlib.suppress(BlockingIOError):
            while data := os.read(self.fd, 512):
                for payload in self.deframer.feed(data):
                    with contextlib.suppress(wire.WireError):
                        self.heard.append(wire.decode(payload))
        return self.heard

    def acks(self) -> list[wire.Ack]:
        return [m for m in self.read() if isinstance(m, wire.Ack)]

    def close(self) -> None:
        os.close(self.fd)


class InThePath(Link):
    """Something between the app and its counter (a noisy radio, a relay, a platform that
    hides addresses): it passes every message on, lets `tamper` change or drop what the
    counter sends, keeps a copy of that, and can hand the app a copy again later (`replay`).
    The app sees the counter at `address` (default: the inner link's)."""

    def __init__(
        self,
        inner: Link,
        tamper: Callable[[bytes], bytes | None] | None = None,
        *,
        address: str | None = None,
    ) -> None:
        self.transport = inner.transport
        super().__init__(address or inner.address)
        self.name = f"path({inner.name})"
        self.inner = inner
        self.tamper = tamper
        self.heard: list[bytes] = []
        inner.on_message(self._from_counter)
        inner.on_state_change(self._inner_state)

    def replay(self, payload: bytes) -> None:
        self._deliver(payload)

    def _from_counter(self, payload: bytes) -> None:
        self.heard.append(payload)
        passed = self.tamper(payload) if self.tamper is not None else payload
        if passed is not None:
            self._deliver(passed)

    def _inner_state(self, state: LinkState) -> None:
        if state is LinkState.LOST:
            self._carrier_lost("the counter went away")

    async def _open(self) -> None:
        await self.inner.open()

    async def _send(self, payload: bytes) -> None:
        await self.inner.send(payload)

    async def _close(self) -> None:
        await self.inner.close()
