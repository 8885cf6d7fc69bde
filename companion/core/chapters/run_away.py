"""Running away (RULES.md §7): one roll per fighter and monster, Bad Stuff on a failure,
and sacrificing an Ally to escape."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    D6,
    BaseAction,
    Override,
    Seat,
    monster_name,
    player_name,
    step,
    words,
)
from companion.core.chapters.character import kill_player
from companion.core.chapters.combat import finish_running_if_done, monster_index
from companion.core.chapters.rolls import d6, fill_rolls
from companion.core.chapters.table import current_combat, player_at, with_player
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.state import (
    CombatState,
    DieRoll,
    GameState,
    MonsterInPlay,
    PlayerState,
    RunAwayRoll,
)


def _no_need_to_run(combat: CombatState, override: str | None) -> None:
    if combat.fighters_winning and not combat.running and override is None:
        raise RuleError("no_need_to_run", "The players are winning: nobody needs to run away")


def _running_fighter(state: GameState, combat: CombatState, seat: int) -> PlayerState:
    player = player_at(state, seat)
    if seat not in combat.fighters:
        raise RuleError("not_fighting", f"{player.name} is not in this combat")
    if player.dead:
        raise RuleError("dead_stops_rolling", f"{player.name} is dead and stops rolling")
    if seat in combat.escaped:
        raise RuleError("already_escaped", f"{player.name} has already escaped every monster")
    return player


def _levels_word(n: int) -> str:
    return "a level" if n == 1 else f"{n} levels"


def _bad_stuff(state: GameState, seat: int, monster: MonsterInPlay) -> tuple[GameState, str]:
    """Apply what the engine can of a monster's Bad Stuff; say the rest in words (§7)."""
    bad = monster.spec.bad_stuff
    player = state.players[seat]
    said: list[str] = []
    if bad.lose_levels:
        level = max(1, player.level - bad.lose_levels)
        lost = player.level - level
        said.append(f"lost {_levels_word(lost)}" if lost else "kept Level 1 (it cannot go lower)")
        state = with_player(state, seat, level=level)
    if bad.lose_gear and not bad.death:
        gear = player.gear_bonus - min(bad.lose_gear, max(0, player.gear_bonus))
        said.append(f"lost {player.gear_bonus - gear} gear bonus")
        state = with_player(state, seat, gear_bonus=gear)
    if bad.death:
        said.append("died")
        state = kill_player(state, seat)
    if bad.text:
        said.append(bad.text)
    return state, "; ".join(said)


class RunAway(BaseAction):
    """One fighter rolls to run away from one monster: 5+ escapes (RULES.md §7)."""

    type: Literal["run_away"] = "run_away"
    fighter: Seat
    monster: Annotated[int, Field(ge=0)]
    roll: D6 | None = None
    override: Override = None


@step.register
def _(action: RunAway, state: GameState, checked: bool) -> GameState:
    """Each fighter rolls per monster in the order they choose: 5+ with modifiers escapes,
    failing brings the Bad Stuff; a fighter who dies stops rolling (§7)."""
    combat = current_combat(state)
    player = _running_fighter(state, combat, action.fighter)
    index = monster_index(combat, action.monster)
    monster = combat.monsters[index]
    if action.roll is None:
        raise RuleError("roll_missing", "The run-away roll was not recorded")
    if checked:
        _no_need_to_run(combat, action.override)
        if any(r.fighter == action.fighter and r.monster == index for r in combat.rolls):
            raise RuleError(
                "already_rolled", f"{player.name} has already run from {monster.spec.name}"
            )
    modifier = player.total_run_away_bonus + monster.spec.run_away_modifier
    escaped = rules.run_away_escapes(action.roll, modifier)
    said = ""
    if not escaped:
        state, said = _bad_stuff(state, action.fighter, monster)
    record = RunAwayRoll(
        fighter=action.fighter,
        monster=index,
        roll=action.roll,
        modifier=modifier,
        escaped=escaped,
        bad_stuff=said,
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
    return f"{player_name(s, a.fighter)} rolls {a.roll} to run from {monster_name(s, a.monster)}"


class SacrificeAlly(BaseAction):
    """Give up the Ally to escape every monster; the owner decides for the partner (§4)."""

    type: Literal["sacrifice_ally"] = "sacrifice_ally"
    player: Seat
    partner_escapes: bool = False


@step.register
def _(action: SacrificeAlly, state: GameState, checked: bool) -> GameState:
    """Sacrificing an Ally escapes every monster; the owner decides for the partner (§4, §7)."""
    combat = current_combat(state)
    player = _running_fighter(state, combat, action.player)
    if checked:
        if player.ally is None:
            raise RuleError("no_ally", f"{player.name} has no Ally to sacrifice")
        _no_need_to_run(combat, None)
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
    partner = " (the partner too)" if a.partner_escapes else ""
    return f"{player_name(s, a.player)} sacrifices their Ally and escapes{partner}"
