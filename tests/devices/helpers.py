"""Shared pieces of the sync tests: a small table, a fast manager, waiting for a condition."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, Sex
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
