"""What the phone's own interface takes of the screen: the system bars and the on-screen keyboard.

From Android 15 (API 35) an app is drawn edge to edge, under the status bar at the top
and the navigation bar at the bottom; `safe_area()` says how much of each edge they
cover so the app's frame stays clear of them (the background still fills the screen).
On a desktop nothing is covered, unless `COMPANION_SAFE_AREA` ("top,right,bottom,left"
in dp) pretends otherwise, to try a phone's layout on a computer.

The on-screen keyboard must never hide what is being typed: the window pans the field
above it (`Window.softinput_mode`), and when the system makes the window shorter for the
keyboard instead, the field's scrolling list brings it back into view
(`reveal_focused`).
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.utils import platform

log = logging.getLogger(__name__)

SAFE_AREA_VARIABLE = "COMPANION_SAFE_AREA"
# Kivy pans the window just enough to show the field being typed in above the keyboard;
# "resize" does not work with SDL2 on Android (Kivy's own note).
KEYBOARD_MODE = "below_target"
# Air between a revealed field and the keyboard (or the list's edge).
REVEAL_MARGIN_DP = 8
# Android API level from which the system lays every app out edge to edge.
EDGE_TO_EDGE_API = 35
# When Android cannot say (an old release, a view not attached yet): a status bar and a
# three-button navigation bar, the tallest usual ones, so nothing hides under them.
FALLBACK_TOP_DP = 24
FALLBACK_BOTTOM_DP = 48


@dataclass(frozen=True)
class Insets:
    """How many pixels of each edge of the window the system covers."""

    top: float = 0.0
    right: float = 0.0
    bottom: float = 0.0
    left: float = 0.0

    def padding(self) -> list[float]:
        """As Kivy's `padding` lists it: left, top, right, bottom."""
        return [self.left, self.top, self.right, self.bottom]


class SafeAreaError(ValueError):
    """COMPANION_SAFE_AREA does not read as four numbers of dp."""


def parse_safe_area(text: str) -> Insets:
    """ "top,right,bottom,left" in dp (a single number for all four) -> Insets in pixels.

    >>> parse_safe_area("0") == Insets()
    True
    """
    parts = [part.strip() for part in text.split(",")]
    if len(parts) == 1:
        parts *= 4
    try:
        values = [float(part) for part in parts]
    except ValueError:
        values = []
    if len(values) != 4 or any(value < 0 for value in values):
        raise SafeAreaError(
            f"{SAFE_AREA_VARIABLE} must be four numbers of dp, top,right,bottom,left "
            f"(e.g. 24,0,48,0), not {text!r}"
        )
    top, right, bottom, left = (dp(value) for value in values)
    return Insets(top=top, right=right, bottom=bottom, left=left)


def safe_area(environ: Mapping[str, str] | None = None) -> Insets:
    """The edges the system bars cover now: the fake when one is set, Android's own
    insets on a phone, nothing elsewhere."""
    env = os.environ if environ is None else environ
    fake = env.get(SAFE_AREA_VARIABLE, "").strip()
    if fake:
        try:
            return parse_safe_area(fake)
        except SafeAreaError as exc:
            log.warning("%s; ignored", exc)
    if platform != "android":
        return Insets()
    found = _android_insets()
    if found is not None:
        return found
    return Insets(top=dp(FALLBACK_TOP_DP), bottom=dp(FALLBACK_BOTTOM_DP))


def _android_insets() -> Insets | None:
    """The system bars' and display cutout's insets from the activity's window, or None."""
    try:
        from jnius import autoclass  # only on Android
    except ImportError:
        return None
    try:
        version = autoclass("android.os.Build$VERSION")
        activity = autoclass("org.kivy.android.PythonActivity").mActivity
        insets = activity.getWindow().getDecorView().getRootWindowInsets()
        if insets is None:  # the view is not attached yet
            return None
        if version.SDK_INT >= 30:
            types = autoclass("android.view.WindowInsets$Type")
            bars = insets.getInsets(types.systemBars() | types.displayCutout())
            return Insets(top=bars.top, right=bars.right, bottom=bars.bottom, left=bars.left)
        return Insets(
            top=insets.getSystemWindowInsetTop(),
            right=insets.getSystemWindowInsetRight(),
            bottom=insets.getSystemWindowInsetBottom(),
            left=insets.getSystemWindowInsetLeft(),
        )
    except Exception:  # a JVM call failed: the fallback keeps clear of the usual bars
        log.info("the system bars' insets could not be read", exc_info=True)
        return None


def focused_input(root: Any) -> Any:
    """The text field (a TextInput) being typed in under `root`, if any."""
    from kivy.uix.textinput import TextInput  # loaded with the first screen that has one

    for widget in root.walk(restrict=True):
        if isinstance(widget, TextInput) and widget.focus:
            return widget
    return None


def scroller_of(widget: Any) -> Any:
    """The nearest ScrollView holding `widget`, or None."""
    from kivy.uix.scrollview import ScrollView

    node = widget.parent
    while node is not None and not isinstance(node, ScrollView):
        node = node.parent if node.parent is not node else None
    return node


def reveal_focused(root: Any, keyboard_height: float = 0.0) -> Any:
    """Scroll the list holding the focused field so the whole field shows above the
    keyboard (its top edge at `keyboard_height`); returns the field, or None."""
    field = focused_input(root)
    if field is None:
        return None
    scroller = scroller_of(field)
    if scroller is None:
        return field
    _left, bottom = scroller.to_window(scroller.x, scroller.y)
    # The part of the list the keyboard leaves visible.
    shown_bottom = max(bottom, keyboard_height)
    shown_top = bottom + scroller.height
    # Some air around the field, as much as the visible part has room for.
    margin = max(0.0, min(dp(REVEAL_MARGIN_DP), (shown_top - shown_bottom - field.height) / 2))
    _x, field_bottom = field.to_window(field.x, field.y)
    field_top = field_bottom + field.height
    scrollable = scroller.children[0].height - scroller.height if scroller.children else 0
    if scrollable <= 0:
        return field
    if field_bottom - margin < shown_bottom:
        move = shown_bottom - (field_bottom - margin)  # content moves up
    elif field_top + margin > shown_top:
        move = shown_top - (field_top + margin)  # content moves down
    else:
        return field
    scroller.scroll_y = min(1.0, max(0.0, scroller.scroll_y - move / scrollable))
    scroller.update_from_scroll()
    return field


def follow_system_ui(window: Any, root: Any) -> None:
    """Keep `root` clear of the system bars and the focused field clear of the keyboard,
    as the window changes (rotation, keyboard shown or hidden, bars shown or hidden)."""
    if platform == "android":
        window.softinput_mode = KEYBOARD_MODE

    watched: weakref.WeakSet[Any] = weakref.WeakSet()

    def update(*_args: Any) -> None:
        root.insets = safe_area().padding()
        field = reveal_focused(root, keyboard_height=window.keyboard_height)
        scroller = scroller_of(field) if field is not None else None
        if scroller is not None and scroller not in watched:
            # The list is laid out again over the next frames, and grows as search
            # results arrive: reveal once more whenever its size or its content's changes
            # (scrolling changes neither, so this comes to rest).
            watched.add(scroller)
            scroller.fbind("height", lambda *_a: trigger())
            for content in scroller.children:
                content.fbind("height", lambda *_a: trigger())

    trigger = Clock.create_trigger(update, 0)
    window.bind(size=lambda *_a: trigger(), keyboard_height=lambda *_a: trigger())
    root.insets = safe_area().padding()
