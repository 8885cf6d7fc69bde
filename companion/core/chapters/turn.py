"""The turn (RULES.md §2, §3): its phases, ending it, and Charity."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import BaseAction, Override, Seat, player_name, step, words
from companion.core.chapters.table import alive, player_at
from companion.core.errors import RuleError
from companion.core.state import CharityResult, GameState, Phase


class AdvancePhase(BaseAction):
    """Move the current turn on to its next phase (RULES.md §3)."""

    type: Literal["advance_phase"] = "advance_phase"


@step.register
def _(action: AdvancePhase, state: GameState, checked: bool) -> GameState:
    """The turn's phases in order: (Listen at the Door), Kick Open the Door, Look for
    Trouble or Loot the Room, Charity (§3)."""
    if checked:
        if state.combat is not None:
            raise RuleError("finish_combat", "Finish the combat first")
        if state.phase == Phase.CHARITY:
            raise RuleError("end_turn", "Charity is the last phase: end the turn")
    following = {
        Phase.LISTEN_AT_THE_DOOR: Phase.KICK_OPEN_THE_DOOR,
        Phase.KICK_OPEN_THE_DOOR: Phase.LOOT_OR_TROUBLE,
        Phase.LOOT_OR_TROUBLE: Phase.CHARITY,
    }
    return state.evolve(phase=following.get(state.phase, state.phase))


@words.register
def _(a: AdvancePhase, s: GameState) -> str:
    following = {
        Phase.LISTEN_AT_THE_DOOR: "kicks open the door",
        Phase.KICK_OPEN_THE_DOOR: "looks for trouble or loots the room",
        Phase.LOOT_OR_TROUBLE: "moves on to Charity",
    }
    return f"{player_name(s, s.current)} {following.get(s.phase, 'moves on')}"


class EndTurn(BaseAction):
    """Play passes to the left; dead players come back (RULES.md §2, §8)."""

    type: Literal["end_turn"] = "end_turn"


@step.register
def _(action: EndTurn, state: GameState, checked: bool) -> GameState:
    """Play passes to the left; the dead return at the start of the next turn (§2, §8)."""
    if checked and state.combat is not None:
        raise RuleError("finish_combat", "Finish the combat before ending the turn")
    players = state.players
    if any(p.dead for p in players):
        players = tuple(p.evolve(dead=False) if p.dead else p for p in players)
    faster = state.setup.variants.faster_play
    return state.evolve(
        **{
            "players": players,
            "current": (state.current + 1) % len(players),
            "turn": state.turn + 1,
            "phase": Phase.LISTEN_AT_THE_DOOR if faster else Phase.KICK_OPEN_THE_DOOR,
            "loot": None,
            "charity": None,
        }
    )


@words.register
def _(a: EndTurn, s: GameState) -> str:
    after = player_name(s, (s.current + 1) % len(s.players))
    return f"{player_name(s, s.current)} ends the turn; {after} is next"


class Charity(BaseAction):
    """Give away cards over the hand limit to the lowest-Level players (RULES.md §3).

    `shares` maps recipient seat to card count; leave it out for an even split with
    the extra cards going to the first recipients to the giver's left.
    """

    type: Literal["charity"] = "charity"
    giver: Seat
    cards: Annotated[int, Field(ge=1, le=100)]
    shares: dict[Seat, Annotated[int, Field(ge=0)]] | None = None
    override: Override = None


@step.register
def _(action: Charity, state: GameState, checked: bool) -> GameState:
    """Charity: excess cards go to the lowest-Level players, split as evenly as possible;
    a giver who is lowest (or tied) discards them (§3)."""
    giver = player_at(state, action.giver)
    recipients = rules.charity_recipients(state.players, action.giver)
    to_left = [s for s in rules.seats_to_the_left(action.giver, len(state.players))]
    ordered = [s for s in to_left if s in recipients]
    if checked:
        alive(giver, "give Charity")
        if state.combat is not None:
            raise RuleError("finish_combat", "Charity comes after the combat")
        if action.giver != state.current and action.override is None:
            raise RuleError("charity_own_turn", "Charity is given at the end of your own turn")
    if action.shares is None:
        shares = rules.even_split(action.cards, ordered)
    else:
        shares = {s: n for s, n in action.shares.items() if n}
        if checked:
            counts = [shares.get(s, 0) for s in ordered]
            if not recipients:
                if shares:
                    raise RuleError(
                        "charity_discard",
                        f"{giver.name} has the lowest Level, so the excess cards are discarded",
                    )
            elif (
                any(s not in recipients for s in shares)
                or sum(counts) != action.cards
                or max(counts) - min(counts) > 1
            ):
                names = ", ".join(state.players[s].name for s in ordered)
                raise RuleError(
                    "charity_split",
                    f"Charity goes to the lowest-Level players ({names}), "
                    "split as evenly as possible",
                )
    result = CharityResult(
        giver=action.giver,
        cards=action.cards,
        shares=shares,
        discarded=0 if recipients else action.cards,
    )
    return state.evolve(charity=result)


@words.register
def _(a: Charity, s: GameState) -> str:
    return f"{player_name(s, a.giver)} gives away {a.cards} card(s) as Charity"
