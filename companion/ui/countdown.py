"""The wait before a kill is final, on screen: a Kivy view of the table's countdown
(`companion.table.countdown`), so that every screen shows it (the frame's strip, the
Combat screen's Kill button) wherever the kill was called from, a phone included.

The countdown itself is the table's: it outlives the Combat screen, and only a
deliberate "Wait!" or a change that turns the fight stops it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import NumericProperty

if TYPE_CHECKING:
    from companion.table.countdown import KillCountdown as TableCountdown

STEP_S = 0.1  # how often the seconds left are redrawn


class KillCountdown(EventDispatcher):
    """Seconds left before the kill is final (`remaining`; 0 when none runs)."""

    remaining = NumericProperty(0.0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._table: TableCountdown | None = None
        self._tick = Clock.schedule_interval(self._count, STEP_S)
        self._tick.cancel()

    @property
    def running(self) -> bool:
        return self._table is not None and self._table.running

    def follow(self, countdown: TableCountdown) -> None:
        """Show the table's countdown from now on."""
        self._table = countdown
        countdown.changes.add(self._changed)
        self._changed()

    def _changed(self) -> None:
        if self.running:
            self._tick()
        else:
            self._tick.cancel()
        self._count(0)

    def _count(self, _dt: float) -> None:
        self.remaining = self._table.remaining() if self._table is not None else 0.0


def clock_timer(delay_s: float, callback: Any) -> Any:
    """The table's timer in the app: Kivy's clock (stepped in the tests)."""
    return Clock.schedule_once(lambda _dt: callback(), delay_s)
