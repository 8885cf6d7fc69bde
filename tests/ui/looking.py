"""What a player sees on screen, measured from the real widgets: visible labels, the colour
drawn behind each one, and whether its words fit their box."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Kivy is imported inside the functions: importing its Window here, while pytest collects,
# would open the window before the session has set the phone size.


def effective_opacity(widget: Any) -> float:
    """The widget's opacity times that of every parent (what reaches the eye)."""
    opacity = 1.0
    while widget is not None:
        opacity *= widget.opacity
        if widget.parent is widget:
            break
        widget = widget.parent
    return opacity


def on_screen(widget: Any) -> bool:
    """True when some of the widget lies inside the window and inside every scroll view
    around it (a scrolled-away widget is not seen)."""
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    x, y = widget.to_window(widget.x, widget.y)
    right, top = x + widget.width, y + widget.height
    if right <= 0 or top <= 0 or x >= Window.width or y >= Window.height:
        return False
    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            px, py = parent.to_window(parent.x, parent.y)
            if right <= px or top <= py or x >= px + parent.width or y >= py + parent.height:
                return False
        parent = parent.parent
    return True


def visible_labels(root: Any) -> Iterator[Any]:
    """Every label with words that a player can see now (inactive screens are skipped)."""
    from kivy.uix.label import Label
    from kivy.uix.screenmanager import ScreenManager

    def walk(widget: Any) -> Iterator[Any]:
        if widget.opacity <= 0 or widget.width <= 1 or widget.height <= 1:
            return
        if isinstance(widget, ScreenManager):
            current = widget.current_screen
            if current is not None:
                yield from walk(current)
            return
        seen = isinstance(widget, Label) and widget.text.strip() and not widget.disabled
        if seen and effective_opacity(widget) > 0.05 and on_screen(widget):
            yield widget
        for child in widget.children:
            yield from walk(child)

    yield from walk(root)


def _fill_of(widget: Any) -> tuple[float, ...] | None:
    """The colour of the largest rectangle the widget paints under itself, if any."""
    from kivy.graphics import Color, Ellipse, Rectangle, RoundedRectangle
    from kivy.uix.label import Label

    shapes = (Rectangle, RoundedRectangle, Ellipse)

    best: tuple[float, tuple[float, ...]] | None = None
    # A label's own canvas holds its words; what is under them is in canvas.before.
    canvases = [widget.canvas.before]
    if not isinstance(widget, Label):
        canvases.append(widget.canvas)
    for canvas in canvases:
        colour: tuple[float, ...] | None = None
        for instruction in canvas.children:
            if isinstance(instruction, Color):
                colour = tuple(instruction.rgba)
            elif isinstance(instruction, shapes) and colour is not None:
                if colour[3] < 0.99:
                    continue
                area = instruction.size[0] * instruction.size[1]
                if area >= 0.5 * widget.width * widget.height and (best is None or area > best[0]):
                    best = (area, colour)
    return best[1] if best is not None else None


def background_of(widget: Any) -> tuple[float, ...]:
    """The opaque colour drawn behind a widget: its own fill, or its nearest parent's."""
    from kivy.uix.screenmanager import Screen

    node = widget
    while node is not None:
        if not isinstance(node, Screen):
            fill = _fill_of(node)
            if fill is not None:
                return fill
        if node.parent is node:
            break
        node = node.parent
    return (0.0, 0.0, 0.0, 1.0)


def is_large(label: Any) -> bool:
    """WCAG "large text": at least 18 pt (24 px), or 14 pt (18.66 px) bold."""
    return label.font_size >= 24 or (label.bold and label.font_size >= 18.66)


def clipped(label: Any) -> bool:
    """True when the rendered words are wider than the label's box (cut or overflowing)."""
    label.texture_update()
    width = label.texture_size[0]
    return width > label.width + 1
