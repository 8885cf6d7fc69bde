"""The dice source interface: one die, connected and kept connected, reporting settled rolls.

Every maker's die sits behind `DiceSource`; the hub and the screens see only
this. A source reports each settled roll once (`rolls`), anything shown on
screen changing (`changes`: name, battery, motion, last face, connection), and
can blink where the die has lights. `RollGate` is the one place that decides
what counts as a roll: a tumble arms it, the settle that follows fires it once.
"""

from __future__ import annotations

import abc
import asyncio

from companion.devices.dice.model import DieType, Motion, SettledRoll, die_label
from companion.plumbing.listeners import Listeners

BLINK_COLOUR = (255, 160, 0)  # amber: "this is the die the app is waiting for"


class RollGate:
    """Counts a settled face only after motion: tumbling then settling is one roll.

    `armed` starts True for dice whose protocol marks real rolls itself (a die
    joining mid-tumble must still count), False where the state at connection
    time may be an old result.

    >>> gate = RollGate(armed=False)
    >>> gate.settled(), gate.moving(), gate.moving(), gate.settled(), gate.settled()
    (False, None, None, True, False)
    """

    def __init__(self, *, armed: bool) -> None:
        self.armed = armed

    def moving(self) -> None:
        """The die was picked up or is tumbling: the next settle is a result."""
        self.armed = True

    def rested(self) -> None:
        """The die came to rest without a roll (nudged, put down): nothing to count."""
        self.armed = False

    def settled(self) -> bool:
        """The die settled after a roll; True if this is the first settle since it moved."""
        fired, self.armed = self.armed, False
        return fired


class DiceSource(abc.ABC):
    """One smart die as the app sees it, whatever its maker."""

    #: The maker's name for the screen ("Pixels", "GoDice").
    maker: str = ""

    def __init__(self, die_id: str, name: str, die_type: DieType) -> None:
        self.die_id = die_id
        self.name = name
        self.die_type = die_type
        self.battery_percent: int | None = None
        self.last_face: int | None = None
        self.motion = Motion.UNKNOWN
        self.connected = False
        self.malformed = 0  # notifications that broke the layout, ignored and counted
        #: Every settled roll, once each.
        self.rolls: Listeners[[SettledRoll]] = Listeners()
        #: Anything shown about the die changed.
        self.changes: Listeners[[]] = Listeners()
        #: The die went away in the middle of a roll (`True`) or at rest (`False`).
        self.lost: Listeners[[bool]] = Listeners()

    @property
    def label(self) -> str:
        """The die's name and shape, as screens and the game log show it."""
        return die_label(self.name, self.die_type)

    @abc.abstractmethod
    async def start(self) -> None:
        """Connect, and keep reconnecting whenever the die comes back in range."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Disconnect for good."""

    @abc.abstractmethod
    async def blink(self, rgb: tuple[int, int, int] = BLINK_COLOUR) -> bool:
        """Light the die up briefly; False if it cannot (not connected, no lights)."""

    # -- for makers' sources -------------------------------------------------------------

    def _report_settled(self, face: int | None, gate_fired: bool, now_s: float) -> None:
        self.motion = Motion.SETTLED
        self.last_face = face
        self.changes.emit()
        if gate_fired:
            self.rolls.emit(SettledRoll(self.die_id, self.name, self.die_type, face, now_s))

    def _report(self, **fields: object) -> None:
        for key, value in fields.items():
            setattr(self, key, value)
        self.changes.emit()


def loop_time() -> float:
    """The running loop's clock: the time base of every `SettledRoll.at_s`."""
    return asyncio.get_running_loop().time()
