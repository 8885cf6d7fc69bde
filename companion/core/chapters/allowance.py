"""Allowances that go (RULES.md §4, §5): when a player loses what let them have more (the
Dwarf's Big items, a Monk's second style, Super Munchkin's second class), they give up the
excess at once, choosing what; the action that caused it records the choice.

Everything here reads a player and builds nothing: the rules of the actions ask it, and
their steps apply what it says.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from companion.core import rules
from companion.core.errors import RuleError
from companion.core.models import (
    LEGACY_RULES,
    LOST_ALLOWANCE,
    SECOND_READING,
    Ability,
    TraitKind,
)
from companion.core.phrase import Phrase, joined, phrase_template
from companion.core.state import Item, PlayerState

Excessive = Literal["big_item", "class", "race", "motivation", "style"]
TRAIT_KINDS: tuple[TraitKind, ...] = ("class", "race", "motivation", "style")
TRAIT_OF: dict[Excessive, TraitKind] = {kind: kind for kind in TRAIT_KINDS}
BOOST_FIELDS: dict[TraitKind, str] = {
    "class": "super_munchkin",
    "race": "half_breed",
    "motivation": "extra_motivated",
}
LEGACY_BIG_ITEMS_RACE = "dwarf"  # before rules 3 the Dwarf was known by name alone

# "X must give up one <thing>", one whole sentence per thing, so each language can decline it.
_GIVE_UP: dict[Excessive, str] = {
    "big_item": phrase_template(
        "{name} may carry only one Big item now: choose what to give up ({options})"
    ),
    "class": phrase_template(
        "{name} may have only one class now: choose what to give up ({options})"
    ),
    "race": phrase_template(
        "{name} may have only one race now: choose what to give up ({options})"
    ),
    "motivation": phrase_template(
        "{name} may have only one motivation now: choose what to give up ({options})"
    ),
    "style": phrase_template(
        "{name} may have only one style now: choose what to give up ({options})"
    ),
}


@dataclass(frozen=True)
class Excess:
    """Something a player has more of than allowed after a change: what it is, the
    candidates (key, name), and how many must go. The key is an item id or a trait name."""

    what: Excessive
    options: tuple[tuple[str, str], ...]
    count: int


@dataclass(frozen=True)
class After:
    """A player's traits, boosts and Big items as a change would leave them."""

    traits: dict[TraitKind, tuple[str, ...]]
    boosts: dict[TraitKind, bool]
    big_items: tuple[tuple[str, str], ...]
    abilities: frozenset[Ability]


def after_change(
    player: PlayerState,
    lost_traits: Iterable[tuple[TraitKind, str]] = (),
    boosts_off: Iterable[TraitKind] = (),
    lost_items: Iterable[str] = (),
) -> After:
    """The player as losing these traits, boosts and items would leave them. From rules 3 on,
    Super Munchkin, Half-Breed and Extra Motivated go when the last trait they were
    attached to goes (§4)."""
    gone = {(kind, name.casefold()) for kind, name in lost_traits}
    items_gone = set(lost_items)
    traits = {
        kind: tuple(t for t in player.traits(kind) if (kind, t.casefold()) not in gone)
        for kind in TRAIT_KINDS
    }
    off = set(boosts_off)
    boosts = {
        kind: getattr(player, field)
        and kind not in off
        and (bool(traits[kind]) or player.rules <= LEGACY_RULES)
        for kind, field in BOOST_FIELDS.items()
    }
    kept = {(t.kind, t.name.casefold()) for t in player.trait_bonuses} - gone
    abilities = {
        a for t in player.trait_bonuses if (t.kind, t.name.casefold()) in kept for a in t.abilities
    }
    if player.role is not None:
        abilities.update(player.role.abilities)
    big = tuple((i.id, i.spec.name) for i in big_items(player) if i.id not in items_gone)
    return After(traits=traits, boosts=boosts, big_items=big, abilities=frozenset(abilities))


def big_items(player: PlayerState) -> tuple[Item, ...]:
    """The player's items that count against the Big limit: the Big ones, but from rules 4
    not a Steed, which carries itself (RULES.md §11, Steeds)."""
    if player.rules < SECOND_READING:
        return tuple(i for i in player.items if i.spec.big)
    return tuple(i for i in player.items if i.spec.big and not i.spec.steed)


def big_item_limit(player: PlayerState, after: After | None = None) -> int | None:
    """How many Big items the player may carry (as `after` a change would leave them, or as
    they are): one, or any number (None) with the ability (the classic Dwarf); before
    rules 3, a race named Dwarf."""
    if player.rules <= LEGACY_RULES:
        races = after.traits["race"] if after is not None else player.races
        return None if any(r.casefold() == LEGACY_BIG_ITEMS_RACE for r in races) else 1
    if after is None:
        return None if player.can("big_items") else 1
    return None if "big_items" in after.abilities else 1


def excess(player: PlayerState, after: After) -> tuple[Excess, ...]:
    """What the player has too many of once the change is made (rules 3 on; before, the
    rules asked nothing here and the player kept everything)."""
    if player.rules <= LEGACY_RULES:
        return ()
    found: list[Excess] = []
    limit = big_item_limit(player, after)
    if limit is not None and len(after.big_items) > limit:
        found.append(Excess("big_item", after.big_items, len(after.big_items) - limit))
    for kind in TRAIT_KINDS:
        have = after.traits[kind]
        if kind == "style":
            allowed = rules.trait_limit(player, "style", after.traits["class"])
        else:
            allowed = 2 if after.boosts.get(kind) else 1
        if len(have) > allowed:
            found.append(Excess(kind, tuple((t, t) for t in have), len(have) - allowed))
    return tuple(found)


def lost_allowances(
    player: PlayerState,
    picks: Iterable[str] = (),
    lost_traits: Iterable[tuple[TraitKind, str]] = (),
    boosts_off: Iterable[TraitKind] = (),
    lost_items: Iterable[str] = (),
) -> tuple[Excess, ...]:
    """Every allowance that goes when the player loses these traits, boosts and items, in
    the order they come up, given the picks made so far: first what the change itself
    takes, then, from rules 5 on, what a pick takes in turn (RULES.md §11: a cascade
    counts). A Super Munchkin Monk with two styles who loses Super Munchkin gives up a
    class; if it is the Monk, a second style must go too, asked once the class is picked.

    An allowance whose picks are not all made yet ends the list: what follows depends on
    them. Before rules 5 only the change's own allowances count (`excess`)."""
    traits = list(lost_traits)
    offs = tuple(boosts_off)
    items = list(lost_items)
    wanted = {p.casefold() for p in picks}
    found: list[Excess] = []
    asked: set[Excessive] = set()
    while True:
        now = [
            e
            for e in excess(player, after_change(player, traits, offs, items))
            if e.what not in asked
        ]
        if not now:
            return tuple(found)
        found.extend(now)
        asked.update(e.what for e in now)
        chosen = [(e, [k for k, _ in e.options if k.casefold() in wanted]) for e in now]
        if player.rules < LOST_ALLOWANCE or any(len(keys) != e.count for e, keys in chosen):
            return tuple(found)
        for e, keys in chosen:
            if e.what == "big_item":
                items.extend(keys)
            else:
                traits.extend((TRAIT_OF[e.what], key) for key in keys)


def open_allowances(excesses: Iterable[Excess], picks: Iterable[str]) -> tuple[Excess, ...]:
    """The allowances among `excesses` whose picks are still to be made."""
    wanted = {p.casefold() for p in picks}
    return tuple(
        e for e in excesses if sum(k.casefold() in wanted for k, _ in e.options) != e.count
    )


def chosen_drops(
    player: PlayerState, excesses: tuple[Excess, ...], picks: Iterable[str]
) -> tuple[tuple[Excessive, str, str], ...]:
    """What the player gives up for each excess, from their picks: (what, key, name).
    RuleError when a pick is missing or there are too many for one excess."""
    wanted = {p.casefold() for p in picks}
    out: list[tuple[Excessive, str, str]] = []
    for found in excesses:
        chosen = [o for o in found.options if o[0].casefold() in wanted]
        if len(chosen) != found.count:
            names = joined((name for _, name in found.options), "or")
            raise RuleError(
                "allowance_gone",
                Phrase(_GIVE_UP[found.what], name=player.name, options=names),
            )
        out.extend((found.what, key, name) for key, name in chosen)
    return tuple(out)
