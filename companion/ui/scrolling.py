"""The scroll effect of every list in the app: a fling that slows down the same at any frame rate.

Kivy's own `DampedScrollEffect` (its default) takes one Euler step per frame and scales
its friction by the frame time, so a long frame (a slow phone, a garbage-collector
pause, a screen being rebuilt) makes the velocity change sign and grow from frame to
frame until the list is thousands of screens away. This effect solves the motion
exactly instead: over a frame of any length the speed decays by `exp(-rate * dt)` and
the list travels the integral of that, which can never overshoot or grow. Lists stop
firmly at their ends, as Android's own lists do, so a list never shows past its first
or last row.
"""

from __future__ import annotations

import math

from kivy.animation import Animation
from kivy.clock import Clock
from kivy.effects.scroll import ScrollEffect
from kivy.metrics import dp
from kivy.properties import NumericProperty
from kivy.uix.scrollview import ScrollView

# A fling keeps exp(-3) = 5% of its speed after one second: the feel of Kivy's default
# (friction 0.05 per 60 Hz frame), now independent of the frame rate.
FLING_DECAY_PER_S = 3.0
# Android's ViewConfiguration caps a fling at 8000 dp/s; a touch seen twice in one frame
# would otherwise measure as a near-infinite speed.
MAX_FLING_DP_S = 8000.0
# Slower than this the list stops: what is left to travel is under 4 dp.
STOP_DP_S = 10.0


class SteadyScrollEffect(ScrollEffect):
    """Momentum scrolling, exact for any frame time, held within the list's ends."""

    decay_per_s = NumericProperty(FLING_DECAY_PER_S)
    max_velocity = NumericProperty(dp(MAX_FLING_DP_S))
    min_velocity = NumericProperty(dp(STOP_DP_S))
    velocity: float  # the kinetic effect's Kivy property, in pixels a second

    def update_velocity(self, dt: float) -> None:
        velocity = self._bounded(float(self.velocity))
        if self.is_manual or abs(velocity) <= self.min_velocity:
            self._come_to_rest()
            return
        dt = dt if math.isfinite(dt) and dt > 0 else 0.0
        rate = float(self.decay_per_s)
        kept = math.exp(-rate * dt)
        self.velocity = velocity * kept
        # The distance covered while the speed decays from `velocity` to `velocity * kept`.
        self.apply_distance(velocity * (1.0 - kept) / rate)
        if self.velocity == 0:  # stopped at an end of the list
            self._come_to_rest()
        else:
            self.trigger_velocity_update()

    # A touch is timed by the frame that delivered it, the clock the motion runs on:
    # after a long frame a burst of queued touches would otherwise look like a
    # lightning-fast fling.
    def start(self, val: float, t: float | None = None) -> None:
        super().start(val, Clock.get_time() if t is None else t)

    def update(self, val: float, t: float | None = None) -> None:
        super().update(val, Clock.get_time() if t is None else t)

    def stop(self, val: float, t: float | None = None) -> None:
        super().stop(val, Clock.get_time() if t is None else t)
        self.velocity = self._bounded(float(self.velocity))

    def on_value(self, *_args: object) -> None:
        value = float(self.value)
        if not math.isfinite(value):
            self.reset(self.max)  # a ScrollView's top
            return
        low, high = self._ends()
        self.overscroll = 0.0
        if value < low:
            self.reset(low)
        elif value > high:
            self.reset(high)
        else:
            self.scroll = value

    def _ends(self) -> tuple[float, float]:
        # A ScrollView gives its top as `max` and its bottom as `min`, so max < min.
        low, high = sorted((float(self.min), float(self.max)))
        return low, high

    def _bounded(self, velocity: float) -> float:
        if not math.isfinite(velocity):
            return 0.0
        fastest = float(self.max_velocity)
        return max(-fastest, min(fastest, velocity))

    def _come_to_rest(self) -> None:
        self.velocity = 0.0
        low, high = self._ends()
        whole = float(round(self.value))
        # Whole pixels keep text crisp; an end stays exactly where it is.
        if not self.is_manual and low < whole < high:
            self.reset(whole)


_kivy_update_from_scroll = ScrollView.update_from_scroll


def _update_from_scroll(self: ScrollView, *largs: object) -> None:
    """Kivy's placing of a list's content, showing the scroll bar only when it scrolled.

    Kivy shows the bar on every call, a layout change too (a screen built, a label
    growing), then fades it over half a second: 30 frames drawn for a bar that showed
    nothing new, on every list, as a resumed game opens and its counters connect. Here
    the bar shows, and fades, when the list moves as Kivy shows it; a layout change only
    places the content.
    """
    where = (self.scroll_x, self.scroll_y)
    moved = where != self.__dict__.get("_companion_scrolled_to", where)
    self.__dict__["_companion_scrolled_to"] = where
    _kivy_update_from_scroll(self, *largs)
    if moved:
        return
    trigger = self._bind_inactive_bar_color_ev
    if trigger is not None:
        trigger.cancel()
    Animation.stop_all(self, "_bar_color")
    self.funbind("bar_color", self._change_bar_color)
    self.fbind("bar_inactive_color", self._change_bar_color)
    self._bar_color = self.bar_inactive_color


# Kivy keeps weak references to bound methods by name: the replacement keeps Kivy's.
_update_from_scroll.__name__ = _kivy_update_from_scroll.__name__


def show_bars_only_when_scrolled() -> None:
    """Every list in the app shows its scroll bar when it scrolls, not on a layout change
    (see `_update_from_scroll`). Idempotent."""
    ScrollView.update_from_scroll = _update_from_scroll
