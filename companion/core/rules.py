"""The rules of the game as small pure functions with names from the rulebook."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from companion.core.errors import RuleError
from companion.core.models import (
    LEGACY_RULES,
    Condition,
    EnhancerSpec,
    ItemSpec,
    MonsterSpec,
    TraitKind,
)
from companion.core.phrase import Phrase
from companion.core.state import HUMAN, PlayerState

GOLD_PER_LEVEL = 1000
RUN_AWAY_TARGET = 5
MONK = "monk"


def levels_for_gold(gold: int) -> int:
    """Selling: one level per full 1000 gold; no change is given (RULES.md §5).

    >>> levels_for_gold(1900), levels_for_gold(2000), levels_for_gold(999)
    (1, 2, 0)
    """
    return max(0, gold) // GOLD_PER_LEVEL


def trait_limit(
    player: PlayerState, kind: TraitKind, classes: tuple[str, ...] | None = None
) -> int:
    """How many of a trait a player may have at once (RULES.md §4).

    One class (two with Super Munchkin), one race (two with Half-Breed), one
    motivation (two with Extra Motivated), one style (two for a Monk). `classes`, when
    given, are the classes to judge the styles by (the player's after a change).
    """
    if kind == "class":
        return 2 if player.super_munchkin else 1
    if kind == "race":
        return 2 if player.half_breed else 1
    if kind == "motivation":
        return 2 if player.extra_motivated else 1
    judged = player.classes if classes is None else classes
    return 2 if any(c.casefold() == MONK for c in judged) else 1


def qualifies(player: PlayerState, condition: Condition) -> bool:
    """Whether a player has the trait a monster or item cares about.

    A character without a race is Human; traits compare without regard to case.
    """
    return player.has(condition)


def may_use_item(player: PlayerState, item: ItemSpec) -> bool:
    """Whether a player may use an item restricted to some classes, races or a sex, or
    forbidden to some (RULES.md §5 and §11): a restricted item counts only while its
    owner qualifies, and cannot be put on by one who does not."""
    return player.may_use(item)


def combat_strength(
    player: PlayerState, level_only: bool = False, tags: frozenset[str] = frozenset()
) -> int:
    """A fighter's strength: Level plus gear, traits, role and Allies, and the bonuses against
    the tags of the monsters fought; or Level only (RULES.md §6).

    Strength may go below 1, even negative; only Level has a floor.
    """
    return player.level if level_only else player.strength + player.tag_bonus(tags)


def monster_treasure(monster: MonsterSpec, enhancers: Iterable[EnhancerSpec] = ()) -> int:
    """The treasures a monster gives: its number adjusted by its enhancers, at least 0 (§6)."""
    return max(0, monster.treasure + sum(e.treasure for e in enhancers))


def monster_strength(
    monster: MonsterSpec,
    enhancers: Iterable[EnhancerSpec],
    fighters: Sequence[PlayerState],
) -> int:
    """One monster's strength against these fighters (RULES.md §6).

    Level + its enhancers + its modifiers. A modifier keyed to a trait counts once if
    the fighter *or* the helper has it, never twice; a per-empty-hand modifier counts
    each empty hand of the fighters. A Super Munchkin with one class (a Half-Breed with
    one race, Extra Motivated with one motivation) has none of that trait's disadvantages:
    a monster's bonus against it does not count for them; its penalty still does.
    """
    total = monster.level + sum(e.bonus for e in enhancers)
    for mod in monster.modifiers:
        condition = mod.condition
        if condition is not None and not any(_hit_by(f, condition, mod.bonus) for f in fighters):
            continue
        if mod.per_empty_hand:
            total += mod.bonus * sum(f.empty_hands for f in fighters)
        else:
            total += mod.bonus
    return total


def _hit_by(player: PlayerState, condition: Condition, bonus: int) -> bool:
    """Whether a monster's modifier keyed to a trait counts against this fighter."""
    if not player.has(condition):
        return False
    if bonus <= 0 or player.rules <= LEGACY_RULES or condition.kind == "sex":
        return True
    if condition.kind == "race" and condition.value.casefold() == HUMAN.casefold():
        return True  # half Human: being Human has no disadvantage to waive
    return not player.single_boosted(condition.kind)


def fighters_win(players_strength: int, monsters_strength: int, wins_ties: bool = False) -> bool:
    """The players win only with strictly greater strength; monsters win ties (§6).

    >>> fighters_win(10, 10), fighters_win(10, 10, wins_ties=True), fighters_win(11, 10)
    (False, True, True)
    """
    if wins_ties:
        return players_strength >= monsters_strength
    return players_strength > monsters_strength


def run_away_escapes(roll: int, modifier: int) -> bool:
    """Running away: a d6 plus modifiers escapes on 5 or more (RULES.md §7).

    >>> run_away_escapes(4, 0), run_away_escapes(5, 0), run_away_escapes(3, 2)
    (False, True, True)
    """
    return roll + modifier >= RUN_AWAY_TARGET


def charity_recipients(players: Sequence[PlayerState], giver: int) -> tuple[int, ...]:
    """Who receives Charity: the living players with the lowest Level (RULES.md §3, §8).

    Empty when the giver is the lowest or tied for lowest: the cards are discarded.
    Dead players cannot receive cards.
    """
    alive = [i for i, p in enumerate(players) if not p.dead or i == giver]
    others = [i for i in alive if i != giver]
    if not others:
        return ()
    lowest = min(players[i].level for i in alive)
    if players[giver].level <= lowest:
        return ()
    return tuple(i for i in others if players[i].level == lowest)


def even_split(cards: int, recipients: Sequence[int]) -> dict[int, int]:
    """Split cards as evenly as possible; the first recipients get the extra ones.

    >>> even_split(5, [2, 0])
    {2: 3, 0: 2}
    """
    if not recipients:
        return {}
    base, extra = divmod(cards, len(recipients))
    return {r: base + (1 if n < extra else 0) for n, r in enumerate(recipients)}


def seats_to_the_left(start: int, count: int) -> list[int]:
    """Seats in play order starting after `start` (play passes to the left)."""
    return [(start + k) % count for k in range(1, count + 1)]


def order_by_rolls(
    groups: Sequence[Sequence[int]],
    draw: Callable[[], int],
    thrower: Callable[[int], None] | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Order players group by group; within a group of ties, each rolls a d6, highest first,
    and players still tied roll again (RULES.md §2, §8).

    `draw` gives the next die result; `thrower`, when given, hears the seat each draw is for
    just before it. Returns the order and the rolls used, in order.

    >>> rolls = iter([4, 4, 1, 2, 5])
    >>> order_by_rolls([[0, 1, 2], [3]], lambda: next(rolls))
    ((1, 0, 2, 3), (4, 4, 1, 2, 5))
    """
    used: list[int] = []

    def settle(group: Sequence[int]) -> list[int]:
        if len(group) <= 1:
            return list(group)
        results: dict[int, int] = {}
        for seat in group:
            if thrower is not None:
                thrower(seat)
            results[seat] = draw()
            used.append(results[seat])
        out: list[int] = []
        for value in sorted(set(results.values()), reverse=True):
            out.extend(settle([s for s in group if results[s] == value]))
        return out

    order: list[int] = []
    for group in groups:
        order.extend(settle(group))
    return tuple(order), tuple(used)


def loot_groups(players: Sequence[PlayerState], dead: int) -> list[list[int]]:
    """The other living players grouped by Level, highest first, for looting a body (§8)."""
    others = [i for i, p in enumerate(players) if i != dead and not p.dead]
    levels = sorted({players[i].level for i in others}, reverse=True)
    return [[i for i in others if players[i].level == lv] for lv in levels]


def check_level_loss(player: PlayerState) -> None:
    """A Level is never below 1 (§1): losing a Level at Level 1 is refused, not done as nothing.

    For requests that ask for a change (a counter's minus button); a card that costs
    a Level still applies at Level 1 and simply leaves it there.
    """
    if player.level <= 1:
        raise RuleError("level_floor", Phrase("A Level is never below 1"))
