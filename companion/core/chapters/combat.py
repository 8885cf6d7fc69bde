"""Combat (RULES.md §6): the actions of a fight (monsters, enhancers, the helper, one-shots,
who wins ties) and how it ends: a kill, or a defeat without a kill. The live verdict and the
checks these actions share are in `fight`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core.chapters.base import (
    BaseAction,
    Override,
    Seat,
    item_name,
    monster_name,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.fight import (
    COMBAT_PHASES,
    check_helper_share,
    combat_update,
    face_up,
)

# The fight's reckoning lives in `fight`; the other chapters, the engine and the screens
# import these names from the combat chapter, so it passes them on (`name as name`).
from companion.core.chapters.fight import UNDEAD as UNDEAD
from companion.core.chapters.fight import ability_bonus as ability_bonus
from companion.core.chapters.fight import check_removal as check_removal
from companion.core.chapters.fight import end_combat as end_combat
from companion.core.chapters.fight import finish_running_if_done as finish_running_if_done
from companion.core.chapters.fight import in_combat as in_combat
from companion.core.chapters.fight import monster_index as monster_index
from companion.core.chapters.fight import monster_tags as monster_tags
from companion.core.chapters.fight import open_combat as open_combat
from companion.core.chapters.fight import pursues as pursues
from companion.core.chapters.fight import refresh_combat as refresh_combat
from companion.core.chapters.fight import remove_monster as remove_monster
from companion.core.chapters.fight import treasure_if_last as treasure_if_last
from companion.core.chapters.gear import check_can_carry, give_item
from companion.core.chapters.levels import check_level_up, level_up
from companion.core.chapters.table import (
    alive,
    current_combat,
    find_item,
    player_at,
    turn_passed,
    win,
)
from companion.core.errors import RuleError
from companion.core.models import LEGACY_RULES, SECOND_READING, EnhancerSpec, MonsterSpec
from companion.core.phrase import Phrase, joined, phrase_template
from companion.core.state import CombatResult, CombatState, GameState, MonsterInPlay, OneShot


class StartCombat(BaseAction):
    """A fighter faces one or more monsters (RULES.md §6)."""

    type: Literal["start_combat"] = "start_combat"
    fighter: Seat
    monsters: Annotated[tuple[MonsterSpec, ...], Field(min_length=1)]
    override: Override = None


@rule.register
def rule_start_combat(action: StartCombat, state: GameState) -> None:
    """Monsters are fought when kicking open the door or looking for trouble (§3, §6)."""
    fighter = player_at(state, action.fighter)
    if state.combat is not None:
        raise RuleError("one_combat", Phrase("A combat is already going on"))
    alive(fighter, phrase_template("fight"))
    if action.override is None:
        if action.fighter != state.current:
            raise RuleError("fight_own_turn", Phrase("Monsters are fought on your own turn"))
        if state.rules > LEGACY_RULES and turn_passed(state, action.fighter):
            raise RuleError(
                "turn_over", Phrase("Charity ends the turn: the next player's turn begins")
            )
        if state.phase not in COMBAT_PHASES:
            raise RuleError(
                "fight_phase",
                Phrase(
                    "Monsters are fought after kicking open the door or when looking for trouble"
                ),
            )


@step.register
def step_start_combat(action: StartCombat, state: GameState) -> GameState:
    """The fight begins: the fighter against the monsters, in the current phase (§6)."""
    combat = CombatState(
        fighter=action.fighter,
        monsters=tuple(MonsterInPlay(spec=m) for m in action.monsters),
        started_in=state.phase,
    )
    return state.evolve(combat=combat)


@words.register
def words_start_combat(a: StartCombat, s: GameState) -> str:
    """History: who fights which monsters, each with its Level."""
    names = joined(Phrase(_MONSTER_AT, monster=m.name, level=m.level) for m in a.monsters)
    return Phrase("{name} fights {monsters}", name=player_name(s, a.fighter), monsters=names)


class AddMonster(BaseAction):
    """Another monster joins the combat: brought in by a card (Wandering Monster), or, with
    `joins`, by its own tag (an Undead joining a fight against an Undead)."""

    type: Literal["add_monster"] = "add_monster"
    monster: MonsterSpec
    joins: bool = False


@rule.register
def rule_add_monster(action: AddMonster, state: GameState) -> None:
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
def step_add_monster(action: AddMonster, state: GameState) -> GameState:
    """The monster joins the fight; the verdict counts it from then on (§6)."""
    combat = current_combat(state)
    return combat_update(state, monsters=(*combat.monsters, MonsterInPlay(spec=action.monster)))


@words.register
def words_add_monster(a: AddMonster, s: GameState) -> str:
    """History: which monster joins the fight."""
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


@rule.register
def rule_remove_monster(action: RemoveMonster, state: GameState) -> None:
    """A card takes out a monster in the fight; a helper's share comes only with the last (§6)."""
    check_removal(action, state)


@step.register
def step_remove_monster(action: RemoveMonster, state: GameState) -> GameState:
    """The monster goes without a kill; taking the last ends the fight in a defeat (§6)."""
    return remove_monster(state, action)


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
def words_remove_monster(a: RemoveMonster, s: GameState) -> str:
    """History: which monster leaves, and the treasure it leaves behind."""
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
def rule_add_enhancer(action: AddEnhancer, state: GameState) -> None:
    """An enhancer goes on one monster: its strength and treasure change (§6)."""
    monster_index(open_combat(state), action.monster)


@step.register
def step_add_enhancer(action: AddEnhancer, state: GameState) -> GameState:
    """The enhancer goes on its monster, changing its strength and treasure (§6)."""
    monsters = list(current_combat(state).monsters)
    target = monsters[action.monster]
    monsters[action.monster] = target.evolve(enhancers=(*target.enhancers, action.enhancer))
    return combat_update(state, monsters=tuple(monsters))


@words.register
def words_add_enhancer(a: AddEnhancer, s: GameState) -> str:
    """History: which enhancer goes on which monster, and by how much."""
    return Phrase(
        "{enhancer} ({bonus:+d}) is played on {monster}",
        enhancer=a.enhancer.name,
        bonus=a.enhancer.bonus,
        monster=monster_name(s, a.monster),
    )


class AddHelper(BaseAction):
    """Another player helps the fighter (at most one helper): a volunteer, or `compelled`
    by a card, which is recorded because the two may leave differently (RULES.md §11)."""

    type: Literal["add_helper"] = "add_helper"
    helper: Seat
    compelled: bool = False


def for_the_win(state: GameState, combat: CombatState) -> bool:
    """Whether winning this fight would take the fighter to the winning level."""
    if state.no_limit:
        return False
    return state.players[combat.fighter].level + combat.levels >= state.winning_level


def _check_helper(state: GameState, combat: CombatState, seat: int) -> None:
    """Anyone but the fighter may help, if alive (§6, §8)."""
    player = player_at(state, seat)
    if seat == combat.fighter:
        raise RuleError("help_self", Phrase("A fighter cannot help themselves"))
    alive(player, phrase_template("help in combat"))


@rule.register
def rule_add_helper(action: AddHelper, state: GameState) -> None:
    """At most one other player helps; their whole strength counts (§6)."""
    combat = open_combat(state)
    if combat.helper is not None and action.helper != combat.fighter:
        raise RuleError("one_helper", Phrase("Only one player can help in a combat"))
    _check_helper(state, combat, action.helper)
    if action.compelled and for_the_win(state, combat):
        raise RuleError(
            "compelled_for_win",
            Phrase("Nobody can be made to help in a fight for the win"),
        )


@step.register
def step_add_helper(action: AddHelper, state: GameState) -> GameState:
    """The player joins the fighter's side as the helper (§6)."""
    return combat_update(state, helper=action.helper, helped=True, compelled=action.compelled)


@words.register
def words_add_helper(a: AddHelper, s: GameState) -> str:
    """History: who helps, and whether a card made them."""
    if a.compelled:
        return Phrase("A card makes {name} help", name=player_name(s, a.helper))
    return Phrase("{name} helps", name=player_name(s, a.helper))


class RemoveHelper(BaseAction):
    """The helper leaves the combat."""

    type: Literal["remove_helper"] = "remove_helper"
    override: Override = None


def _helper_stays(state: GameState, combat: CombatState, override: str | None) -> None:
    """Where the edition says so (the fairy-tale kingdom), a player who volunteered to help
    cannot back out (rules 3 on); one a card made help may, once the fight is one for the
    win (rules 4 on)."""
    if (
        combat.helper is not None
        and override is None
        and state.rules > LEGACY_RULES
        and state.setup.edition.helper_stays
        and not (combat.compelled and for_the_win(state, combat))
    ):
        name = state.players[combat.helper].name
        if combat.compelled:
            raise RuleError(
                "helper_stays",
                Phrase(
                    "{name} was made to help and may back out only once the fight is for the win",
                    name=name,
                ),
            )
        raise RuleError(
            "helper_stays", Phrase("{name} offered to help and cannot back out", name=name)
        )


@rule.register
def rule_remove_helper(action: RemoveHelper, state: GameState) -> None:
    """Only a helper can stop helping, unless the edition holds them to it (§6)."""
    combat = open_combat(state)
    if combat.helper is None:
        raise RuleError("no_helper", Phrase("Nobody is helping in this combat"))
    _helper_stays(state, combat, action.override)


@step.register
def step_remove_helper(action: RemoveHelper, state: GameState) -> GameState:
    """The helper leaves the fight, and their Level-only effect with them (§6)."""
    return _with_helper(state, None)


def _with_helper(state: GameState, seat: int | None) -> GameState:
    """A new helper (or none) takes the old one's place; the old one's Level-only goes too."""
    combat = current_combat(state)
    return combat_update(
        state,
        helper=seat,
        level_only=combat.level_only - {combat.helper},
        helped=combat.helped or seat is not None,
        compelled=False,
    )


@words.register
def words_remove_helper(a: RemoveHelper, s: GameState) -> str:
    """History: who stops helping."""
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
def rule_change_helper(action: ChangeHelper, state: GameState) -> None:
    """At most one other player helps; a new pick takes the place of the old one (§6)."""
    combat = open_combat(state)
    if action.helper == combat.helper:
        raise RuleError("same_helper", Phrase("That is already the helper"))
    if action.helper is not None:
        _check_helper(state, combat, action.helper)
    _helper_stays(state, combat, action.override)


@step.register
def step_change_helper(action: ChangeHelper, state: GameState) -> GameState:
    """The new pick, or nobody, takes the old helper's place (§6)."""
    return _with_helper(state, action.helper)


@words.register
def words_change_helper(a: ChangeHelper, s: GameState) -> str:
    """History: who helps now, or that nobody does."""
    if a.helper is None:
        return Phrase("Nobody helps now")
    return Phrase("{name} helps now", name=player_name(s, a.helper))


class Bribe(BaseAction):
    """The fighter gives an item from the table to another player for their help: allowed
    inside the fight, where trading is not (RULES.md §11, bribes). A share of the treasure
    is agreed with the end of the fight instead (`ResolveCombat.helper_treasure`)."""

    type: Literal["bribe"] = "bribe"
    helper: Seat
    item_id: str
    override: Override = None


@rule.register
def rule_bribe(action: Bribe, state: GameState) -> None:
    """A bribe is the fighter's, in a fight that can still change, to someone alive who is
    not the fighter, within the receiver's Big limit; it is no trade (§6, §11)."""
    combat = open_combat(state)
    fighter = state.players[combat.fighter]
    find_item(fighter, action.item_id)
    _check_helper(state, combat, action.helper)
    if action.override is None:
        check_can_carry(state.players[action.helper], find_item(fighter, action.item_id).spec)


@step.register
def step_bribe(action: Bribe, state: GameState) -> GameState:
    """The item passes from the fighter to the one bribed, carried and not equipped."""
    return give_item(state, current_combat(state).fighter, action.helper, action.item_id)


@words.register
def words_bribe(a: Bribe, s: GameState) -> str:
    """History: what the fighter gives whom for their help."""
    fighter = s.combat.fighter if s.combat else None
    return Phrase(
        "{fighter} gives {item} to {helper} for their help",
        fighter=player_name(s, fighter),
        item=item_name(s, fighter, a.item_id) if fighter is not None else a.item_id,
        helper=player_name(s, a.helper),
    )


class PlayOneShot(BaseAction):
    """A one-shot bonus for the players' side or the monsters' side (RULES.md §5)."""

    type: Literal["play_one_shot"] = "play_one_shot"
    side: Literal["players", "monsters"]
    bonus: Annotated[int, Field(ge=-100, le=100)]
    name: str = ""
    card_id: str | None = None


@rule.register
def rule_play_one_shot(action: PlayOneShot, state: GameState) -> None:
    """One-shots go to either side and are discarded after the combat (§5)."""
    open_combat(state)


@step.register
def step_play_one_shot(action: PlayOneShot, state: GameState) -> GameState:
    """The one-shot adds to its side until the fight ends (§5)."""
    combat = current_combat(state)
    shot = OneShot(side=action.side, bonus=action.bonus, name=action.name, card_id=action.card_id)
    return combat_update(state, one_shots=(*combat.one_shots, shot))


@words.register
def words_play_one_shot(a: PlayOneShot, s: GameState) -> str:
    """History: which one-shot, for which side, and its bonus."""
    what = a.name or Phrase("a one-shot")
    return Phrase(_ONE_SHOT_FOR[a.side], what=what, bonus=a.bonus)


class ClearOneShots(BaseAction):
    """Take back every one-shot entered for one side, e.g. after a mistaken tap (RULES.md §5)."""

    type: Literal["clear_one_shots"] = "clear_one_shots"
    side: Literal["players", "monsters"]


@rule.register
def rule_clear_one_shots(action: ClearOneShots, state: GameState) -> None:
    """One-shots entered for a side can be taken back while the fight is still on (§5)."""
    if not any(shot.side == action.side for shot in open_combat(state).one_shots):
        raise RuleError("no_one_shots", Phrase(_NO_ONE_SHOTS[action.side]))


@step.register
def step_clear_one_shots(action: ClearOneShots, state: GameState) -> GameState:
    """Every one-shot entered for that side is taken back (§5)."""
    combat = current_combat(state)
    kept = tuple(shot for shot in combat.one_shots if shot.side != action.side)
    return combat_update(state, one_shots=kept)


@words.register
def words_clear_one_shots(a: ClearOneShots, s: GameState) -> str:
    """History: one side's one-shots taken back."""
    return Phrase(_ONE_SHOTS_BACK[a.side])


class FightWithLevelOnly(BaseAction):
    """A card makes a fighter count only their Level (RULES.md §6)."""

    type: Literal["fight_with_level_only"] = "fight_with_level_only"
    player: Seat
    on: bool = True


@rule.register
def rule_fight_with_level_only(action: FightWithLevelOnly, state: GameState) -> None:
    """Some effects make a fighter count only their Level (§6)."""
    in_combat(state, open_combat(state), action.player)


@step.register
def step_fight_with_level_only(action: FightWithLevelOnly, state: GameState) -> GameState:
    """The fighter counts only their Level, or their full strength again (§6)."""
    combat = current_combat(state)
    only = combat.level_only | {action.player} if action.on else combat.level_only - {action.player}
    return combat_update(state, level_only=frozenset(only))


@words.register
def words_fight_with_level_only(a: FightWithLevelOnly, s: GameState) -> str:
    """History: who fights with Level only, or at full strength again."""
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
def rule_set_wins_ties(action: SetWinsTies, state: GameState) -> None:
    """A card may let the players' side win ties (§6)."""
    open_combat(state)


@step.register
def step_set_wins_ties(action: SetWinsTies, state: GameState) -> GameState:
    """The players' side wins ties, or the monsters win them again (§6)."""
    return combat_update(state, wins_ties=action.on)


@words.register
def words_set_wins_ties(a: SetWinsTies, s: GameState) -> str:
    """History: who wins ties now, and why when a reason is given."""
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


def helper_levels(state: GameState, combat: CombatState) -> int:
    """Levels a helper gains for a kill: one per monster killed with the ability (the classic
    Elf), none otherwise (§6: the helper gains no level from the kill itself)."""
    if combat.helper is None or not state.players[combat.helper].can("helper_level"):
        return 0
    return len(combat.monsters)


def shares_victory(state: GameState, combat: CombatState, winners: list[int]) -> bool:
    """Shared victory: a helped kill that wins the game for the fighter wins it for the
    helper too. Only the fighter's win is shared: a helper who reaches the winning level by
    their own reward (the Elf's level for helping) wins alone (RULES.md §11; rules 4 on,
    any win was shared before)."""
    if combat.helper is None or not winners or not state.setup.variants.shared_victory:
        return False
    return state.rules < SECOND_READING or combat.fighter in winners


@rule.register
def rule_resolve_combat(action: ResolveCombat, state: GameState) -> None:
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
def step_resolve_combat(action: ResolveCombat, state: GameState) -> GameState:
    """The fight ends: a kill gives its levels and may win the game; a defeat, no level (§6)."""
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
    if shares_victory(state, combat, winners):
        winners += [
            s for s in (combat.fighter, combat.helper) if s is not None and s not in winners
        ]
    return win(state, tuple(winners)) if winners else state


@words.register
def words_resolve_combat(a: ResolveCombat, s: GameState) -> str:
    """History: the monsters killed, or defeated without a kill and the treasure."""
    fighter = player_name(s, s.combat.fighter if s.combat else None)
    if a.outcome == "kill":
        return Phrase("{fighter} kills the monsters", fighter=fighter)
    treasure = resolved_treasure(a, s, s.combat) if s.combat else 0
    return Phrase(DEFEATED_WITHOUT_KILL, fighter=fighter, treasure=treasure)
