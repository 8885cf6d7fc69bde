"""Combat (RULES.md §6): monsters, enhancers, the helper, one-shots, the live verdict, and
how a combat ends (a kill, a defeat without a kill, or after running away)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal, Protocol

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    BaseAction,
    Override,
    Seat,
    monster_name,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.levels import check_level_up, level_up
from companion.core.chapters.table import alive, current_combat, not_running, player_at, win
from companion.core.errors import RuleError
from companion.core.models import LEGACY_RULES, EnhancerSpec, MonsterSpec
from companion.core.phrase import Phrase, joined, phrase_template
from companion.core.state import (
    CombatResult,
    CombatState,
    GameState,
    MonsterInPlay,
    OneShot,
    Phase,
    PlayerState,
)

_COMBAT_PHASES = (Phase.KICK_OPEN_THE_DOOR, Phase.LOOT_OR_TROUBLE)


def _refresh_monster(monster: MonsterInPlay, fighters: list[PlayerState]) -> MonsterInPlay:
    strength = rules.monster_strength(monster.spec, monster.enhancers, fighters)
    treasure = rules.monster_treasure(monster.spec, monster.enhancers)
    if strength == monster.strength and treasure == monster.treasure:
        return monster
    return monster.evolve(strength=strength, treasure=treasure)


_NO_TAGS: frozenset[str] = frozenset()


def monster_tags(combat: CombatState) -> frozenset[str]:
    """The tags of the monsters in the fight ("undead", "demon")."""
    found = _NO_TAGS
    for monster in combat.monsters:
        if monster.spec.tags:
            found = found | monster.spec.tags
    return found


TURNING_BONUS = 3  # per card the Cleric discards against Undead
BACKSTAB_PENALTY = 2  # per backstab on a player in the fight
UNDEAD = "undead"


def ability_bonus(combat: CombatState, seat: int, tags: frozenset[str]) -> int:
    """What abilities used in this combat add to one fighter's strength (§4): berserking
    (+1 a card), turning against Undead (+3 a card), and the backstabs they suffered."""
    if not combat.uses:
        return 0
    total = 0
    for use in combat.uses:
        if use.player == seat and use.ability == "berserking":
            total += use.cards
        elif use.player == seat and use.ability == "turning" and UNDEAD in tags:
            total += TURNING_BONUS * use.cards
        elif use.ability == "backstab" and use.target == seat:
            total -= BACKSTAB_PENALTY
    return total


def _strength_in(combat: CombatState, seat: int, player: PlayerState, tags: frozenset[str]) -> int:
    if seat in combat.level_only:
        return player.level
    strength = player.strength
    if tags:
        strength += player.tag_bonus(tags)
    if combat.uses:
        strength += ability_bonus(combat, seat, tags)
    return strength


def refresh_combat(state: GameState, combat: CombatState) -> CombatState:
    """Recompute both sides' strength, the verdict and the rewards (RULES.md §6).

    Written as plain loops: this runs after almost every action of a combat.
    """
    fighters = [state.players[s] for s in combat.fighters]
    monsters = combat.monsters
    fresh = tuple(_refresh_monster(m, fighters) for m in monsters)
    if any(new is not old for new, old in zip(fresh, monsters, strict=True)):
        monsters = fresh  # else keep the identity, so the next action can skip this
    tags = monster_tags(combat)
    fighter = _strength_in(combat, combat.fighter, fighters[0], tags)
    helper = 0
    if combat.helper is not None:
        helper = _strength_in(combat, combat.helper, fighters[1], tags)
    players = fighter + helper
    monster_total = treasure = levels = 0
    for shot in combat.one_shots:
        if shot.side == "players":
            players += shot.bonus
        else:
            monster_total += shot.bonus
    for monster in monsters:
        monster_total += monster.strength
        treasure += monster.treasure
        levels += monster.spec.levels_per_kill
    by_ability = fighters[0].can("wins_ties") or (
        len(fighters) > 1 and fighters[1].can("wins_ties")
    )
    return combat.evolve(
        **{
            "monsters": monsters,
            "fighter_strength": fighter,
            "helper_strength": helper,
            "players_strength": players,
            "monsters_strength": monster_total,
            "ties_won_by_ability": by_ability,
            "fighters_winning": rules.fighters_win(
                players, monster_total, combat.wins_ties or by_ability
            ),
            "treasure": treasure + combat.removed_treasure,
            "levels": levels,
        }
    )


def end_combat(state: GameState, result: CombatResult) -> GameState:
    """The combat is over: one-shots are discarded, the turn moves on to Charity."""
    combat = current_combat(state)
    phase = state.phase
    if combat.fighter == state.current and combat.started_in in _COMBAT_PHASES:
        phase = Phase.CHARITY
    return state.evolve(combat=None, last_combat=result, phase=phase)


def pursues(monster: MonsterInPlay, player: PlayerState) -> bool:
    """Whether a monster pursues a fleeing player: some will not pursue anyone of a Level
    at or below theirs, who need not roll to run away from them."""
    return player.level > monster.spec.pursues_above_level


def _fighter_done(state: GameState, combat: CombatState, seat: int) -> bool:
    player = state.players[seat]
    if player.dead or seat in combat.escaped:
        return True
    faced = {r.monster for r in combat.rolls if r.fighter == seat}
    faced.update(n for n, m in enumerate(combat.monsters) if not pursues(m, player))
    return len(faced) >= len(combat.monsters)


def finish_running_if_done(state: GameState) -> GameState:
    """After every fighter has rolled against every monster (or died), the monsters go (§7)."""
    combat = current_combat(state)
    if not all(_fighter_done(state, combat, s) for s in combat.fighters):
        return state
    result = CombatResult(
        outcome="ran_away",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.spec.name for m in combat.monsters),
        rolls=combat.rolls,
    )
    return end_combat(state, result)


def open_combat(state: GameState) -> CombatState:
    """The combat going on, while it can still change: RuleError when there is none or
    when running away has started (§7)."""
    combat = current_combat(state)
    not_running(combat)
    return combat


def _combat_update(state: GameState, **changes: object) -> GameState:
    return state.evolve(combat=current_combat(state).evolve(**changes))


def in_combat(state: GameState, combat: CombatState, seat: int) -> PlayerState:
    """A fighter or the helper of this combat, or RuleError naming the player who is not."""
    player = player_at(state, seat)
    if seat not in combat.fighters:
        raise RuleError("not_fighting", Phrase("{name} is not in this combat", name=player.name))
    return player


def monster_index(combat: CombatState, index: int) -> int:
    """The place of a monster in the combat, or RuleError naming the one that is not there."""
    if not 0 <= index < len(combat.monsters):
        raise RuleError(
            "no_such_monster",
            Phrase(
                "There is no monster {index} in this combat (monsters count from 0)", index=index
            ),
        )
    return index


class StartCombat(BaseAction):
    """A fighter faces one or more monsters (RULES.md §6)."""

    type: Literal["start_combat"] = "start_combat"
    fighter: Seat
    monsters: Annotated[tuple[MonsterSpec, ...], Field(min_length=1)]
    override: Override = None


@rule.register
def _(action: StartCombat, state: GameState) -> None:
    """Monsters are fought when kicking open the door or looking for trouble (§3, §6)."""
    fighter = player_at(state, action.fighter)
    if state.combat is not None:
        raise RuleError("one_combat", Phrase("A combat is already going on"))
    alive(fighter, phrase_template("fight"))
    if action.override is None:
        if action.fighter != state.current:
            raise RuleError("fight_own_turn", Phrase("Monsters are fought on your own turn"))
        charity = state.charity
        if state.rules > LEGACY_RULES and charity is not None and charity.giver == state.current:
            raise RuleError(
                "turn_over", Phrase("Charity ends the turn: the next player's turn begins")
            )
        if state.phase not in _COMBAT_PHASES:
            raise RuleError(
                "fight_phase",
                Phrase(
                    "Monsters are fought after kicking open the door or when looking for trouble"
                ),
            )


@step.register
def _(action: StartCombat, state: GameState) -> GameState:
    combat = CombatState(
        fighter=action.fighter,
        monsters=tuple(MonsterInPlay(spec=m) for m in action.monsters),
        started_in=state.phase,
    )
    return state.evolve(combat=combat)


@words.register
def _(a: StartCombat, s: GameState) -> str:
    names = joined(Phrase(_MONSTER_AT, monster=m.name, level=m.level) for m in a.monsters)
    return Phrase("{name} fights {monsters}", name=player_name(s, a.fighter), monsters=names)


class AddMonster(BaseAction):
    """Another monster joins the combat: brought in by a card (Wandering Monster), or, with
    `joins`, by its own tag (an Undead joining a fight against an Undead)."""

    type: Literal["add_monster"] = "add_monster"
    monster: MonsterSpec
    joins: bool = False


@rule.register
def _(action: AddMonster, state: GameState) -> None:
    """More monsters join: the fighters must beat their combined strength. A monster joins
    without a card only when it shares a joining tag of the edition with one in the fight
    (§6; classic: Undead; the land of candy: Undead and Demons)."""
    combat = open_combat(state)
    if not action.joins:
        return
    shared = action.monster.tags & monster_tags(combat) & set(state.setup.edition.joining_tags)
    if not shared:
        raise RuleError(
            "cannot_join",
            Phrase(
                "{monster} can join only with a card: it shares no joining tag "
                "with a monster in this fight",
                monster=action.monster.name,
            ),
        )


@step.register
def _(action: AddMonster, state: GameState) -> GameState:
    combat = current_combat(state)
    return _combat_update(state, monsters=(*combat.monsters, MonsterInPlay(spec=action.monster)))


@words.register
def _(a: AddMonster, s: GameState) -> str:
    return Phrase(
        "{monster} joins the combat",
        monster=Phrase(_MONSTER_AT, monster=a.monster.name, level=a.monster.level),
    )


# What treasure a defeat without a kill gives: a number the card names, "shown" for what
# the combat shows for it (enhancers included), or left out for the edition's default.
Treasure = Annotated[int, Field(ge=0, le=100)] | Literal["shown"] | None


def without_kill_gives_treasure(state: GameState) -> bool:
    """Whether a monster a card removes without a kill gives its treasure by default: the
    edition says (rules 3 on); before, it always did."""
    return state.rules <= LEGACY_RULES or state.setup.edition.treasure_without_kill


# The helper's share of the treasure, as the fighter and helper agreed (§6): how many of
# the treasures the helper takes, and whether the helper picks first.
HelperTreasure = Annotated[int, Field(ge=0, le=100)]


class RemoveMonster(BaseAction):
    """A card takes a monster out of the combat without killing it. Taking the last one
    ends the combat (a defeat without a kill): `helper_treasure` and `helper_first` are
    then the helper's share as agreed, as for `ResolveCombat`."""

    type: Literal["remove_monster"] = "remove_monster"
    monster: Annotated[int, Field(ge=0)]
    # Its treasure, won unless the fighters then run away (see `Treasure`).
    treasure: Treasure = None
    helper_treasure: HelperTreasure = 0
    helper_first: bool = False

    def gives(self, state: GameState) -> int:
        """The treasure the monster leaves behind (counted when the combat ends)."""
        gone = current_combat(state).monsters[self.monster]
        if isinstance(self.treasure, int):
            return self.treasure
        if self.treasure == "shown" or without_kill_gives_treasure(state):
            return gone.treasure
        return 0


class Removal(Protocol):
    """An action that takes a monster out of the combat (a card, a charm) and may end it."""

    @property
    def monster(self) -> int: ...
    @property
    def helper_treasure(self) -> int: ...
    @property
    def helper_first(self) -> bool: ...
    def gives(self, state: GameState) -> int: ...


def treasure_if_last(action: Removal, state: GameState) -> int | None:
    """The treasure the combat ends with when `action` takes its last monster; None while
    other monsters stay (the share is settled when the combat ends)."""
    combat = current_combat(state)
    if len(combat.monsters) != 1 or action.monster != 0:  # not the last (or no such one)
        return None
    return combat.removed_treasure + action.gives(state)


def check_removal(action: Removal, state: GameState) -> None:
    """The monster is in the fight; a share for the helper comes with the last one only,
    when there is a helper, and is no more than the treasure the combat ends with."""
    combat = open_combat(state)
    monster_index(combat, action.monster)

    def total() -> int:
        ends_with = treasure_if_last(action, state)
        if ends_with is None:
            raise RuleError(
                "helper_share_later",
                Phrase(
                    "The helper's share goes with the last monster ({left} more in the fight)",
                    left=len(combat.monsters) - 1,
                ),
            )
        return ends_with

    check_helper_share(combat, action.helper_treasure, action.helper_first, total)


def check_helper_share(
    combat: CombatState, share: int, first: bool, total: Callable[[], int]
) -> None:
    """A share for the helper (`share` treasures, or picking `first`) needs a helper, and
    is no more than `total()`, the treasure the combat ends with (asked only then)."""
    if not (share or first):
        return
    if combat.helper is None:
        raise RuleError("no_helper", Phrase("Nobody is helping in this combat"))
    ends_with = total()
    if share > ends_with:
        raise RuleError(
            "helper_share",
            Phrase(
                "The helper's share ({share}) cannot be more than the treasure ({total})",
                share=share,
                total=ends_with,
            ),
        )


@rule.register
def _(action: RemoveMonster, state: GameState) -> None:
    check_removal(action, state)


@step.register
def _(action: RemoveMonster, state: GameState) -> GameState:
    return remove_monster(state, action)


def remove_monster(state: GameState, action: Removal) -> GameState:
    """A card takes a monster away without killing it: no level, but the treasure it gives
    counts unless the fighters then flee the rest; with none left, the fighters defeated
    them without a kill and win what the removed monsters gave (§6), the helper taking
    the share the action names."""
    combat = current_combat(state)
    index = action.monster
    gone = combat.monsters[index]
    rest = combat.monsters[:index] + combat.monsters[index + 1 :]
    total = combat.removed_treasure + action.gives(state)
    state = _combat_update(
        state, monsters=rest, removed=(*combat.removed, gone.spec), removed_treasure=total
    )
    if rest:
        return state
    result = CombatResult(
        outcome="defeat",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.name for m in (*combat.removed, gone.spec)),
        treasure=total,
        treasure_face_up=face_up(state, combat, "defeat"),
        helper_treasure=action.helper_treasure,
        helper_picks_first=action.helper_first,
    )
    return end_combat(state, result)


# History sentences are whole templates with named parameters, ready to be translated.
# Sentences that differ by side are whole sentences, so each translates as a whole.
_NO_ONE_SHOTS = {
    "players": phrase_template("No one-shots have been played for the players"),
    "monsters": phrase_template("No one-shots have been played for the monsters"),
}
_ONE_SHOT_FOR = {
    "players": phrase_template("{what} ({bonus:+d}) for the players"),
    "monsters": phrase_template("{what} ({bonus:+d}) for the monsters"),
}
_ONE_SHOTS_BACK = {
    "players": phrase_template("One-shots for the players taken back"),
    "monsters": phrase_template("One-shots for the monsters taken back"),
}
_MONSTER_AT = phrase_template("{monster} (Level {level})")
MONSTER_REMOVED = phrase_template(
    "{monster} leaves the combat (its treasure still counts: {treasure})"
)
MONSTER_REMOVED_EMPTY = phrase_template("{monster} leaves the combat (no treasure for it)")
DEFEATED_WITHOUT_KILL = phrase_template(
    "{fighter} defeats the monsters without killing them (treasure: {treasure})"
)


@words.register
def _(a: RemoveMonster, s: GameState) -> str:
    treasure = a.treasure if isinstance(a.treasure, int) else 0
    if s.combat is not None and 0 <= a.monster < len(s.combat.monsters):
        treasure = a.gives(s)
    template = MONSTER_REMOVED if treasure else MONSTER_REMOVED_EMPTY
    return Phrase(template, monster=monster_name(s, a.monster), treasure=treasure)


class AddEnhancer(BaseAction):
    """An enhancer is played on one monster: strength and treasure change."""

    type: Literal["add_enhancer"] = "add_enhancer"
    monster: Annotated[int, Field(ge=0)]
    enhancer: EnhancerSpec


@rule.register
def _(action: AddEnhancer, state: GameState) -> None:
    """An enhancer goes on one monster: its strength and treasure change (§6)."""
    monster_index(open_combat(state), action.monster)


@step.register
def _(action: AddEnhancer, state: GameState) -> GameState:
    monsters = list(current_combat(state).monsters)
    target = monsters[action.monster]
    monsters[action.monster] = target.evolve(enhancers=(*target.enhancers, action.enhancer))
    return _combat_update(state, monsters=tuple(monsters))


@words.register
def _(a: AddEnhancer, s: GameState) -> str:
    return Phrase(
        "{enhancer} ({bonus:+d}) is played on {monster}",
        enhancer=a.enhancer.name,
        bonus=a.enhancer.bonus,
        monster=monster_name(s, a.monster),
    )


class AddHelper(BaseAction):
    """Another player helps the fighter (at most one helper)."""

    type: Literal["add_helper"] = "add_helper"
    helper: Seat


def _check_helper(state: GameState, combat: CombatState, seat: int) -> None:
    """Anyone but the fighter may help, if alive (§6, §8)."""
    player = player_at(state, seat)
    if seat == combat.fighter:
        raise RuleError("help_self", Phrase("A fighter cannot help themselves"))
    alive(player, phrase_template("help in combat"))


@rule.register
def _(action: AddHelper, state: GameState) -> None:
    """At most one other player helps; their whole strength counts (§6)."""
    combat = open_combat(state)
    if combat.helper is not None and action.helper != combat.fighter:
        raise RuleError("one_helper", Phrase("Only one player can help in a combat"))
    _check_helper(state, combat, action.helper)


@step.register
def _(action: AddHelper, state: GameState) -> GameState:
    return _combat_update(state, helper=action.helper, helped=True)


@words.register
def _(a: AddHelper, s: GameState) -> str:
    return Phrase("{name} helps", name=player_name(s, a.helper))


class RemoveHelper(BaseAction):
    """The helper leaves the combat."""

    type: Literal["remove_helper"] = "remove_helper"
    override: Override = None


def _helper_stays(state: GameState, combat: CombatState, override: str | None) -> None:
    """Where the edition says so (the fairy-tale kingdom), a player who volunteered to help
    cannot back out (rules 3 on)."""
    if (
        combat.helper is not None
        and override is None
        and state.rules > LEGACY_RULES
        and state.setup.edition.helper_stays
    ):
        raise RuleError(
            "helper_stays",
            Phrase(
                "{name} offered to help and cannot back out",
                name=state.players[combat.helper].name,
            ),
        )


@rule.register
def _(action: RemoveHelper, state: GameState) -> None:
    combat = open_combat(state)
    if combat.helper is None:
        raise RuleError("no_helper", Phrase("Nobody is helping in this combat"))
    _helper_stays(state, combat, action.override)


@step.register
def _(action: RemoveHelper, state: GameState) -> GameState:
    return _with_helper(state, None)


def _with_helper(state: GameState, seat: int | None) -> GameState:
    """A new helper (or none) takes the old one's place; the old one's Level-only goes too."""
    combat = current_combat(state)
    return _combat_update(
        state,
        helper=seat,
        level_only=combat.level_only - {combat.helper},
        helped=combat.helped or seat is not None,
    )


@words.register
def _(a: RemoveHelper, s: GameState) -> str:
    helper = s.combat.helper if s.combat else None
    return Phrase("{name} stops helping", name=player_name(s, helper))


class ChangeHelper(BaseAction):
    """The fighter's pick from the helper list: this player helps now, or nobody (§6).

    One logged action for one pick, whether or not someone was helping before.
    """

    type: Literal["change_helper"] = "change_helper"
    helper: Seat | None = None
    override: Override = None


@rule.register
def _(action: ChangeHelper, state: GameState) -> None:
    """At most one other player helps; a new pick takes the place of the old one (§6)."""
    combat = open_combat(state)
    if action.helper == combat.helper:
        raise RuleError("same_helper", Phrase("That is already the helper"))
    if action.helper is not None:
        _check_helper(state, combat, action.helper)
    _helper_stays(state, combat, action.override)


@step.register
def _(action: ChangeHelper, state: GameState) -> GameState:
    return _with_helper(state, action.helper)


@words.register
def _(a: ChangeHelper, s: GameState) -> str:
    if a.helper is None:
        return Phrase("Nobody helps now")
    return Phrase("{name} helps now", name=player_name(s, a.helper))


class PlayOneShot(BaseAction):
    """A one-shot bonus for the players' side or the monsters' side (RULES.md §5)."""

    type: Literal["play_one_shot"] = "play_one_shot"
    side: Literal["players", "monsters"]
    bonus: Annotated[int, Field(ge=-100, le=100)]
    name: str = ""
    card_id: str | None = None


@rule.register
def _(action: PlayOneShot, state: GameState) -> None:
    """One-shots go to either side and are discarded after the combat (§5)."""
    open_combat(state)


@step.register
def _(action: PlayOneShot, state: GameState) -> GameState:
    combat = current_combat(state)
    shot = OneShot(side=action.side, bonus=action.bonus, name=action.name, card_id=action.card_id)
    return _combat_update(state, one_shots=(*combat.one_shots, shot))


@words.register
def _(a: PlayOneShot, s: GameState) -> str:
    what = a.name or Phrase("a one-shot")
    return Phrase(_ONE_SHOT_FOR[a.side], what=what, bonus=a.bonus)


class ClearOneShots(BaseAction):
    """Take back every one-shot entered for one side, e.g. after a mistaken tap (RULES.md §5)."""

    type: Literal["clear_one_shots"] = "clear_one_shots"
    side: Literal["players", "monsters"]


@rule.register
def _(action: ClearOneShots, state: GameState) -> None:
    """One-shots entered for a side can be taken back while the fight is still on (§5)."""
    if not any(shot.side == action.side for shot in open_combat(state).one_shots):
        raise RuleError("no_one_shots", Phrase(_NO_ONE_SHOTS[action.side]))


@step.register
def _(action: ClearOneShots, state: GameState) -> GameState:
    combat = current_combat(state)
    kept = tuple(shot for shot in combat.one_shots if shot.side != action.side)
    return _combat_update(state, one_shots=kept)


@words.register
def _(a: ClearOneShots, s: GameState) -> str:
    return Phrase(_ONE_SHOTS_BACK[a.side])


class FightWithLevelOnly(BaseAction):
    """A card makes a fighter count only their Level (RULES.md §6)."""

    type: Literal["fight_with_level_only"] = "fight_with_level_only"
    player: Seat
    on: bool = True


@rule.register
def _(action: FightWithLevelOnly, state: GameState) -> None:
    """Some effects make a fighter count only their Level (§6)."""
    in_combat(state, open_combat(state), action.player)


@step.register
def _(action: FightWithLevelOnly, state: GameState) -> GameState:
    combat = current_combat(state)
    only = combat.level_only | {action.player} if action.on else combat.level_only - {action.player}
    return _combat_update(state, level_only=frozenset(only))


@words.register
def _(a: FightWithLevelOnly, s: GameState) -> str:
    how = (
        phrase_template("{name} fights with Level only")
        if a.on
        else phrase_template("{name} fights with full strength again")
    )
    return Phrase(how, name=player_name(s, a.player))


class SetWinsTies(BaseAction):
    """A card lets the players' side win ties (the classic Warrior, for one)."""

    type: Literal["set_wins_ties"] = "set_wins_ties"
    on: bool = True
    reason: str = ""


@rule.register
def _(action: SetWinsTies, state: GameState) -> None:
    """A card may let the players' side win ties (§6)."""
    open_combat(state)


@step.register
def _(action: SetWinsTies, state: GameState) -> GameState:
    return _combat_update(state, wins_ties=action.on)


@words.register
def _(a: SetWinsTies, s: GameState) -> str:
    if a.reason:
        how = (
            phrase_template("The players win ties ({why})")
            if a.on
            else phrase_template("Monsters win ties again ({why})")
        )
    else:
        how = (
            phrase_template("The players win ties")
            if a.on
            else phrase_template("Monsters win ties again")
        )
    return Phrase(how, why=a.reason)


class ResolveCombat(BaseAction):
    """End the combat by killing the monsters, or defeating them without a kill (§6).

    The treasure of a kill is what the combat shows (enhancers and removed monsters
    included); of a defeat, what the edition gives without a kill (see `Treasure`).
    `helper_treasure` is how many of the treasures the helper takes, as the fighter and
    helper agreed, and `helper_first` whether the helper picks first.
    """

    type: Literal["resolve_combat"] = "resolve_combat"
    outcome: Literal["kill", "defeat"]
    treasure: Treasure = None
    helper_treasure: HelperTreasure = 0
    helper_first: bool = False
    override: Override = None


def resolved_treasure(action: ResolveCombat, state: GameState, combat: CombatState) -> int:
    """The treasures a combat ends with: the number named, or the default (see the class)."""
    if isinstance(action.treasure, int):
        return action.treasure
    if action.outcome == "kill" or action.treasure == "shown" or without_kill_gives_treasure(state):
        return combat.treasure
    return combat.removed_treasure  # monsters a card removed earlier, with the treasure it gave


def face_up(state: GameState, combat: CombatState, outcome: str) -> bool:
    """Treasure is drawn face up when someone helped (§6): from rules 3 on whenever a
    helper took part, a defeat without a kill included; before, only for a helped kill."""
    if state.rules <= LEGACY_RULES:
        return outcome == "kill" and combat.helper is not None
    return combat.helped


def helper_levels(state: GameState, combat: CombatState) -> int:
    """Levels a helper gains for a kill: one per monster killed with the ability (the classic
    Elf), none otherwise (§6: the helper gains no level from the kill itself)."""
    if combat.helper is None or not state.players[combat.helper].can("helper_level"):
        return 0
    return len(combat.monsters)


@rule.register
def _(action: ResolveCombat, state: GameState) -> None:
    """Kill: levels to the fighter only, treasure, win check with shared victory. Defeat
    without a kill: no level (§1, §6)."""
    combat = open_combat(state)
    check_helper_share(
        combat,
        action.helper_treasure,
        action.helper_first,
        lambda: resolved_treasure(action, state, combat),
    )
    if action.outcome != "kill":
        return
    if not combat.fighters_winning and action.override is None:
        p, m = combat.players_strength, combat.monsters_strength
        if p == m:
            raise RuleError(
                "monsters_win_ties",
                Phrase("Monsters win ties: {p} against {m} is not a kill", p=p, m=m),
            )
        raise RuleError(
            "fighters_losing",
            Phrase("The monsters are stronger: {p} against {m} is not a kill", p=p, m=m),
        )
    check_level_up(
        state,
        combat.fighter,
        combat.levels,
        source=phrase_template("A kill"),
        override=action.override,
        by_kill=True,
    )


@step.register
def _(action: ResolveCombat, state: GameState) -> GameState:
    combat = current_combat(state)
    kill = action.outcome == "kill"
    result = CombatResult(
        outcome=action.outcome,
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.spec.name for m in combat.monsters),
        levels=combat.levels if kill else 0,
        treasure=resolved_treasure(action, state, combat),
        treasure_face_up=face_up(state, combat, action.outcome),
        helper_levels=helper_levels(state, combat) if kill else 0,
        helper_treasure=action.helper_treasure,
        helper_picks_first=action.helper_first,
    )
    state = end_combat(state, result)
    if not kill:
        return state
    state = level_up(state, combat.fighter, combat.levels)
    winners = list(state.winners)
    if result.helper_levels and combat.helper is not None:
        # The Elf's level for helping is won by killing, so it may be the winning level.
        state = level_up(state, combat.helper, result.helper_levels)
        winners += [w for w in state.winners if w not in winners]
    if winners and combat.helper is not None and state.setup.variants.shared_victory:
        winners += [s for s in (combat.fighter, combat.helper) if s not in winners]
    return win(state, tuple(winners)) if winners else state


@words.register
def _(a: ResolveCombat, s: GameState) -> str:
    fighter = player_name(s, s.combat.fighter if s.combat else None)
    if a.outcome == "kill":
        return Phrase("{fighter} kills the monsters", fighter=fighter)
    treasure = resolved_treasure(a, s, s.combat) if s.combat else 0
    return Phrase(DEFEATED_WITHOUT_KILL, fighter=fighter, treasure=treasure)
