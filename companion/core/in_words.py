"""Actions in words, for the History screen: `describe(action, state_before)`.

The sentence for each action is written beside the action, in its rulebook chapter
(`companion.core.chapters`, registered with `words`); this module adds the card
override every action may carry, and where a request came from (a phone, a counter).
"""

from __future__ import annotations

from companion.core.actions import BaseAction
from companion.core.chapters.base import player_name, words
from companion.core.phrase import Phrase
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
    if override:
        text = Phrase("{text} (a card says otherwise: {override})", text=text, override=override)
    source = action.source
    if source is None:
        return text
    if source.via == "phone":
        name = player_name(state_before, source.seat)
        return Phrase("{text} (from {name}'s phone)", text=text, name=name)
    if source.via == "command":
        return Phrase("{text} (from the host's terminal)", text=text)
    return Phrase("{text} (from a counter)", text=text)
