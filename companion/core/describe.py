"""Actions in words, for the History screen: `describe(action, state_before)`.

The sentence for each action is written beside the action, in its rulebook chapter
(`companion.core.chapters`, registered with `words`); this module adds the card
override every action may carry.
"""

from __future__ import annotations

from companion.core.actions import BaseAction
from companion.core.chapters.base import words
from companion.core.state import GameState


def describe(action: BaseAction, state_before: GameState) -> str:
    """One line saying what the action did, with player names, and any card override.

    >>> from companion.core import CLASSIC, GameSetup, GameState, GoUpLevel, PlayerSetup, Sex
    >>> setup = GameSetup(
    ...     players=(PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
    ...              PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE)),
    ...     edition=CLASSIC)
    >>> describe(GoUpLevel(player=1, levels=2), GameState.initial(setup))
    'Bo goes up 2 levels'
    """
    text = words(action, state_before)
    override = getattr(action, "override", None)
    return f"{text} (a card says otherwise: {override})" if override else text
