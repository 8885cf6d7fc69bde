"""Colours and type sizes of the app, dark by default, readable from across the table."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from kivy.event import EventDispatcher
from kivy.metrics import sp
from kivy.properties import ColorProperty, NumericProperty, StringProperty
from kivy.utils import get_color_from_hex

from companion.ui.weak import collector_held

# name -> (background, surface, raised surface, text, dimmed text, accent, good, bad, warn).
# Every pair of these that the widgets draw text with reaches WCAG AA (tests/ui/test_contrast.py).
_PALETTES: dict[str, tuple[str, ...]] = {
    "dark": (
        "#121317",
        "#1e2027",
        "#2b2e38",
        "#f4f1ea",
        "#a9a7a1",
        "#f2b134",
        "#3fbf6f",
        "#f06a6e",
        "#f59e0b",
    ),
    "light": (
        "#f4f1ea",
        "#ffffff",
        "#e4dfd3",
        "#17181c",
        "#5c5a55",
        "#8a5a00",
        "#17703c",
        "#b3262b",
        "#9a4a06",
    ),
}

THEMES: tuple[str, ...] = tuple(_PALETTES)
ROLES: tuple[str, ...] = (
    "bg", "surface", "raised", "text", "dim", "accent", "good", "bad", "warn",
)  # fmt: skip
# Text drawn on a coloured background is one of these two, whichever reads better.
INK_DARK = (0.07, 0.07, 0.08, 1.0)
INK_LIGHT = (1.0, 1.0, 1.0, 1.0)
# WCAG 2.x AA: normal text needs 4.5:1, large text (>= 18.66 px bold or 24 px) 3:1.
AA_NORMAL = 4.5
AA_LARGE = 3.0
# How far a pressed button's face moves towards its words' colour, tried in turn.
PRESS_SHADES = (0.3, 0.22, 0.15, 0.08)
# A disabled button still says what it would do: its words keep at least this contrast
# (WCAG exempts disabled controls; a table reading "End, no kill" greyed out does not).
DISABLED_TEXT = 3.0
# How much of a disabled button's own colour shows over the screen behind it.
DISABLED_FACE_ALPHA = 0.5

# Colours offered for players: distinct on a dark table and on the LED counters.
PLAYER_COLOURS: tuple[str, ...] = (
    "#e5484d",
    "#3e8ef7",
    "#3fbf6f",
    "#f2b134",
    "#a66cff",
    "#ff8a3d",
    "#2ec4c4",
    "#ff6fb5",
)


class Theme(EventDispatcher):
    """The current palette and type scale; kv rules bind to `app.theme.<name>`."""

    name = StringProperty("dark")
    bg = ColorProperty()
    surface = ColorProperty()
    raised = ColorProperty()
    text = ColorProperty()
    dim = ColorProperty()
    accent = ColorProperty()
    good = ColorProperty()
    bad = ColorProperty()
    warn = ColorProperty()
    # Type scale: small print, body, buttons, headings, the big numbers on tiles.
    small = NumericProperty(sp(13))
    body = NumericProperty(sp(16))
    button = NumericProperty(sp(18))
    heading = NumericProperty(sp(22))
    big = NumericProperty(sp(44))

    def __init__(self, name: str = "dark", **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.apply(name)

    def on(self, background: Any) -> tuple[float, float, float, float]:
        """The text colour (near-black or white) that reads best on `background`."""
        return ink_on(background)

    def pressed(self, face: Any) -> tuple[float, float, float, float]:
        """`face` shaded for a finger on it, its words' colour (`on(face)`) still readable.

        The words keep their colour while pressed (drawing them again costs a frame's
        work), so the shade moves towards that colour only as far as AA contrast allows,
        and away from it when even a light shade would not read.
        """
        ink = ink_on(face)
        for alpha in PRESS_SHADES:
            r, g, b = composite(ink, face, alpha)
            if contrast_ratio(ink, (r, g, b)) >= AA_NORMAL:
                return (r, g, b, 1.0)
        away = (1.0, 1.0, 1.0) if relative_luminance(ink) < 0.5 else (0.0, 0.0, 0.0)
        r, g, b = composite(away, face, PRESS_SHADES[0])
        return (r, g, b, 1.0)

    def disabled_face(self, background: Any) -> tuple[float, float, float, float]:
        """A disabled button's colour: its own, faded into the screen behind it."""
        return (*composite(background, self.bg, DISABLED_FACE_ALPHA), 1.0)  # type: ignore[return-value]

    def faded_on(self, background: Any) -> tuple[float, float, float, float]:
        """Words on a disabled button: visibly fainter than `on`, still readable."""
        r, g, b = faded_ink(background)[:3]
        return (r, g, b, 1.0)

    def apply(self, name: str) -> None:
        """Switch palette; unknown names fall back to the dark one."""
        if name not in _PALETTES:
            name = "dark"
        values = [get_color_from_hex(code) for code in _PALETTES[name]]
        with collector_held():
            (
                self.bg,
                self.surface,
                self.raised,
                self.text,
                self.dim,
                self.accent,
                self.good,
                self.bad,
                self.warn,
            ) = values
            self.name = name


def colour(code: str, alpha: float = 1.0) -> list[float]:
    """An RGBA list from "#rrggbb", for player colours in canvas instructions."""
    rgba = get_color_from_hex(code)
    rgba[3] = alpha
    return rgba


def readable_on(code: str) -> list[float]:
    """Black or white text, whichever reads better on the given background colour."""
    return list(ink_on(get_color_from_hex(code)))


def relative_luminance(rgba: Sequence[float]) -> float:
    """WCAG relative luminance of an sRGB colour (components 0..1; alpha ignored).

    >>> round(relative_luminance((1, 1, 1)), 3), relative_luminance((0, 0, 0))
    (1.0, 0.0)
    """

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(float(c)) for c in rgba[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    """WCAG contrast ratio of two colours, from 1 (none) to 21 (black on white).

    >>> round(contrast_ratio((0, 0, 0), (1, 1, 1)), 1)
    21.0
    """
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def composite(top: Sequence[float], under: Sequence[float], alpha: float) -> tuple[float, ...]:
    """`top` drawn at `alpha` over an opaque `under` (what the eye sees)."""
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top[:3], under[:3], strict=True))


def ink_on(background: Sequence[float]) -> tuple[float, float, float, float]:
    """Near-black or white, whichever has more contrast on `background`."""
    dark = contrast_ratio(INK_DARK, background)
    light = contrast_ratio(INK_LIGHT, background)
    return INK_DARK if dark >= light else INK_LIGHT


def faded_ink(background: Sequence[float], ratio: float = DISABLED_TEXT + 0.3) -> tuple[float, ...]:
    """The ink of `background` mixed toward it until only `ratio`:1 contrast is left (or
    the ink itself when it has no more than that): fainter than normal words, never blank.

    >>> round(contrast_ratio(faded_ink((1, 1, 1)), (1, 1, 1)), 1)
    3.3
    """
    return _faded_ink(tuple(float(c) for c in background[:3]), ratio)


@functools.lru_cache(maxsize=256)
def _faded_ink(background: tuple[float, ...], ratio: float) -> tuple[float, ...]:
    # A screen asks for the same few faces again and again (99 times as the Table is
    # first built): each answer is a search of 20 contrast steps, worked out once.
    ink = ink_on(background)
    if contrast_ratio(ink, background) <= ratio:
        return ink
    near, far = 0.0, 1.0  # how much of the ink is kept: far reads, near does not
    for _step in range(20):
        middle = (near + far) / 2
        if contrast_ratio(composite(ink, background, middle), background) >= ratio:
            far = middle
        else:
            near = middle
    return (*composite(ink, background, far), 1.0)
