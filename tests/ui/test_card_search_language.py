"""Card search in the app finds a card by the name the table reads, in the language on
show, as the player types it: in Combat (monsters) and when adding an item."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.ui import i18n
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


@pytest.fixture
def english(ui: Harness) -> Iterator[Harness]:
    yield ui
    i18n.set_language("en")
    ui.app.settings.language = "en"
    ui.pump()


def monsters_found(ui: Harness, typed: str) -> list[str]:
    screen = ui.screen("combat")
    screen.search(typed)
    return [
        getattr(button, "card_id", "")
        for button in reversed(screen.ids.results.children)
        if getattr(button, "card_id", "")
    ]


@pytest.mark.parametrize(
    ("language", "typed"),
    [
        ("de", "knochen"),
        ("de", "drache"),
        ("de", "drahce"),
        ("de", "bone"),
        ("ru", "костян"),
        ("ru", "дракона"),
        ("ru", "драокна"),
    ],
)
def test_a_monster_is_found_by_its_name_on_show(
    english: Harness, language: str, typed: str
) -> None:
    ui = english
    ui.start_game(["Anna", "Bram"])
    i18n.set_language(language)
    ui.pump()
    ui.nav("combat")
    assert "gen-bone-dragon-hatchling" in monsters_found(ui, typed)


def test_an_item_is_found_by_its_name_on_show(english: Harness) -> None:
    ui = english
    ui.start_game(["Anna", "Bram"])
    i18n.set_language("de")
    ui.app.show("player", seat=0)
    ui.pump()
    sheet = ui.screen("player").add_item()
    shown = i18n.card_name("Shield of Polite Refusal")
    assert shown != "Shield of Polite Refusal"
    for typed in (shown.split()[0][:6], "schild", "Höflich"):
        sheet.search(typed)
        found = [row["card_id"] for row in sheet.ids.results.data]
        assert "gen-shield-of-polite-refusal" in found, (typed, shown, found)
