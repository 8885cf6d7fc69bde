"""What each counter should show of a game: pure functions from game state and seats to messages.

Nothing here sends or remembers anything: `table_picture()` works out, once per
game state, every message a counter should hold (each under its `Part`, with an
identity that says when it changed), `TablePicture.for_counter()` adds what is
one counter's own, and the connection sends what the counter has not
acknowledged yet.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.core import GameState
from companion.devices import wire

UNKNOWN_COLOUR = (200, 200, 200)  # a light grey for a colour that is not "#rrggbb"
ROLL_SHOW_S = wire.ROLL_SHOW_MS / 1000  # s: a counter plays a roll this long, then ends it


class Part(enum.StrEnum):
    """One message a counter holds; a newer message of the same part replaces the older one."""

    SNAPSHOT = "snapshot"
    COLOURS_0 = "colours0"  # the colours of slots 0..3
    COLOURS_4 = "colours4"  # the colours of slots 4..7
    WIN_LEVEL = "win"
    SLOT_MAP = "slots"
    SHOW = "show"
    BRIGHTNESS = "brightness"  # the app's setting, not the game's


COLOURS = (Part.COLOURS_0, Part.COLOURS_4)  # by the first slot // ConfigColours.MAX_COLOURS


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


def is_moment(message: wire.Message | None) -> bool:
    """True for an effect that is a moment, not a state of the game: it plays once, for
    `ROLL_SHOW_S`, and ends by itself on the counter (a roll). A combat or a win is a state,
    shown until the game moves on.

    >>> is_moment(wire.ShowRoll(0, 5)), is_moment(wire.ShowCombat(0, 3, 4, False))
    (True, False)
    """
    return isinstance(message, wire.ShowRoll)


def next_show(current: wire.Message | None, wanted: Desired) -> Desired | None:
    """The SHOW to hold next, or None to keep the current one.

    A roll ends by itself on the counter: no CLEAR cuts it short.
    """
    if isinstance(wanted.message, wire.ShowClear) and is_moment(current):
        return None
    return wanted


def after_absence(current: wire.Message | None) -> Desired | None:
    """What replaces a SHOW that is a moment once that moment is over, or when a counter
    comes back from an absence: what the game shows under it, never the moment again.

    None keeps the current SHOW (a state of the game, shown again after any absence).
    """
    if is_moment(current):
        return desired(wire.ShowClear())
    return None


@dataclass(frozen=True)
class TablePicture:
    """What every counter of a table should hold, worked out once per game state."""

    parts: Mapping[Part, Desired]  # the same on every counter, whichever players it shows
    show: Desired  # the effect to play

    def for_counter(
        self, seats: tuple[int, ...], holding: wire.Message | None = None
    ) -> dict[Part, Desired]:
        """Every message a counter showing `seats` should hold, by part.

        `holding` is the SHOW the counter holds now: a roll on show ends by itself,
        so no CLEAR replaces it.
        """
        out = dict(self.parts)
        if seats:
            out[Part.SLOT_MAP] = desired(wire.ConfigSlotMap(seats))
        show = next_show(holding, self.show)
        if show is not None:
            out[Part.SHOW] = show
        return out


def table_picture(state: GameState, rev: int, roll_count: int = 0) -> TablePicture:
    """What every counter of the table should hold; `rev` numbers the snapshot.

    `roll_count` numbers the rolls seen while following the game (see `show_of`).
    """
    parts = {Part.SNAPSHOT: desired(snapshot_of(state, rev))}
    colours = [rgb(p.colour) for p in state.players[: wire.MAX_SLOTS]]
    per_message = wire.ConfigColours.MAX_COLOURS
    for first in range(0, len(colours), per_message):
        chunk = tuple(colours[first : first + per_message])
        parts[COLOURS[first // per_message]] = desired(wire.ConfigColours(first, chunk))
    parts[Part.WIN_LEVEL] = desired(wire.ConfigWinLevel(min(255, state.winning_level)))
    return TablePicture(parts, show_of(state, roll_count))


def picture(
    state: GameState, rev: int, seats: tuple[int, ...], roll_count: int = 0
) -> dict[Part, Desired]:
    """Every message a counter showing `seats` should hold, by part, SHOW included."""
    return table_picture(state, rev, roll_count).for_counter(seats)


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
