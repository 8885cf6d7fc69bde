"""From a counter's button press to the game action it asks for; the record of each press."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from companion.core import Action, GameState, RuleError
from companion.core.chapters.levels import GoUpLevel, LoseLevel
from companion.core.chapters.turn import EndTurn
from companion.core.phrase import Phrase
from companion.core.rules import check_level_loss
from companion.devices import wire


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
    tracker shows (`seats`). Raises `ValueError` (a `RuleError` when a rule says
    no) for a press that asks for nothing the game can do.
    """
    if intent == wire.INTENT_NEXT_TURN:
        return EndTurn()
    player = slot if slot != wire.NO_SLOT else (seats[0] if len(seats) == 1 else None)
    if player is None or player >= len(state.players):
        raise RuleError("no_such_player", Phrase("this counter shows no player to change"))
    if intent == wire.INTENT_LEVEL_UP:
        return GoUpLevel(player=player)
    if intent == wire.INTENT_LEVEL_DOWN:
        # The engine would log a loss that changes nothing; a press asks for a change.
        check_level_loss(state.players[player])
        return LoseLevel(player=player)
    raise ValueError(f"unknown button intent {intent}")
