"""Colours and type sizes of the app, dark by default, readable from across the table."""

from __future__ import annotations

from kivy.event import EventDispatcher
from kivy.metrics import sp
from kivy.properties import ColorProperty, NumericProperty, StringProperty
from kivy.utils import get_color_from_hex

# name -> (background, surface, raised surface, text, dimmed text, accent, good, bad, warn)
_PALETTES: dict[str, tuple[str, ...]] = {
    "dark": (
        "#121317",
        "#1e2027",
        "#2b2e38",
        "#f4f1ea",
        "#a9a7a1",
        "#f2b134",
        "#3fbf6f",
        "#e5484d",
        "#f59e0b",
    ),
    "light": (
        "#f4f1ea",
        "#ffffff",
        "#e4dfd3",
        "#17181c",
        "#5c5a55",
        "#b7700d",
        "#1e8a4a",
        "#c62a2f",
        "#b45309",
    ),
}

THEMES: tuple[str, ...] = tuple(_PALETTES)

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

    def apply(self, name: str) -> None:
        """Switch palette; unknown names fall back to the dark one."""
        if name not in _PALETTES:
            name = "dark"
        values = [get_color_from_hex(code) for code in _PALETTES[name]]
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
    r, g, b, _a = get_color_from_hex(code)
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return [0.07, 0.07, 0.08, 1.0] if luminance > 0.55 else [1.0, 1.0, 1.0, 1.0]
