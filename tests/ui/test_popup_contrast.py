"""Pop-ups read in both themes: a pop-up's title reaches WCAG AA on the face the player
sees, which is worked out from every colour its canvas draws, in the order Kivy draws
them (the window's dimming included), not from the colour it asks for alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.ui.conftest import Harness
from tests.ui.looking import is_large

pytestmark = pytest.mark.slow
THEMES = ("dark", "light")


def seen_face(popup: Any, behind: Any) -> tuple[float, ...]:
    """The colour at the middle of `popup` as drawn: its canvas.before, then its canvas,
    each shape that covers the middle laid over what is under it at its colour's alpha,
    starting from the screen `behind`."""
    from kivy.graphics import BorderImage, Color, Rectangle, RoundedRectangle

    from companion.ui.theme import composite

    x, y = popup.center
    seen: tuple[float, ...] = tuple(behind[:3])
    colour: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0)
    for canvas in (popup.canvas.before, popup.canvas):
        for instruction in canvas.children:
            if isinstance(instruction, Color):
                colour = tuple(instruction.rgba)
            elif isinstance(instruction, (Rectangle, RoundedRectangle, BorderImage)):
                (left, bottom), (width, height) = instruction.pos, instruction.size
                if left <= x <= left + width and bottom <= y <= bottom + height:
                    seen = composite(colour, seen, colour[3])
    return seen


def title_label(popup: Any, title: str) -> Any:
    from kivy.uix.label import Label

    found = [w for w in popup.walk() if isinstance(w, Label) and w.text == title]
    assert found, f"no title {title!r} on {popup}"
    return found[0]


def edition_list(ui: Harness) -> tuple[Any, str]:
    from companion.ui.i18n import _

    return ui.screen("new_game").choose_edition(), _("Edition")


def charity_sheet(ui: Harness) -> tuple[Any, str]:
    from companion.core import AdvancePhase, SetLevel

    ui.start_game(["Anna", "Bram", "Cleo"])
    session = ui.app.session
    session.act(SetLevel, player=0, level=3)
    session.act(AdvancePhase)
    session.act(AdvancePhase)
    ui.pump()
    table = ui.screen("table")
    table.ask_charity()
    return table.charity_sheet, table.charity_sheet.title


def language_list(ui: Harness) -> tuple[Any, str]:
    from companion.ui.i18n import _

    ui.app.show("settings")
    ui.pump()
    return ui.screen("settings").choose_language(), _("Language")


def first_player_throws(ui: Harness) -> tuple[Any, str]:
    from companion.ui.throws import show_first_player_roll

    screen = ui.set_up_game(["Anna", "Bram"])
    screen.start()  # rolls for the first player on screen
    ui.pump()
    popups = [w for w in ui.app.root_window.children if type(w).__name__ == "ThrowsPopup"]
    popup = popups[0] if popups else show_first_player_roll(ui.app)
    return popup, popup.title


POPUPS: dict[str, Callable[[Harness], tuple[Any, str]]] = {
    "a list to pick from": edition_list,
    "a sheet": charity_sheet,
    "the languages": language_list,
    "the throws": first_player_throws,
}


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("kind", list(POPUPS))
def test_a_popup_title_reads_on_the_face_the_player_sees(
    ui: Harness, theme: str, kind: str
) -> None:
    from companion.ui.theme import AA_LARGE, AA_NORMAL, contrast_ratio

    ui.app.theme.apply(theme)
    popup = None
    try:
        popup, title = POPUPS[kind](ui)
        ui.pump(frames=6)  # opened, its dimming faded in
        face = seen_face(popup, ui.app.theme.bg)
        label = title_label(popup, title)
        ratio = contrast_ratio(label.color, face)
        needed = AA_LARGE if is_large(label) else AA_NORMAL
        assert ratio >= needed, f"{title!r}: {ratio:.2f}:1 on {face}"
    finally:
        if popup is not None:
            popup.dismiss()
        ui.app.theme.apply("dark")
        ui.pump()
