"""Levels (RULES.md §1, §5): going up and down, setting a Level by hand, selling items."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    BaseAction,
    Override,
    Seat,
    item_name,
    levels_words,
    player_name,
    step,
    words,
)
from companion.core.chapters.table import alive, find_item, player_at, win, with_player
from companion.core.errors import RuleError
from companion.core.models import MAX_LEVEL
from companion.core.state import GameState


def raise_level(
    state: GameState,
    number: int,
    levels: int,
    checked: bool,
    *,
    source: str,
    override: str | None,
    by_kill: bool = False,
) -> GameState:
    """Go up levels through the rules (RULES.md §1, §8).

    Dead players cannot go up; the winning level comes only from a kill unless a card
    says otherwise; there are no levels above the winning level.
    """
    player = state.players[number]
    if checked and player.dead and override is None:
        raise RuleError("dead_cannot_level", f"{player.name} is dead and cannot go up a level")
    if state.no_limit:
        return with_player(state, number, level=min(MAX_LEVEL, player.level + levels))
    target = state.winning_level
    new_level = min(target, player.level + levels)
    if checked and new_level >= target and not by_kill and override is None:
        raise RuleError("winning_level_by_kill", f"{source} cannot take you to Level {target}")
    state = with_player(state, number, level=new_level)
    return win(state, (number,)) if new_level >= target else state


def levels_to_sell(state: GameState, number: int, gold: int, override: str | None) -> int:
    """The levels a sale of `gold` gives: one per full 1000 gold, no change given, and never
    the winning level unless a card says so; the rest of the sale is lost (RULES.md §5).

    >>> from companion.core import CLASSIC, GameSetup, GameState, PlayerSetup, Sex
    >>> setup = GameSetup(players=(PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
    ...     PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE)), edition=CLASSIC)
    >>> state = GameState.initial(setup)
    >>> state = state.evolve(players=(state.players[0].evolve(level=8), state.players[1]))
    >>> levels_to_sell(state, 0, 2900, None), levels_to_sell(state, 0, 2900, "a card")
    (1, 2)
    """
    levels = rules.levels_for_gold(gold)
    if state.no_limit or override is not None:
        return levels
    return max(0, min(levels, state.winning_level - 1 - state.players[number].level))


class GoUpLevel(BaseAction):
    """A card (Go Up a Level and the like) raises a player's Level."""

    type: Literal["go_up_level"] = "go_up_level"
    player: Seat
    levels: Annotated[int, Field(ge=1, le=20)] = 1
    override: Override = None


@step.register
def _(action: GoUpLevel, state: GameState, checked: bool) -> GameState:
    """Go Up a Level cards never give the winning level; dead players cannot go up (§1, §8)."""
    player_at(state, action.player)
    return raise_level(
        state,
        action.player,
        action.levels,
        checked,
        source="A Go Up a Level card",
        override=action.override,
    )


@words.register
def _(a: GoUpLevel, s: GameState) -> str:
    return f"{player_name(s, a.player)} goes up {levels_words(a.levels)}"


class LoseLevel(BaseAction):
    """A curse, trap or card lowers a player's Level (never below 1)."""

    type: Literal["lose_level"] = "lose_level"
    player: Seat
    levels: Annotated[int, Field(ge=1, le=20)] = 1


@step.register
def _(action: LoseLevel, state: GameState, checked: bool) -> GameState:
    """A player's Level is never below 1 (§1)."""
    player = player_at(state, action.player)
    return with_player(state, action.player, level=max(1, player.level - action.levels))


@words.register
def _(a: LoseLevel, s: GameState) -> str:
    return f"{player_name(s, a.player)} loses {levels_words(a.levels)}"


class SetLevel(BaseAction):
    """Put a player's Level at a number, e.g. to mirror a card; rules still apply."""

    type: Literal["set_level"] = "set_level"
    player: Seat
    level: Annotated[int, Field(ge=1, le=100)]
    override: Override = None


@step.register
def _(action: SetLevel, state: GameState, checked: bool) -> GameState:
    """Setting a Level by hand goes through the same rules as going up (§1)."""
    player = player_at(state, action.player)
    if checked and not state.no_limit and action.level > state.winning_level:
        raise RuleError(
            "no_such_level", f"Levels go up to {state.winning_level} in this game, not beyond"
        )
    if action.level <= player.level:
        return with_player(state, action.player, level=action.level)
    return raise_level(
        state,
        action.player,
        action.level - player.level,
        checked,
        source="Setting a Level by hand",
        override=action.override,
    )


@words.register
def _(a: SetLevel, s: GameState) -> str:
    return f"{player_name(s, a.player)} is set to Level {a.level}"


class SellItems(BaseAction):
    """Sell items for levels: 1 level per full 1000 gold, no change given (RULES.md §5)."""

    type: Literal["sell_items"] = "sell_items"
    player: Seat
    gold: Annotated[int, Field(ge=0, le=1_000_000)] = 0  # value of untracked items sold
    item_ids: tuple[str, ...] = ()  # tracked items sold; their value adds to `gold`
    override: Override = None


@step.register
def _(action: SellItems, state: GameState, checked: bool) -> GameState:
    """Selling: on your own turn, not in combat, 1000 gold per level, no change, never
    to the winning level: a sale worth more stops one short of it and the rest is lost;
    a sale that can buy no level at all is refused (§5)."""
    player = player_at(state, action.player)
    sold = [find_item(player, i) for i in action.item_ids]
    gold = action.gold + sum(i.spec.gold for i in sold)
    levels = rules.levels_for_gold(gold)
    if checked:
        alive(player, "sell items")
        if len(set(action.item_ids)) != len(action.item_ids):
            raise RuleError("no_such_item", "The same item cannot be sold twice")
        if action.override is None:
            if action.player != state.current:
                raise RuleError("sell_own_turn", "You can sell items only on your own turn")
            if state.combat is not None:
                raise RuleError("sell_in_combat", "You cannot sell items during combat")
        if levels < 1:
            raise RuleError(
                "sell_minimum",
                f"{gold} gold buys no level: a level costs 1000 gold and no change is given",
            )
        if levels_to_sell(state, action.player, gold, action.override) < 1:
            raise RuleError(
                "sell_to_win", f"Selling items cannot take you to Level {state.winning_level}"
            )
    if sold:
        keep = tuple(i for i in player.items if i.id not in action.item_ids)
        state = with_player(state, action.player, items=keep)
    return raise_level(
        state,
        action.player,
        levels_to_sell(state, action.player, gold, action.override),
        False,
        source="Selling items",
        override=action.override,
    )


@words.register
def _(a: SellItems, s: GameState) -> str:
    names = [item_name(s, a.player, i) for i in a.item_ids]
    what = ", ".join(names) if names else "items"
    extra = f" and {a.gold} gold more" if names and a.gold else ""
    worth = f" worth {a.gold} gold" if not names else extra
    sentence = f"{player_name(s, a.player)} sells {what}{worth}"
    surplus = _sale_surplus(a, s)
    if not surplus:
        return sentence
    return SOLD_OVER_THE_CAP.format(sale=sentence, level=s.winning_level - 1, surplus=surplus)


# History sentences are whole templates with named parameters, ready to be translated.
SOLD_OVER_THE_CAP = "{sale}: up to Level {level}, the rest is lost (levels lost: {surplus})"


def _sale_surplus(a: SellItems, s: GameState) -> int:
    """Levels a sale was worth beyond what the rules let it give."""
    if not 0 <= a.player < len(s.players):
        return 0
    player = s.players[a.player]
    gold = a.gold + sum(i.spec.gold for i in player.items if i.id in a.item_ids)
    return rules.levels_for_gold(gold) - levels_to_sell(s, a.player, gold, a.override)
