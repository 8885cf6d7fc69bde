"""What the app knows of each counter, as types: its role, whose it is, and its status line.

The Devices screen, the command line and the tests read a `CounterStatus`; its
states are enums (`Access`, `Role`, and the link's own `LinkState` for the
connection), never strings spelt again in each reader.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass

from companion.devices import wire
from companion.devices.link import LinkState


class Role(enum.StrEnum):
    """What a counter is: a level board showing the whole table, or one player's tracker."""

    BOARD = "board"
    TRACKER = "tracker"

    @classmethod
    def of_hello(cls, role: int) -> Role | None:
        """The role a HELLO reports (`wire.ROLE_*`); None for the app's or an unknown one."""
        return _ROLES.get(role)


_ROLES = {wire.ROLE_BOARD: Role.BOARD, wire.ROLE_TRACKER: Role.TRACKER}


class Access(enum.StrEnum):
    """Whose a counter is, as far as this app knows."""

    UNKNOWN = "unknown"  # no HELLO yet
    OURS = "ours"  # claimed by this app and authenticated
    UNCLAIMED = "unclaimed"  # long-press it to add it
    CLAIMING = "claiming"  # a claim is under way
    CLAIMED_ELSEWHERE = "claimed_elsewhere"  # another table's: moved only by a long press
    # Answers with the id of a counter claimed here, but elsewhere or without proving it
    # holds the token: perhaps a fake passing messages on; never used.
    MISMATCH = "mismatch"
    # Speaks another protocol major, or firmware older than `session.MIN_FIRMWARE`.
    VERSION = "version"

    @property
    def claimed(self) -> bool:
        """True if some app holds the counter (this one or another table's)."""
        return self in (Access.OURS, Access.CLAIMED_ELSEWHERE)


def counter_key(transport: str, address: str) -> str:
    """How the app names one counter across its screens: its transport and address."""
    return f"{transport}:{address}"


@dataclass(frozen=True)
class CounterStatus:
    """What the Devices screen shows for one counter; a new object on every change.

    `connection` is the state of the counter's link: OPENING until the first
    connect, OPEN, LOST while it is away and being reconnected, CLOSED once
    stopped. `name` is the link's until the counter's HELLO names it.
    `disturbed` says that something else is on the counter's line: junk, messages
    that are not the app's, the app's own messages lost on the way (`Disturbances`).
    """

    key: str
    transport: str
    name: str
    address: str
    connection: LinkState = LinkState.OPENING
    access: Access = Access.UNKNOWN
    role: Role | None = None
    firmware: str | None = None
    counter_id: int | None = None
    battery_percent: int | None = None
    battery_mv: int | None = None
    charging: bool = False
    battery_low: bool = False
    rtt_ms: float | None = None
    errors: int = 0
    reconnects: int = 0
    players: tuple[int, ...] = ()
    last_problem: str = ""
    disturbed: bool = False
    # The counter started in safe mode (protocol 2.1): after `failed_starts` starts in a row
    # that never reached a working state it serves only its serial line and the installer,
    # and wants its firmware installed again (0: its STATUS has not said how many yet).
    safe_mode: bool = False
    failed_starts: int = 0

    @property
    def claimed(self) -> bool:
        """True if some app holds this counter (this one or another table's)."""
        return self.access.claimed

    @property
    def ours(self) -> bool:
        """True while the counter is this app's and authenticated."""
        return self.access is Access.OURS


DISTURBANCE_WINDOW_S = 10.0  # s: how far back the signs of a disturbed line are counted
DISTURBANCES_MIN = 3  # signs within the window that make it one: a lone damaged message is not


class Disturbances:
    """Signs that something else is on a counter's line, and whether there are enough of them
    lately to say so (and to say, later, that they stopped)."""

    def __init__(self) -> None:
        self._at: deque[float] = deque()

    def seen(self, now: float) -> None:
        """One more sign at loop time `now`: junk, a stranger's message, a message of ours lost."""
        self._at.append(now)

    def disturbed(self, now: float) -> bool:
        """True while DISTURBANCES_MIN signs or more fell within the last DISTURBANCE_WINDOW_S."""
        while self._at and now - self._at[0] > DISTURBANCE_WINDOW_S:
            self._at.popleft()
        return len(self._at) >= DISTURBANCES_MIN

    def calm_at(self) -> float:
        """When, with no new sign, the line counts as calm again (loop time)."""
        index = len(self._at) - DISTURBANCES_MIN
        return self._at[index] + DISTURBANCE_WINDOW_S if index >= 0 else 0.0


def disturbance_signs(error: wire.Error) -> int:
    """How many signs of a disturbed line one ERROR is: a counter's BAD_FRAME report says
    how many frames it dropped ("dropped N"); any other error is one sign."""
    if error.code == wire.ERR_BAD_FRAME and error.detail.startswith("dropped "):
        count = error.detail.removeprefix("dropped ")
        if count.isdigit():
            return max(1, int(count))
    return 1
