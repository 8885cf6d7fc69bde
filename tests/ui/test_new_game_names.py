"""The New game screen refuses two names that look the same, or a name that looks blank,
saying so in the language on show, and starts nothing until the names are told apart."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion.ui import i18n
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


@pytest.fixture
def english(ui: Harness) -> Iterator[Harness]:
    """The app, put back into English after the test."""
    yield ui
    i18n.set_language("en")
    ui.pump()


def start(ui: Harness, screen: Any) -> None:
    ui.tap(screen.ids.start)
    ui.pump()


def test_two_names_that_look_the_same_are_refused_until_one_changes(ui: Harness) -> None:
    screen = ui.set_up_game(["Ann", "Bo", "Ann\u200b"])  # a zero-width space after the second
    start(ui, screen)
    assert ui.app.manager.current == "new_game", "a game began with two Anns"
    assert ui.banner() == "“Ann” and “Ann” look like the same name: give one of them another name"
    rows = sorted(screen.ids.rows.children, key=lambda row: row.index)
    rows[2].ids.name.text = "Cy"
    start(ui, screen)
    assert ui.app.manager.current != "new_game"
    assert [p.name for p in ui.app.session.state.setup.players] == ["Ann", "Bo", "Cy"]


def test_a_blank_looking_name_is_refused_in_the_language_on_show(english: Harness) -> None:
    ui = english
    i18n.set_language("de")
    screen = ui.set_up_game(["Ann", "\u3164"])  # HANGUL FILLER: shows nothing
    start(ui, screen)
    assert ui.app.manager.current == "new_game"
    assert ui.banner() == "Der Name eines Spielers darf nicht leer oder unsichtbar sein"
