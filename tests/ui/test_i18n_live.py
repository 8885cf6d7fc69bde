"""Languages in the running app: switched live on an open screen, the system's language on a
first start, and every screen laid out at 360x640 in the language with the longest texts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.ui import i18n

pytestmark = pytest.mark.slow


@pytest.fixture
def english(ui: Any) -> Iterator[Any]:
    """The app, put back into English (and its settings) after the test."""
    yield ui
    i18n.set_language("en")
    ui.app.settings.language = "en"
    ui.pump()


def _texts(widget: Any) -> list[str]:
    from kivy.uix.label import Label

    found = [w.text for w in widget.walk(restrict=True) if isinstance(w, Label) and w.text]
    return found


def test_a_language_change_shows_at_once_on_the_open_screen(english: Any) -> None:
    from companion.core import GoUpLevel

    ui = english
    ui.start_game(["Ann", "Bo"])
    ui.nav("table")
    table = ui.app.manager.current_screen
    assert "End turn" in _texts(table)
    ui.app.show("settings")
    ui.pump()
    settings = ui.app.manager.current_screen
    assert settings.ids.language.text == "Language: English"
    ui.tap(settings.ids.language)  # English -> the next language, Deutsch
    assert i18n.language() == "de" and ui.app.settings.language == "de"
    shown = ui.app.manager.current_screen
    assert shown.name == "settings"
    assert shown.ids.language.text == "Sprache: Deutsch"
    assert "Bildschirm" in _texts(shown) and "Screen" not in _texts(shown)
    # The frame around the screens follows too: title, Undo, and the navigation bar.
    assert ui.app.navigator.screen_title == "Optionen"
    assert ui.app.root.ids.undo.text == i18n._("Undo") != "Undo"
    nav = {b.screen_name: b.text for b in ui.app.root.ids.nav.children}
    assert nav["table"] == "Tisch" and nav["combat"] == "Kampf"
    # A screen built before the change speaks the new language when it is shown again.
    ui.nav("table")
    texts = _texts(ui.app.manager.current_screen)
    assert "Zug beenden" in texts and "End turn" not in texts
    # An engine sentence on show in the History follows as well.
    ui.app.session.act(GoUpLevel, player=1, levels=2)
    ui.nav("history")
    assert any(t.endswith("Bo steigt 2 Stufen auf") for t in _texts(ui.app.manager.current_screen))
    i18n.set_language("ru")
    ui.pump()
    assert any(t.endswith("Bo получает: 2 уровня") for t in _texts(ui.app.manager.current_screen))


def test_the_settings_screen_lists_every_language_by_its_own_name(english: Any) -> None:
    ui = english
    ui.app.show("settings")
    ui.pump()
    texts = " ".join(_texts(ui.app.manager.current_screen))
    for name in i18n.LANGUAGES.values():
        assert name in texts


def test_a_first_start_speaks_the_system_language(
    english: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.ui.app import first_look

    assert first_look(tmp_path) == ("dark", None)  # nothing chosen yet
    for variable in i18n.LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "pl_PL.UTF-8")
    assert i18n.start_language(None) == "pl" and english.app.language == "pl"
    english.pump()
    assert english.app.root.ids.undo.text == "Cofnij"
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")  # a language the app does not speak
    assert i18n.start_language(None) == "en"
    # A language once chosen wins over the system's.
    (tmp_path / "settings.json").write_text('{"language": "ru"}', encoding="utf-8")
    chosen = first_look(tmp_path)[1]
    assert chosen == "ru" and i18n.start_language(chosen) == "ru"


# --- the longest language at phone size -------------------------------------------------------


def clipped_labels(root: Any) -> dict[int, str]:
    """Labels on show whose text does not fit their box, is cut short, or is off screen,
    by their place in the widget tree."""
    from kivy.core.window import Window
    from kivy.uix.label import Label
    from kivy.uix.scrollview import ScrollView

    from companion.ui.widgets import NavButton

    problems: dict[int, str] = {}
    for place, widget in enumerate(root.walk(restrict=True)):
        if not isinstance(widget, Label) or not widget.text.strip():
            continue
        if isinstance(widget, NavButton):
            continue  # the bottom bar is laid out by the frame; its own tests check it
        if widget.opacity == 0 or widget.width < 1 or widget.height < 1:
            continue
        if any(p.opacity == 0 for p in _parents(widget)):
            continue
        widget.texture_update()
        text_w, text_h = widget.texture_size
        name = f"{type(widget).__name__} {widget.text!r}"
        if text_w > widget.width + 1 or text_h > widget.height + 1:
            problems[place] = (
                f"{name}: text {text_w:.0f}x{text_h:.0f} in {widget.width:.0f}x{widget.height:.0f}"
            )
            continue
        if widget.shorten and widget.text_size[0]:
            # A shortened label hides the end of its text behind an ellipsis.
            pad = widget.padding[0] + widget.padding[2]
            full = widget._label.get_extents(widget.text)[0] + pad
            if full > widget.text_size[0] + 1:
                problems[place] = f"{name}: cut short ({full:.0f} > {widget.text_size[0]:.0f})"
                continue
        scrolls_x = any(isinstance(p, ScrollView) and p.do_scroll_x for p in _parents(widget))
        left, _bottom = widget.to_window(widget.x, widget.y)
        if not scrolls_x and (left < -1 or left + widget.width > Window.width + 1):
            problems[place] = f"{name}: outside the window ({left:.0f}..{left + widget.width:.0f})"
    return problems


def _parents(widget: Any) -> Iterator[Any]:
    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        yield parent
        parent = parent.parent


def _screen_problems(ui: Any, language: str) -> dict[str, dict[int, str]]:
    """Every screen of a demo game at phone size in `language`: its clipped labels."""
    from companion.commands.screenshots import demo_actions, demo_setup
    from companion.core import FixedDice, Game, PlayOneShot

    i18n.set_language(language)
    ui.app.session.dice = FixedDice([2, 5, 3, 6, 4, 1] * 20)
    game = Game(demo_setup(), rng=ui.app.session.dice)
    for action in demo_actions():
        game.apply(action)
    ui.app.session.adopt(game)
    ui.pump()
    problems: dict[str, dict[int, str]] = {}
    for name in ui.app.navigator.entries:
        if name in ("run_away", "game_over"):
            continue
        ui.app.show(name, **({"seat": 0} if name == "player" else {}))
        ui.pump()
        problems[name] = clipped_labels(ui.app.root)
    ui.app.session.act(PlayOneShot, side="monsters", bonus=10, name="Wandering monster")
    flee = ui.app.show("run_away")
    ui.pump()
    flee.choose(0, 0)
    flee.roll(3)
    ui.advance(1.2)  # the die has stopped tumbling
    problems["run_away"] = clipped_labels(ui.app.root)
    ui.app.session.close()
    return problems


@pytest.mark.parametrize("language", sorted(set(i18n.LANGUAGES) - {"en"}))
def test_every_screen_fits_at_phone_size(english: Any, language: str) -> None:
    """In every language (the longest among them), no label overflows its box, leaves the
    window or is cut short where the same label in English fits: the English layout
    itself is checked by the screens' own tests."""
    from kivy.core.window import Window

    assert tuple(Window.size) == (360, 640)
    source = _screen_problems(english, "en")
    found = _screen_problems(english, language)
    problems = {
        f"{screen}: {text}"
        for screen, labels in found.items()
        for place, text in labels.items()
        if place not in source.get(screen, {})
    }
    assert not problems, "\n".join(sorted(problems))
