"""A live picture of a counter's LEDs: a level board's clusters, a tracker's bar and digits."""

from __future__ import annotations

import math

from kivy.graphics import Color, Ellipse, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import ColorProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.widget import Widget

# An unlit LED is drawn faintly so the shape of the counter stays visible.
UNLIT = (0.22, 0.22, 0.24, 1.0)
# The current limiter keeps real LEDs dim; on a screen they are lifted to read at a glance.
LIFT_GAMMA = 0.5
# LEDs never grow past this on screen (a tracker's bar on a wide window).
MAX_CELL = dp(30)
# A level space's cluster of LEDs narrower than this wraps a board's track onto two lines.
MIN_CLUSTER = dp(40)


def lifted(channel: int) -> float:
    """An LED channel (0..255, after the limiter) as a screen intensity 0..1."""
    return (max(0, min(255, channel)) / 255) ** LIFT_GAMMA


class LedPicture(Widget):
    """Draws one virtual counter's `LedFrame`: its pixels in the counter's shape.

    A level board's frame is `spaces` clusters of `positions` LEDs, space by space; a
    tracker's is its bar (`spaces` LEDs) then its status LED. `frame` None draws nothing.
    """

    frame = ObjectProperty(None, allownone=True)
    panel = ColorProperty([0.1, 0.1, 0.12, 1])
    text_colour = ColorProperty([1, 0.3, 0.2, 1])
    digits = StringProperty("")
    lit = NumericProperty(0)  # how many LEDs are on in the frame on show

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._digits_label = Label(bold=True, color=self.text_colour)
        self.add_widget(self._digits_label)
        self.bind(pos=self._draw, size=self._draw, frame=self._draw, panel=self._draw)

    def _draw(self, *_args: object) -> None:
        self.canvas.before.clear()
        frame = self.frame
        label = self._digits_label
        label.text = ""
        if frame is None:
            self.lit = 0
            self.digits = ""
            return
        pixels = frame.pixels
        self.lit = sum(1 for p in pixels if any(p))
        self.digits = frame.text
        with self.canvas.before:
            Color(*self.panel)
            RoundedRectangle(pos=self.pos, size=self.size, radius=[dp(8)])
            if frame.role == "board" and frame.positions > 0:
                self._board(pixels, int(frame.spaces), int(frame.positions))
            else:
                self._strip(pixels, digits_w=self._digits_width(frame.text))
        if frame.text:
            w = self._digits_width(frame.text)
            label.text = frame.text
            label.font_size = min(self.height * 0.7, dp(40))
            label.size = (w, self.height)
            label.pos = (self.right - w - dp(6), self.y)
            label.color = self.text_colour

    def _digits_width(self, text: str) -> float:
        return self.height * 0.5 * max(2, len(text)) if text else 0.0

    def _dot(self, x: float, y: float, r: float, rgb: tuple[int, int, int]) -> None:
        if any(rgb):
            Color(lifted(rgb[0]), lifted(rgb[1]), lifted(rgb[2]), 1)
        else:
            Color(*UNLIT)
        Ellipse(pos=(x - r, y - r), size=(2 * r, 2 * r))

    def _board(self, pixels: list[tuple[int, int, int]], spaces: int, positions: int) -> None:
        pad = dp(6)
        cols = max(1, math.ceil(math.sqrt(positions * 1.5)))
        rows = max(1, math.ceil(positions / cols))
        extra = pixels[spaces * positions :]
        width = self.width - 2 * pad
        # The track wraps onto a second line when its clusters would be too small to read.
        lines = 1 if width / max(1, spaces) >= MIN_CLUSTER else 2
        per_line = max(1, math.ceil(spaces / lines))
        cluster_w = width / per_line
        line_h = (self.height - 2 * pad) / lines
        cell = min(cluster_w / (cols + 0.6), line_h / (rows + 1.0))
        r = cell * 0.38
        for space in range(spaces):
            line, at = divmod(space, per_line)
            x0 = self.x + pad + at * cluster_w + (cluster_w - cols * cell) / 2
            y0 = self.top - pad - line * line_h - (line_h - rows * cell) / 2
            for i in range(positions):
                index = space * positions + i
                if index >= len(pixels):
                    return
                row, col = divmod(i, cols)
                self._dot(x0 + cell * (col + 0.5), y0 - cell * (row + 0.5), r, pixels[index])
        for n, rgb in enumerate(extra):
            self._dot(self.right - pad - cell * (n + 0.5), self.y + pad + cell / 2, r, rgb)

    def _strip(self, pixels: list[tuple[int, int, int]], digits_w: float) -> None:
        pad = dp(6)
        count = max(1, len(pixels))
        width = self.width - 2 * pad - digits_w
        cell = min(width / count, self.height - 2 * pad, MAX_CELL)
        r = cell * 0.4
        for index, rgb in enumerate(pixels):
            self._dot(self.x + pad + cell * (index + 0.5), self.center_y, r, rgb)
