"""Whose run-away roll the table waits for: worked out from the game's state, so a phone
can roll whether or not any screen shows the Run away page.

A fighter may roll to run away from a monster of the fight they are in as long as the
rules allow it (the players are losing, or someone has already started to run), they
are alive, have not escaped by other means and have not yet rolled against it (RULES.md
§7). The offer is for their first such monster, in the fight's order: the order is the
fighter's choice on the host's screen; a phone rolls for the next one.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.core import (
    BaseAction,
    GameState,
    RuleError,
    RunAway,
    Source,
    bad_stuff_questions,
    check_action,
)
from companion.core.phrase import Phrase, phrase_template

NOT_YOUR_ROLL = phrase_template("The host is not waiting for your roll")
CHOOSE_FIRST = phrase_template("First choose what the Bad Stuff takes if you are caught.")
CAUGHT_CHOOSE = phrase_template("Caught on a {roll}: choose what the Bad Stuff takes.")
# A face that escapes any monster: only to ask whether the rules allow running at all.
_ANY_FACE = 6


@dataclass(frozen=True)
class RollOffer:
    """The table waits for this fighter's run-away roll against this monster."""

    seat: int
    monster: int


def would_allow(state: GameState, action: BaseAction) -> bool:
    """Whether the rules would take `action` (its dice already rolled) in `state`."""
    try:
        check_action(state, action)
    except RuleError:
        return False
    return True


def pending_runs(state: GameState, seat: int) -> list[int]:
    """The monsters `seat` has still to run from, in the fight's order (none outside a
    fight, for a player who is not fighting, is dead, or escaped by an Ally's sacrifice)."""
    combat = state.combat
    if combat is None or seat not in combat.fighters or not 0 <= seat < len(state.players):
        return []
    if state.players[seat].dead or seat in combat.escaped:
        return []
    rolled = {r.monster for r in combat.rolls if r.fighter == seat}
    return [index for index in range(len(combat.monsters)) if index not in rolled]


def roll_offers(state: GameState) -> dict[int, RollOffer]:
    """Every fighter whose run-away roll the table would take now, by seat."""
    combat = state.combat
    if combat is None:
        return {}
    offers: dict[int, RollOffer] = {}
    for seat in combat.fighters:
        for monster in pending_runs(state, seat):
            if would_allow(state, RunAway(fighter=seat, monster=monster, roll=_ANY_FACE)):
                offers[seat] = RollOffer(seat, monster)
            break  # the first monster left is the one offered
    return offers


def asks_when_caught(state: GameState, seat: int, monster: int) -> bool:
    """Whether the Bad Stuff of `monster` would make `seat` choose what it takes, if they
    are caught running from it (and it pursues them at all)."""
    combat = state.combat
    if combat is None or not 0 <= monster < len(combat.monsters):
        return False
    if not would_allow(state, RunAway(fighter=seat, monster=monster)):
        return bool(bad_stuff_questions(state, seat, monster, ()))
    return False  # no roll is needed: the monster does not pursue them


def run_away_roll(
    state: GameState,
    seat: int,
    face: int | None,
    source: Source | None,
    die: str = "",
    picks: tuple[str, ...] | None = None,
    monster: int | None = None,
) -> BaseAction:
    """The RunAway action a roll from `seat` asks for: against `monster`, the one the
    host chose on its Run away screen, or (None) the one the table waits for that seat
    to run from next. `picks` is what the Bad Stuff takes if they are caught, when it
    asks (chosen on the host's Run away screen before the roll).

    Raises `RuleError` when the table waits for no roll from them, or when the Bad
    Stuff would make them choose what to lose, nobody has chosen yet, and the roll does
    not clearly escape (the rules judge the action itself when it is applied)."""
    if monster is None:
        offer = roll_offers(state).get(seat)
        if offer is None:
            raise RuleError("not_your_roll", Phrase(NOT_YOUR_ROLL))
        monster = offer.monster
    fields: dict[str, object] = {"fighter": seat, "monster": monster}
    if face is not None:
        fields["roll"] = face
    if source is not None:
        fields["source"] = source
    if die:
        fields["die"] = die
    if picks:
        fields["picks"] = picks
    action = RunAway(**fields)
    if picks is None and bad_stuff_questions(state, seat, monster, ()):
        escapes = face is not None and would_allow(state, action)
        if not escapes:
            raise RuleError("choose_loss_first", Phrase(CHOOSE_FIRST))
    return action
