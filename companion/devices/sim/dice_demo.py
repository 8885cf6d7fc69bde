"""The dice part of `companion sim`: virtual dice rolled now and then, taken through the app's
bleak code by a hub, each shown as one status line."""

from __future__ import annotations

import asyncio
import random

from companion.devices.dice.hub import ANYONE, DiceHub
from companion.devices.dice.scan import open_source, scan
from companion.devices.dice.source import DiceSource
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.dice import VirtualDie, VirtualGoDice, VirtualPixelsDie
from companion.plumbing.tasks import TaskSet

PIXELS_NAMES = ("Ruby", "Onyx", "Jade", "Opal")
ROLL_EVERY_S = 1.5  # s: one throw of some die this often, slow enough to read
SCAN_S = 0.5  # s: the virtual dice advertise every 20 ms


class DiceDemo:
    """`count` virtual dice, half Pixels, half GoDice, and a hub connected to all of them."""

    def __init__(self, radio: VirtualRadio, count: int, *, seed: int | None = None) -> None:
        self.radio = radio
        self.hub = DiceHub()
        self.rng = random.Random(seed)
        self.dice: list[VirtualDie] = []
        for index in range(count):
            if index % 2 == 0:
                name = PIXELS_NAMES[(index // 2) % len(PIXELS_NAMES)]
                self.dice.append(VirtualPixelsDie(radio, name, seed=self.rng.random()))
            else:
                colour_code = "RGBYOK"[index % 6]
                name = f"GoDice_{index:06X}_{colour_code}_v04"
                self.dice.append(VirtualGoDice(radio, name, seed=self.rng.random()))
        self.rolls = 0
        self._tasks = TaskSet("dice demo")

    async def start(self) -> None:
        """Switch the dice on, find them, connect the hub and start throwing."""
        for die in self.dice:
            await die.start()
        for found in await scan(backend=self.radio.bleak_backend(), timeout_s=SCAN_S):
            await self.hub.add(open_source(found, backend=self.radio.bleak_backend()), ANYONE)
        for source in self.hub.dice:
            source.rolls.add(lambda _roll: self._counted())
        self._tasks.spawn(self._throw(), "throw")

    def _counted(self) -> None:
        self.rolls += 1

    async def _throw(self) -> None:
        while True:
            await asyncio.sleep(ROLL_EVERY_S)
            if self.dice:
                await self.rng.choice(self.dice).roll()

    async def stop(self) -> None:
        """Stop throwing, disconnect and switch the dice off."""
        await self._tasks.cancel_all()
        await self.hub.close()
        for die in self.dice:
            await die.stop()

    def lines(self) -> list[str]:
        """One status line per die, as the app's hub sees it."""
        return [_line(source) for source in self.hub.dice]


def _line(source: DiceSource) -> str:
    battery = f"{source.battery_percent:3d}%" if source.battery_percent is not None else "  ?%"
    face = str(source.last_face) if source.last_face is not None else "-"
    link = "connected" if source.connected else "away"
    return (
        f"die {source.maker:<6} {source.label:<26} battery {battery}  "
        f"{source.motion.value:<8} face {face:>2}  {link}"
    )
