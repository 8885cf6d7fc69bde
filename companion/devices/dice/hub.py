"""The dice hub: the connected dice, who rolls which, and "the next settled roll for player P".

A die is assigned to a seat, to `ANYONE` ("whoever is rolling") or to nobody.
`next_roll(seat)` waits for the next settled roll of the dice that serve that
seat: its own dice if it has any, else the dice of whoever is rolling. The wait
never outlives the dice: if the last die that could answer goes away, the
waiter gets `DieLostError` and the on-screen roll takes over. Cancelling the
wait (the player rolled on screen instead) leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.devices.dice.model import DieLostError, NoDieError, SettledRoll
from companion.devices.dice.source import DiceSource
from companion.plumbing.listeners import Listeners
from companion.plumbing.tasks import TaskSet

_LOGGER = logging.getLogger(__name__)

ANYONE = -1  # the assignment "whoever is rolling"


@dataclass
class _Waiter:
    seat: int
    future: asyncio.Future[SettledRoll]
    die_ids: set[str] = field(default_factory=set)


class DiceHub:
    """Holds the dice the app uses and hands their settled rolls to whoever waits."""

    def __init__(self) -> None:
        self._sources: dict[str, DiceSource] = {}
        self._assigned: dict[str, int | None] = {}
        self._removers: dict[str, list[Callable[[], None]]] = {}
        self._waiters: list[_Waiter] = []
        self._tasks = TaskSet("dice hub")
        self.last_rolls: dict[str, SettledRoll] = {}
        #: Anything shown about the dice changed (a die added, its battery, its face).
        self.changes: Listeners[[]] = Listeners()

    @property
    def dice(self) -> list[DiceSource]:
        """The dice, in the order they were added."""
        return list(self._sources.values())

    def get(self, die_id: str) -> DiceSource | None:
        """The die with this id, if the hub holds it."""
        return self._sources.get(die_id)

    async def add(self, source: DiceSource, seat: int | None = ANYONE) -> None:
        """Take a die in, assign it and start connecting (it reconnects on its own)."""
        if source.die_id in self._sources:
            return
        self._sources[source.die_id] = source
        self._assigned[source.die_id] = seat
        self._removers[source.die_id] = [
            source.rolls.add(self._on_roll),
            source.changes.add(self.changes.emit),
            source.lost.add(functools.partial(self._on_lost, source)),
        ]
        await source.start()
        self.changes.emit()

    async def remove(self, die_id: str) -> None:
        """Disconnect a die and forget it."""
        source = self._sources.pop(die_id, None)
        self._assigned.pop(die_id, None)
        for remover in self._removers.pop(die_id, []):
            remover()
        if source is not None:
            await source.stop()
            self._fail_orphans(source)
        self.changes.emit()

    async def close(self) -> None:
        """Disconnect every die; whoever still waits is told the dice are gone."""
        for die_id in list(self._sources):
            await self.remove(die_id)
        await self._tasks.cancel_all()

    # -- assignments -------------------------------------------------------------------

    def assign(self, die_id: str, seat: int | None) -> None:
        """Give a die to a seat, to `ANYONE`, or to nobody (None)."""
        if die_id not in self._sources:
            raise KeyError(die_id)
        self._assigned[die_id] = seat
        self.changes.emit()

    def assignment(self, die_id: str) -> int | None:
        """Who a die rolls for: a seat, `ANYONE` or None."""
        return self._assigned.get(die_id)

    def dice_for(self, seat: int) -> list[DiceSource]:
        """The connected dice that roll for `seat`: its own, else whoever-is-rolling dice."""
        own = [s for s in self.dice if self._assigned.get(s.die_id) == seat and s.connected]
        if own:
            return own
        return [s for s in self.dice if self._assigned.get(s.die_id) == ANYONE and s.connected]

    # -- waiting for a roll --------------------------------------------------------------

    async def next_roll(self, seat: int, *, blink: bool = False) -> SettledRoll:
        """The next settled roll of a die serving `seat`.

        Raises `NoDieError` at once if no connected die serves the seat, and
        `DieLostError` if the dice that could answer all go away meanwhile.
        Cancel the call to stop waiting.
        """
        dice = self.dice_for(seat)
        if not dice:
            raise NoDieError("no connected die rolls for this player: roll on screen")
        waiter = _Waiter(seat, asyncio.get_running_loop().create_future())
        waiter.die_ids = {die.die_id for die in dice}
        self._waiters.append(waiter)
        if blink:
            for die in dice:
                self._tasks.spawn(die.blink(), f"blink {die.name}")
        try:
            return await waiter.future
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def waiting_for(self, die_id: str) -> bool:
        """True while someone waits for this die's roll."""
        return any(die_id in w.die_ids and not w.future.done() for w in self._waiters)

    def _on_roll(self, roll: SettledRoll) -> None:
        self.last_rolls[roll.die_id] = roll
        # The oldest waiter this die serves takes the roll; one roll answers one wait.
        for waiter in list(self._waiters):
            if roll.die_id in waiter.die_ids and not waiter.future.done():
                waiter.future.set_result(roll)
                self._waiters.remove(waiter)
                break
        self.changes.emit()

    def _on_lost(self, source: DiceSource, mid_roll: bool) -> None:
        if mid_roll:
            _LOGGER.info("%s went away in the middle of a roll", source.name)
        self._fail_orphans(source)

    def _fail_orphans(self, source: DiceSource) -> None:
        for waiter in list(self._waiters):
            if source.die_id not in waiter.die_ids or waiter.future.done():
                continue
            waiter.die_ids.discard(source.die_id)
            still_there = [
                die_id
                for die_id in waiter.die_ids
                if (die := self._sources.get(die_id)) is not None and die.connected
            ]
            if not still_there:
                waiter.future.set_exception(
                    DieLostError(f"{source.name} went away: roll on screen instead")
                )
                self._waiters.remove(waiter)
