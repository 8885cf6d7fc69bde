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
    """Every label with words that a player can see now, disabled ones included (inactive
    screens are skipped). `root` may be the Window: the app and every pop-up on it."""
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
        seen = isinstance(widget, Label) and widget.text.strip()
        if seen and effective_opacity(widget) > 0.05 and on_screen(widget):
            yield widget
        for child in widget.children:
            yield from walk(child)

    if hasattr(root, "opacity"):
        yield from walk(root)
    else:  # the Window: what is drawn last is on top, but every layer is looked at
        for layer in reversed(root.children):
            yield from walk(layer)


def text_colour(label: Any) -> tuple[float, ...]:
    """The colour a label's words are drawn in (Kivy draws a disabled one in another)."""
    return tuple(label.disabled_color if label.disabled else label.color)


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
    """The opaque colour a player sees behind a widget: the nearest fill painted under it,
    faded by that widget's opacity into what is behind it in turn."""
    from kivy.uix.screenmanager import Screen

    node = widget
    while node is not None:
        fill = None if isinstance(node, Screen) else _fill_of(node)
        parent = node.parent if node.parent is not node else None
        if fill is not None:
            alpha = effective_opacity(node)
            if alpha >= 0.999 or parent is None:
                return fill
            return (*composite(fill, background_of(parent), alpha), 1.0)
        node = parent
    return (0.0, 0.0, 0.0, 1.0)


def seen_text(label: Any) -> tuple[float, ...]:
    """The colour of a label's words as the eye gets it, over what is behind them."""
    colour = text_colour(label)
    return composite(colour, background_of(label), colour[3] * effective_opacity(label))


def composite(top: Any, under: Any, alpha: float) -> tuple[float, ...]:
    """`top` drawn at `alpha` over an opaque `under`."""
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top[:3], under[:3], strict=True))


def is_large(label: Any) -> bool:
    """WCAG "large text": at least 18 pt (24 px), or 14 pt (18.66 px) bold (the size drawn:
    a button's words may be drawn smaller than asked to fit)."""
    size = float(label._label.options.get("font_size") or label.font_size)
    return size >= 24 or (label.bold and size >= 18.66)


def clipped(label: Any) -> bool:
    """True when the rendered words are wider than the label's box (cut or overflowing)."""
    label.texture_update()
    width = label.texture_size[0]
    return width > label.width + 1
