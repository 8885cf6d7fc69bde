"""A scrolling list that only builds widgets for the rows on screen (Kivy's RecycleView)."""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.uix.recycleview import RecycleView
from kivy.uix.scrollview import ScrollView


class RecycledList(RecycleView):
    """A RecycleView whose `scroll_to(row)` works for its recycled rows.

    ScrollView's own `scroll_to` expects a plain layout under it and fails on a
    RecycleView's; here the row's place in `data` says where to scroll.
    """

    def scroll_to(self, widget: Any, padding: float = 10, animate: bool = True) -> None:
        views = getattr(self.view_adapter, "views", {})
        index = next((i for i, view in views.items() if view is widget), None)
        if index is not None:
            self.scroll_to_index(index)

    def scroll_to_index(self, index: int) -> None:
        """Bring row `index` of `data` into view (drawn on the next frame)."""
        rows = len(self.data)
        if rows < 2 or not 0 <= index < rows:
            return
        self.scroll_y = max(0.0, min(1.0, 1 - index / (rows - 1)))


Factory.register("RecycledList", cls=RecycledList)


class StillList(RecycleView):
    """Rows are data, in a list that never scrolls by itself: it is as tall as its rows and
    sits in a screen that scrolls. A drag that starts on a row scrolls the screen; a tap
    reaches the row (a RecycleView would otherwise keep every touch on it to itself)."""

    def on_scroll_start(self, touch: Any, check_children: bool = True) -> bool:
        return False

    def on_scroll_move(self, touch: Any) -> bool:
        return False

    def on_scroll_stop(self, touch: Any, check_children: bool = True) -> bool:
        return False

    def on_touch_down(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        return bool(self.simulate_touch_down(touch))

    def scroll_to(self, widget: Any, padding: float = 10, animate: bool = True) -> None:
        """Bring a row into view: the screen around the list scrolls."""
        node = self.parent
        while node is not None and not isinstance(node, ScrollView):
            node = node.parent if node.parent is not node else None
        if node is not None:
            node.scroll_to(widget, padding=padding, animate=animate)


Factory.register("StillList", cls=StillList)
