"""The pages' views, worked out once per role, seat, language and roll offer.

A seat's view is kept while nothing it shows can have changed (the states are
immutable, so an unchanged player is the very same object): a press by one player
costs the other seats' pages nothing, not even a comparison of their views.
"""

from __future__ import annotations

from typing import Any

from companion.core import Game, GameState
from companion.web.keys import Role
from companion.web.speech import Speech
from companion.web.views import RollOffer, View, board_view, seat_view


class ViewCache:
    """The last view worked out for each kind of page, with what it was made of."""

    def __init__(self) -> None:
        self._views: dict[tuple[Any, ...], tuple[tuple[Any, ...], View]] = {}

    def view(self, game: Game, role: Role, speech: Speech, offer: RollOffer | None) -> View:
        """The view of `game`'s current state for a page of `role` speaking `speech`."""
        key = (role.kind, role.seat, speech.code, offer)
        state = game.state
        inputs = _inputs(state, role.seat)
        kept = self._views.get(key)
        if kept is not None and _same(kept[0], inputs):
            return kept[1]
        if role.kind == "board":
            view = board_view(state, speech)
        else:
            assert role.seat is not None
            view = seat_view(
                state,
                role.seat,
                speech,
                lambda action: game.check(action) is None,
                offer,
            )
        self._views[key] = (inputs, view)
        return view


def _inputs(state: GameState, seat: int | None) -> tuple[Any, ...]:
    """What a page's view is made of: all of the state for the board; for a seat, its own
    player and what the turn, the fight and the rules' limits depend on."""
    if seat is None:
        return (state,)
    player = state.players[seat] if 0 <= seat < len(state.players) else None
    return (
        state.setup,
        player,
        state.current,
        state.turn,
        state.phase,
        state.combat,
        state.winners,
        state.winning_level,
    )


def _same(kept: tuple[Any, ...], now: tuple[Any, ...]) -> bool:
    """Whether two views' inputs are the same: the very same objects, or equal numbers."""
    return all(
        a is b or (type(a) is int and type(b) is int and a == b) or (a == () and b == ())
        for a, b in zip(kept, now, strict=True)
    )
