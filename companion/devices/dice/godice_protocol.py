"""The GoDice message layouts: bytes from a die into messages, and the commands we send.

GoDice speak over the Nordic UART service: commands go to the RX characteristic,
events come back on TX. Events start with ASCII letters: "R" a roll started;
"S" and three signed bytes (x, y, z) a roll came to rest; "FS", "TS", "MS" the
same vector after a fake roll, a tilt or a move, which are not rolls; "Bat"
then the battery percent; "Col" then the colour of the pips. The die reports
where gravity points, not a number: the face up is derived from the vector and
the shell the die wears, which only its owner knows (the bare die is a d6), as
the maker's libraries do: the nearest of the shell's face vectors, d10 and d00
read through the d20's vectors, d4, d8 and d12 through a set of 24.
Bytes that break a layout raise `DecodeError`, never anything else; a colour
code this app does not know is read as no known colour, as the maker's app does.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from companion.devices.dice.model import DecodeError, DieType

SERVICE_UUID = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
WRITE_CHAR_UUID = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"  # RX: app to die
NOTIFY_CHAR_UUID = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"  # TX: die to app
NAME_PREFIX = "GoDice"  # advertised names look like GoDice_1A2B3C_R_v03

# Command bytes.
REQUEST_BATTERY = 3
SET_LEDS = 8
PULSE_LEDS = 16
REQUEST_COLOUR = 23

PULSE_UNIT_MS = 10  # the pulse command counts on and off times in tens of milliseconds


class Stability(enum.Enum):
    """How the die came to rest; only STABLE follows a real roll."""

    STABLE = "S"
    FAKE = "FS"  # shaken or lifted and put back without a roll
    TILT = "TS"  # resting tilted against something
    MOVE = "MS"  # slid or turned on the table


class Colour(enum.IntEnum):
    """The colour of a die's pips, as it reports it (the makers' names)."""

    BLACK = 0
    RED = 1
    GREEN = 2
    BLUE = 3
    YELLOW = 4
    ORANGE = 5


@dataclass(frozen=True)
class RollStarted:
    """The die started tumbling."""


@dataclass(frozen=True)
class Resting:
    """The die came to rest; `vector` is where gravity points in the die's own axes."""

    stability: Stability
    vector: tuple[int, int, int]


@dataclass(frozen=True)
class Battery:
    """The answer to a battery request, in percent."""

    percent: int


@dataclass(frozen=True)
class ColourReport:
    """The answer to a colour request; `colour` is None for a code this app does not know."""

    colour: Colour | None
    code: int


@dataclass(frozen=True)
class OtherMessage:
    """An event this app does not read (charging, firmware details)."""

    first_byte: int


Message = RollStarted | Resting | Battery | ColourReport | OtherMessage

_TWO_LETTER = {b"FS": Stability.FAKE, b"TS": Stability.TILT, b"MS": Stability.MOVE}
_COLOUR_CODES = frozenset(Colour)


def decode(data: bytes) -> Message:
    """One notification from a die into a message; raises `DecodeError` if malformed.

    >>> decode(b"S" + bytes([0, 0, 0xC0]))
    Resting(stability=<Stability.STABLE: 'S'>, vector=(0, 0, -64))
    >>> decode(b"Bat" + bytes([76]))
    Battery(percent=76)
    """
    if not data:
        raise DecodeError("GoDice: empty notification")
    head3, head2 = data[:3], data[:2]
    if head3 == b"Bat":
        _need(data, 4, "battery")
        return Battery(min(data[3], 100))  # a gauge may overshoot while charging
    if head3 == b"Col":
        _need(data, 4, "colour")
        code = data[3]
        return ColourReport(Colour(code) if code in _COLOUR_CODES else None, code)
    if head2 in _TWO_LETTER:
        _need(data, 5, head2.decode())
        return Resting(_TWO_LETTER[head2], _vector(data[2:5]))
    if data[0] == ord("S"):
        _need(data, 4, "stable")
        return Resting(Stability.STABLE, _vector(data[1:4]))
    if data[0] == ord("R"):
        return RollStarted()
    return OtherMessage(data[0])


def _need(data: bytes, size: int, what: str) -> None:
    if len(data) < size:
        raise DecodeError(f"GoDice: a {what} message needs {size} bytes, got {len(data)}")


def _vector(raw: bytes) -> tuple[int, int, int]:
    x, y, z = (value - 256 if value > 127 else value for value in raw)
    if x == y == z == 0:
        raise DecodeError("GoDice: a resting die reported no gravity at all")
    return x, y, z


Vector = tuple[int, int, int]

# Where gravity points, in the die's own axes, when each position lies up: the
# maker's published tables, in their order (a tie goes to the first). The bare die
# (a d6) has six, one per face on the axes; a d20 shell twenty, one per face; the
# d4, d8 and d12 shells share a set of twenty-four positions.
D6_VECTORS: dict[int, Vector] = {
    1: (-64, 0, 0), 2: (0, 0, 64), 3: (0, 64, 0), 4: (0, -64, 0), 5: (0, 0, -64), 6: (64, 0, 0),
}  # fmt: skip
_D20_VECTORS: tuple[Vector, ...] = (
    (-64, 0, -22), (42, -42, 40), (0, 22, -64), (0, 22, 64), (-42, -42, 42),
    (22, 64, 0), (-42, -42, -42), (64, 0, -22), (-22, 64, 0), (42, -42, -42),
    (-42, 42, 42), (22, -64, 0), (-64, 0, 22), (42, 42, 42), (-22, -64, 0),
    (42, 42, -42), (0, -22, -64), (0, -22, 64), (-42, 42, -42), (64, 0, 22),
)  # fmt: skip
_D24_VECTORS: tuple[Vector, ...] = (
    (20, -60, -20), (20, 0, 60), (-40, -40, 40), (-60, 0, 20), (40, 20, 40),
    (-20, -60, -20), (20, 60, 20), (-40, 20, -40), (-40, 40, 40), (-20, 0, 60),
    (-20, -60, 20), (60, 0, 20), (-60, 0, -20), (20, 60, -20), (20, 0, -60),
    (40, -20, -40), (-20, 60, -20), (-40, -40, -40), (40, -20, 40), (20, -60, 20),
    (60, 0, -20), (40, 20, -40), (-20, 0, -60), (-20, 60, 20),
)  # fmt: skip
# The number each position of the d20 (for d10 and d00) or the 24 (for d4, d8, d12)
# shows in that shell, position 1 first.
_D10_NUMBERS = (8, 2, 6, 1, 4, 3, 9, 0, 7, 5, 5, 7, 0, 9, 3, 4, 1, 6, 2, 8)
_D4_NUMBERS = (3, 1, 4, 1, 4, 4, 1, 4, 2, 3, 1, 1, 1, 4, 2, 3, 3, 2, 2, 2, 4, 1, 3, 2)
_D8_NUMBERS = (3, 3, 6, 1, 2, 8, 1, 1, 4, 7, 5, 5, 4, 4, 2, 5, 7, 7, 8, 2, 8, 3, 6, 6)
_D12_NUMBERS = tuple(range(1, 13)) * 2

# Per shell: (position, number shown) in the maker's order.
_SHELL_POSITIONS: dict[DieType, tuple[tuple[Vector, int], ...]] = {
    DieType.D6: tuple((vector, face) for face, vector in D6_VECTORS.items()),
    DieType.D20: tuple(zip(_D20_VECTORS, range(1, 21), strict=True)),
    DieType.D10: tuple(zip(_D20_VECTORS, _D10_NUMBERS, strict=True)),
    DieType.D00: tuple(zip(_D20_VECTORS, (n * 10 for n in _D10_NUMBERS), strict=True)),
    DieType.D4: tuple(zip(_D24_VECTORS, _D4_NUMBERS, strict=True)),
    DieType.D8: tuple(zip(_D24_VECTORS, _D8_NUMBERS, strict=True)),
    DieType.D12: tuple(zip(_D24_VECTORS, _D12_NUMBERS, strict=True)),
}
_SHELL_POSITIONS[DieType.D6_PIPPED] = _SHELL_POSITIONS[DieType.D6]

# The shells a GoDice can wear, bare first (the makers number them d6 0, d20 1, d10 2,
# d10x (our d00) 3, d4 4, d8 5, d12 6).
SHELLS = (DieType.D6, DieType.D4, DieType.D8, DieType.D10, DieType.D00, DieType.D12, DieType.D20)


def _nearest(positions: tuple[tuple[Vector, int], ...], vector: Vector) -> int:
    """The number of the position nearest `vector`; the first of equals wins."""
    best, best_distance = positions[0][1], None
    for position, number in positions:
        distance = sum((a - b) ** 2 for a, b in zip(position, vector, strict=True))
        if best_distance is None or distance < best_distance:
            best, best_distance = number, distance
    return best


def d6_face(vector: Vector) -> int:
    """The face up on a bare GoDice (a d6): the nearest of its six face vectors.

    >>> d6_face((-60, 5, 9)), d6_face((3, -2, 61)), d6_face((58, 20, -20))
    (1, 2, 6)
    """
    return _nearest(_SHELL_POSITIONS[DieType.D6], vector)


def face_for(shell: DieType, vector: Vector) -> int | None:
    """The number up on a die wearing `shell` (d10: 0-9, d00: 0-90); None for a shell
    the maker does not make (a fudge die, say).

    >>> face_for(DieType.D20, (60, 2, 20)), face_for(DieType.D00, (-40, -40, 44))
    (20, 40)
    """
    positions = _SHELL_POSITIONS.get(shell)
    return None if positions is None else _nearest(positions, vector)


def vector_for(shell: DieType, face: int) -> Vector:
    """Where gravity points with `face` up in `shell` (its first position): for virtual
    dice and tests; `ValueError` for a face the shell does not have."""
    for position, number in _SHELL_POSITIONS.get(shell, ()):
        if number == face:
            return position
    raise ValueError(f"a GoDice in a {shell.value} shell has no face {face}")


def shell_faces(shell: DieType) -> tuple[int, ...]:
    """The numbers a shell shows, lowest first (empty for a shell the maker does not make)."""
    return tuple(sorted({number for _, number in _SHELL_POSITIONS.get(shell, ())}))


# -- what the app sends ----------------------------------------------------------------


def request_battery() -> bytes:
    """Ask for the battery level (answered with "Bat")."""
    return bytes([REQUEST_BATTERY])


def request_colour() -> bytes:
    """Ask for the pips' colour (answered with "Col")."""
    return bytes([REQUEST_COLOUR])


def pulse(
    rgb: tuple[int, int, int], *, count: int = 2, on_ms: int = 300, off_ms: int = 200
) -> bytes:
    """Pulse both LEDs `count` times (times are sent in tens of milliseconds).

    >>> pulse((255, 0, 0), count=3, on_ms=250, off_ms=100).hex()
    '1003190aff00000100'
    """
    red, green, blue = rgb
    on = min(255, on_ms // PULSE_UNIT_MS)
    off = min(255, off_ms // PULSE_UNIT_MS)
    return bytes([PULSE_LEDS, count, on, off, red, green, blue, 1, 0])


def set_leds(first: tuple[int, int, int], second: tuple[int, int, int]) -> bytes:
    """Set the two LEDs to steady colours ((0, 0, 0) is off)."""
    return bytes([SET_LEDS, *first, *second])


def decode_pulse(data: bytes) -> tuple[int, tuple[int, int, int]]:
    """A pulse command's count and colour (what a virtual die shows)."""
    if len(data) != 9 or data[0] != PULSE_LEDS:
        raise DecodeError("GoDice: a pulse command is 9 bytes starting with 16")
    return data[1], (data[4], data[5], data[6])


# -- what a die sends (for virtual dice and tests) ---------------------------------------


def stable(vector: Vector, stability: Stability = Stability.STABLE) -> bytes:
    """A resting event as the die sends it."""
    return stability.value.encode() + bytes(value & 0xFF for value in vector)


def roll_started() -> bytes:
    """A roll-start event as the die sends it."""
    return b"R"


def battery(percent: int) -> bytes:
    """A battery answer as the die sends it."""
    return b"Bat" + bytes([percent])


def colour(value: int) -> bytes:
    """A colour answer as the die sends it (a `Colour`, or any code)."""
    return b"Col" + bytes([value])
