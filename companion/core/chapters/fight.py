"""The fight in progress (RULES.md §6, §7): both sides' strength and the live verdict, the
look-ups and checks the combat's actions share, the treasure a fight ends with, and how it
ends. No actions here: they are in `combat` (fighting) and `run_away` (fleeing), which
both build on this."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from companion.core import rules
from companion.core.chapters.table import current_combat, not_running, player_at
from companion.core.errors import RuleError
from companion.core.models import LEGACY_RULES
from companion.core.phrase import Phrase
from companion.core.state import (
    CombatResult,
    CombatState,
    GameState,
    MonsterInPlay,
    Phase,
    PlayerState,
)

COMBAT_PHASES = (Phase.KICK_OPEN_THE_DOOR, Phase.LOOT_OR_TROUBLE)


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
    if combat.counts_level_only(seat):
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
    if combat.fighter == state.current and combat.started_in in COMBAT_PHASES:
        phase = Phase.CHARITY
    ended = result.evolve(turn=state.turn)
    return state.evolve(combat=None, last_combat=ended, phase=phase)


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


def combat_update(state: GameState, **changes: object) -> GameState:
    """The state with some fields of the combat going on changed."""
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


class Removal(Protocol):
    """An action that takes a monster out of the combat (a card, a charm) and may end it."""

    @property
    def monster(self) -> int: ...
    @property
    def helper_treasure(self) -> int: ...
    @property
    def helper_first(self) -> bool: ...
    def gives(self, state: GameState) -> int: ...


def _treasure_after(action: Removal, state: GameState) -> int:
    """What the monsters taken out of the fight leave behind once `action` takes its one:
    the treasure of those removed before, and this one's (§6)."""
    return current_combat(state).removed_treasure + action.gives(state)


def treasure_if_last(action: Removal, state: GameState) -> int | None:
    """The treasure the combat ends with when `action` takes its last monster; None while
    other monsters stay (the share is settled when the combat ends)."""
    combat = current_combat(state)
    if len(combat.monsters) != 1 or action.monster != 0:  # not the last (or no such one)
        return None
    return _treasure_after(action, state)


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


def remove_monster(state: GameState, action: Removal) -> GameState:
    """A card takes a monster away without killing it: no level, but the treasure it gives
    counts unless the fighters then flee the rest; with none left, the fighters defeated
    them without a kill and win what the removed monsters gave (§6), the helper taking
    the share the action names."""
    combat = current_combat(state)
    index = action.monster
    gone = combat.monsters[index]
    rest = combat.monsters[:index] + combat.monsters[index + 1 :]
    total = _treasure_after(action, state)
    state = combat_update(
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


def face_up(state: GameState, combat: CombatState, outcome: str) -> bool:
    """Treasure is drawn face up when someone helped (§6): from rules 3 on whenever a
    helper took part, a defeat without a kill included; before, only for a helped kill."""
    if state.rules <= LEGACY_RULES:
        return outcome == "kill" and combat.helper is not None
    return combat.helped
