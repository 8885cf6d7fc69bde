"""The GoDice message layouts: bytes from a die into messages, and the commands we send.

GoDice speak over the Nordic UART service: commands go to the RX characteristic,
events come back on TX. Events start with ASCII letters: "R" a roll started;
"S" and three signed bytes (x, y, z) a roll came to rest; "FS", "TS", "MS" the
same vector after a fake roll, a tilt or a move, which are not rolls; "Bat"
then the battery percent; "Col" then the colour of the pips. The die reports
where gravity points, not a number: the face up is derived from the vector and
the shell the die wears, which only its owner knows (the bare die is a d6).
Bytes that break a layout raise `DecodeError`, never anything else.
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
    """The colour of a die's pips, as it reports it."""

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
    """The answer to a colour request."""

    colour: Colour


@dataclass(frozen=True)
class OtherMessage:
    """An event this app does not read (charging, firmware details)."""

    first_byte: int


Message = RollStarted | Resting | Battery | ColourReport | OtherMessage

_TWO_LETTER = {b"FS": Stability.FAKE, b"TS": Stability.TILT, b"MS": Stability.MOVE}


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
        try:
            return ColourReport(Colour(data[3]))
        except ValueError:
            raise DecodeError(f"GoDice: colour {data[3]} is not one the die reports") from None
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


# The d6: which face is up when gravity points along each axis of the die.
# (axis index, sign of the component) -> face.
_D6_FACES = {(0, -1): 1, (2, 1): 2, (1, 1): 3, (1, -1): 4, (2, -1): 5, (0, 1): 6}
D6_VECTORS = {
    face: tuple(sign * 64 if axis == index else 0 for index in range(3))
    for (axis, sign), face in _D6_FACES.items()
}  # the vector each face reports when it lies flat, for virtual dice and tests


def d6_face(vector: tuple[int, int, int]) -> int:
    """The face up on a bare GoDice (a d6): gravity runs along the strongest axis.

    Picking the strongest component is the same as picking the nearest of the
    six face vectors, since those all have the same length.

    >>> d6_face((-60, 5, 9)), d6_face((3, -2, 61)), d6_face((58, 20, -20))
    (1, 2, 6)
    """
    axis = max(range(3), key=lambda index: abs(vector[index]))
    sign = 1 if vector[axis] > 0 else -1
    return _D6_FACES[(axis, sign)]


# The shells a GoDice can wear, bare first.
SHELLS = (DieType.D6, DieType.D4, DieType.D8, DieType.D10, DieType.D00, DieType.D12, DieType.D20)


def face_for(shell: DieType, vector: tuple[int, int, int]) -> int | None:
    """The face up for a die wearing `shell`; None for shells this app does not read."""
    if shell.is_d6:
        return d6_face(vector)
    return None


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


def stable(vector: tuple[int, int, int], stability: Stability = Stability.STABLE) -> bytes:
    """A resting event as the die sends it."""
    return stability.value.encode() + bytes(value & 0xFF for value in vector)


def roll_started() -> bytes:
    """A roll-start event as the die sends it."""
    return b"R"


def battery(percent: int) -> bytes:
    """A battery answer as the die sends it."""
    return b"Bat" + bytes([percent])


def colour(value: Colour) -> bytes:
    """A colour answer as the die sends it."""
    return b"Col" + bytes([value])
