"""The level track: spaces 1..N like a printed level board, one coloured token per player.

Drawn for a TV or laptop across the table: big numbers, tokens with initials, the
player whose turn it is ringed, fighters marked, the dead greyed with a skull and the
winners crowned. The widget only draws what it is given (`TrackToken`s); the screen
copies them from the game state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kivy.graphics import Color, Ellipse, Line, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import ColorProperty, ListProperty, NumericProperty
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from companion.ui.theme import colour, readable_on

# Spaces per row: ten fit a landscape screen; five keep tokens large on a phone.
WIDE_ROW = 10
NARROW_ROW = 5
# Below this width-to-height ratio the track uses the narrow rows.
LANDSCAPE_RATIO = 1.2
# Nor does a wide row leave a space narrower than this (a phone's short, wide track
# under a long legend): its number and tokens would not fit.
MIN_SPACE_DP = 44


@dataclass(frozen=True)
class TrackToken:
    """One player on the track."""

    seat: int
    name: str
    colour: str  # "#rrggbb"
    level: int
    turn: bool = False
    fighting: bool = False  # fighter or helper in the combat on now
    dead: bool = False
    winner: bool = False

    @property
    def initials(self) -> str:
        """One or two letters that fit inside a token."""
        words = [w for w in self.name.split() if w]
        if len(words) >= 2:
            return (words[0][0] + words[1][0]).upper()
        return self.name[:2].capitalize() if self.name else "?"


class LevelTrack(Widget):
    """Spaces 1..`spaces` in rows, tokens on their levels; redraws when anything changes."""

    spaces = NumericProperty(10)
    tokens = ListProperty([])
    space_colour = ColorProperty([0.17, 0.18, 0.22, 1])
    goal_colour = ColorProperty([0.95, 0.69, 0.2, 1])
    number_colour = ColorProperty([1, 1, 1, 0.5])
    ring_colour = ColorProperty([0.95, 0.69, 0.2, 1])
    dead_colour = ColorProperty([0.5, 0.5, 0.5, 1])
    fight_colour = ColorProperty([0.9, 0.28, 0.3, 1])

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._numbers: list[Label] = []
        self._token_labels: list[Label] = []
        self.bind(
            pos=self._draw,
            size=self._draw,
            spaces=self._draw,
            tokens=self._draw,
            space_colour=self._draw,
            goal_colour=self._draw,
            number_colour=self._draw,
        )

    # -- geometry ---------------------------------------------------------------------
    @property
    def per_row(self) -> int:
        """Spaces in one row of the track for the widget's current shape."""
        landscape = self.width >= self.height * LANDSCAPE_RATIO
        roomy = (self.width - dp(6) * (WIDE_ROW + 1)) / WIDE_ROW >= dp(MIN_SPACE_DP)
        return min(int(self.spaces), WIDE_ROW if landscape and roomy else NARROW_ROW)

    def space_rect(self, level: int) -> tuple[float, float, float, float]:
        """x, y, width, height of the space for `level` (1-based), in widget coordinates."""
        per_row = max(1, self.per_row)
        rows = max(1, math.ceil(int(self.spaces) / per_row))
        gap = dp(6)
        w = (self.width - gap * (per_row + 1)) / per_row
        h = (self.height - gap * (rows + 1)) / rows
        index = level - 1
        row, col = divmod(index, per_row)
        x = self.x + gap + col * (w + gap)
        y = self.top - gap - (row + 1) * h - row * gap
        return x, y, max(1.0, w), max(1.0, h)

    def token_centres(self, level: int, count: int) -> list[tuple[float, float, float]]:
        """Centre x, y and radius for `count` tokens sharing the space of `level`."""
        x, y, w, h = self.space_rect(level)
        top_band = min(h * 0.3, dp(44))  # the level number sits above the tokens
        area_h = h - top_band
        # The grid of cells that gives the biggest tokens in this space.
        cols, cell = 1, 0.0
        for c in range(1, max(1, count) + 1):
            size = min(w / c, area_h / math.ceil(count / c))
            if size > cell:
                cols, cell = c, size
        rows = max(1, math.ceil(count / cols))
        radius = cell * 0.42
        out = []
        for i in range(count):
            r, c = divmod(i, cols)
            in_row = min(cols, count - r * cols)
            row_w = in_row * cell
            cx = x + (w - row_w) / 2 + cell * (c + 0.5)
            cy = y + area_h - (area_h - rows * cell) / 2 - cell * (r + 0.5)
            out.append((cx, cy, radius))
        return out

    # -- drawing ----------------------------------------------------------------------
    def _draw(self, *_args: object) -> None:
        spaces = max(1, int(self.spaces))
        self.canvas.before.clear()
        for label in self._numbers + self._token_labels:
            self.remove_widget(label)
        self._numbers = []
        self._token_labels = []
        by_level: dict[int, list[TrackToken]] = {}
        for token in self.tokens:
            by_level.setdefault(min(max(1, token.level), spaces), []).append(token)

        with self.canvas.before:
            for level in range(1, spaces + 1):
                x, y, w, h = self.space_rect(level)
                Color(*self.space_colour)
                RoundedRectangle(pos=(x, y), size=(w, h), radius=[dp(10)])
                if level == spaces:
                    Color(*self.goal_colour)
                    Line(rounded_rectangle=(x, y, w, h, dp(10)), width=dp(2.5))
        # Labels are made outside the `with` blocks: a widget created inside one would put
        # its own canvas into this widget's.
        digits = len(str(spaces))
        for level in range(1, spaces + 1):
            x, y, w, h = self.space_rect(level)
            band = min(h * 0.3, dp(44))
            pad = min(dp(8), w * 0.1)
            # Every number on one line: as large as the widest one fits (a bold digit is
            # about 0.6 em), never wrapped into "1" over "0".
            fits = (w - 2 * pad) / (0.62 * digits)
            number = Label(
                text=str(level),
                bold=True,
                font_size=max(1.0, min(h * 0.24, fits, dp(40))),
                color=self.goal_colour if level == spaces else self.number_colour,
                size=(w, band),
                pos=(x, y + h - band),
                halign="left",
                valign="middle",
                padding=(pad, 0),
            )
            number.text_size = number.size
            self._numbers.append(number)

        placed: list[tuple[TrackToken, float, float, float]] = []
        for level, tokens in by_level.items():
            centres = self.token_centres(level, len(tokens))
            placed += [(t, cx, cy, r) for t, (cx, cy, r) in zip(tokens, centres, strict=True)]
        # Tokens go on the same layer as the spaces, under the labels (children draw on top).
        with self.canvas.before:
            for token, cx, cy, r in placed:
                self._draw_token(token, cx, cy, r)
        for token, cx, cy, r in placed:
            self._token_labels.append(self._token_label(token, cx, cy, r))
        for label in self._numbers + self._token_labels:
            self.add_widget(label)

    def _draw_token(self, token: TrackToken, cx: float, cy: float, r: float) -> None:
        if token.turn or token.winner:
            Color(*self.ring_colour)
            Line(circle=(cx, cy, r + dp(4)), width=dp(3))
        if token.fighting:
            Color(*self.fight_colour)
            Line(circle=(cx, cy, r + dp(9)), width=dp(2))

    def _token_label(self, token: TrackToken, cx: float, cy: float, r: float) -> Label:
        symbol = "\u2620" if token.dead else ("\u265b" if token.winner else "")
        label = Label(
            text=symbol or token.initials,
            font_name="DejaVuSans" if symbol else "Roboto",
            bold=not symbol,
            font_size=r * (1.1 if symbol else 0.85),
            color=readable_on("#808080" if token.dead else token.colour),
            size=(2 * r, 2 * r),
            pos=(cx - r, cy - r),
            halign="center",
            valign="middle",
        )
        label.text_size = label.size
        # The disc is drawn under the label's own words, so the two always go together.
        with label.canvas.before:
            Color(*(self.dead_colour if token.dead else colour(token.colour)))
            Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))
            if token.dead:  # greyed, but still ringed in the player's colour
                Color(*colour(token.colour))
                Line(circle=(cx, cy, r - dp(2)), width=dp(3))
        return label
