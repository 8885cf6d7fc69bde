"""What each counter should show of a game: pure functions from game state and seats to messages.

Nothing here sends or remembers anything: `picture()` names every message a
counter should hold (by a key, with an identity that says when it changed),
and the connection sends what the counter has not acknowledged yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.core import GameState
from companion.devices import wire

UNKNOWN_COLOUR = (200, 200, 200)  # a light grey for a colour that is not "#rrggbb"


@dataclass(frozen=True)
class Desired:
    """One message a counter should hold; `ident` changes exactly when what it shows changes."""

    message: wire.Message
    ident: tuple[Any, ...]


def ident_of(message: wire.Message) -> tuple[Any, ...]:
    """What tells two messages apart: their type and field values (not their seq)."""
    return (message.TYPE, type(message).__name__, message.values())


def desired(message: wire.Message, ident: tuple[Any, ...] | None = None) -> Desired:
    """`message` as something a counter should hold (identified by its values unless told)."""
    return Desired(message, ident if ident is not None else ident_of(message))


def rgb(colour: str) -> tuple[int, int, int]:
    """A "#rrggbb" colour as a triple; anything else becomes a light grey.

    >>> rgb("#ff8000"), rgb("teal")
    ((255, 128, 0), (200, 200, 200))
    """
    text = colour.lstrip("#")
    try:
        return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))
    except (ValueError, IndexError):
        return UNKNOWN_COLOUR


def _i16(value: int) -> int:
    return max(-0x8000, min(0x7FFF, value))


def snapshot_of(state: GameState, rev: int) -> wire.Snapshot:
    """The SNAPSHOT of a game state: levels and flags of the first eight seats."""
    levels = []
    flags = []
    combat = state.combat
    for seat, player in enumerate(state.players[: wire.MAX_SLOTS]):
        levels.append(max(1, min(255, player.level)))
        bits = 0
        if seat == state.current:
            bits |= wire.FLAG_TURN
        if combat is not None and seat == combat.fighter:
            bits |= wire.FLAG_FIGHTING
        if combat is not None and seat == combat.helper:
            bits |= wire.FLAG_HELPING
        if player.dead:
            bits |= wire.FLAG_DEAD
        flags.append(bits)
    return wire.Snapshot(rev & 0xFFFF, tuple(levels), tuple(flags))


def show_of(state: GameState, roll_count: int) -> Desired:
    """The effect a counter should play: a win, a combat, the latest roll, or nothing.

    `roll_count` numbers the rolls seen so far: a roll shows only once one was seen
    while following the game (not a roll made before the counters joined), and two
    rolls of the same value are told apart by it.
    """
    if state.winners:
        return desired(wire.ShowWin(min(state.winners[0], wire.MAX_SLOTS - 1)))
    if state.combat is not None:
        combat = state.combat
        helper = combat.helper if combat.helper is not None else wire.NO_SLOT
        return desired(
            wire.ShowCombat(
                min(combat.fighter, wire.MAX_SLOTS - 1),
                _i16(combat.players_strength),
                _i16(combat.monsters_strength),
                combat.fighters_winning,
                helper if helper < wire.MAX_SLOTS else wire.NO_SLOT,
            )
        )
    if roll_count and state.last_roll is not None:
        roll = state.last_roll
        slot = roll.player if roll.player is not None and roll.player < 8 else wire.NO_SLOT
        show = wire.ShowRoll(slot, max(1, min(6, roll.value)))
        return Desired(show, (*ident_of(show), roll_count))
    return desired(wire.ShowClear())


def next_show(current: wire.Message | None, wanted: Desired) -> Desired | None:
    """The SHOW to hold next, or None to keep the current one.

    A roll ends by itself on the counter: no CLEAR cuts it short.
    """
    if isinstance(wanted.message, wire.ShowClear) and isinstance(current, wire.ShowRoll):
        return None
    return wanted


def after_absence(current: wire.Message | None) -> Desired | None:
    """What replaces the SHOW a counter holds when it comes back: a roll is not replayed.

    A roll is a moment, not a state; None keeps the current SHOW.
    """
    if isinstance(current, wire.ShowRoll):
        return desired(wire.ShowClear())
    return None


def table_picture(state: GameState, rev: int) -> dict[str, Desired]:
    """What every counter of the table should hold, whichever players it shows.

    `rev` numbers the snapshot; keys are stable so a newer message replaces the
    one it follows ("snapshot", "colours0", "colours4", "win").
    """
    out = {"snapshot": desired(snapshot_of(state, rev))}
    colours = [rgb(p.colour) for p in state.players[: wire.MAX_SLOTS]]
    per_message = wire.ConfigColours.MAX_COLOURS
    for first in range(0, len(colours), per_message):
        chunk = tuple(colours[first : first + per_message])
        out[f"colours{first}"] = desired(wire.ConfigColours(first, chunk))
    out["win"] = desired(wire.ConfigWinLevel(min(255, state.winning_level)))
    return out


def picture(
    state: GameState, rev: int, seats: tuple[int, ...], roll_count: int = 0
) -> dict[str, Desired]:
    """Every message a counter showing `seats` should hold, by key (SHOW not included):
    the `table_picture` and, if it shows any players, their SLOT_MAP under "slots"."""
    out = table_picture(state, rev)
    if seats:
        out["slots"] = desired(wire.ConfigSlotMap(seats))
    return out


def default_seats(
    players: int, *, tracker: bool, positions: int, taken: set[int]
) -> tuple[int, ...]:
    """The seats a counter shows until the user assigns it: a tracker the first free player,
    a board every player it has room for.

    >>> default_seats(4, tracker=True, positions=1, taken={0, 1})
    (2,)
    >>> default_seats(4, tracker=False, positions=8, taken=set())
    (0, 1, 2, 3)
    """
    players = min(players, wire.MAX_SLOTS)
    if tracker:
        free = [seat for seat in range(players) if seat not in taken]
        return (free[0] if free else 0,)
    return tuple(range(min(players, positions or wire.MAX_SLOTS)))
