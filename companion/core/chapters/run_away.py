"""Running away (RULES.md §7): one roll per fighter and monster, Bad Stuff on a failure,
and sacrificing an Ally to escape."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    D6,
    BaseAction,
    DieName,
    Override,
    Seat,
    monster_name,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.character import kill_player, remove_trait
from companion.core.chapters.combat import finish_running_if_done, in_combat, monster_index
from companion.core.chapters.gear import without_item
from companion.core.chapters.rolls import d6, fill_rolls
from companion.core.chapters.table import current_combat, with_player
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.models import Loss, TraitKind
from companion.core.phrase import Phrase, joined, phrase_template, plural_phrase
from companion.core.state import (
    CombatState,
    DieRoll,
    GameState,
    MonsterInPlay,
    PlayerState,
    RunAwayRoll,
    Said,
)


def _no_need_to_run(combat: CombatState, override: str | None) -> None:
    if combat.fighters_winning and not combat.running and override is None:
        raise RuleError(
            "no_need_to_run", Phrase("The players are winning: nobody needs to run away")
        )


def _running_fighter(state: GameState, combat: CombatState, seat: int) -> PlayerState:
    player = in_combat(state, combat, seat)
    if player.dead:
        raise RuleError(
            "dead_stops_rolling", Phrase("{name} is dead and stops rolling", name=player.name)
        )
    if seat in combat.escaped:
        raise RuleError(
            "already_escaped",
            Phrase("{name} has already escaped every monster", name=player.name),
        )
    return player


# "Had nothing of that kind to lose", one whole clause per thing a Bad Stuff can name (so
# each language says it with the right article and case).
NOTHING_TO_LOSE: dict[Loss, str] = {
    "headgear": phrase_template("had no headgear to lose"),
    "armor": phrase_template("had no armor to lose"),
    "footgear": phrase_template("had no footgear to lose"),
    "biggest_item": phrase_template("had no item with a bonus to lose"),
    "big_item": phrase_template("had no Big item to lose"),
    "class": phrase_template("had no class to lose"),
    "race": phrase_template("had no race to lose"),
    "style": phrase_template("had no style to lose"),
    "motivation": phrase_template("had no motivation to lose"),
}
# The words for each thing a Bad Stuff can name (in the victim's-choice errors).
LOSS_WORDS: dict[Loss, str] = {
    "headgear": Phrase("headgear"),
    "armor": Phrase("armor"),
    "footgear": Phrase("footgear"),
    "biggest_item": Phrase("item with a bonus"),
    "big_item": Phrase("Big item"),
    "class": Phrase("class"),
    "race": Phrase("race"),
    "style": Phrase("style"),
    "motivation": Phrase("motivation"),
}
_SLOTS: dict[Loss, str] = {"headgear": "headgear", "armor": "armor", "footgear": "footgear"}
_TRAIT_LOSSES: dict[Loss, TraitKind] = {
    "class": "class",
    "race": "race",
    "style": "style",
    "motivation": "motivation",
}


def loss_candidates(
    player: PlayerState, loss: Loss, gone: frozenset[str] = frozenset()
) -> tuple[tuple[str, str], ...]:
    """What a named loss could take from this player, as (key, name) pairs: the key is an
    item id, or the trait's name. More than one means the victim chooses (§7). Keys in
    `gone` were taken already by an earlier part of the same Bad Stuff.

    Worn slots and "the item that gives the biggest bonus" look at equipped items only (only
    they give bonuses); a Big item is any carried one; traits are the player's own.
    """
    if loss in _TRAIT_LOSSES:
        return tuple((t, t) for t in player.traits(_TRAIT_LOSSES[loss]) if t not in gone)
    items = [i for i in player.items if i.id not in gone]
    if loss in _SLOTS:
        found = [i for i in items if i.equipped and i.spec.slot == _SLOTS[loss]]
    elif loss == "biggest_item":
        worn = [i for i in items if i.equipped and i.spec.bonus > 0]
        top = max((i.spec.bonus for i in worn), default=0)
        found = [i for i in worn if i.spec.bonus == top]
    else:
        found = [i for i in items if i.spec.big]
    return tuple((i.id, i.spec.name) for i in found)


def bad_stuff_choices(
    state: GameState, seat: int, monster: int
) -> tuple[tuple[Loss, tuple[tuple[str, str], ...]], ...]:
    """The losses of a monster's Bad Stuff where this fighter would have to choose what to
    lose (several candidates), each with its candidates: the app asks before the roll.
    Empty outside combat, for an unknown seat or monster, or when nothing needs a choice."""
    combat = state.combat
    if combat is None or not 0 <= monster < len(combat.monsters):
        return ()
    if not 0 <= seat < len(state.players):
        return ()
    player = state.players[seat]
    bad = combat.monsters[monster].spec.bad_stuff
    if bad.death:
        return ()
    found = ((loss, loss_candidates(player, loss)) for loss in dict.fromkeys(bad.lose))
    return tuple((loss, options) for loss, options in found if len(options) > 1)


def _pick(
    player: PlayerState,
    loss: Loss,
    options: tuple[tuple[str, str], ...],
    picks: tuple[str, ...],
    monster: str,
) -> tuple[str, str]:
    """The victim's one pick among several candidates for one loss (§7), or RuleError."""
    wanted = {p.casefold() for p in picks}
    chosen = [o for o in options if o[0].casefold() in wanted]
    if len(chosen) == 1:
        return chosen[0]
    what = LOSS_WORDS[loss]
    if chosen:
        raise RuleError(
            "bad_stuff_choice",
            Phrase(
                "{name} loses one {what} to {monster}, not several",
                name=player.name,
                what=what,
                monster=monster,
            ),
        )
    raise RuleError(
        "bad_stuff_choice",
        Phrase(
            "{name} must choose which {what} {monster} takes: {names}",
            name=player.name,
            what=what,
            monster=monster,
            names=joined((name for _, name in options), "or"),
        ),
    )


def bad_stuff_losses(
    player: PlayerState, monster: MonsterInPlay, picks: tuple[str, ...]
) -> tuple[tuple[Loss, str, str] | tuple[Loss, None, None], ...]:
    """What a monster's named losses take from this player, in order: (loss, key, name), or
    (loss, None, None) when there is nothing of that kind (§7). When several fit one loss,
    the victim's pick decides, and a missing or double pick raises RuleError.

    Reads only: the rule of a run-away roll asks it, and the step applies what it says.
    """
    bad = monster.spec.bad_stuff
    if bad.death:
        return ()  # death takes every item anyway: nothing is chosen
    gone: set[str] = set()
    out: list[tuple[Loss, str, str] | tuple[Loss, None, None]] = []
    for loss in dict.fromkeys(bad.lose):
        options = loss_candidates(player, loss, frozenset(gone))
        if not options:
            out.append((loss, None, None))
            continue
        key, name = (
            options[0]
            if len(options) == 1
            else _pick(player, loss, options, picks, monster.spec.name)
        )
        gone.add(key)
        out.append((loss, key, name))
    return tuple(out)


def _bad_stuff(
    state: GameState, seat: int, monster: MonsterInPlay, picks: tuple[str, ...]
) -> tuple[GameState, dict[str, object]]:
    """Apply a monster's Bad Stuff: levels, named items and traits (as the victim picked),
    the hand-kept gear bonus, death; the rest stays words (§7)."""
    bad = monster.spec.bad_stuff
    said: list[str] = []  # Phrases, and the card's own text as written
    facts: dict[str, object] = {}
    player = state.players[seat]
    losses = bad_stuff_losses(player, monster, picks)
    if bad.lose_levels:
        level = max(1, player.level - bad.lose_levels)
        lost = player.level - level
        if lost:
            said.append(plural_phrase("lost a level", "lost {levels} levels", lost, levels=lost))
        else:
            said.append(Phrase("kept Level 1 (it cannot go lower)"))
        facts["levels_lost"] = lost
        state = with_player(state, seat, level=level)
    items_lost: list[str] = []
    traits_lost: list[str] = []
    for loss, key, name in losses:
        if key is None or name is None:
            said.append(Phrase(NOTHING_TO_LOSE[loss]))
            continue
        if loss in _TRAIT_LOSSES:
            state = remove_trait(state, seat, _TRAIT_LOSSES[loss], key)
            traits_lost.append(name)
        else:
            state = without_item(state, seat, key)
            items_lost.append(name)
        said.append(Phrase("lost {thing}", thing=name))
    if items_lost:
        facts["items_lost"] = tuple(items_lost)
    if traits_lost:
        facts["traits_lost"] = tuple(traits_lost)
    # A gear figure beside a named item is for tables that count that gear by hand: when
    # a tracked item was taken, the hand-kept bonus does not pay a second time.
    if bad.lose_gear and not bad.death and not items_lost:
        player = state.players[seat]
        lost = min(bad.lose_gear, max(0, player.gear_bonus))
        if lost:
            said.append(
                plural_phrase(
                    "lost {points} gear bonus", "lost {points} gear bonus", lost, points=lost
                )
            )
            facts["gear_lost"] = lost
            state = with_player(state, seat, gear_bonus=player.gear_bonus - lost)
        else:
            said.append(Phrase("had no hand-kept gear bonus to lose"))
    if bad.death:
        said.append(Phrase("died"))
        facts["died"] = True
        state = kill_player(state, seat)
    if bad.text:
        said.append(bad.text)
    facts["bad_stuff_said"] = tuple(Said.of(words) for words in said)
    return state, facts


class RunAway(BaseAction):
    """One fighter rolls to run away from one monster: 5+ escapes (RULES.md §7)."""

    type: Literal["run_away"] = "run_away"
    fighter: Seat
    monster: Annotated[int, Field(ge=0)]
    roll: D6 | None = None
    # The victim's choice, when the Bad Stuff names a thing and several fit ("lose your
    # class" with two classes): item ids or trait names. Ignored on an escape.
    picks: tuple[Annotated[str, Field(min_length=1, max_length=60)], ...] = ()
    override: Override = None
    die: DieName = ""


def _run_away_modifier(player: PlayerState, monster: MonsterInPlay) -> int:
    return player.total_run_away_bonus + monster.spec.run_away_modifier


@rule.register
def _(action: RunAway, state: GameState) -> None:
    """Each fighter rolls per monster in the order they choose: 5+ with modifiers escapes,
    failing brings the Bad Stuff; a fighter who dies stops rolling (§7)."""
    combat = current_combat(state)
    player = _running_fighter(state, combat, action.fighter)
    index = monster_index(combat, action.monster)
    monster = combat.monsters[index]
    if action.roll is None:
        raise RuleError("roll_missing", Phrase("The run-away roll was not recorded"))
    _no_need_to_run(combat, action.override)
    if any(r.fighter == action.fighter and r.monster == index for r in combat.rolls):
        raise RuleError(
            "already_rolled",
            Phrase(
                "{name} has already run from {monster}",
                name=player.name,
                monster=monster.spec.name,
            ),
        )
    if not rules.run_away_escapes(action.roll, _run_away_modifier(player, monster)):
        bad_stuff_losses(player, monster, action.picks)  # the victim has chosen what to lose


@step.register
def _(action: RunAway, state: GameState) -> GameState:
    combat = current_combat(state)
    index = action.monster
    monster = combat.monsters[index]
    assert action.roll is not None  # the rule refuses a roll that was not recorded
    modifier = _run_away_modifier(state.players[action.fighter], monster)
    escaped = rules.run_away_escapes(action.roll, modifier)
    facts: dict[str, object] = {}
    if not escaped:
        state, facts = _bad_stuff(state, action.fighter, monster, action.picks)
    record = RunAwayRoll(
        fighter=action.fighter,
        monster=index,
        roll=action.roll,
        modifier=modifier,
        escaped=escaped,
        **facts,
    )
    state = state.evolve(
        **{
            "combat": combat.evolve(running=True, rolls=(*combat.rolls, record)),
            "last_roll": DieRoll(value=action.roll, player=action.fighter, purpose="run away"),
        }
    )
    return finish_running_if_done(state)


@fill_rolls.register
def _(action: RunAway, state: GameState, dice: RandomSource) -> BaseAction:
    return action if action.roll is not None else action.evolve(roll=d6(dice))


@words.register
def _(a: RunAway, s: GameState) -> str:
    rolled = (
        phrase_template("{name} rolls {roll} to run from {monster} (on {die})") if a.die else None
    )
    return Phrase(
        rolled or phrase_template("{name} rolls {roll} to run from {monster}"),
        name=player_name(s, a.fighter),
        roll=a.roll,
        monster=monster_name(s, a.monster),
        die=a.die,
    )


class SacrificeAlly(BaseAction):
    """Give up the Ally to escape every monster; the owner decides for the partner (§4)."""

    type: Literal["sacrifice_ally"] = "sacrifice_ally"
    player: Seat
    partner_escapes: bool = False


@rule.register
def _(action: SacrificeAlly, state: GameState) -> None:
    """Sacrificing an Ally escapes every monster; the owner decides for the partner (§4, §7)."""
    combat = current_combat(state)
    player = _running_fighter(state, combat, action.player)
    if player.ally is None:
        raise RuleError("no_ally", Phrase("{name} has no Ally to sacrifice", name=player.name))
    _no_need_to_run(combat, None)


@step.register
def _(action: SacrificeAlly, state: GameState) -> GameState:
    combat = current_combat(state)
    escaped = {action.player}
    partners = [s for s in combat.fighters if s != action.player]
    if action.partner_escapes and partners and not state.players[partners[0]].dead:
        escaped.add(partners[0])
    state = with_player(state, action.player, ally=None)
    state = state.evolve(
        **{"combat": combat.evolve(**{"running": True, "escaped": combat.escaped | escaped})}
    )
    return finish_running_if_done(state)


@words.register
def _(a: SacrificeAlly, s: GameState) -> str:
    template = (
        phrase_template("{name} sacrifices their Ally and escapes (the partner too)")
        if a.partner_escapes
        else phrase_template("{name} sacrifices their Ally and escapes")
    )
    return Phrase(template, name=player_name(s, a.player))
