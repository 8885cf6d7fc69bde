"""The turn (RULES.md §2, §3): its phases, ending it, and Charity."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    BaseAction,
    Override,
    Seat,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.table import alive, player_at, refuse_after_charity
from companion.core.errors import RuleError
from companion.core.phrase import Phrase, phrase_template, plural_phrase
from companion.core.state import CharityResult, GameState, Phase


class AdvancePhase(BaseAction):
    """Move the current turn on to its next phase (RULES.md §3)."""

    type: Literal["advance_phase"] = "advance_phase"


_FOLLOWING = {
    Phase.LISTEN_AT_THE_DOOR: Phase.KICK_OPEN_THE_DOOR,
    Phase.KICK_OPEN_THE_DOOR: Phase.LOOT_OR_TROUBLE,
    Phase.LOOT_OR_TROUBLE: Phase.CHARITY,
}


@rule.register
def rule_advance_phase(action: AdvancePhase, state: GameState) -> None:
    """The turn's phases in order: (Listen at the Door), Kick Open the Door, Look for
    Trouble or Loot the Room, Charity (§3)."""
    if state.combat is not None:
        raise RuleError("finish_combat", Phrase("Finish the combat first"))
    if state.phase == Phase.CHARITY:
        raise RuleError("end_turn", Phrase("Charity is the last phase: end the turn"))


@step.register
def step_advance_phase(action: AdvancePhase, state: GameState) -> GameState:
    """The turn moves on to its next phase (§3)."""
    return state.evolve(phase=_FOLLOWING.get(state.phase, state.phase))


@words.register
def words_advance_phase(a: AdvancePhase, s: GameState) -> str:
    """History: what the current player does next in the turn."""
    following = {
        Phase.LISTEN_AT_THE_DOOR: phrase_template("{name} kicks open the door"),
        Phase.KICK_OPEN_THE_DOOR: phrase_template("{name} looks for trouble or loots the room"),
        Phase.LOOT_OR_TROUBLE: phrase_template("{name} moves on to Charity"),
    }
    template = following.get(s.phase) or phrase_template("{name} moves on")
    return Phrase(template, name=player_name(s, s.current))


class EndTurn(BaseAction):
    """Play passes to the left; dead players come back (RULES.md §2, §8)."""

    type: Literal["end_turn"] = "end_turn"


@rule.register
def rule_end_turn(action: EndTurn, state: GameState) -> None:
    """A turn ends only once its combat is over (§2)."""
    if state.combat is not None:
        raise RuleError("finish_combat", Phrase("Finish the combat before ending the turn"))


@step.register
def step_end_turn(action: EndTurn, state: GameState) -> GameState:
    """Play passes to the left; the dead return at the start of the next turn (§2, §8)."""
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
def words_end_turn(a: EndTurn, s: GameState) -> str:
    """History: who ends the turn, and who is next."""
    after = player_name(s, (s.current + 1) % len(s.players))
    return Phrase(
        "{name} ends the turn; {after} is next", name=player_name(s, s.current), after=after
    )


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


def _charity_recipients(state: GameState, giver: int) -> tuple[tuple[int, ...], list[int]]:
    """Who may receive the giver's Charity, and the same seats in play order to the left."""
    recipients = rules.charity_recipients(state.players, giver)
    to_left = rules.seats_to_the_left(giver, len(state.players))
    return recipients, [s for s in to_left if s in recipients]


def _named_shares(shares: dict[int, int]) -> dict[int, int]:
    """The cards each recipient the giver named takes, leaving out those named for none."""
    return {seat: n for seat, n in shares.items() if n}


@rule.register
def rule_charity(action: Charity, state: GameState) -> None:
    """Charity: excess cards go to the lowest-Level players, split as evenly as possible;
    a giver who is lowest (or tied) discards them (§3)."""
    giver = player_at(state, action.giver)
    alive(giver, phrase_template("give Charity"))
    if state.combat is not None:
        raise RuleError("finish_combat", Phrase("Charity comes after the combat"))
    if action.giver != state.current and action.override is None:
        raise RuleError("charity_own_turn", Phrase("Charity is given at the end of your own turn"))
    if action.override is None:
        refuse_after_charity(state, action.giver)
    if action.shares is None:
        return
    recipients, ordered = _charity_recipients(state, action.giver)
    shares = _named_shares(action.shares)
    if not recipients:
        if shares:
            raise RuleError(
                "charity_discard",
                Phrase(
                    "{name} has the lowest Level, so the excess cards are discarded",
                    name=giver.name,
                ),
            )
        return
    counts = [shares.get(s, 0) for s in ordered]
    if (
        any(s not in recipients for s in shares)
        or sum(counts) != action.cards
        or max(counts) - min(counts) > 1
    ):
        names = ", ".join(state.players[s].name for s in ordered)
        raise RuleError(
            "charity_split",
            Phrase(
                "Charity goes to the lowest-Level players ({names}), split as evenly as possible",
                names=names,
            ),
        )


@step.register
def step_charity(action: Charity, state: GameState) -> GameState:
    """The Charity is kept: each recipient's share, or the cards discarded (§3)."""
    recipients, ordered = _charity_recipients(state, action.giver)
    if action.shares is None:
        shares = rules.even_split(action.cards, ordered)
    else:
        shares = _named_shares(action.shares)
    result = CharityResult(
        giver=action.giver,
        cards=action.cards,
        shares=shares,
        discarded=0 if recipients else action.cards,
    )
    return state.evolve(charity=result)


@words.register
def words_charity(a: Charity, s: GameState) -> str:
    """History: who gives away how many cards as Charity."""
    return plural_phrase(
        "{name} gives away {count} card as Charity",
        "{name} gives away {count} cards as Charity",
        a.cards,
        name=player_name(s, a.giver),
        count=a.cards,
    )
