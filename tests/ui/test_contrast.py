"""Every word on every screen reaches WCAG AA contrast in both themes.

The colours are read from the widgets as drawn (the label's colour, faded by its
opacity, over the fill painted behind it), so a future palette or layout change that
makes some text hard to read fails here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.core import MonsterSpec, StartCombat
from companion.ui.screens import SCREENS
from tests.ui.conftest import Harness
from tests.ui.looking import background_of, effective_opacity, is_large, visible_labels

pytestmark = pytest.mark.slow
# The theme module is imported inside the tests: loading Kivy's metrics while pytest
# collects would fix the window's size before the session sets the phone's.
THEMES = ("dark", "light")


def test_ink_is_the_better_of_black_and_white() -> None:
    from companion.ui.theme import AA_NORMAL, Theme, contrast_ratio, ink_on

    for theme in THEMES:
        palette = Theme(theme)
        for role in ("accent", "good", "bad", "warn", "raised", "surface", "bg"):
            background = getattr(palette, role)
            assert contrast_ratio(ink_on(background), background) >= AA_NORMAL, (theme, role)


def poor_contrast(ui: Harness) -> Iterator[str]:
    from companion.ui.theme import AA_LARGE, AA_NORMAL, composite, contrast_ratio

    for label in visible_labels(ui.app.root):
        under = background_of(label)
        alpha = label.color[3] * effective_opacity(label)
        seen = composite(label.color, under, alpha)
        ratio = contrast_ratio(seen, under)
        needed = AA_LARGE if is_large(label) else AA_NORMAL
        if ratio < needed:
            yield f"{label.text!r} {ratio:.2f}:1 < {needed}"


def test_the_themes_tested_are_all_the_themes() -> None:
    from companion.ui import theme

    assert theme.THEMES == THEMES


@pytest.mark.parametrize("theme", THEMES)
def test_every_text_on_every_screen_reaches_aa(ui: Harness, theme: str) -> None:
    ui.start_game(["Anna", "Bram", "Cleo", "Dev"])
    ui.app.theme.apply(theme)
    try:
        problems: dict[str, list[str]] = {}
        for entry in SCREENS:
            if entry.name in ("run_away", "game_over"):
                continue
            ui.app.show(entry.name, **({"seat": 1} if entry.name == "player" else {}))
            ui.pump(frames=4)
            found = list(poor_contrast(ui))
            if found:
                problems[entry.name] = found
        # A fight: the verdict box and the combat buttons in colour.
        ui.app.session.act(StartCombat, fighter=0, monsters=(MonsterSpec(name="Ogre", level=4),))
        for name in ("table", "combat", "run_away"):
            ui.app.show(name)
            ui.pump(frames=4)
            found = list(poor_contrast(ui))
            if found:
                problems[f"{name} (in a fight)"] = found
        assert not problems, problems
    finally:
        ui.app.theme.apply("dark")
        ui.pump()
