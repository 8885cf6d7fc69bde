"""Drives the real companion app in this process for the UI benchmarks (and gives the UI
tests their fingers): an offscreen window, touches sent through the Window where a finger
would land, and the time from lifting the finger to the first frame that shows the result.

Kivy's frame cap is lifted (maxfps 0), so a figure is the work a tap causes, not the
wait for the next 60 Hz tick.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

PHONE = (360, 640)
# A frame that shows the result must come within this many frames of the tap.
MAX_FRAMES = 200
_touch_ids = count(1)


def start_app(data_dir: Path, size: tuple[int, int] = PHONE) -> Any:
    """The companion app, started in an offscreen window, ready (the last game resumed)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    from companion.commands.app import prepare_kivy

    prepare_kivy(size)
    from kivy.config import Config

    Config.set("graphics", "maxfps", "0")
    import sys

    from companion.ui.app import CompanionApp

    # Kivy sends errors to its log file only; a benchmark must show them.
    sys.excepthook = sys.__excepthook__
    sys.stderr = sys.__stderr__
    app = CompanionApp(data_dir=data_dir, no_virtual=True)
    app._run_prepare()  # what App.run() does before its main loop
    deadline = time.monotonic() + 60
    while not app.ready:
        if time.monotonic() > deadline:
            raise RuntimeError("the app did not finish starting")
        pump(1)
    pump(3)
    return app


def pump(frames: int = 3) -> None:
    """Run Kivy frames."""
    from kivy.base import EventLoop

    for _ in range(frames):
        EventLoop.idle()


@functools.cache
def _finger_class() -> Any:
    # Kivy is imported on first use: the window must not open before its size is set.
    from kivy.input.motionevent import MotionEvent

    class Finger(MotionEvent):  # type: ignore[misc]
        """One finger on the glass, at a point given as a share of the window (0..1)."""

        def depack(self, args: tuple[float, float]) -> None:
            self.sx, self.sy = args
            self.is_touch = True
            self.profile = ["pos"]
            super().depack(args)

    return Finger


def press(x: float, y: float, source: str = "driver") -> Any:
    """Put a finger down at window point (x, y), as the Window would deliver it."""
    from kivy.base import EventLoop
    from kivy.core.window import Window

    finger = _finger_class()(source, next(_touch_ids), (x / Window.width, y / Window.height))
    EventLoop.post_dispatch_input("begin", finger)
    return finger


def slide(finger: Any, x: float, y: float) -> None:
    """Move a finger that is down to window point (x, y)."""
    from kivy.base import EventLoop
    from kivy.core.window import Window

    finger.move((x / Window.width, y / Window.height))
    EventLoop.post_dispatch_input("update", finger)


def lift(finger: Any) -> None:
    """Take the finger off the glass where it is."""
    from kivy.base import EventLoop

    EventLoop.post_dispatch_input("end", finger)


def scroller_of(widget: Any) -> Any:
    """The nearest scrolling list that holds `widget`, or None."""
    from kivy.uix.scrollview import ScrollView

    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            return parent
        parent = parent.parent
    return None


def window_centre(widget: Any) -> tuple[float, float]:
    """Where a finger lands to touch `widget`: its middle, in window coordinates."""
    x, y = widget.to_window(*widget.center)
    return float(x), float(y)


# How many frames each `frames_until` call drew up to and including the one showing
# the result (1: the first frame after the touch showed it).
frame_counts: list[int] = []


def frames_until(done: Callable[[], bool], start: Callable[[], None]) -> float:
    """Seconds from calling `start()` to the end of the first frame drawn once `done()`
    (the frame's number is appended to `frame_counts`)."""
    from kivy.base import EventLoop
    from kivy.core.window import Window

    shown: list[float] = []
    flips = [0]

    def flipped(*_args: object) -> None:
        flips[0] += 1
        if not shown and done():
            shown.append(time.perf_counter())
            frame_counts.append(flips[0])

    Window.bind(on_flip=flipped)
    try:
        started = time.perf_counter()
        start()
        for _ in range(MAX_FRAMES):
            EventLoop.idle()
            if shown:
                return shown[0] - started
    finally:
        Window.unbind(on_flip=flipped)
    raise RuntimeError("no frame showed the result of the tap")


def tap(widget: Any, done: Callable[[], bool]) -> float:
    """Touch `widget`, lift the finger, and time lifting it to the frame where `done()`."""
    from kivy.core.window import Window

    pump(2)
    scroller = scroller_of(widget)
    if scroller is not None:  # e.g. the navigation bar scrolls sideways
        scroller.scroll_to(widget, padding=10, animate=False)
        pump(2)
    x, y = window_centre(widget)
    if not (0 <= x < Window.width and 0 <= y < Window.height):
        raise RuntimeError(f"{widget} is off screen")
    finger = press(x, y, "benchmark")
    pump(1)
    return frames_until(done, lambda: lift(finger))


def percentile(samples: list[float], share: float) -> float:
    """The value below which `share` of the samples lie (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
