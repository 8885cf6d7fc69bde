"""Every screen at 360x640 in each state a table meets (no fight, fighting, after a kill,
after a defeat, a message on show), with 2, 4 and 8 players and long names, in English and
the languages with the longest texts: no words leave their box or break inside a word or
end in an ellipsis, no words lie over other words, and every control on show is a thumb's
target."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from companion.ui.screens import SCREENS
from tests.ui.conftest import PHONE, Harness
from tests.ui.looking import effective_opacity, on_screen, visible_labels

pytestmark = pytest.mark.slow

PLAYERS = {
    2: ["Anna", "Josephine-Charlotte"],
    4: ["Anna", "Maximiliane Hohenberg", "Cleo", "Konstantinos"],
    8: ["Anna", "Maximiliane Hohenberg", "Cleo", "Dev", "Emil", "Fay", "Gus", "Josephine"],
}


# English and German in every state at the fewest and the most players (2 and 8: a table
# of 4 lays out between them, and test_phone.py shows every screen with 4 and 8, and the
# table with 2 to 8). Greek and Russian carry the longest texts of the other shipped
# languages: their catalogues' short texts (buttons, captions, titles), drawn in the
# app's font, are 26 % (Greek) and 20 % (Russian) wider than the English ones in all,
# German 21 %, Dutch and French 17 %, Ukrainian 16 %, the rest less (and 90 % of Greek
# texts are within 1.8 times their English width, against 1.65 for German and Russian).
# They go through every state once with 8 players, where the rows are narrowest: every
# other language in every state at 4 and 8 players took five times as long and found
# nothing these cases do not.
FULL_LANGUAGES = ("en", "de")
LONGEST_LANGUAGES = ("el", "ru")


# -- the states --------------------------------------------------------------------------
def no_fight(ui: Harness) -> None:
    """The game as it starts: nobody is fighting."""


def fighting(ui: Harness) -> None:
    ui.nav("combat")
    ui.tap(ui.screen("combat").level_buttons[3])


def after_a_kill(ui: Harness) -> None:
    fighting(ui)
    ui.tap(ui.screen("combat").ids.kill)


def after_a_defeat(ui: Harness) -> None:
    ui.nav("combat")
    ui.tap(ui.screen("combat").level_buttons[10])
    ui.tap(ui.screen("combat").ids.defeat)


def a_message(ui: Harness) -> None:
    ui.app.notify("Maximiliane Hohenberg gains a Level and leads the table now.")


STATES: dict[str, Callable[[Harness], None]] = {
    "no fight": no_fight,
    "fighting": fighting,
    "after a kill": after_a_kill,
    "after a defeat": after_a_defeat,
    "a message": a_message,
}


# -- what is measured --------------------------------------------------------------------
def words_box(label: Any) -> tuple[float, float, float, float]:
    """Where a label's words are drawn, in window coordinates (x, y, right, top): its
    texture is centred on the label and the words sit in it as halign/valign put them."""
    label.texture_update()
    tw, th = label.texture_size
    core = label._label
    cw = min(tw, core.content_width) if core is not None else tw
    ch = min(th, core.content_height) if core is not None else th
    tx = label.center_x - tw / 2
    ty = label.center_y - th / 2
    halign = label.halign if label.halign in ("left", "right") else "center"
    x = {"left": tx, "center": tx + (tw - cw) / 2, "right": tx + tw - cw}[halign]
    valign = {"top": "top", "bottom": "bottom"}.get(label.valign, "middle")
    y = {"bottom": ty, "middle": ty + (th - ch) / 2, "top": ty + th - ch}[valign]
    wx, wy = label.to_window(x, y)
    return seen_part(label, (wx, wy, wx + cw, wy + ch))


def seen_part(widget: Any, box: tuple[float, float, float, float]) -> tuple[float, ...]:
    """The part of `box` that the scroll views around `widget` let through."""
    from kivy.uix.scrollview import ScrollView

    x, y, right, top = box
    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            px, py = parent.to_window(parent.x, parent.y)
            x, y = max(x, px), max(y, py)
            right, top = min(right, px + parent.width), min(top, py + parent.height)
        parent = parent.parent
    return x, y, right, top


def leaves_its_box(label: Any) -> bool:
    """The rendered words are wider or taller than the label (cut or spilling out)."""
    label.texture_update()
    width, height = label.texture_size
    return width > label.width + 1 or height > label.height + 1


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """How far two boxes lie over each other (the smaller of the two overlaps), in px."""
    return min(min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1]))


def layer_of(widget: Any) -> Any:
    """The Window's child the widget is drawn in (the app, or a pop-up over it)."""
    from kivy.core.window import Window

    while widget.parent is not None and widget.parent is not Window:
        widget = widget.parent
    return widget


def words_over_words(labels: list[Any]) -> Iterator[str]:
    """Pairs of labels of one layer whose words lie over each other by more than 2 px."""
    boxes = [(label, words_box(label), layer_of(label)) for label in labels]
    for i, (a, box_a, layer_a) in enumerate(boxes):
        for b, box_b, layer_b in boxes[i + 1 :]:
            if layer_a is layer_b and overlap(box_a, box_b) > 2:
                yield f"{a.text!r} over {b.text!r}"


def small_targets(root: Any) -> Iterator[str]:
    """Enabled controls on show smaller than 48x48 dp."""
    from kivy.metrics import dp
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.screenmanager import ScreenManager

    def walk(widget: Any) -> Iterator[Any]:
        if widget.opacity <= 0 or widget.width <= 1 or widget.height <= 1:
            return
        if isinstance(widget, ScreenManager):
            if widget.current_screen is not None:
                yield from walk(widget.current_screen)
            return
        enabled = isinstance(widget, ButtonBehavior) and not widget.disabled
        if enabled and effective_opacity(widget) > 0.05 and on_screen(widget):
            yield widget
        for child in widget.children:
            yield from walk(child)

    for control in walk(root):
        if control.width < dp(48) - 1 or control.height < dp(48) - 1:
            name = getattr(control, "text", "") or type(control).__name__
            yield f"{name!r} {control.width / dp(1):.0f}x{control.height / dp(1):.0f} dp"


def cut_short(label: Any) -> str:
    """How a label's words are cut though they fit their box: an ellipsis in place of some
    ("Turn …phine"), or a line broken inside a word ("Суперманч" / "кин"); "" if neither."""
    from tests.ui.test_i18n_live import words_cut

    if label.shorten and label.is_shortened:
        return "shortened"
    pieces = words_cut(label)
    return f"broken inside a word ({' / '.join(pieces)})" if pieces else ""


def problems_on_show(ui: Harness, where: str) -> list[str]:
    from kivy.core.window import Window

    labels = list(visible_labels(Window))
    found = [f"{where}: cut {label.text!r}" for label in labels if leaves_its_box(label)]
    found += [f"{where}: {cut_short(label)} {label.text!r}" for label in labels if cut_short(label)]
    found += [f"{where}: {pair}" for pair in words_over_words(labels)]
    found += [f"{where}: small {target}" for target in small_targets(ui.app.root)]
    return found


# -- the tests ---------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def english_afterwards(_session_app: Harness) -> Iterator[None]:
    """Each test speaks its language from its start and keeps it: the cases of one
    language run one after another, so its screens are built once, as a player who chose
    it meets them, rather than again for every case. English is back after the module."""
    yield
    from companion.ui import i18n

    i18n.set_language("en")
    _session_app.pump()


CASES = [
    *(
        (state, count, language)
        for language in FULL_LANGUAGES
        for count in (2, 8)
        for state in STATES
    ),
    *((state, 8, language) for language in LONGEST_LANGUAGES for state in STATES),
]


@pytest.mark.parametrize(("state", "count", "language"), CASES)
def test_every_screen_in_every_state_fits(
    ui: Harness, state: str, count: int, language: str
) -> None:
    from kivy.core.window import Window

    from companion.ui import i18n

    assert tuple(Window.size) == PHONE
    problems: list[str] = []
    shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
    try:
        i18n.set_language(language)
        ui.start_game(PLAYERS[count])
        STATES[state](ui)
        ui.pump(frames=4)
        for entry in SCREENS:
            if entry.name in ("game_over", "new_game"):
                continue
            ui.app.show(entry.name, **({"seat": 1} if entry.name == "player" else {}))
            ui.pump(frames=4)
            problems += problems_on_show(ui, entry.name)
            if shot:  # pictures to look at: COMPANION_LAYOUT_SHOTS=/some/folder
                Window.screenshot(f"{shot}/{entry.name}-{state}-{count}-{language}.png")
    finally:
        ui.app.root.ids.banner.shown = False
        ui.pump()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("count", "language"),
    [(count, language) for language in FULL_LANGUAGES for count in (2, 3, 6)]
    + [(6, language) for language in LONGEST_LANGUAGES],
)
def test_the_new_game_screen_fits(ui: Harness, count: int, language: str) -> None:
    """Set-up with a few or many seats: every rule switch on screen without scrolling."""
    from companion.ui import i18n
    from tests.ui.test_phone import fully_on_screen

    i18n.set_language(language)
    screen = ui.set_up_game(["Maximiliane Hohenberg", *PLAYERS[8]][:count])
    ui.pump(frames=4)
    problems = problems_on_show(ui, "new_game")
    for rule in ("edition", "epic", "shared", "faster", "start"):
        if not fully_on_screen(screen.ids[rule]):
            problems.append(f"{rule} needs a scroll")
    assert not problems, "\n".join(problems)
