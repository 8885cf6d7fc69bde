"""Driving the item screens by taps: a tap that first brings the widget into view in every
list around it, and waits for the button to be let go.

A button inside a scrolling list hears a quick tap only when the list has decided the
finger was not scrolling (Kivy sends it the release 0.2 s later); a player's next tap
comes after that, so a test's does too. A list inside a scrolling screen (the Bad Stuff
choices in Combat) is scrolled into view as a player would, the screen first.
"""

from __future__ import annotations

from typing import Any

from tests.ui.conftest import Harness

RELEASE_TIMEOUT_S = 5.0


def _scrollers(widget: Any) -> list[Any]:
    """The scrolling lists holding `widget`, the outermost first."""
    from kivy.uix.scrollview import ScrollView

    found = []
    node = widget.parent
    while node is not None and node is not node.parent:
        if isinstance(node, ScrollView):
            found.append(node)
        node = node.parent
    return list(reversed(found))


def _shown_in(scroller: Any, widget: Any) -> bool:
    left, bottom = scroller.to_window(scroller.x, scroller.y)
    x, y = widget.to_window(*widget.center)
    return left <= x < left + scroller.width and bottom <= y < bottom + scroller.height


def press(ui: Harness, widget: Any) -> None:
    """Tap `widget` as a finger would and wait until it has heard the release."""
    for scroller in _scrollers(widget):
        if not _shown_in(scroller, widget):
            scroller.scroll_to(widget, padding=10, animate=False)
            ui.pump()
    ui.tap(widget)
    if hasattr(widget, "state"):
        ui.wait_until(lambda: widget.state == "normal", timeout_s=RELEASE_TIMEOUT_S)
    ui.pump()
