"""Running away (RULES.md §7): one roll per fighter and monster, Bad Stuff on a failure,
and sacrificing an Ally to escape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters import allowance
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
from companion.core.chapters.character import (
    kill_player,
    remove_trait,
    settle_allowances,
    without_ally,
)
from companion.core.chapters.combat import (
    finish_running_if_done,
    in_combat,
    monster_index,
    pursues,
)
from companion.core.chapters.gear import without_item
from companion.core.chapters.rolls import d6, fill_rolls
from companion.core.chapters.table import current_combat, with_player
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.models import SECOND_READING, Loss, TraitKind
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
MAX_DISCARDS = 3  # cards a discard-powered ability may use at a time
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


@dataclass(frozen=True)
class Question:
    """A choice a Bad Stuff leaves to its victim, asked before the roll: which `count` of the
    `options` (key, name) it takes. `what` is a named loss, "items" (a number of items of the
    victim's choice) or an allowance that goes with a lost trait (`allowance.Excess.what`)."""

    what: str
    options: tuple[tuple[str, str], ...]
    count: int = 1
    source: Literal["loss", "items", "allowance"] = "loss"


@dataclass(frozen=True)
class Taken:
    """One thing a Bad Stuff takes: a named loss (`key` None when there was nothing of that
    kind), an item of the victim's choice, or what the victim gives up when an allowance
    went with a lost trait."""

    source: Literal["loss", "items", "allowance"]
    what: str
    key: str | None
    name: str | None


def _chosen(
    player: PlayerState,
    question: Question,
    picks: tuple[str, ...],
    monster: str,
    open_questions: list[Question] | None,
) -> list[tuple[str, str]]:
    """The victim's picks for one question. Without an answer: RuleError, or, when
    collecting open questions, the question noted and its first options taken."""
    if len(question.options) <= question.count:
        return list(question.options)
    wanted = {p.casefold() for p in picks}
    chosen = [o for o in question.options if o[0].casefold() in wanted]
    if len(chosen) == question.count:
        return chosen
    if open_questions is not None:
        open_questions.append(question)
        return list(question.options[: question.count])
    names = joined((name for _, name in question.options), "or")
    if question.source == "items":
        raise RuleError(
            "bad_stuff_choice",
            plural_phrase(
                "{name} must choose the item {monster} takes: {names}",
                "{name} must choose the {count} items {monster} takes: {names}",
                question.count,
                name=player.name,
                count=question.count,
                monster=monster,
                names=names,
            ),
        )
    if question.source == "allowance":  # an allowance that went with a lost trait
        allowance.chosen_drops(
            player,
            (allowance.Excess(question.what, question.options, question.count),),  # type: ignore[arg-type]
            picks,
        )
    what = LOSS_WORDS[question.what]  # type: ignore[index]
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
            names=names,
        ),
    )


def _walk(
    player: PlayerState,
    monster: MonsterInPlay,
    picks: tuple[str, ...],
    open_questions: list[Question] | None = None,
) -> tuple[Taken, ...]:
    """Everything a monster's Bad Stuff takes from this player, in order (§7): its named
    losses, the items of the victim's choice, then what goes with an allowance the lost
    traits took. Reads only."""
    bad = monster.spec.bad_stuff
    if bad.death:
        return ()  # death takes every item anyway: nothing is chosen
    name = monster.spec.name
    gone: set[str] = set()
    lost_traits: list[tuple[TraitKind, str]] = []
    taken: list[Taken] = []
    for loss in dict.fromkeys(bad.lose):
        options = loss_candidates(player, loss, frozenset(gone))
        if not options:
            taken.append(Taken("loss", loss, None, None))
            continue
        [(key, label)] = _chosen(player, Question(loss, options), picks, name, open_questions)
        gone.add(key)
        if loss in _TRAIT_LOSSES:
            lost_traits.append((_TRAIT_LOSSES[loss], key))
        taken.append(Taken("loss", loss, key, label))
    if bad.lose_items:
        options = tuple((i.id, i.spec.name) for i in player.items if i.id not in gone)
        question = Question("items", options, bad.lose_items, "items")
        for key, label in _chosen(player, question, picks, name, open_questions):
            gone.add(key)
            taken.append(Taken("items", "items", key, label))
    if not lost_traits:
        return tuple(taken)  # only a lost trait takes an allowance with it
    lost_items = [t for t in gone if any(i.id == t for i in player.items)]
    for excess in allowance.lost_allowances(
        player, picks, lost_traits=lost_traits, lost_items=lost_items
    ):
        question = Question(excess.what, excess.options, excess.count, "allowance")
        for key, label in _chosen(player, question, picks, name, open_questions):
            taken.append(Taken("allowance", excess.what, key, label))
    return tuple(taken)


def bad_stuff_questions(
    state: GameState, seat: int, monster: int, picks: tuple[str, ...] = ()
) -> tuple[Question, ...]:
    """What the victim must still choose, given the picks made so far, if this fighter fails
    to run away from this monster: the app asks before the roll and passes the picks with
    it. Empty outside combat, for an unknown seat or monster, or when nothing needs a choice.
    """
    combat = state.combat
    if combat is None or not 0 <= monster < len(combat.monsters):
        return ()
    if not 0 <= seat < len(state.players):
        return ()
    found: list[Question] = []
    _walk(state.players[seat], combat.monsters[monster], picks, found)
    return tuple(found)


def bad_stuff_choices(
    state: GameState, seat: int, monster: int
) -> tuple[tuple[Loss, tuple[tuple[str, str], ...]], ...]:
    """The named losses of a monster's Bad Stuff where this fighter would have to choose one
    of several candidates, each with its candidates (see `bad_stuff_questions` for every
    choice, a number of items and allowances included)."""
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


def _bad_stuff(
    state: GameState, seat: int, monster: MonsterInPlay, picks: tuple[str, ...]
) -> tuple[GameState, dict[str, object]]:
    """Apply a monster's Bad Stuff: levels, named items and traits and items of the victim's
    choice (as the victim picked), what goes with a lost allowance, the hand-kept gear
    bonus, death; the rest stays words (§7)."""
    bad = monster.spec.bad_stuff
    said: list[str] = []  # Phrases, and the card's own text as written
    facts: dict[str, object] = {}
    player = state.players[seat]
    taken = _walk(player, monster, picks)
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
    drops: list[tuple[allowance.Excessive, str, str]] = []
    for thing in taken:
        key, name = thing.key, thing.name
        if key is None or name is None:
            said.append(Phrase(NOTHING_TO_LOSE[thing.what]))  # type: ignore[index]
            continue
        if thing.source == "allowance":
            drops.append((thing.what, key, name))  # type: ignore[arg-type]
            (items_lost if thing.what == "big_item" else traits_lost).append(name)
        elif thing.what in _TRAIT_LOSSES:
            state = remove_trait(state, seat, _TRAIT_LOSSES[thing.what], key)
            traits_lost.append(name)
        else:
            state = without_item(state, seat, key)
            items_lost.append(name)
        said.append(Phrase("lost {thing}", thing=name))
    if traits_lost or drops:
        state = settle_allowances(state, seat, tuple(drops))
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
    """One fighter rolls to run away from one monster: 5+ escapes (RULES.md §7).

    A monster that does not pursue the fighter (their Level is at or below the one it
    spares) needs no roll: they escape it. `discards` are cards a fighter with the ability
    (the classic Wizard's flight) discards after seeing the roll, +1 each, at most 3.
    """

    type: Literal["run_away"] = "run_away"
    fighter: Seat
    monster: Annotated[int, Field(ge=0)]
    roll: D6 | None = None
    # The victim's choices, when the Bad Stuff leaves one ("lose your class" with two
    # classes, "lose two items"): item ids or trait names. Ignored on an escape.
    picks: tuple[Annotated[str, Field(min_length=1, max_length=60)], ...] = ()
    discards: Annotated[int, Field(ge=0, le=MAX_DISCARDS)] = 0
    override: Override = None
    die: DieName = ""


def _run_from(
    action: RunAway, player: PlayerState, monster: MonsterInPlay
) -> tuple[bool, int, bool]:
    """Whether the monster pursues the fighter, the modifier on their roll, and whether they
    escape it: a monster that does not pursue is escaped without a roll (§7)."""
    chased = pursues(monster, player)
    modifier = player.total_run_away_bonus + monster.spec.run_away_modifier + action.discards
    return chased, modifier, not chased or rules.run_away_escapes(action.roll or 0, modifier)


def _chased(state: GameState, action: RunAway) -> bool:
    combat = state.combat
    if combat is None or not 0 <= action.monster < len(combat.monsters):
        return True
    if not 0 <= action.fighter < len(state.players):
        return True
    return pursues(combat.monsters[action.monster], state.players[action.fighter])


@rule.register
def rule_run_away(action: RunAway, state: GameState) -> None:
    """Each fighter rolls per monster in the order they choose: 5+ with modifiers escapes,
    failing brings the Bad Stuff; a fighter who dies stops rolling (§7)."""
    combat = current_combat(state)
    player = _running_fighter(state, combat, action.fighter)
    index = monster_index(combat, action.monster)
    monster = combat.monsters[index]
    chased, _modifier, escaped = _run_from(action, player, monster)
    if action.roll is None and chased:
        raise RuleError("roll_missing", Phrase("The run-away roll was not recorded"))
    if action.discards and "flight" not in player.abilities:
        raise RuleError(
            "no_flight",
            Phrase("{name} cannot discard cards to run away faster", name=player.name),
        )
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
    if not escaped:
        _walk(player, monster, action.picks)  # the victim has chosen what to lose


@step.register
def step_run_away(action: RunAway, state: GameState) -> GameState:
    """The roll is kept; failing brings the Bad Stuff; the last roll ends the fight (§7)."""
    combat = current_combat(state)
    index = action.monster
    monster = combat.monsters[index]
    chased, modifier, escaped = _run_from(action, state.players[action.fighter], monster)
    roll = action.roll or 0  # the rule asks for a roll wherever one is needed
    facts: dict[str, object] = {}
    if not escaped:
        state, facts = _bad_stuff(state, action.fighter, monster, action.picks)
    record = RunAwayRoll(
        fighter=action.fighter,
        monster=index,
        roll=roll if chased else 0,
        modifier=modifier,
        escaped=escaped,
        pursued=chased,
        **facts,
    )
    changes: dict[str, object] = {
        "combat": combat.evolve(running=True, rolls=(*combat.rolls, record))
    }
    if chased:
        changes["last_roll"] = DieRoll(value=roll, player=action.fighter, purpose="run away")
    return finish_running_if_done(state.evolve(**changes))


@fill_rolls.register
def fill_rolls_run_away(action: RunAway, state: GameState, dice: RandomSource) -> BaseAction:
    """Rolls the run-away d6 where a pursuing monster needs one (§7)."""
    if action.roll is not None or not _chased(state, action):
        return action
    return action.evolve(roll=d6(dice))


@words.register
def words_run_away(a: RunAway, s: GameState) -> str:
    """History: the run-away roll against a monster, or that it did not pursue."""
    if a.roll is None:
        return Phrase(
            "{monster} does not pursue {name}",
            name=player_name(s, a.fighter),
            monster=monster_name(s, a.monster),
        )
    if _dies(a, s):
        rolled = (
            phrase_template(
                "{name} rolls {roll} to run from {monster} (on {die}), is caught and dies"
            )
            if a.die
            else phrase_template("{name} rolls {roll} to run from {monster}, is caught and dies")
        )
    else:
        rolled = (
            phrase_template("{name} rolls {roll} to run from {monster} (on {die})")
            if a.die
            else phrase_template("{name} rolls {roll} to run from {monster}")
        )
    sentence = Phrase(
        rolled,
        name=player_name(s, a.fighter),
        roll=a.roll,
        monster=monster_name(s, a.monster),
        die=a.die,
    )
    if not a.discards:
        return sentence
    return plural_phrase(
        "{sentence}, discarding a card to run faster",
        "{sentence}, discarding {cards} cards to run faster",
        a.discards,
        sentence=sentence,
        cards=a.discards,
    )


def _dies(action: RunAway, state: GameState) -> bool:
    """Whether this roll fails against a monster whose Bad Stuff is death (§7, §8)."""
    combat = state.combat
    if combat is None or not 0 <= action.monster < len(combat.monsters):
        return False
    if not 0 <= action.fighter < len(state.players):
        return False
    monster = combat.monsters[action.monster]
    _chased, _modifier, escaped = _run_from(action, state.players[action.fighter], monster)
    return not escaped and monster.spec.bad_stuff.death


class SacrificeAlly(BaseAction):
    """Give up an Ally (`ally` names which, when there are two) to escape every monster; the
    owner decides for the partner (§4)."""

    type: Literal["sacrifice_ally"] = "sacrifice_ally"
    player: Seat
    partner_escapes: bool = False
    ally: str | None = None
    override: Override = None


@rule.register
def rule_sacrifice_ally(action: SacrificeAlly, state: GameState) -> None:
    """Sacrificing an Ally escapes every monster; a fighter who sacrifices decides for the
    helper, a helper's sacrifice frees the helper alone (from rules 4; §4, §7, §11)."""
    combat = current_combat(state)
    player = _running_fighter(state, combat, action.player)
    if player.ally is None:
        raise RuleError("no_ally", Phrase("{name} has no Ally to sacrifice", name=player.name))
    without_ally(player, action.ally)
    _no_need_to_run(combat, action.override)
    if (
        action.partner_escapes
        and action.player != combat.fighter
        and state.rules >= SECOND_READING
        and action.override is None
    ):
        raise RuleError(
            "helper_sacrifice",
            Phrase("A helper's Ally frees only the helper: the fighter still runs"),
        )


@step.register
def step_sacrifice_ally(action: SacrificeAlly, state: GameState) -> GameState:
    """The Ally goes; its owner, and the partner if chosen, escape every monster (§7)."""
    combat = current_combat(state)
    escaped = {action.player}
    partners = [s for s in combat.fighters if s != action.player]
    if action.partner_escapes and partners and not state.players[partners[0]].dead:
        escaped.add(partners[0])
    allies = without_ally(state.players[action.player], action.ally)
    state = with_player(state, action.player, allies=allies)
    state = state.evolve(
        **{"combat": combat.evolve(**{"running": True, "escaped": combat.escaped | escaped})}
    )
    return finish_running_if_done(state)


@words.register
def words_sacrifice_ally(a: SacrificeAlly, s: GameState) -> str:
    """History: who sacrifices an Ally to escape, and whether the partner does too."""
    template = (
        phrase_template("{name} sacrifices their Ally and escapes (the partner too)")
        if a.partner_escapes
        else phrase_template("{name} sacrifices their Ally and escapes")
    )
    return Phrase(template, name=player_name(s, a.player))
