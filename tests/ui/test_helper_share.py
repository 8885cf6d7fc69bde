"""The helper's share of the treasure on the Combat screen of a 360x640 phone: how many of
the treasures the helper takes and who picks first, agreed with taps, given with the kill
(or with "End, no kill" where the edition still gives treasure), recorded and shown; the
row is there only while someone helps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.core import AddHelper, GainTrait, MonsterSpec, StartCombat
from tests.ui.conftest import Harness
from tests.ui.items_driving import press

pytestmark = pytest.mark.slow


def helped_fight(ui: Harness, treasure: int = 3) -> object:
    ui.start_game(["Anna", "Bram", "Cleo"])
    session = ui.app.session
    monster = MonsterSpec(name="Potted Plant", level=1, treasure=treasure)
    assert session.act(StartCombat(fighter=0, monsters=(monster,)))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    assert not combat.has_helper and combat.ids.share_row.height == 0
    assert session.act(AddHelper(helper=1))
    ui.pump(frames=4)
    return combat


def test_the_helpers_share_is_agreed_by_taps_and_recorded_with_the_kill(
    ui: Harness, tmp_path: Path
) -> None:
    from kivy.core.window import Window

    from tests.ui.test_i18n_live import clipped_labels

    combat = helped_fight(ui)
    assert combat.has_helper and combat.ids.share_row.height >= 48
    for button in (
        combat.ids.helper_share.ids.minus,
        combat.ids.helper_share.ids.plus,
        combat.ids.helper_first,
    ):
        assert button.height >= 48 and button.width >= 48
    for _ in range(5):  # never more than the treasure on show
        press(ui, combat.ids.helper_share.ids.plus)
    assert combat.helper_share == 3 and combat.share_text == "Bram takes 3 of 3"
    press(ui, combat.ids.helper_share.ids.minus)
    press(ui, combat.ids.helper_first)
    assert not clipped_labels(combat.ids.share_row)
    Window.screenshot(name=str(tmp_path / "helper-share.png"))  # for a person to look at
    press(ui, combat.ids.kill)
    session = ui.app.session
    ui.wait_until(lambda: session.live_state.combat is None, timeout_s=10)
    result = session.live_state.last_combat
    assert (result.helper, result.helper_treasure, result.helper_picks_first) == (1, 2, True)
    [line] = [line for line in session.game.log if line.type == "resolve_combat"]
    assert line.helper_treasure == 2 and line.helper_first
    ui.pump(frames=4)
    assert combat.result_text.endswith("Bram takes 2 and picks first.")
    assert not combat.has_helper and combat.helper_share == 0


def test_without_an_agreement_the_kill_gives_no_share(ui: Harness) -> None:
    combat = helped_fight(ui, treasure=2)
    press(ui, combat.ids.kill)
    session = ui.app.session
    ui.wait_until(lambda: session.live_state.combat is None, timeout_s=10)
    result = session.live_state.last_combat
    assert (result.helper_treasure, result.helper_picks_first) == (0, False)
    ui.wait_until(lambda: combat.result_text != "", timeout_s=5)
    assert combat.result_text.endswith(".") and "takes" not in combat.result_text


def agree(ui: Harness, combat: Any, share: int, first: bool) -> None:
    """The share agreed with taps: `share` times +, and who picks first."""
    for _ in range(share):
        press(ui, combat.ids.helper_share.ids.plus)
    if first:
        press(ui, combat.ids.helper_first)


def share_then_end_without_a_kill(ui: Harness, combat: Any) -> Any:
    agree(ui, combat, 2, first=True)
    press(ui, combat.ids.defeat)
    session = ui.app.session
    ui.wait_until(lambda: session.live_state.combat is None, timeout_s=10)
    return session.live_state.last_combat


def fu_helped_fight(ui: Harness) -> Any:
    """Fu (a monster a card eliminates still gives its treasure): Bram helps Anna against
    one monster of 3 treasures, on the Combat screen."""
    from tests.ui.test_items_rules import start_in

    start_in(ui, "fu")
    session = ui.app.session
    monster = MonsterSpec(name="Potted Plant", level=1, treasure=3)
    assert session.act(StartCombat(fighter=0, monsters=(monster,)))
    assert session.act(AddHelper(helper=1))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    return combat


def test_where_a_monster_removed_without_a_kill_gives_treasure_the_helper_shares_it(
    ui: Harness,
) -> None:
    """Fu: a monster a card eliminates still gives its treasure, so the share agreed goes
    with "End, no kill" too."""
    combat = fu_helped_fight(ui)
    result = share_then_end_without_a_kill(ui, combat)
    assert (result.outcome, result.treasure) == ("defeat", 3)
    assert (result.helper_treasure, result.helper_picks_first) == (2, True)


def test_where_it_gives_none_there_is_nothing_to_share(ui: Harness) -> None:
    """Classic (rules of today): no treasure without a kill, so no share is recorded."""
    combat = helped_fight(ui, treasure=3)
    result = share_then_end_without_a_kill(ui, combat)
    assert (result.outcome, result.treasure) == ("defeat", 0)
    assert (result.helper_treasure, result.helper_picks_first) == (0, False)


def test_a_card_taking_the_last_monster_away_gives_the_agreed_share(ui: Harness) -> None:
    """Fu: a monster a card eliminates still gives its treasure; the × on the last monster
    ends the combat, and the share agreed goes with it."""
    combat = fu_helped_fight(ui)
    session = ui.app.session
    agree(ui, combat, 2, first=True)
    [row] = list(combat.ids.monsters.children)
    [remove] = [b for b in row.walk() if getattr(b, "text", "") == "\u00d7"]
    press(ui, remove)
    ui.wait_until(lambda: session.live_state.combat is None, timeout_s=10)
    result = session.live_state.last_combat
    assert (result.outcome, result.treasure) == ("defeat", 3)
    assert (result.helper_treasure, result.helper_picks_first) == (2, True)
    assert combat.helper_share == 0 and not combat.helper_first


def test_the_wizard_charming_the_last_monster_gives_the_agreed_share(ui: Harness) -> None:
    from tests.ui.test_abilities import closed, option, sheet_on_show

    ui.start_game(["Anna", "Bram", "Cleo"])
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="class", name="Wizard"))
    gnasher = MonsterSpec(name="Gnasher", level=8, treasure=2)
    slime = MonsterSpec(name="Slime", level=12, treasure=3)
    assert session.act(StartCombat(fighter=0, monsters=(gnasher, slime)))
    assert session.act(AddHelper(helper=1))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    agree(ui, combat, 4, first=False)  # of the 5 treasures on show
    for name in ("Slime", "Gnasher"):  # the first charm leaves a monster: no share yet
        press(ui, combat.ability_buttons[(0, "charm")])
        sheet = sheet_on_show(ui)
        if name == "Slime":
            press(ui, option(sheet, name))
            assert closed(ui, sheet)
            sheet = sheet_on_show(ui)
        press(ui, option(sheet, "3 cards"))
        assert closed(ui, sheet)
        ui.pump(frames=4)
    result = session.live_state.last_combat
    assert session.live_state.combat is None and result.treasure == 5
    assert (result.helper, result.helper_treasure, result.helper_picks_first) == (1, 4, False)
    charms = [a for a in session.game.log if a.type == "charm"]
    assert [a.helper_treasure for a in charms] == [0, 4]
