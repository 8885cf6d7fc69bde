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
    rule,
    step,
    words,
)
from companion.core.chapters.table import (
    alive,
    find_item,
    player_at,
    refuse_after_charity,
    win,
    with_player,
)
from companion.core.errors import RuleError
from companion.core.models import MAX_LEVEL
from companion.core.phrase import Phrase, phrase_template
from companion.core.state import GameState, PlayerState


def check_level_up(
    state: GameState,
    number: int,
    levels: int,
    *,
    source: str,
    override: str | None,
    by_kill: bool = False,
) -> None:
    """Going up levels (RULES.md §1, §8): dead players cannot go up, and the winning level
    comes only from a kill, unless a card says otherwise. `source` is a template
    (`phrase_template`), made a sentence only when the rule is broken."""
    player = state.players[number]
    if player.dead and override is None:
        raise RuleError(
            "dead_cannot_level",
            Phrase("{name} is dead and cannot go up a level", name=player.name),
        )
    if state.no_limit:
        return
    target = state.winning_level
    if player.level + levels >= target and not by_kill and override is None:
        raise RuleError(
            "winning_level_by_kill",
            Phrase(
                "{source} cannot take you to Level {level}", source=Phrase(source), level=target
            ),
        )


def level_up(state: GameState, number: int, levels: int) -> GameState:
    """Go up levels: none above the winning level, and reaching it wins (§1)."""
    player = state.players[number]
    if state.no_limit:
        return with_player(state, number, level=min(MAX_LEVEL, player.level + levels))
    target = state.winning_level
    new_level = min(target, player.level + levels)
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


@rule.register
def rule_go_up_level(action: GoUpLevel, state: GameState) -> None:
    """Go Up a Level cards never give the winning level; dead players cannot go up (§1, §8)."""
    player_at(state, action.player)
    check_level_up(
        state,
        action.player,
        action.levels,
        source=phrase_template("A Go Up a Level card"),
        override=action.override,
    )


@step.register
def step_go_up_level(action: GoUpLevel, state: GameState) -> GameState:
    """The player goes up, never past the winning Level; reaching it wins (§1)."""
    return level_up(state, action.player, action.levels)


@words.register
def words_go_up_level(a: GoUpLevel, s: GameState) -> str:
    """History: who goes up how many levels."""
    return Phrase(
        "{name} goes up {levels}", name=player_name(s, a.player), levels=levels_words(a.levels)
    )


class LoseLevel(BaseAction):
    """A curse, trap or card lowers a player's Level (never below 1)."""

    type: Literal["lose_level"] = "lose_level"
    player: Seat
    levels: Annotated[int, Field(ge=1, le=20)] = 1


@rule.register
def rule_lose_level(action: LoseLevel, state: GameState) -> None:
    """A card that costs a Level applies at Level 1 too, and leaves it there (§1)."""
    player_at(state, action.player)


@step.register
def step_lose_level(action: LoseLevel, state: GameState) -> GameState:
    """A player's Level is never below 1 (§1)."""
    player = state.players[action.player]
    return with_player(state, action.player, level=max(1, player.level - action.levels))


@words.register
def words_lose_level(a: LoseLevel, s: GameState) -> str:
    """History: who loses how many levels."""
    return Phrase(
        "{name} loses {levels}", name=player_name(s, a.player), levels=levels_words(a.levels)
    )


class SetLevel(BaseAction):
    """Put a player's Level at a number, e.g. to mirror a card; rules still apply."""

    type: Literal["set_level"] = "set_level"
    player: Seat
    level: Annotated[int, Field(ge=1, le=100)]
    override: Override = None


@rule.register
def rule_set_level(action: SetLevel, state: GameState) -> None:
    """Setting a Level by hand goes through the same rules as going up (§1)."""
    player = player_at(state, action.player)
    if not state.no_limit and action.level > state.winning_level:
        raise RuleError(
            "no_such_level",
            Phrase("Levels go up to {level} in this game, not beyond", level=state.winning_level),
        )
    if action.level > player.level:
        check_level_up(
            state,
            action.player,
            action.level - player.level,
            source=phrase_template("Setting a Level by hand"),
            override=action.override,
        )


@step.register
def step_set_level(action: SetLevel, state: GameState) -> GameState:
    """The Level is set; a rise goes up like any other and may win (§1)."""
    player = state.players[action.player]
    if action.level <= player.level:
        return with_player(state, action.player, level=action.level)
    return level_up(state, action.player, action.level - player.level)


@words.register
def words_set_level(a: SetLevel, s: GameState) -> str:
    """History: whose Level is set to what."""
    return Phrase("{name} is set to Level {level}", name=player_name(s, a.player), level=a.level)


class SellItems(BaseAction):
    """Sell items for levels: 1 level per full 1000 gold, no change given (RULES.md §5).

    `double` is the value of the one item a player with the ability (the classic Halfling)
    sells at double price this turn: it counts twice.
    """

    type: Literal["sell_items"] = "sell_items"
    player: Seat
    gold: Annotated[int, Field(ge=0, le=1_000_000)] = 0  # value of untracked items sold
    item_ids: tuple[str, ...] = ()  # tracked items sold; their value adds to `gold`
    double: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    override: Override = None


def _sale_gold(action: SellItems, player: PlayerState) -> int:
    """What a sale is worth: the gold named plus the tracked items sold, and the one item
    sold at double price counted again."""
    sold = set(action.item_ids)
    return action.gold + sum(i.spec.gold for i in player.items if i.id in sold) + action.double


def _check_double(action: SellItems, state: GameState, player: PlayerState) -> None:
    """One item a turn at double price, for a player with the ability (§4: the Halfling)."""
    if not action.double:
        return
    if "double_sale" not in player.abilities:
        raise RuleError(
            "no_double_sale", Phrase("{name} cannot sell an item for double", name=player.name)
        )
    if player.double_sale_turn == state.turn:
        raise RuleError(
            "double_sale_used", Phrase("Only one item a turn sells for double its value")
        )
    values = [i.spec.gold for i in player.items if i.id in action.item_ids]
    if not (values and action.double in values) and action.double > action.gold:
        raise RuleError(
            "double_sale_item", Phrase("The item sold for double must be part of the sale")
        )


@rule.register
def rule_sell_items(action: SellItems, state: GameState) -> None:
    """Selling: on your own turn, not in combat, 1000 gold per level, no change, never
    to the winning level: a sale worth more stops one short of it and the rest is lost;
    a sale that can buy no level at all is refused (§5)."""
    player = player_at(state, action.player)
    for item_id in action.item_ids:
        find_item(player, item_id)
    alive(player, phrase_template("sell items"))
    if len(set(action.item_ids)) != len(action.item_ids):
        raise RuleError("no_such_item", Phrase("The same item cannot be sold twice"))
    if action.override is None:
        if action.player != state.current:
            raise RuleError("sell_own_turn", Phrase("You can sell items only on your own turn"))
        refuse_after_charity(state, action.player)
        if state.combat is not None:
            raise RuleError("sell_in_combat", Phrase("You cannot sell items during combat"))
    _check_double(action, state, player)
    gold = _sale_gold(action, player)
    if rules.levels_for_gold(gold) < 1:
        raise RuleError(
            "sell_minimum",
            Phrase(
                "{gold} gold buys no level: a level costs 1000 gold and no change is given",
                gold=gold,
            ),
        )
    if levels_to_sell(state, action.player, gold, action.override) < 1:
        raise RuleError(
            "sell_to_win",
            Phrase("Selling items cannot take you to Level {level}", level=state.winning_level),
        )


@step.register
def step_sell_items(action: SellItems, state: GameState) -> GameState:
    """The sold items go and their levels come, none past the cap (§5)."""
    player = state.players[action.player]
    gold = _sale_gold(action, player)
    levels = levels_to_sell(state, action.player, gold, action.override)
    if action.item_ids:
        keep = tuple(i for i in player.items if i.id not in action.item_ids)
        state = with_player(state, action.player, items=keep)
    if action.double:
        state = with_player(state, action.player, double_sale_turn=state.turn)
    return level_up(state, action.player, levels)


@words.register
def words_sell_items(a: SellItems, s: GameState) -> str:
    """History: what a player sells, and the levels the cap cost them."""
    names = [item_name(s, a.player, i) for i in a.item_ids]
    name = player_name(s, a.player)
    if a.double:
        sentence = Phrase(
            "{name} sells items worth {gold} gold, one at double price",
            name=name,
            gold=_sale_gold(a, s.players[a.player]) if 0 <= a.player < len(s.players) else a.gold,
        )
    elif not names:
        sentence = Phrase("{name} sells items worth {gold} gold", name=name, gold=a.gold)
    elif a.gold:
        sentence = Phrase(
            "{name} sells {items} and {gold} gold more",
            name=name,
            items=_item_names(names),
            gold=a.gold,
        )
    else:
        sentence = Phrase("{name} sells {items}", name=name, items=_item_names(names))
    surplus = _sale_surplus(a, s)
    if not surplus:
        return sentence
    return Phrase(SOLD_OVER_THE_CAP, sale=sentence, level=s.winning_level - 1, surplus=surplus)


def _item_names(names: list[str]) -> str:
    """Items one after another ("A, B"), each a card's name the app shows in its language
    (a plain joined text would stay in English)."""
    parts = [Phrase(ITEM_NAME, item=name) for name in names]
    text: str = parts[0] if parts else ""
    for part in parts[1:]:
        text = Phrase("{first}, {second}", first=text, second=part)
    return text


# An item's name alone, as a value of a sentence (see `_item_names`).
ITEM_NAME = phrase_template("{item}")
# History sentences are whole templates with named parameters, ready to be translated.
SOLD_OVER_THE_CAP = phrase_template(
    "{sale}: up to Level {level}, the rest is lost (levels lost: {surplus})"
)


def _sale_surplus(a: SellItems, s: GameState) -> int:
    """Levels a sale was worth beyond what the rules let it give."""
    if not 0 <= a.player < len(s.players):
        return 0
    gold = _sale_gold(a, s.players[a.player])
    return rules.levels_for_gold(gold) - levels_to_sell(s, a.player, gold, a.override)
