"""From a counter's button press to the game action it asks for; the record of each press."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from companion.core import Action, GameState, RuleError, Source
from companion.core.phrase import Phrase
from companion.core.presses import Press, press_action
from companion.devices import wire

# A counter's buttons, as the presses every request of the table is made of.
INTENT_PRESSES = {
    wire.INTENT_LEVEL_UP: Press.LEVEL_UP,
    wire.INTENT_LEVEL_DOWN: Press.LEVEL_DOWN,
    wire.INTENT_NEXT_TURN: Press.NEXT_TURN,
}


@dataclass
class PressRecord:
    """A button press the app acknowledged: applied to the game, or refused by the rules."""

    counter: str
    seq: int
    intent: int
    action: str
    refused: str = ""
    at: float = field(default_factory=time.monotonic)


def action_for_press(state: GameState, intent: int, slot: int, seats: tuple[int, ...]) -> Action:
    """The action a press asks for: next turn, or a Level up or down for its player.

    The player is the press's `slot`, or, if it names none, the one player a
    tracker shows (`seats`). What the press may do is decided where a phone's
    press is decided too (`companion.core.presses`); the action records that a
    counter asked for it. Raises `ValueError` (a `RuleError` when a rule says
    no) for a press that asks for nothing the game can do.
    """
    press = INTENT_PRESSES.get(intent)
    if press is None:
        raise ValueError(f"unknown button intent {intent}")
    if press is Press.NEXT_TURN:
        return press_action(state, press, None, Source(via="counter"))
    player = slot if slot != wire.NO_SLOT else (seats[0] if len(seats) == 1 else None)
    if player is None or player >= len(state.players):
        raise RuleError("no_such_player", Phrase("this counter shows no player to change"))
    return press_action(state, press, player, Source(via="counter", seat=player))
