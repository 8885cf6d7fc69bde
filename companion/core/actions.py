"""Actions: the frozen, serialisable records that make up a game's log.

Each action names players by seat (0-based index). Actions that a card may allow
against the rules carry `override`: the card or reason, written into the log
("a card says otherwise"). Dice actions carry their result; leave it out and the
game rolls one and records it.

Each action is defined in its rulebook chapter (`companion.core.chapters`) and
registers itself there; this module gathers them: `ACTION_TYPES`, the JSON union
`Action` and `ACTION_ADAPTER` all come from that one registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Union

from pydantic import ConfigDict, Field, TypeAdapter

from companion.core.chapters import (
    abilities,
    character,
    combat,
    gear,
    levels,
    rolls,
    run_away,
    turn,
)
from companion.core.chapters.base import BaseAction, registered_actions

CHAPTERS = (levels, gear, character, turn, rolls, combat, run_away, abilities)


def _in_chapter_order() -> tuple[type[BaseAction], ...]:
    rank = {chapter.__name__: n for n, chapter in enumerate(CHAPTERS)}
    found = registered_actions()
    strays = [a.__name__ for a in found if a.__module__ not in rank]
    if strays:
        raise TypeError(f"actions defined outside the rulebook chapters: {', '.join(strays)}")
    return tuple(sorted(found, key=lambda a: rank[a.__module__]))


ACTION_TYPES: tuple[type[BaseAction], ...] = _in_chapter_order()

if TYPE_CHECKING:
    Action = BaseAction
else:
    Action = Annotated[Union[ACTION_TYPES], Field(discriminator="type")]  # noqa: UP007

# Built on first use, like every model of the core (`defer_build`): a start that only
# resumes a game pays for the actions it reads, not for the whole rulebook.
ACTION_ADAPTER: TypeAdapter[BaseAction] = TypeAdapter(Action, config=ConfigDict(defer_build=True))

__all__ = [
    "ACTION_ADAPTER",
    "ACTION_TYPES",
    "CHAPTERS",
    "Action",
    "BaseAction",
]
