"""The phone's own interface never hides the app: the on-screen keyboard leaves the field
being typed in visible, and the frame stays clear of the system bars (edge to edge)."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from typing import Any

import pytest

from companion.ui import system_ui
from tests.ui.conftest import PHONE, Harness
from tests.ui.looking import on_screen

pytestmark = pytest.mark.slow

# A phone keyboard with a suggestion strip takes a little under half a 640 dp screen.
KEYBOARD_DP = 290


@pytest.fixture
def phone(ui: Harness) -> Iterator[Harness]:
    """The app at phone size, put back to it (and the field unfocused) after the test."""
    from kivy.core.window import Window

    yield ui
    field = system_ui.focused_input(ui.app.root)
    if field is not None:
        field.focus = False
    Window.size = PHONE
    ui.wait_until(lambda: tuple(Window.size) == PHONE)
    ui.pump(frames=6)


def keyboard_opens(ui: Harness) -> None:
    """The system makes the window shorter by a keyboard's height, as Android does."""
    from kivy.core.window import Window
    from kivy.metrics import dp

    height = PHONE[1] - round(dp(KEYBOARD_DP))
    Window.size = (PHONE[0], height)
    ui.wait_until(lambda: Window.height == height)
    ui.pump(frames=8)  # the layout follows, then the field is revealed


def fully_visible(widget: Any) -> bool:
    """All of the widget inside the window and inside the list that scrolls it."""
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    x, y = widget.to_window(widget.x, widget.y)
    if x < -1 or y < -1 or x + widget.width > Window.width + 1:
        return False
    if y + widget.height > Window.height + 1:
        return False
    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            _px, py = parent.to_window(parent.x, parent.y)
            if y < py - 1 or y + widget.height > py + parent.height + 1:
                return False
        parent = parent.parent
    return True


def test_the_combat_search_stays_above_the_keyboard(phone: Harness) -> None:
    ui = phone
    ui.start_game(["Ann", "Bo", "Cy", "Di"])
    ui.nav("combat")
    search = ui.screen("combat").ids.search
    ui.tap(search)
    assert search.focus
    keyboard_opens(ui)
    assert search.focus, "the keyboard closed the field"
    assert fully_visible(search), f"the search field is hidden at {search.to_window(*search.pos)}"
    search.text = "gob"  # typing goes on where the player sees it
    ui.pump()
    assert fully_visible(search)


def test_the_players_gold_field_stays_above_the_keyboard(phone: Harness) -> None:
    ui = phone
    ui.start_game(["Ann", "Bo", "Cy", "Di"])
    ui.app.show("player", seat=1)
    ui.pump(frames=4)
    gold = ui.screen("player").ids.gold
    ui.tap(gold)
    assert gold.focus
    keyboard_opens(ui)
    assert gold.focus and fully_visible(gold), gold.to_window(*gold.pos)
    # The button beside it, to sell, is still reachable by scrolling: nothing is cut off.
    assert on_screen(gold)


def test_the_frame_keeps_clear_of_the_system_bars(
    phone: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edge to edge (Android 15): the status bar covers the top, the navigation bar the
    bottom; the top bar and the navigation bar move inside what is left."""
    from kivy.core.window import Window
    from kivy.metrics import dp

    ui = phone
    monkeypatch.setenv(system_ui.SAFE_AREA_VARIABLE, "24,0,48,0")
    keyboard_opens(ui)  # any change of the window reads the insets again
    Window.size = PHONE
    ui.wait_until(lambda: tuple(Window.size) == PHONE)
    ui.pump(frames=6)
    root = ui.app.root
    top = root.ids.topbar.to_window(0, root.ids.topbar.top)[1]
    bottom = root.ids.nav.to_window(0, root.ids.nav.y)[1]
    assert top <= Window.height - dp(24) + 1
    assert bottom >= dp(48) - 1
    for button in root.ids.nav.children:
        assert button.height >= dp(48) - 1  # still a thumb's target
    monkeypatch.delenv(system_ui.SAFE_AREA_VARIABLE)
    keyboard_opens(ui)
    Window.size = PHONE
    ui.wait_until(lambda: tuple(Window.size) == PHONE)
    ui.pump(frames=6)
    assert root.insets == [0, 0, 0, 0]
    assert root.ids.topbar.to_window(0, root.ids.topbar.top)[1] == pytest.approx(Window.height)


def test_a_fake_safe_area_reads_as_dp_and_a_bad_one_is_named() -> None:
    from kivy.metrics import dp

    insets = system_ui.safe_area({system_ui.SAFE_AREA_VARIABLE: "24, 0, 48, 0"})
    assert insets == system_ui.Insets(top=dp(24), right=0, bottom=dp(48), left=0)
    assert insets.padding() == [0, dp(24), 0, dp(48)]
    assert system_ui.safe_area({}) == system_ui.Insets()
    with pytest.raises(system_ui.SafeAreaError, match=r"COMPANION_SAFE_AREA .* not 'tall'"):
        system_ui.parse_safe_area("tall")
    with pytest.raises(system_ui.SafeAreaError):
        system_ui.parse_safe_area("1,2,3")
    # A mistake in the variable never stops the app: it is ignored (and logged).
    assert system_ui.safe_area({system_ui.SAFE_AREA_VARIABLE: "-5"}) == system_ui.Insets()


def test_docstring_examples() -> None:
    import companion.ui.device_service
    import companion.ui.i18n

    for module in (system_ui, companion.ui.i18n, companion.ui.device_service):
        assert doctest.testmod(module).failed == 0
