"""A press from anywhere (a counter's button, a phone, a tap, a command), decided in one
place, and the record of the presses a table answered.

What a press may ask for is the engine's (`companion.core.presses`); this module adds
the table's side: the same decision and words for every way in (`take_press`), and a
bounded record of what was pressed, by whom and what came of it (`PressLog`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from companion.core import BaseAction, Game, Source
from companion.core.phrase import Phrase
from companion.core.presses import Press, press_action
from companion.table.outcome import Outcome, decide, refused

# What moves the turn on, and so is pressed only by the player whose turn it is when it
# comes from their own phone (the host, a counter's shared button and a tap may always).
TURN_PRESSES = (Press.NEXT_TURN, Press.NEXT_PHASE)
NOT_YOUR_TURN = "not_your_turn"

# Presses remembered per table: an evening of play is a few thousand; the record is for
# the Devices screen and the tests, never for the game (the log keeps every action).
PRESSES_KEPT = 10_000

Via = Literal["tap", "counter", "phone", "command"]
# Makes the game's change number `sequence` durable; a press is answered after it returns.
Persist = Callable[[int], Awaitable[object]]


@dataclass
class PressRecord:
    """A press the table answered: applied, or refused with the reason (in English).

    `who` is the counter's key or the seat's number; `seq` the counter's message number
    or the phone's press number (0 for a tap or a command); `intent` the counter's
    button code (0 from anywhere else)."""

    via: Via
    who: str
    press: str
    action: str = ""
    refused: str = ""
    seq: int = 0
    intent: int = 0
    at: float = field(default_factory=time.monotonic)

    @property
    def ok(self) -> bool:
        return not self.refused


class PressLog:
    """The newest `PRESSES_KEPT` presses, oldest first."""

    def __init__(self, kept: int = PRESSES_KEPT) -> None:
        self._records: deque[PressRecord] = deque(maxlen=kept)

    def add(self, record: PressRecord, outcome: Outcome | None = None) -> PressRecord:
        """Keep `record`, filled in from `outcome` when given; returns it."""
        if outcome is not None:
            record.action = outcome.action
            record.refused = "" if outcome.applied else str(outcome.why)
        self._records.append(record)
        return record

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[PressRecord]:
        return iter(self._records)

    def __getitem__(self, index: int) -> PressRecord:
        return self._records[index]


def source_of(via: Via, seat: int | None) -> Source | None:
    """What the game log records of where a press came from (nothing for a tap)."""
    return None if via == "tap" else Source(via=via, seat=seat)


def take_press(
    game: Game | None,
    press: Press,
    player: int | None,
    via: Via,
    *,
    seat: int | None = None,
    override: str | None = None,
) -> Outcome:
    """Decide and apply one press for `player` (None: no player, for Next turn): the same
    answer, in the same words, whether it came from a tap, a counter, a phone or a
    command. The log records where it came from: `via`, and `seat`, whose phone it was
    (by default the player it changes).

    `override` is "a card says otherwise": the reason a level or gear change may break
    a rule, logged with it."""
    if seat is None and press not in TURN_PRESSES:
        seat = player
    source = source_of(via, seat)
    if via == "phone" and press in TURN_PRESSES and game is not None:
        current = game.state.current
        if seat != current:
            name = game.state.players[current].name
            words = Phrase("It is {name}'s turn: only they move it on", name=name)
            return refused(words, NOT_YOUR_TURN)

    def action() -> BaseAction:
        assert game is not None  # decide() answers for a table with no game
        return press_action(game.state, press, player, source, override=override)

    return decide(game, action, f"a {via}'s {press.value} press")
