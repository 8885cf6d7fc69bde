"""A die on the Run away screen shows its edges in both themes: its outline, or else its
face, stands out from what is behind it by at least 3:1 (WCAG 1.4.11, the contrast a
control's shape needs)."""

from __future__ import annotations

import pytest

from tests.ui.conftest import Harness
from tests.ui.looking import background_of, on_screen

pytestmark = pytest.mark.slow
# WCAG 2.x non-text contrast: a control's visible boundary against what is next to it.
SHAPE_CONTRAST = 3.0


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_run_away_dice_have_visible_edges(ui: Harness, theme: str) -> None:
    from kivy.graphics import Line

    from companion.core import MonsterSpec, StartCombat
    from companion.ui.theme import contrast_ratio
    from companion.ui.widgets import DieFace

    ui.start_game(["Anna", "Bram"])
    ui.app.session.act(StartCombat, fighter=0, monsters=(MonsterSpec(name="Ogre", level=9),))
    ui.app.theme.apply(theme)
    try:
        ui.app.show("run_away")
        ui.pump(frames=4)
        dice = [w for w in ui.app.root.walk() if isinstance(w, DieFace) and on_screen(w)]
        assert dice
        for die in dice:
            behind = background_of(die)
            edge = max(contrast_ratio(die.edge, behind), contrast_ratio(die.face, behind))
            assert edge >= SHAPE_CONTRAST, f"{die}: edge {edge:.2f}:1 on {behind}"
            # The outline is drawn (an edge colour alone would not show).
            assert any(isinstance(i, Line) for i in die.canvas.children)
    finally:
        ui.app.theme.apply("dark")
        ui.pump()
