"""The wait before a kill is final, owned by the app so that it outlives the Combat screen.

Players must never lose a kill because someone tapped another screen: the countdown
keeps running wherever the app is (the frame shows it on every screen), and only a
deliberate "Wait!" or a change that turns the fight stops it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import NumericProperty

STEP_S = 0.1  # how often the seconds left are redrawn


def _never() -> bool:
    return False


def _nothing() -> None:
    return None


class KillCountdown(EventDispatcher):
    """Seconds left before the kill is final (`remaining`; 0 when none runs)."""

    remaining = NumericProperty(0.0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._tick: Any = None
        self._still_winning: Callable[[], bool] = _never
        self._finish: Callable[[], None] = _nothing

    @property
    def running(self) -> bool:
        return self.remaining > 0

    def start(
        self, seconds: float, still_winning: Callable[[], bool], finish: Callable[[], None]
    ) -> None:
        """Count `seconds` down, then call `finish` (at once for 0 s).

        `still_winning` is asked at every step: when a card turns the fight the kill is
        off and `finish` is never called.
        """
        self.stop()
        if seconds <= 0:
            finish()
            return
        self._still_winning = still_winning
        self._finish = finish
        self.remaining = seconds
        self._tick = Clock.schedule_interval(self._count, STEP_S)

    def stop(self) -> None:
        """No kill (yet): someone interferes, or the fight ended another way."""
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        self.remaining = 0.0
        self._release()

    def _release(self) -> None:
        # Held only while counting: what started it (a Combat screen since dropped for a
        # new language, say) is not kept alive by a countdown that is over.
        self._still_winning = _never
        self._finish = _nothing

    def _count(self, dt: float) -> bool:
        if not self._still_winning():
            self.stop()  # something was played that turned the fight: the kill is off
            return False
        self.remaining = max(0.0, self.remaining - dt)
        if self.remaining <= 0:
            self._tick = None
            finish = self._finish
            self._release()
            finish()
            return False
        return True
