"""The statistics' pictures, drawn with Kivy graphics (no plotting library: a phone build
carries none): a player's Level at the end of their last games, and games per month.

Every bar has its number written by it, so nothing is said by colour alone; a label
that would not fit its bar's width is left out rather than drawn over its neighbour.
"""

from __future__ import annotations

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.factory import Factory
from kivy.graphics import Color, Rectangle, RoundedRectangle
from kivy.graphics.texture import Texture
from kivy.metrics import dp, sp
from kivy.properties import ColorProperty, ListProperty, NumericProperty
from kivy.uix.widget import Widget

# The sign over the bar of a game the player won (DejaVu Sans has it; Roboto has not).
WON_SIGN = "★"
WON_FONT = "DejaVuSans"


def text_texture(text: str, font_size: float, font_name: str = "Roboto") -> Texture:
    """`text` drawn once, to be put on a canvas."""
    label = CoreLabel(text=text, font_size=font_size, font_name=font_name)
    label.refresh()
    return label.texture


class _BarChart(Widget):
    """What both pictures share: bars from a base line, a number over each, a label under
    each when there is room, redrawn once per frame."""

    label_colour = ColorProperty([1, 1, 1, 1])
    base_colour = ColorProperty([1, 1, 1, 0.3])
    label_size = NumericProperty(sp(13))

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        # Every text drawn last time, with where: (text, x, y, width, height).
        self.placed: list[tuple[str, float, float, float, float]] = []
        # Drawn before the frame that shows it, once however often it moves in that frame.
        self._redraw = Clock.create_trigger(self._draw, -1)
        self.bind(pos=self._redraw, size=self._redraw, label_colour=self._redraw)

    def _text(self, text: str, texture: Texture, x: float, y: float) -> None:
        # A label wider than its bar, under the first or last one, stays inside.
        x = min(max(x, self.x), self.right - texture.width)
        Color(*self.label_colour)
        Rectangle(texture=texture, pos=(x, y), size=texture.size)
        self.placed.append((text, x, y, texture.width, texture.height))

    def bars(self) -> list[tuple[float, str, str, list[float], bool]]:
        """Each bar: its share of the full height (0-1), the number over it, the label
        under it, its colour, and whether it is marked (a won game). Each picture says
        its own; a picture with nothing to show draws nothing."""
        return []

    def slots(self) -> int:
        """How many bars' widths the picture is divided into."""
        return len(self.bars())

    def _draw(self, *_args: object) -> None:
        self.canvas.clear()
        self.placed = []
        bars = self.bars()
        if not bars or self.width < 1 or self.height < 1:
            return
        pad = dp(6)
        numbers = [
            text_texture(number, self.label_size) if number else None for _s, number, *_ in bars
        ]
        labels = [
            text_texture(label, self.label_size) if label else None for _s, _n, label, *_ in bars
        ]
        line = max((t.height for t in numbers + labels if t is not None), default=0)
        marks = any(marked for *_rest, marked in bars)
        mark = text_texture(WON_SIGN, self.label_size, WON_FONT) if marks else None
        under = line if any(labels) else 0
        over = line + (mark.height if mark is not None else 0)
        x0, y0 = self.x + pad, self.y + pad + under
        w = max(1.0, self.width - 2 * pad)
        h = max(1.0, self.height - 2 * pad - under - over)
        slot = w / max(1, self.slots())
        gap = min(dp(6), slot * 0.25)
        # Labels too wide for their slot: every second one, every third, ... is kept.
        widest = max((t.width for t in labels if t is not None), default=0)
        every = 1
        while widest + dp(2) > slot * every and every < len(bars):
            every += 1
        with self.canvas:
            Color(*self.base_colour)
            Rectangle(pos=(x0, y0 - dp(1)), size=(w, dp(1)))
            for index, (share, _number, _label, rgba, marked) in enumerate(bars):
                left = x0 + slot * index + gap / 2
                width = slot - gap
                tall = max(dp(3), h * min(1.0, share)) if share > 0 else 0
                if tall:
                    Color(*rgba)
                    RoundedRectangle(
                        pos=(left, y0), size=(width, tall), radius=[dp(3), dp(3), 0, 0]
                    )
                top = y0 + tall
                number = numbers[index]
                middle = left + width / 2
                number = numbers[index]
                if number is not None and number.width <= slot:
                    self._text(bars[index][1], number, middle - number.width / 2, top)
                    top += number.height
                if marked and mark is not None:
                    self._text(WON_SIGN, mark, middle - mark.width / 2, top)
                label = labels[index]
                if label is not None and index % every == (len(bars) - 1) % every:
                    below = y0 - dp(1) - label.height
                    self._text(bars[index][2], label, middle - label.width / 2, below)


class LevelStrip(_BarChart):
    """A player's Level at the end of each of their last games, the oldest on the left;
    a ★ over the games they won. `finishes`: [(level, won), ...]; `highest`: the Level
    the full height stands for (at least the highest shown)."""

    finishes = ListProperty([])
    colour = ColorProperty([0.3, 0.55, 0.97, 1])
    highest = NumericProperty(10)
    # The bars keep their width however few games there are (one game is not a wall).
    least_slots = NumericProperty(10)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.bind(finishes=self._redraw, colour=self._redraw, highest=self._redraw)

    def slots(self) -> int:
        return max(len(self.finishes), int(self.least_slots))

    def bars(self) -> list[tuple[float, str, str, list[float], bool]]:
        most = max([float(self.highest), *(float(level) for level, _won in self.finishes)])
        return [
            (level / most, str(level), "", list(self.colour), bool(won))
            for level, won in self.finishes
        ]


class MonthChart(_BarChart):
    """Games per month, the oldest month on the left. `months`: [(label, games), ...]."""

    months = ListProperty([])
    colour = ColorProperty([0.3, 0.55, 0.97, 1])

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.bind(months=self._redraw, colour=self._redraw)

    def bars(self) -> list[tuple[float, str, str, list[float], bool]]:
        most = max((count for _label, count in self.months), default=0)
        return [
            (
                count / most if most else 0.0,
                str(count) if count else "",
                label,
                list(self.colour),
                False,
            )
            for label, count in self.months
        ]


Factory.register("LevelStrip", cls=LevelStrip)
Factory.register("MonthChart", cls=MonthChart)
