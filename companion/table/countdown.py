"""The wait before a kill is final: the table's, so that every screen and every page shows
it, a fighter's phone can call the kill, and anyone can still interfere.

Players must never lose a kill because someone tapped another screen, and never win one
after a card turned the fight: the countdown runs whatever is on show, the table stops
it as soon as the fighters are no longer winning, and it ends in the kill only if they
still are then. How time passes is given to it (`Timer`): Kivy's clock in the app, the
event loop in `companion serve`, a stepped clock in the tests.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol

from companion.plumbing.listeners import Listeners


class Cancellable(Protocol):
    """What a timer gives back: a call still to come, which `cancel()` calls off."""

    def cancel(self) -> object: ...


# timer(delay_s, callback): call `callback` once, `delay_s` from now.
Timer = Callable[[float, Callable[[], None]], Cancellable]


def loop_timer(delay_s: float, callback: Callable[[], None]) -> Cancellable:
    """A timer on the running asyncio loop (for a table with no window)."""
    return asyncio.get_running_loop().call_later(delay_s, callback)


class KillCountdown:
    """Seconds left before the kill is final (`remaining()`; 0 when none runs).

    `changes` is told whenever a countdown starts, stops or ends."""

    def __init__(self, timer: Timer = loop_timer, clock: Callable[[], float] = time.monotonic):
        self._timer = timer
        self._clock = clock
        self._ends_at = 0.0
        self._seconds = 0.0
        self._call: Cancellable | None = None
        self._finish: Callable[[], None] | None = None
        self.changes: Listeners[[]] = Listeners()

    @property
    def running(self) -> bool:
        return self._call is not None

    @property
    def seconds(self) -> float:
        """How long the running countdown is in all (0 when none runs)."""
        return self._seconds if self.running else 0.0

    def remaining(self) -> float:
        """Seconds left (0 when no countdown runs)."""
        if self._call is None:
            return 0.0
        return max(0.0, self._ends_at - self._clock())

    def start(self, seconds: float, finish: Callable[[], None]) -> None:
        """Count `seconds` down, then call `finish` (at once for 0 s)."""
        self.stop()
        if seconds <= 0:
            finish()
            return
        self._finish = finish
        self._seconds = seconds
        self._ends_at = self._clock() + seconds
        self._call = self._timer(seconds, self._done)
        self.changes.emit()

    def stop(self) -> bool:
        """No kill (yet): someone interferes, or the fight turned or ended another way.
        Returns whether a countdown was running."""
        call, self._call, self._finish = self._call, None, None
        if call is None:
            return False
        call.cancel()
        self.changes.emit()
        return True

    def _done(self) -> None:
        finish, self._call, self._finish = self._finish, None, None
        self.changes.emit()
        if finish is not None:
            finish()
