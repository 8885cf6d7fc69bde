"""Dice in the log (RULES.md §2): rolling what an action left open, ordering players by
rolls, a die rolled for a card, and rolling for the first player."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import singledispatch
from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    D6,
    BaseAction,
    DieName,
    Seat,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.table import player_at
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.phrase import Phrase, phrase_template
from companion.core.state import DieRoll, GameState

# How ties are settled: groups of seats, a source of die results and who each is for, to
# the order and the rolls used (`rules.order_by_rolls`, `highest_by_rolls`).
Settle = Callable[
    [Sequence[Sequence[int]], Callable[[], int], Callable[[int], None] | None],
    tuple[tuple[int, ...], tuple[int, ...]],
]


def d6(dice: RandomSource) -> int:
    """One d6 from `dice`, refusing anything but 1 to 6."""
    value = dice.roll_d6()
    if not isinstance(value, int) or not 1 <= value <= 6:
        raise ValueError(f"a d6 shows 1 to 6, but the dice gave {value!r}")
    return value


@singledispatch
def fill_rolls(action: BaseAction, state: GameState, dice: RandomSource) -> BaseAction:
    """Roll, with `dice`, any die result the action leaves open, and return the full action."""
    return action


def _draw(rolls: tuple[int, ...] | None, what: str) -> tuple[Iterator[int], list[int]]:
    if rolls is None:
        raise RuleError(
            "roll_missing", Phrase("The die roll for {what} was not recorded", what=what)
        )
    used: list[int] = []
    source = iter(rolls)

    def gen() -> Iterator[int]:
        for value in source:
            used.append(value)
            yield value

    return gen(), used


def ordered_by_rolls(
    groups: list[list[int]],
    rolls: tuple[int, ...] | None,
    what: str,
    settle: Settle = rules.order_by_rolls,
) -> tuple[int, ...]:
    """The order the recorded rolls give these groups, settled by `settle` (every tie, or
    `highest_by_rolls`: the tie for first alone); RuleError when the rolls are too few or
    too many for the ties they must break."""
    values, used = _draw(rolls, what)

    def draw() -> int:
        try:
            return next(values)
        except StopIteration:
            raise RuleError(
                "roll_missing", Phrase("More die rolls are needed for {what}", what=what)
            ) from None

    order, _ = settle(groups, draw, None)
    if rolls is not None and len(used) != len(rolls):
        raise RuleError(
            "extra_rolls", Phrase("More die rolls were recorded than {what} needs", what=what)
        )
    return order


def rolls_for(
    groups: list[list[int]], dice: RandomSource, settle: Settle = rules.order_by_rolls
) -> tuple[int, ...]:
    """The d6 rolls, rolled with `dice`, that break the ties `settle` breaks in ordering
    these groups, as `ordered_by_rolls` will read them back."""
    _, used = settle(groups, lambda: d6(dice), None)
    return used


def check_dice_named(dice: tuple[str, ...], rolls: tuple[int, ...]) -> None:
    """Dice names, when given, stand one beside each roll."""
    if dice and len(dice) != len(rolls):
        raise RuleError(
            "dice_names",
            Phrase(
                "One die name per roll: {rolls} rolls, {names} die names",
                rolls=len(rolls),
                names=len(dice),
            ),
        )


def rolls_words(rolls: tuple[int, ...], dice: tuple[str, ...]) -> str:
    """The rolls in order, each with the smart die that gave it where one is named.

    A Phrase the app can translate piece by piece: "4 on Ruby (d6), 2".
    """
    named = dice or ("",) * len(rolls)
    items = [
        Phrase("{roll} on {die}", roll=roll, die=die) if die else str(roll)
        for roll, die in zip(rolls, named, strict=False)
    ]
    text = items[0] if items else ""
    for item in items[1:]:
        text = Phrase("{first}, {second}", first=text, second=item)
    return text


class RollDie(BaseAction):
    """Roll a d6 for anything a card asks for; the result is recorded."""

    type: Literal["roll_die"] = "roll_die"
    player: Seat | None = None
    roll: D6 | None = None
    purpose: Annotated[str, Field(max_length=200)] = ""
    die: DieName = ""


@rule.register
def rule_roll_die(action: RollDie, state: GameState) -> None:
    """A die rolled for a card: its result is recorded, and a named player is seated (§2)."""
    if action.player is not None:
        player_at(state, action.player)
    if action.roll is None:
        raise RuleError("roll_missing", Phrase("The die roll was not recorded"))


@step.register
def step_roll_die(action: RollDie, state: GameState) -> GameState:
    """The roll becomes the table's last roll."""
    assert action.roll is not None  # the rule refuses a roll that was not recorded
    roll = DieRoll(value=action.roll, player=action.player, purpose=action.purpose)
    return state.evolve(last_roll=roll)


@fill_rolls.register
def fill_rolls_roll_die(action: RollDie, state: GameState, dice: RandomSource) -> BaseAction:
    """Rolls the d6 when no result was recorded."""
    return action if action.roll is not None else action.evolve(roll=d6(dice))


@words.register
def words_roll_die(a: RollDie, s: GameState) -> str:
    """History: who rolled what, on which die and for what."""
    how = {
        (True, True): phrase_template("{name} rolls {roll} on {die} for {purpose}"),
        (True, False): phrase_template("{name} rolls {roll} on {die}"),
        (False, True): phrase_template("{name} rolls {roll} for {purpose}"),
        (False, False): phrase_template("{name} rolls {roll}"),
    }[bool(a.die), bool(a.purpose)]
    return Phrase(how, name=player_name(s, a.player), roll=a.roll, die=a.die, purpose=a.purpose)


class RollForFirstPlayer(BaseAction):
    """Everyone rolls a d6, highest goes first; those tied for highest roll again (§2)."""

    type: Literal["roll_for_first_player"] = "roll_for_first_player"
    rolls: tuple[D6, ...] | None = None
    dice: tuple[DieName, ...] = ()  # beside each roll, the smart die that gave it ("" on screen)


def highest_by_rolls(
    groups: Sequence[Sequence[int]],
    draw: Callable[[], int],
    thrower: Callable[[int], None] | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Who rolls highest in the first group: each rolls a d6, and only those tied for the
    highest roll again, until one is highest (RULES.md §2: who goes first). A tie lower
    down decides nothing, so nobody rolls for it.

    Takes and returns what `rules.order_by_rolls` does: the winner comes first, then the
    others by the roll that put them out (later groups follow as they are); and the rolls
    used, in order.

    >>> rolls = iter([6, 6, 2, 2, 5, 3])
    >>> highest_by_rolls([[0, 1, 2, 3]], lambda: next(rolls))
    ((0, 1, 2, 3), (6, 6, 2, 2, 5, 3))
    """
    used: list[int] = []
    group = list(groups[0]) if groups else []
    put_out: list[list[int]] = []  # each round's seats below its highest roll, best first
    while len(group) > 1:
        results: dict[int, int] = {}
        for seat in group:
            if thrower is not None:
                thrower(seat)
            results[seat] = draw()
            used.append(results[seat])
        top = max(results.values())
        put_out.append(sorted((s for s in group if results[s] != top), key=lambda s: -results[s]))
        group = [s for s in group if results[s] == top]
    order = group + [seat for out in reversed(put_out) for seat in out]
    order += [seat for later in groups[1:] for seat in later]
    return tuple(order), tuple(used)


def _first_player_groups(state: GameState) -> list[list[int]]:
    """Everyone in one group: the rolls alone decide who goes first (§2)."""
    return [list(range(len(state.players)))]


def _first_player_order(action: RollForFirstPlayer, state: GameState) -> tuple[int, ...]:
    groups = _first_player_groups(state)
    what = Phrase("choosing the first player")
    try:
        return ordered_by_rolls(groups, action.rolls, what, highest_by_rolls)
    except RuleError as exc:
        if exc.rule != "extra_rolls":
            raise
        # Saved before only the tie for first rolled again: those rolled for every tie.
        # The tie for first was settled by the first of those rolls, so the same player
        # goes first.
        return ordered_by_rolls(groups, action.rolls, what)


@rule.register
def rule_roll_for_first_player(action: RollForFirstPlayer, state: GameState) -> None:
    """Who goes first: everyone rolls, highest first, a tie for highest rolls again (§2)."""
    if state.turn != 1 or state.combat is not None or state.last_combat is not None:
        raise RuleError(
            "first_player_chosen", Phrase("The first player is chosen before play begins")
        )
    _first_player_order(action, state)
    check_dice_named(action.dice, action.rolls or ())


@step.register
def step_roll_for_first_player(action: RollForFirstPlayer, state: GameState) -> GameState:
    """The highest roll goes first and shows as the last roll (§2)."""
    order = _first_player_order(action, state)
    rolls = action.rolls or ()
    return state.evolve(
        **{
            "current": order[0],
            "last_roll": DieRoll(value=max(rolls), player=order[0], purpose="first player"),
        }
    )


@fill_rolls.register
def fill_rolls_roll_for_first_player(
    action: RollForFirstPlayer, state: GameState, dice: RandomSource
) -> BaseAction:
    """Rolls everyone's d6, and again for a tie for highest, before play begins (§2)."""
    if action.rolls is not None or state.turn != 1:
        return action
    return action.evolve(rolls=rolls_for(_first_player_groups(state), dice, highest_by_rolls))


@words.register
def words_roll_for_first_player(a: RollForFirstPlayer, s: GameState) -> str:
    """History: everyone's rolls for the first player."""
    rolls = rolls_words(a.rolls or (), a.dice)
    return Phrase("Everyone rolls for the first player ({rolls})", rolls=rolls)
