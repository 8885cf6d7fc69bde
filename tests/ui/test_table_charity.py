"""Giving cards away in the Charity phase: never a tap meant for another button, and
only after the table has seen who gets them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


def window_box(widget: Any) -> tuple[float, float, float, float]:
    """A widget's box in window coordinates: left, bottom, right, top."""
    left, bottom = widget.to_window(widget.x, widget.y)
    return left, bottom, left + widget.width, bottom + widget.height


def overlaps(a: Any, b: Any) -> bool:
    al, ab, ar, at = window_box(a)
    bl, bb, br, bt = window_box(b)
    return al < br and bl < ar and ab < bt and bb < at


def to_charity(ui: Harness, names: list[str]) -> Any:
    """A game whose first player (Anna, Level 3) is in the Charity phase."""
    ui.start_game(names)
    session = ui.app.session
    from companion.core import SetLevel

    session.act(SetLevel, player=0, level=3)
    table = ui.screen("table")
    ui.pump()
    return table, session


@pytest.mark.parametrize("players", [3, 8])
def test_giving_cards_away_is_never_where_fight_was(ui: Harness, players: int) -> None:
    from companion.core import AdvancePhase

    names = ["Anna", "Bram", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hal"][:players]
    table, session = to_charity(ui, names)
    bar = {name: window_box(table.ids[name]) for name in ("next_phase", "fight", "end_turn")}
    fight = table.ids.fight
    assert session.act(AdvancePhase) and session.act(AdvancePhase)
    ui.pump(frames=4)
    assert session.state.phase == "charity" and table.charity_phase
    give = table.ids.give
    # The turn's buttons stay where they were; giving away is on a row of its own.
    assert {name: window_box(table.ids[name]) for name in bar} == bar
    assert not overlaps(give, fight)
    for name in bar:
        assert not overlaps(give, table.ids[name]), name
    # Every player's line still shows without scrolling, the giver's among them.
    assert table.ids.tiles.height <= table.ids.scroll.height + 1
    ui.tap(fight)  # a tap meant for Fight! gives nothing away
    assert session.state.charity is None
    ui.app.show("table")
    ui.pump()


def test_the_give_button_asks_who_gets_the_cards_first(ui: Harness) -> None:
    from companion.core import AdvancePhase

    table, session = to_charity(ui, ["Anna", "Bram", "Cleo"])
    assert session.act(AdvancePhase) and session.act(AdvancePhase)
    ui.pump()
    ui.tap(table.ids.excess.ids.plus)  # two cards over the limit
    ui.tap(table.ids.give)
    sheet = table.charity_sheet
    assert sheet is not None and session.state.charity is None
    assert "Bram 1" in sheet.question and "Cleo 1" in sheet.question
    sheet.dismiss()  # Cancel: nothing is given
    ui.pump()
    assert session.state.charity is None and table.charity_sheet is None
    ui.tap(table.ids.give)
    ui.tap(table.charity_sheet.buttons["give"])
    assert session.state.charity.shares == {1: 1, 2: 1}
    ui.pump()
    # Given: the row goes, and the turn's line says who got the cards.
    assert not table.giving and table.ids.charity.height == 0
    assert "Bram 1" in table.ids.phase.text
