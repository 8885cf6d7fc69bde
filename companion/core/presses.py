"""What a press may ask for, wherever it was pressed: the one place that turns a press on a
counter's button or on a player's phone into a game action.

A press asks for a change and says where it came from (`Source`); the action it becomes
goes through `Game.apply` like any tap, so the rules judge it the same way. A press that
would change nothing (a Level down at Level 1) is refused here rather than logged as a
change that did not happen.
"""

from __future__ import annotations

from enum import StrEnum

from companion.core.chapters.base import BaseAction, Source
from companion.core.chapters.gear import SetGearBonus
from companion.core.chapters.levels import GoUpLevel, LoseLevel
from companion.core.chapters.turn import AdvancePhase, EndTurn
from companion.core.errors import RuleError
from companion.core.phrase import Phrase
from companion.core.rules import check_level_loss
from companion.core.state import GameState

# The hand-kept gear bonus a press may reach; `SetGearBonus` takes no more either.
GEAR_LIMIT = 100


class Press(StrEnum):
    """What a button asks for."""

    LEVEL_UP = "level_up"
    LEVEL_DOWN = "level_down"
    GEAR_UP = "gear_up"
    GEAR_DOWN = "gear_down"
    NEXT_TURN = "next_turn"
    NEXT_PHASE = "next_phase"


def press_action(
    state: GameState,
    press: Press,
    player: int | None,
    source: Source | None = None,
    *,
    override: str | None = None,
) -> BaseAction:
    """The action a press asks for in `state`: next turn or phase, or a change for `player`.

    `override` ("a card says otherwise") lets a Level or gear change break a rule; it
    is logged with the action. A Level down that changes nothing is refused even then.

    Raises `RuleError` for a press that names no player of this table or asks for a
    change the rules cannot make (the action itself is still checked when applied).

    >>> from companion.core import CLASSIC, GameSetup, PlayerSetup, Sex
    >>> setup = GameSetup(players=(PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
    ...                            PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE)),
    ...                   edition=CLASSIC)
    >>> state = GameState.initial(setup)
    >>> press_action(state, Press.GEAR_UP, 1).model_dump(exclude_defaults=True)
    {'player': 1, 'bonus': 1}
    >>> press_action(state, Press.LEVEL_DOWN, 0)
    Traceback (most recent call last):
    ...
    companion.core.errors.RuleError: A Level is never below 1
    """
    if press is Press.NEXT_TURN:
        return EndTurn(source=source)
    if press is Press.NEXT_PHASE:
        return AdvancePhase(source=source)
    if player is None or not 0 <= player < len(state.players):
        raise RuleError("no_such_player", Phrase("This press is for no player at this table"))
    if press is Press.LEVEL_UP:
        return GoUpLevel(player=player, source=source, override=override)
    if press is Press.LEVEL_DOWN:
        # The engine would log a loss that changes nothing; a press asks for a change.
        check_level_loss(state.players[player])
        return LoseLevel(player=player, source=source)
    bonus = state.players[player].gear_bonus + (1 if press is Press.GEAR_UP else -1)
    if not -GEAR_LIMIT <= bonus <= GEAR_LIMIT:
        raise RuleError(
            "gear_limit",
            Phrase(
                "A gear bonus kept by hand stays between -{limit} and +{limit}", limit=GEAR_LIMIT
            ),
        )
    return SetGearBonus(player=player, bonus=bonus, source=source, override=override)
