"""A tap on the app's own screens is one more way into the table: the same press path,
outcome and words as a counter's button, a phone and a serve command
(tests/table/test_ways_in.py), in every language."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.plumbing.places import LOCALE_DIR
from companion.ui import i18n
from companion.web.speech import Voices
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


@pytest.fixture
def english_afterwards(ui: Harness) -> Iterator[Harness]:
    yield ui
    i18n.set_language("en")
    ui.pump()


def test_level_down_at_level_1_on_the_table_is_refused_in_the_rules_words(
    english_afterwards: Harness,
) -> None:
    ui = english_afterwards
    ui.start_game(["Anna", "Bram"])
    table = ui.app.session.table
    game = table.game
    minus = ui.screen("table").tiles[0].ids.level.ids.minus
    ui.tap(minus)
    ui.pump()
    assert ui.banner() == "A Level is never below 1"
    assert game.revision == 0  # nothing logged: a press asks for a change
    assert table.presses[-1].via == "tap" and table.presses[-1].refused

    i18n.set_language("de")
    ui.pump()
    ui.tap(ui.screen("table").tiles[0].ids.level.ids.minus)
    ui.pump()
    german = Voices(LOCALE_DIR).speech("de").gettext("A Level is never below 1")
    assert german != "A Level is never below 1"
    assert ui.banner() == german  # the words a German phone hears for the same press
    assert game.revision == 0

    ui.tap(ui.screen("table").tiles[1].ids.level.ids.plus)
    ui.pump()
    assert game.state.players[1].level == 2
    assert game.action_at(0).source is None  # a tap: no source in the log
