"""From a counter's button to the press it asks for, and which of a counter's presses are new."""

from __future__ import annotations

import asyncio
import enum
from collections import OrderedDict

from companion.core import RuleError
from companion.core.phrase import Phrase
from companion.core.presses import Press
from companion.devices import wire

# A counter's buttons, as the presses every request of the table is made of.
INTENT_PRESSES = {
    wire.INTENT_LEVEL_UP: Press.LEVEL_UP,
    wire.INTENT_LEVEL_DOWN: Press.LEVEL_DOWN,
    wire.INTENT_NEXT_TURN: Press.NEXT_TURN,
}


def button_press(intent: int, slot: int, seats: tuple[int, ...]) -> tuple[Press, int | None]:
    """What a counter's button asks for, and for which player: next turn (no player), or a
    Level up or down for the press's `slot`, or, if it names none, the one player a
    tracker shows (`seats`). What the press may then do is decided where every press is
    (`companion.table.presses.take_press`). Raises `RuleError` for a button this app has
    no use for, or a Level press that names no player.

    >>> button_press(wire.INTENT_LEVEL_UP, wire.NO_SLOT, (2,))
    (<Press.LEVEL_UP: 'level_up'>, 2)
    >>> button_press(wire.INTENT_NEXT_TURN, wire.NO_SLOT, ())
    (<Press.NEXT_TURN: 'next_turn'>, None)
    """
    press = INTENT_PRESSES.get(intent)
    if press is None:
        raise RuleError(
            "unknown_button", Phrase("A counter pressed a button this app does not know")
        )
    if press is Press.NEXT_TURN:
        return press, None
    player = slot if slot != wire.NO_SLOT else (seats[0] if len(seats) == 1 else None)
    if player is None:
        raise RuleError("no_such_player", Phrase("this counter shows no player to change"))
    return press, player


SEQ_SPAN = 0x10000  # a counter numbers its messages 1..65535 and then 1 again
LATE_WINDOW = 64  # a press not seen before is taken this many numbers behind the newest, no more
PRESSES_KEPT = 64  # presses remembered as taken, to acknowledge a copy of one and apply it no more


class PressVerdict(enum.Enum):
    """What a counter's BUTTON is to the app."""

    NEW = "new"  # not taken yet: apply it
    AGAIN = "again"  # taken already (a resend, or a copy a relay replays): acknowledge, no more
    OLD = "old"  # too far behind the counter's newest number, and not remembered: never taken


def after(seq: int, other: int) -> bool:
    """True when `seq` comes after `other` in the counter's numbering, wrap included
    (serial number arithmetic, RFC 1982: less than half the number space ahead).

    >>> after(5, 3), after(3, 5), after(2, 65530)
    (True, False, True)
    """
    return 0 < (seq - other) % SEQ_SPAN < SEQ_SPAN // 2


class PressWindow:
    """Which of a counter's presses are new: its numbers only rise (round the wrap), so a
    press is taken once, however often it arrives, and one from long ago never is.

    `heard(seq)` follows every authenticated message of the counter, so the newest
    number moves on with the counter even when nobody presses. A taken press is
    remembered (the last PRESSES_KEPT of them) with what its ACK waits for (the save),
    and forgotten for good once the numbering is half way round from it: after the
    wrap its number is a new press's.
    """

    def __init__(self) -> None:
        self.newest: int | None = None
        self._taken: OrderedDict[int, asyncio.Future[object] | None] = OrderedDict()

    def restart(self) -> None:
        """The counter started again: its numbers start again too."""
        self.newest = None
        self._taken.clear()

    def follows(self, seq: int) -> bool:
        """True if a counter's HELLO numbered `seq` continues the numbering heard so far
        (false: the counter restarted, and `restart()` is due)."""
        return self.newest is None or after(seq, self.newest)

    def heard(self, seq: int) -> None:
        """An authenticated message of the counter numbered `seq`."""
        if self.newest is not None and not after(seq, self.newest):
            return
        self.newest = seq
        for old in [s for s in self._taken if (seq - s) % SEQ_SPAN >= SEQ_SPAN // 2]:
            del self._taken[old]

    def verdict(self, seq: int) -> PressVerdict:
        """What a BUTTON numbered `seq` is (before it is `heard`)."""
        if seq in self._taken:
            return PressVerdict.AGAIN
        if self.newest is None or after(seq, self.newest):
            return PressVerdict.NEW
        if (self.newest - seq) % SEQ_SPAN < LATE_WINDOW:
            return PressVerdict.NEW  # arrived late (its first copy was lost on the way)
        return PressVerdict.OLD

    def take(self, seq: int, durable: asyncio.Future[object] | None) -> None:
        """Remember the press numbered `seq` as taken; its ACK waits for `durable`."""
        self._taken[seq] = durable
        while len(self._taken) > PRESSES_KEPT:
            self._taken.popitem(last=False)
        self.heard(seq)

    def durable(self, seq: int) -> asyncio.Future[object] | None:
        """What the ACK of the taken press numbered `seq` waits for."""
        return self._taken.get(seq)
