"""Reusable widgets: buttons, steppers, player tiles, the banner, an animated die, a level chart."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Rectangle, RoundedRectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    ListProperty,
    NumericProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.widget import Widget

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

# How long the die tumbles before it shows the recorded result.
DIE_TUMBLE_S = 0.6
DIE_FRAME_S = 0.06
# How long a banner message stays up (errors stay longer: they need reading).
BANNER_INFO_S = 2.5
BANNER_ERROR_S = 5.0
# A button's words shrink to fit its longest word, but never below this (still readable).
SMALLEST_BUTTON_FONT = sp(11)


class FlatButton(ButtonBehavior, Label):
    """A big flat button with rounded corners; `bg` is its colour, dimmed while pressed.

    Its words are near-black or white, whichever reads better on the colour under them.
    A `dimmed` button (the rules would refuse it now) stays readable and tappable.
    """

    bg = ColorProperty([0.17, 0.18, 0.22, 1])
    # The colour under the words when not pressed (selected, dimmed or `bg`): the words'
    # colour follows it, so a press (which only shades the face) never draws them again.
    rest = ColorProperty([0.17, 0.18, 0.22, 1])
    # The colour actually drawn under the words (`rest`, shaded while pressed).
    face = ColorProperty([0.17, 0.18, 0.22, 1])
    selected = BooleanProperty(False)
    dimmed = BooleanProperty(False)
    radius = NumericProperty(dp(10))
    # Wrap long words onto more lines within the button's width (else one line).
    wrap = BooleanProperty(True)

    def texture_update(self, *largs: Any) -> None:
        # Wrapping breaks lines at spaces, but a single word wider than the button would be
        # cut in the middle ("Суперманч / кин"): the words are drawn smaller until the
        # longest fits. `font_size` keeps what was asked for, so a shorter text (another
        # language) is drawn full size again.
        self._label.options["font_size"] = self._fitting_font_size()
        super().texture_update(*largs)

    def _fitting_font_size(self) -> float:
        if not self.wrap or self.markup:
            return float(self.font_size)
        return widest_word_fits(self, float(self.font_size), SMALLEST_BUTTON_FONT)


def widest_word_fits(label: Label, size: float, smallest: float) -> float:
    """The largest font size, from `size` down to `smallest`, at which the longest word of
    the label fits its wrapping width (a word wider than that would be cut in two)."""
    if not label.text_size[0]:
        return size
    # Kivy wraps within the text width less the label's padding at each side.
    left, _top, right, _bottom = label._label.options["padding"]
    room = label.text_size[0] - left - right
    words = label.text.split()
    if not words:
        return size
    while size > smallest:
        label._label.options["font_size"] = size
        widest = max(label._label.get_extents(word)[0] for word in words)
        if widest <= room:
            break
        # Glyph widths do not scale exactly with the size: step down until it fits.
        size = max(smallest, min(size - 1, math.floor(size * room / widest)))
    return size


class FitLabel(Label):
    """Words wrapped at spaces within the label's width, drawn smaller when a word would
    not fit the width or the lines the height: a name is never cut in the middle."""

    # The smallest size the words are drawn at (still readable).
    smallest = NumericProperty(sp(11))

    def on_height(self, *_args: Any) -> None:
        self._trigger_texture()

    def texture_update(self, *largs: Any) -> None:
        wrap_width = self.text_size[0]
        if wrap_width is not None and wrap_width < 1:
            # Not laid out yet (no width to wrap in): every word would take lines of its
            # own and the loop below shrink the words to the smallest size, a render per
            # step, for nothing. The layout gives a width, and with it a render, next.
            return
        options = self._label.options
        size = widest_word_fits(self, float(self.font_size), float(self.smallest))
        options["font_size"] = size
        super().texture_update(*largs)
        while self.texture_size[1] > self.height + 1 and size > self.smallest:
            size = max(float(self.smallest), size - 1)
            options["font_size"] = size
            super().texture_update(*largs)


# How long a finger rests on a symbol button before its name shows (Android's long press).
LONG_PRESS_S = 0.5


class IconButton(FlatButton):
    """A button showing a symbol that reads the same in every language, so it never
    shrinks for a long word. Its name, `label`, shows as a message while a finger rests
    on it (as Android names an icon on a long press); a short tap fires `on_tap`."""

    label = StringProperty("")
    wrap = BooleanProperty(False)

    def __init__(self, **kwargs: object) -> None:
        self.register_event_type("on_tap")
        self._held = False
        super().__init__(**kwargs)
        self._name_it = Clock.create_trigger(self._show_name, LONG_PRESS_S)

    def on_press(self) -> None:
        self._held = False
        self._name_it()

    def on_release(self) -> None:
        self._name_it.cancel()
        if not self._held:  # a finger that stayed to read the name did not ask for it
            self.dispatch("on_tap")

    def on_tap(self) -> None:
        """Default handler: the owner binds to `on_tap`."""

    def _show_name(self, *_args: object) -> None:
        from kivy.app import App

        if self.state != "down" or not self.label:
            return
        self._held = True
        app = App.get_running_app()
        if app is not None:
            app.notify(self.label)


class NavButton(FlatButton):
    """A navigation-bar button: one line, at least as wide as its words."""

    wrap = BooleanProperty(False)


class Stepper(BoxLayout):
    """A value between a − and a + button; dispatches `on_step(delta)`."""

    value = StringProperty("")
    caption = StringProperty("")
    value_size = NumericProperty(sp(28))
    button_width = NumericProperty(dp(52))

    def __init__(self, **kwargs: object) -> None:
        self.register_event_type("on_step")
        super().__init__(**kwargs)

    def step(self, delta: int) -> None:
        """Called by the − and + buttons."""
        self.dispatch("on_step", delta)

    def on_step(self, delta: int) -> None:
        """Default handler: the owner binds to `on_step`."""


class PlayerFace(ButtonBehavior, BoxLayout):
    """What every picture of a player on the Table shows: colour, name, level, gear,
    strength, traits and markers (a tile, or a line when the table is full).

    Dispatches `on_level_step(delta)` and `on_gear_step(delta)` from its steppers; a tap on
    the picture itself is an ordinary `on_release`.
    """

    index = NumericProperty(0)
    name = StringProperty("")
    colour = ColorProperty([1, 1, 1, 1])
    level = NumericProperty(1)
    gear = NumericProperty(0)
    strength = NumericProperty(1)
    sex = StringProperty("")
    traits = StringProperty("")
    dead = BooleanProperty(False)
    turn = BooleanProperty(False)
    # The player's tracker reports a low battery.
    battery_low = BooleanProperty(False)

    def __init__(self, **kwargs: object) -> None:
        self.register_event_type("on_level_step")
        self.register_event_type("on_gear_step")
        super().__init__(**kwargs)

    def level_button(self, delta: int) -> Any:
        """The button that steps the Level by `delta` (+1 or -1), on a tile or a line."""
        name = "plus" if delta > 0 else "minus"
        return self.ids[name] if name in self.ids else self.ids.level.ids[name]

    def step_level(self, delta: int) -> None:
        """Called by the level stepper."""
        self.dispatch("on_level_step", delta)

    def step_gear(self, delta: int) -> None:
        """Called by the gear stepper."""
        self.dispatch("on_gear_step", delta)

    def on_level_step(self, delta: int) -> None:
        """Default handler: the table screen binds to `on_level_step`."""

    def on_gear_step(self, delta: int) -> None:
        """Default handler: the table screen binds to `on_gear_step`."""


class PlayerTile(PlayerFace):
    """One player at a glance: colour, name, big level, gear, strength, traits and markers."""

    # True: a fixed height (the table scrolls); False: share the table's height.
    compact = BooleanProperty(True)


class Banner(Label):
    """A message in the top bar (in the title's place); rule errors show here in red, then
    go. It covers no control, and a tap on it puts it away and still reaches what is under."""

    error = BooleanProperty(False)
    shown = BooleanProperty(False)
    # The colour under the words (red for an error).
    face = ColorProperty([0.17, 0.18, 0.22, 1])

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._hide = Clock.create_trigger(self.hide, BANNER_INFO_S)

    def show(self, text: str, error: bool = False) -> None:
        """Show `text` for a few seconds."""
        self.text = text
        self.error = error
        self.shown = True
        self._hide.cancel()
        self._hide.timeout = BANNER_ERROR_S if error else BANNER_INFO_S
        self._hide()

    def hide(self, *_args: object) -> None:
        """Take the banner away (also on a tap)."""
        self._hide.cancel()
        self.shown = False

    def on_touch_down(self, touch: object) -> bool:
        if self.shown and self.collide_point(*touch.pos):  # type: ignore[attr-defined]
            self.hide()
        return False  # the tap goes on to whatever is under the message


# Pip positions on a 3x3 grid (column, row) for each face.
_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


class DieFace(ButtonBehavior, Widget):
    """A d6 drawn with Kivy graphics; `tumble_to(n)` animates a roll that lands on n.

    The result always comes from the game (the core records every roll); the tumbling
    faces before it are only decoration.
    """

    value = NumericProperty(0)  # 0 = not rolled yet (blank face)
    face = ColorProperty([0.96, 0.95, 0.92, 1])
    pip = ColorProperty([0.1, 0.1, 0.12, 1])
    # The die's outline, in the pips' colour: on a light screen the pale face alone has no
    # visible edge (on a dark one the face itself stands out).
    edge = ColorProperty([0.1, 0.1, 0.12, 1])
    rolling = BooleanProperty(False)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._shown = 0
        self._target = 0
        self._left_s = 0.0
        self._event = None
        self.bind(
            pos=self._draw,
            size=self._draw,
            value=self._draw,
            face=self._draw,
            pip=self._draw,
            edge=self._draw,
        )

    def tumble_to(self, value: int) -> None:
        """Animate a roll that ends showing `value`."""
        if self._event is not None:
            self._event.cancel()
        self._target = value
        self._left_s = DIE_TUMBLE_S  # time, not frames: a slow phone ends on time too
        self.rolling = True
        self._event = Clock.schedule_interval(self._tick, DIE_FRAME_S)

    def _tick(self, dt: float) -> bool:
        self._left_s -= dt
        if self._left_s <= 0:
            self.rolling = False
            self._event = None
            self.value = self._target
            self._draw()
            return False
        self._shown = random.choice([n for n in range(1, 7) if n != self._shown])
        self._draw(show=self._shown)
        return True

    def _draw(self, *_args: object, show: int | None = None) -> None:
        shown = self.value if show is None else show
        side = min(self.width, self.height)
        x0 = self.center_x - side / 2
        y0 = self.center_y - side / 2
        self.canvas.clear()
        with self.canvas:
            Color(*self.face)
            RoundedRectangle(pos=(x0, y0), size=(side, side), radius=[side * 0.16])
            Color(*self.edge)
            inset = dp(1)
            Line(
                rounded_rectangle=(
                    x0 + inset,
                    y0 + inset,
                    side - 2 * inset,
                    side - 2 * inset,
                    side * 0.16,
                ),
                width=dp(1.5),
            )
            Color(*self.pip)
            r = side * 0.09
            for col, row in _PIPS.get(shown, ()):
                cx = x0 + side * (0.25 + 0.25 * col)
                cy = y0 + side * (0.75 - 0.25 * row)
                Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))


class LevelChart(Widget):
    """Levels over time, one line per player, drawn with Kivy graphics.

    `series` is a list of (rgba colour, [level after each step]); `finish` is the
    winning level (`finish`) so the chart's top edge is the finish line.
    """

    series = ListProperty([])
    finish = NumericProperty(10)
    grid = ColorProperty([1, 1, 1, 0.12])
    label_colour = ColorProperty([1, 1, 1, 0.6])
    label_size = NumericProperty(sp(12))

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        # Drawn once per frame, however many times layout moves it in that frame.
        self._redraw = Clock.create_trigger(self._draw)
        self.bind(pos=self._redraw, size=self._redraw, series=self._redraw, finish=self._redraw)

    def _draw(self, *_args: object) -> None:
        self.canvas.clear()
        pad = dp(8)
        gutter = dp(26)  # room for the level numbers on the left
        x0, y0 = self.x + pad + gutter, self.y + pad
        w, h = max(1.0, self.width - 2 * pad - gutter), max(1.0, self.height - 2 * pad)
        top = max(2, int(self.finish))
        labelled = {1, top, (top + 1) // 2}
        with self.canvas:
            for level in range(1, top + 1):
                y = y0 + h * (level - 1) / (top - 1)
                Color(*self.grid)
                Rectangle(pos=(x0, y), size=(w, 1))
                if level in labelled:
                    texture = _text_texture(str(level), self.label_size)
                    Color(*self.label_colour)
                    Rectangle(
                        texture=texture,
                        pos=(x0 - gutter, y - texture.height / 2),
                        size=texture.size,
                    )
            longest = max((len(levels) for _c, levels in self.series), default=0)
            steps = max(1, longest - 1)
            for rgba, levels in self.series:
                if not levels:
                    continue
                points: list[float] = []
                for step in _turning_points(levels):
                    level = min(levels[step], top)
                    points += [x0 + w * step / steps, y0 + h * (level - 1) / (top - 1)]
                if len(points) == 2:
                    points += [x0 + w, points[1]]
                Color(*rgba)
                Line(points=points, width=dp(2))


def _turning_points(levels: list[int]) -> list[int]:
    """The steps where a line of levels turns: its ends and both ends of every flat run.

    The line through only these is the same picture as through every step, with far
    fewer points in a long game (a Level stays put over most actions).
    """
    last = len(levels) - 1
    return [
        step
        for step in range(last + 1)
        if step in (0, last) or levels[step] != levels[step - 1] or levels[step] != levels[step + 1]
    ]


def _text_texture(text: str, font_size: float) -> Texture:
    label = CoreLabel(text=text, font_size=font_size)
    label.refresh()
    return label.texture
