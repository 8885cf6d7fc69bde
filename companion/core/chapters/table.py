"""Looking things up on the table and changing one player: the checks and edits that
several chapters share."""

from __future__ import annotations

from companion.core.errors import RuleError
from companion.core.models import SECOND_READING
from companion.core.phrase import Phrase
from companion.core.state import CombatState, GameState, Item, Phase, PlayerState


def player_at(state: GameState, number: int) -> PlayerState:
    """The player in a seat, or RuleError when the seat is empty."""
    if not 0 <= number < len(state.players):
        raise RuleError(
            "no_such_player",
            Phrase("There is no player in seat {number} (seats count from 0)", number=number),
        )
    return state.players[number]


def with_player(state: GameState, number: int, **changes: object) -> GameState:
    """The state with one player's fields changed."""
    players = list(state.players)
    players[number] = players[number].evolve(**changes)
    return state.evolve(players=tuple(players))


def alive(player: PlayerState, doing: str) -> None:
    """Dead players cannot receive cards, level up or act (RULES.md §8). `doing` is a
    template (`phrase_template`), made a sentence only when the rule is broken."""
    if player.dead:
        raise RuleError(
            "dead_player",
            Phrase("{name} is dead and cannot {doing}", name=player.name, doing=Phrase(doing)),
        )


def turn_passed(state: GameState, seat: int) -> bool:
    """Whether `seat` gave the Charity that ended their turn: the next player's turn has
    begun, so they no longer act as the player whose turn it is (RULES.md §11, after
    Charity), though play has not yet been passed on (`end_turn`)."""
    charity = state.charity
    return charity is not None and charity.giver == seat == state.current


def refuse_after_charity(state: GameState, seat: int) -> None:
    """RuleError when `seat` gave the Charity that ended their turn (see `turn_passed`)."""
    if state.rules >= SECOND_READING and turn_passed(state, seat):
        raise RuleError("turn_over", Phrase("Charity ends the turn: the next player's turn begins"))


def current_combat(state: GameState) -> CombatState:
    """The combat going on, or RuleError when there is none."""
    if state.combat is None:
        raise RuleError("no_combat", Phrase("There is no combat going on"))
    return state.combat


def not_running(combat: CombatState) -> None:
    """Once running away has started, nothing else about the combat changes (§7)."""
    if combat.running:
        raise RuleError(
            "running_away",
            Phrase("Running away has started: finish the rolls before anything else"),
        )


def find_item(player: PlayerState, item_id: str) -> Item:
    """A player's tracked item by id, or RuleError."""
    for item in player.items:
        if item.id == item_id:
            return item
    raise RuleError(
        "no_such_item", Phrase("{name} has no item {item}", name=player.name, item=item_id)
    )


def win(state: GameState, seats: tuple[int, ...]) -> GameState:
    """The game is over: these seats won."""
    return state.evolve(winners=seats, phase=Phase.GAME_OVER, combat=None)
