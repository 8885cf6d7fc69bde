"""What goes with a lost allowance, asked at once on the Player screen of a 360x640 phone
(RULES.md §11, a cascade counts): a Super Munchkin Monk with two Styles who loses Super
Munchkin is asked which class goes, and, having given up the Monk, which Style goes."""

from __future__ import annotations

import pytest

from companion.core import GainTrait, SetTraitBoost
from tests.ui.conftest import Harness
from tests.ui.items_driving import press
from tests.ui.test_items_bad_stuff import choice_sheet, trait_button
from tests.ui.test_items_rules import start_in

pytestmark = pytest.mark.slow


def test_giving_up_the_monk_with_super_munchkin_asks_which_style_goes(ui: Harness) -> None:
    start_in(ui, "fu")
    session = ui.app.session
    for action in (
        GainTrait(player=0, kind="class", name="Monk"),
        SetTraitBoost(player=0, kind="class"),
        GainTrait(player=0, kind="class", name="Samurai"),
        GainTrait(player=0, kind="style", name="Crane"),
        GainTrait(player=0, kind="style", name="Tiger"),
    ):
        assert session.act(action)
    ui.pump(frames=4)
    screen = ui.screen("player")  # Anna's, where the game began
    press(ui, trait_button(screen, "Super Munchkin"))
    sheet = choice_sheet()
    assert sheet.question == "Anna may keep only one class: which one goes?"
    press(ui, sheet.buttons["Monk"])
    ui.wait_until(lambda: sheet.parent is None, timeout_s=5)
    ui.pump(frames=4)
    sheet = choice_sheet()  # the Monk's second Style goes with the Monk
    assert sheet.title == "Discarding Super Munchkin"
    assert sorted(sheet.buttons) == ["Crane", "Tiger"]
    assert session.live_state.players[0].classes == ("Monk", "Samurai")  # nothing yet
    press(ui, sheet.buttons["Tiger"])
    ann = session.live_state.players[0]
    assert (ann.classes, ann.styles, ann.super_munchkin) == (("Samurai",), ("Crane",), False)
    assert session.game.log[-1].drop == ("Monk", "Tiger")
