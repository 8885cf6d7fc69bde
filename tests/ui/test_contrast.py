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
from tests.ui.looking import (
    background_of,
    effective_opacity,
    is_large,
    on_screen,
    text_colour,
    visible_labels,
)

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
    """Words on show below AA, in the colour Kivy draws them: a disabled label's words are
    drawn in its `disabled_color`, which needs 3:1 (it still says what it would do)."""
    from kivy.core.window import Window

    from companion.ui.theme import AA_LARGE, AA_NORMAL, DISABLED_TEXT, composite, contrast_ratio

    for label in visible_labels(Window):
        under = background_of(label)
        colour = text_colour(label)
        seen = composite(colour, under, colour[3] * effective_opacity(label))
        ratio = contrast_ratio(seen, under)
        needed = DISABLED_TEXT if label.disabled else AA_LARGE if is_large(label) else AA_NORMAL
        if ratio < needed:
            state = " (disabled)" if label.disabled else ""
            yield f"{label.text!r}{state} {ratio:.2f}:1 < {needed}"
    yield from poor_fields(ui)


def poor_fields(ui: Harness) -> Iterator[str]:
    """Text fields whose typed words or hint do not reach AA on the field's own colour.
    Kivy draws a field's colour over a picture of its own (a grey gradient) unless the
    picture is taken away: then the colour is all there is under the words."""
    from kivy.uix.textinput import TextInput

    from companion.ui.theme import AA_NORMAL, composite, contrast_ratio

    for field in ui.app.root.walk(restrict=True):
        if not isinstance(field, TextInput) or effective_opacity(field) <= 0.05:
            continue
        if field.width <= 1 or field.height <= 1 or not on_screen(field):
            continue
        if field.background_normal or field.background_active:
            yield f"field {field.hint_text or field.text!r} is drawn over a picture"
            continue
        under = composite(field.background_color, background_of(field), field.background_color[3])
        shown = [("words", field.foreground_color)]
        if field.hint_text:
            shown.append(("hint", field.hint_text_color))
        for what, colour in shown:
            ratio = contrast_ratio(composite(colour, under, colour[3]), under)
            if ratio < AA_NORMAL:
                yield f"field {field.hint_text or field.text!r} {what} {ratio:.2f}:1 < {AA_NORMAL}"


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


# The screens a table uses most, each in the states it meets; the light theme was only
# ever seen in one state, and its disabled buttons were blank boxes.
MAIN_SCREENS = ("table", "player", "combat", "run_away", "new_game", "settings")


@pytest.mark.parametrize("state", ["no fight", "fighting", "after a kill", "a message"])
def test_the_main_screens_read_in_the_light_theme(ui: Harness, state: str) -> None:
    """Every word on the main screens, disabled buttons and text fields included, reaches
    AA in the light theme: 4.5:1, 3:1 for large words and for disabled buttons' words."""
    from tests.ui.test_layout_states import PLAYERS, STATES

    ui.start_game(PLAYERS[8])
    ui.app.theme.apply("light")
    try:
        STATES[state](ui)
        ui.pump(frames=4)
        fighting = ui.app.session.state.combat is not None
        problems: dict[str, list[str]] = {}
        for name in MAIN_SCREENS:
            if name == "run_away" and not fighting:
                continue  # only a fight leads there
            if name == "new_game":
                ui.app.show("new_game", fresh=True)
            else:
                ui.app.show(name, **({"seat": 1} if name == "player" else {}))
            ui.pump(frames=4)
            found = list(poor_contrast(ui))
            if found:
                problems[name] = found
        assert not problems, problems
    finally:
        ui.app.root.ids.banner.shown = False
        ui.app.theme.apply("dark")
        ui.pump()
