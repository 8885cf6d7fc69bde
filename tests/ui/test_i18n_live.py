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


def _picker() -> Any:
    """The language list on show."""
    from kivy.core.window import Window

    from companion.ui.screens.settings import LanguagePicker

    shown = [w for w in Window.children if isinstance(w, LanguagePicker)]
    assert len(shown) == 1, "the language list is not on show"
    return shown[0]


def _row(picker: Any, ui: Any, name: str) -> Any:
    """The row of the language called `name`, scrolled into view."""
    codes = list(i18n.LANGUAGES.values())
    picker.ids.rows.scroll_to_index(codes.index(name))
    ui.pump(frames=4)
    rows = [r for r in picker.ids.list_box.children if r.text == name]
    assert rows, f"{name} is not in the language list"
    return rows[0]


def pick_language(ui: Any, name: str) -> int:
    """Settings -> Language -> the language called `name`, by taps; the taps it took."""
    settings = ui.app.manager.current_screen
    ui.tap(settings.ids.language)
    picker = _picker()
    ui.tap(_row(picker, ui, name))
    ui.pump(frames=4)
    return 2


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
    pick_language(ui, "Deutsch")
    assert i18n.language() == "de" and ui.app.settings.language == "de"
    shown = ui.app.manager.current_screen
    assert shown.name == "settings"
    assert shown.ids.language.text == "Sprache: Deutsch"
    assert "Bildschirm" in _texts(shown) and "Screen" not in _texts(shown)
    # The frame around the screens follows too: title, Undo, and the navigation bar.
    assert ui.app.navigator.screen_title == "Optionen"
    assert ui.app.root.ids.undo.label == i18n._("Undo") != "Undo"
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


def test_any_language_is_two_taps_away_in_a_list(english: Any) -> None:
    """Settings -> Language opens a list of every language in its own words, at phone size
    with rows a thumb can hit; one more tap on a row speaks it (German to Russian was six
    taps of a cycling button)."""
    from kivy.core.window import Window
    from kivy.metrics import dp

    from tests.ui.looking import clipped

    ui = english
    assert tuple(Window.size) == (360, 640)
    ui.app.show("settings")
    ui.pump()
    assert pick_language(ui, "Deutsch") == 2 and i18n.language() == "de"
    settings = ui.app.manager.current_screen
    ui.tap(settings.ids.language)
    picker = _picker()
    left, bottom = picker.to_window(picker.x, picker.y)
    assert left >= 0 and bottom >= 0 and left + picker.width <= Window.width
    assert bottom + picker.height <= Window.height
    for code, name in i18n.LANGUAGES.items():
        row = _row(picker, ui, name)
        assert row.height >= dp(48) and row.width >= dp(48), name
        assert not clipped(row), name
        assert row.selected == (code == "de"), name
        _x, y = row.to_window(*row.center)
        _left, view_y = picker.ids.rows.to_window(picker.ids.rows.x, picker.ids.rows.y)
        assert view_y <= y <= view_y + picker.ids.rows.height, f"{name} is not in view"
    ui.tap(_row(picker, ui, "Русский"))
    ui.pump(frames=4)
    assert i18n.language() == "ru" and ui.app.settings.language == "ru"
    assert ui.app.root.ids.undo.label == "Отмена"
    assert ui.app.manager.current_screen.ids.language.text == "Язык: Русский"


def test_tapping_beside_the_language_list_keeps_the_language(english: Any) -> None:
    from kivy.core.window import Window

    ui = english
    ui.app.show("settings")
    ui.pump()
    ui.tap(ui.app.manager.current_screen.ids.language)
    picker = _picker()
    ui.touch_at(Window.width / 2, 4)  # the dimmed strip below the list
    ui.wait_until(lambda: picker.parent is None)  # it fades out
    assert i18n.language() == "en" and ui.app.settings.language == "en"


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
    assert english.app.root.ids.undo.label == "Cofnij"
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")  # a language the app does not speak
    assert i18n.start_language(None) == "en"
    # A language once chosen wins over the system's.
    (tmp_path / "settings.json").write_text('{"language": "ru"}', encoding="utf-8")
    chosen = first_look(tmp_path)[1]
    assert chosen == "ru" and i18n.start_language(chosen) == "ru"


# --- the longest language at phone size -------------------------------------------------------


def words_cut(label: Any) -> list[str]:
    """The pieces of words a wrapped label shows where a line broke inside a word
    ("Суперманч" + "кин"); empty when every line breaks between words."""
    if not label.text_size[0] or label.markup or label.shorten:
        return []  # a shortened label is told apart by its ellipsis (`is_shortened`)
    label.texture_update()
    lines = getattr(label._label, "_cached_lines", [])
    shown = " ".join("".join(word.text for word in line.words) for line in lines).split()
    whole = set(label.text.split())
    return [piece for piece in shown if piece not in whole]


def clipped_labels(root: Any) -> dict[int, str]:
    """Labels on show whose text does not fit their box, is cut short or cut inside a word,
    or is off screen, by their place in the widget tree."""
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
        if widget.shorten and widget.is_shortened:
            # A shortened label hides part of its text behind an ellipsis.
            shown = " ".join(
                "".join(w.text for w in line.words) for line in widget._label._cached_lines
            )
            problems[place] = f"{name}: cut short ({shown!r})"
            continue
        pieces = words_cut(widget)
        if pieces:
            problems[place] = f"{name}: a line breaks inside a word ({' / '.join(pieces)})"
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


# The English layout's own problems, by screen: the same demo game gives the same each
# time, so it is looked at once for every language's check rather than once for each.
_english_problems: dict[str, dict[int, str]] = {}


def english_problems(ui: Any) -> dict[str, dict[int, str]]:
    """What `_screen_problems` finds in English (looked at on the first call)."""
    if not _english_problems:
        _english_problems.update(_screen_problems(ui, "en"))
    return _english_problems


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_undo_and_redo_never_read_like_the_back_arrow(english: Any, language: str) -> None:
    """Beside the top bar's back arrow, German "Zurück"/"Vor" (back/forward) read like
    navigation: Undo and Redo are named with none of the words the language says "back"
    with. Their words ("Rückgängig", "Ongedaan maken") were drawn smaller than anything
    else on screen to fit 72 dp; the bar now shows a symbol that reads the same in every
    language, at full size, and keeps the words as the button's name."""
    ui = english
    ui.start_game(["Ann", "Bo"])
    i18n.set_language(language)
    ui.pump(frames=4)
    back = set(i18n._("Back to the table").casefold().split())
    bar = ui.app.root.ids
    for button, name in ((bar.undo, "Undo"), (bar.redo, "Redo")):
        assert button.label == i18n._(name), (language, button.label)
        assert not set(button.label.casefold().split()) & back, (language, button.label)
        button.texture_update()
        assert button.texture_size[0] <= button.width, (language, button.text)
        drawn = button._label.options["font_size"]
        assert drawn == button.font_size >= ui.app.theme.heading, (language, name, drawn)
    if language == "de":
        assert (bar.undo.label, bar.redo.label) == ("Rückgängig", "Wiederholen")


def test_a_finger_resting_on_undo_names_it_and_takes_nothing_back(english: Any) -> None:
    """A symbol alone can puzzle a new player: holding a finger on it shows its name, in the
    language on show, as Android does for an icon; only a tap takes back."""
    from benchmarks.kivy_driver import lift, press, window_centre
    from companion.core import GoUpLevel
    from companion.ui.widgets import LONG_PRESS_S

    ui = english
    ui.start_game(["Ann", "Bo"])
    ui.app.session.act(GoUpLevel, player=0, levels=1)
    i18n.set_language("de")
    ui.pump()
    undo = ui.app.root.ids.undo
    finger = press(*window_centre(undo), "ui-test")
    ui.advance(LONG_PRESS_S + 0.1)
    assert ui.banner() == "Rückgängig"
    lift(finger)
    ui.pump()
    assert ui.app.session.live_state.players[0].level == 2, "holding took a Level back"
    ui.tap(undo)
    assert ui.app.session.live_state.players[0].level == 1
    assert ui.banner().startswith(i18n._("Undone: {what}").split("{")[0]), ui.banner()


def test_a_long_word_on_a_narrow_button_is_never_cut_in_the_middle(english: Any) -> None:
    """Russian "Суперманчкин" (Super Munchkin) on the Player screen's third-width button
    was drawn as "Суперманч" over "кин"; the words now shrink until the word fits."""
    from companion.core import GainTrait

    ui = english
    ui.start_game(["Ann", "Bo"])
    ui.app.session.act(GainTrait, player=0, kind="class", name="Wizard")
    i18n.set_language("ru")
    ui.app.show("player", seat=0)
    ui.pump(frames=6)
    screen = ui.app.manager.current_screen
    boost = next(w for w in screen.ids.traits.walk() if getattr(w, "text", "") == "Суперманчкин")
    assert words_cut(boost) == []
    boost.texture_update()
    assert boost.texture_size[0] <= boost.width and boost.texture_size[1] <= boost.height
    assert ui.app.theme.small * 0.8 <= boost._label.options["font_size"] <= boost.font_size
    # A word that fits is drawn at the size asked for.
    wizard = next(w for w in screen.ids.traits.walk() if getattr(w, "text", "") == "Волшебник")
    assert wizard._label.options["font_size"] == wizard.font_size


@pytest.mark.parametrize("language", sorted(set(i18n.LANGUAGES) - {"en"}))
def test_every_screen_fits_at_phone_size(english: Any, language: str) -> None:
    """In every language (the longest among them), no label overflows its box, leaves the
    window or is cut short where the same label in English fits: the English layout
    itself is checked by the screens' own tests."""
    from kivy.core.window import Window

    assert tuple(Window.size) == (360, 640)
    source = english_problems(english)
    found = _screen_problems(english, language)
    problems = {
        f"{screen}: {text}"
        for screen, labels in found.items()
        for place, text in labels.items()
        if place not in source.get(screen, {})
    }
    assert not problems, "\n".join(sorted(problems))


def test_class_race_and_quick_monster_names_follow_the_language(english: Any) -> None:
    """Names kept in the game (a class, a race, a monster entered by its level) read in the
    language on show, on the Table, in Combat and in the History, while the log keeps
    the English name."""
    from companion.core import GainTrait

    ui = english
    ui.start_game(["Ann", "Bo"])
    ui.app.session.act(GainTrait, player=0, kind="class", name="Wizard")
    ui.app.session.act(GainTrait, player=0, kind="race", name="Halfling")
    ui.nav("combat")
    ui.tap(ui.screen("combat").level_buttons[3])
    assert ui.app.session.state.combat.monsters[0].spec.name == "Level 3 monster"
    i18n.set_language("de")
    ui.pump()
    assert ui.app.session.state.combat.monsters[0].spec.name == "Level 3 monster"
    combat = ui.app.manager.current_screen
    titles = [row.title for row in combat.ids.monsters.children]
    assert any(t.startswith("Monster der Stufe 3") for t in titles), titles
    ui.nav("table")
    tile = ui.screen("table").tiles[0]
    assert "Zauberer" in tile.traits and "Halbling" in tile.traits, tile.traits
    ui.nav("history")
    texts = " ".join(_texts(ui.app.manager.current_screen))
    assert "Zauberer" in texts and "Monster der Stufe 3" in texts
    assert "Wizard" not in texts and "Level 3 monster" not in texts
