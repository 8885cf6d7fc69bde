"""What every smart die reports, whatever its maker: die types, settled rolls, the errors."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from companion.core.names import NAME_MAX, log_name
from companion.plumbing.errors import CompanionError


class DiceError(CompanionError):
    """Base of every error the dice layer raises."""


class DecodeError(DiceError, ValueError):
    """A notification that does not follow the die's published message layout."""


class NotAD6Error(DiceError, ValueError):
    """A roll from a die that is not a six-sided one, offered for a d6 roll."""


class NoDieError(DiceError):
    """Nobody's die can give this roll: none assigned, or none connected."""


class DieLostError(DiceError):
    """The die a roll was waited from went away (out of range, switched off, battery)."""


class DieType(enum.Enum):
    """The shape of a die, as the die or its owner tells it."""

    UNKNOWN = "unknown"
    D4 = "d4"
    D6 = "d6"
    D6_PIPPED = "d6 pipped"
    D6_FUDGE = "fudge d6"
    D8 = "d8"
    D10 = "d10"
    D00 = "d00"
    D12 = "d12"
    D20 = "d20"
    D24 = "d24"

    @property
    def is_d6(self) -> bool:
        """True for a die with six faces numbered 1 to 6 (pips or numerals).

        A fudge die has six faces too, but they read -, blank and +: it is no d6.

        >>> DieType.D6_PIPPED.is_d6, DieType.D6_FUDGE.is_d6, DieType.D20.is_d6
        (True, False, False)
        """
        return self in (DieType.D6, DieType.D6_PIPPED)


class Motion(enum.Enum):
    """What a die is doing right now; only SETTLED after a roll is a result."""

    UNKNOWN = "unknown"
    HANDLING = "handling"  # picked up, shaken in a hand
    ROLLING = "rolling"  # tumbling on the table
    SETTLED = "settled"  # came to rest on a face after a roll: a result
    RESTING = "resting"  # lying on a face without having been rolled (moved, nudged)
    CROOKED = "crooked"  # came to rest leaning on something: no face is up


@dataclass(frozen=True)
class SettledRoll:
    """One finished roll of one die: the face it settled on and which die it was."""

    die_id: str  # stable while the die is known: its Bluetooth address
    die_name: str  # what the die calls itself, for the screen and the game log
    die_type: DieType
    face: int | None  # the number on the face that is up; None where it cannot be read
    at_s: float  # loop time when the settled notification arrived

    def d6(self) -> int:
        """The face as a d6 result; a die of another shape is refused.

        >>> SettledRoll("a", "Red", DieType.D6, 5, 0.0).d6()
        5
        >>> try:
        ...     SettledRoll("a", "Big", DieType.D20, 17, 0.0).d6()
        ... except NotAD6Error as exc:
        ...     print(exc)
        Big is a d20, not a d6: roll a d6 or roll on screen
        """
        if not self.die_type.is_d6:
            raise NotAD6Error(
                f"{self.name} is a {self.die_type.value}, not a d6: roll a d6 or roll on screen"
            )
        if self.face is None or not 1 <= self.face <= 6:
            raise NotAD6Error(f"{self.name} reported face {self.face}, which no d6 has")
        return self.face

    @property
    def name(self) -> str:
        """The die's own name as a person reads it: kept to the log's rule for names."""
        return log_name(self.die_name, NAME_MAX)

    @property
    def label(self) -> str:
        """How the game log and the screen name the die: maker's name and shape."""
        return die_label(self.die_name, self.die_type)


def die_label(name: str, die_type: DieType) -> str:
    """A die's name and shape as the log holds it: the name is the die's own report of itself,
    so it is made to keep the log's rule for names (and fit its field, shape included).

    >>> die_label("Ruby", DieType.D6)
    'Ruby (d6)'
    """
    shape = f" ({die_type.value})"
    return log_name(name, NAME_MAX - len(shape)) + shape
