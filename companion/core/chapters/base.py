"""What every chapter builds on: the action base class that registers each action, and
the three dispatchers every action must have a function in: `rule` (may it happen?),
`step` (what it changes) and `words` (how the History says it)."""

from __future__ import annotations

from functools import singledispatch
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from companion.core.errors import RuleError
from companion.core.models import Frozen
from companion.core.names import NAME_MAX, log_name
from companion.core.phrase import Phrase, plural_phrase
from companion.core.state import GameState

Seat = Annotated[int, Field(ge=0, le=7)]
D6 = Annotated[int, Field(ge=1, le=6)]
# Which smart die gave a roll ("Ruby (d6)"); empty for the app's own roll or a typed value.
# A die names itself, so its name is made to fit the log, never a reason to refuse a roll.
DieName = Annotated[
    str,
    BeforeValidator(lambda name: log_name(name, NAME_MAX) if isinstance(name, str) else name),
    Field(max_length=NAME_MAX),
]
Override = Annotated[str, Field(min_length=1, max_length=200)] | None

_BY_TYPE: dict[str, type[BaseAction]] = {}


class Source(Frozen):
    """Where the request for an action came from when it was not a tap on the app's own
    screens: a player's phone at the table link, a counter's button, or a command typed
    at the host's terminal (`companion serve`)."""

    via: Literal["phone", "counter", "command"]
    # Whose phone it was; for a counter, the player its press changed (None: no player).
    seat: Seat | None = None


class BaseAction(Frozen):
    """Common base of every action; each subclass registers itself under its `type`."""

    type: str
    # Absent for a tap on the app's screens (and in every log written before sources).
    source: Source | None = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        name = cls.model_fields["type"].default
        if not isinstance(name, str) or not name:
            raise TypeError(f"{cls.__name__} needs a default `type` naming the action")
        if name in _BY_TYPE:
            raise TypeError(f"{cls.__name__} reuses the action type {name!r}")
        _BY_TYPE[name] = cls


def registered_actions() -> tuple[type[BaseAction], ...]:
    """Every action class defined so far, in the order the chapters defined them."""
    return tuple(_BY_TYPE.values())


def _unknown(action: BaseAction) -> RuleError:
    return RuleError(
        "unknown_action",
        Phrase("The game does not know the action {action}", action=repr(action.type)),
    )


@singledispatch
def rule(action: BaseAction, state: GameState) -> None:
    """May the action happen in `state`? Raises RuleError naming the broken rule.

    A rule only reads: it builds no state, so asking costs no copy of the game (as
    python-chess's `is_legal` beside `push`). Each chapter registers its own.
    """
    raise _unknown(action)


@singledispatch
def step(action: BaseAction, state: GameState) -> GameState:
    """What the action changes: the next state, trusting that its `rule` allowed it.

    Applying is the rule, then the step; replaying a log that was checked when it was
    written is the steps alone. Each chapter registers its own.
    """
    raise _unknown(action)


@singledispatch
def words(action: BaseAction, state: GameState) -> str:
    """One sentence saying what the action does in `state` (the state before it)."""
    return action.type.replace("_", " ")


# The words for a kind of character card, a slot and a sex, as sentences name them.
TRAIT_KIND_WORDS: dict[str, str] = {
    "class": Phrase("class"),
    "race": Phrase("race"),
    "motivation": Phrase("motivation"),
    "style": Phrase("style"),
}
CONDITION_WORDS: dict[str, str] = {**TRAIT_KIND_WORDS, "sex": Phrase("sex")}
SLOT_WORDS: dict[str, str] = {
    "headgear": Phrase("headgear"),
    "armor": Phrase("armor"),
    "footgear": Phrase("footgear"),
    "hands": Phrase("hands"),
    "other": Phrase("other"),
}
SEX_WORDS: dict[str, str] = {
    "male": Phrase("male"),
    "female": Phrase("female"),
    "none": Phrase("none"),
}


# --- names the History sentences use --------------------------------------------------------


def player_name(state: GameState, seat: int | None) -> str:
    """The name of the player in a seat, or "someone" for no seat or a seat out of range."""
    if seat is None or not 0 <= seat < len(state.players):
        return Phrase("someone")
    return state.players[seat].name


def levels_words(n: int) -> str:
    """ "a level" or "N levels"."""
    return plural_phrase("a level", "{n} levels", n, n=n)


def item_name(state: GameState, seat: int, item_id: str) -> str:
    """The name of a player's tracked item, or its id when it cannot be found."""
    if 0 <= seat < len(state.players):
        for item in state.players[seat].items:
            if item.id == item_id:
                return item.spec.name
    return item_id


def monster_name(state: GameState, index: int) -> str:
    """The name of a monster in the current combat, by its 0-based place."""
    if state.combat is not None and 0 <= index < len(state.combat.monsters):
        return state.combat.monsters[index].spec.name
    return Phrase("monster {index}", index=index)
