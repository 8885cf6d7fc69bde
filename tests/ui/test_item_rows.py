"""Item rows on the Player screen of a 360x640 phone: a new row has its height from its first
frame (nothing below it jumps under the finger), and the rows follow a language switch at
once; the card's limits read on the row."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion.core import GainItem, GainTrait, ItemSpec
from companion.ui import i18n
from tests.ui.conftest import Harness
from tests.ui.items_driving import press

pytestmark = pytest.mark.slow

LONG_NAME = "Really Impressive Title of the Most Ancient Dungeon Lords, Polished Twice"


@pytest.fixture
def english(ui: Harness) -> Iterator[Harness]:
    yield ui
    i18n.set_language("en")
    ui.app.settings.language = "en"
    ui.pump()


def item_rows(screen: Any) -> list[Any]:
    return [w for w in screen.ids.item_box.children if type(w).__name__ == "ItemRow"]


def needed(row: Any) -> float:
    """The height a row's name and detail take, as its labels measured them."""
    from kivy.metrics import dp

    top = max(dp(48), row.ids.title.texture_size[1])
    return max(dp(56), top + dp(2)) + row.ids.detail.texture_size[1] + dp(10)


def open_player(ui: Harness, names: list[str]) -> Any:
    ui.start_game(names)
    press(ui, ui.screen("table").tiles[0])
    assert ui.app.manager.current == "player"
    return ui.screen("player")


def test_a_new_row_has_its_height_from_its_first_frame(english: Harness) -> None:
    ui = english
    screen = open_player(ui, ["Anna", "Bram"])
    session = ui.app.session
    session.act(GainTrait(player=0, kind="class", name="Wizard"))
    # Tall rows first (a long name over three lines), then gone: their views wait for reuse.
    for n in range(3):
        session.act(GainItem(player=0, item=ItemSpec(name=f"{LONG_NAME} {n}", bonus=1)))
    ui.pump(frames=4)
    for row in item_rows(screen):  # a name over several lines: the row holds them all
        assert row.ids.title.texture_size[1] > 48 and row.height == pytest.approx(
            needed(row), abs=1
        )
    for row in item_rows(screen):
        screen.discard(row.item_id)
    ui.pump(frames=4)
    session.act(GainItem(player=0, item=ItemSpec(name="Rock", bonus=1)))
    ui.pump(frames=4)
    settled = {row.title: row.height for row in item_rows(screen)}
    # Add an item -> Wear, refused -> Carry.
    sheet = screen.add_item()
    sheet.ids.name.text = "Shield"
    press(ui, sheet.ids.slot_one_hand)
    press(ui, sheet.kind_buttons["class"])
    press(ui, sheet.value_buttons["Warrior"])
    press(ui, sheet.ids.wear)
    assert sheet.problem  # Anna is a Wizard
    press(ui, sheet.ids.carry)
    heights: list[dict[str, float]] = []
    for _ in range(6):
        ui.pump(frames=1)
        shown = {row.title: row.height for row in item_rows(screen) if row.title}
        if "Shield" in shown:
            heights.append(shown)
            for row in item_rows(screen):  # each row holds its lines, from the first frame
                assert row.height == pytest.approx(needed(row), abs=1), row.title
    assert heights, "the new row never showed"
    first, last = heights[0], heights[-1]
    assert first == last, f"the rows moved after their first frame: {heights}"
    assert first["Rock"] == settled["Rock"]
    shield = next(row for row in item_rows(screen) if row.title == "Shield")
    assert shield.ids.title.texture_size[1] > 0 and shield.height < 2 * settled["Rock"]


def test_item_rows_follow_a_language_switch_at_once(english: Harness) -> None:
    ui = english
    screen = open_player(ui, ["Anna", "Bram"])
    session = ui.app.session
    session.act(GainItem(player=0, item=ItemSpec(name="Rock", bonus=1), equip=True))
    ui.pump(frames=4)
    row = item_rows(screen)[0]
    assert (row.ids.wear.text, row.ids.sale.text) == ("Worn", "Sell")
    i18n.set_language("ru")
    ui.pump(frames=4)
    screen = ui.screen("player")
    row = item_rows(screen)[0]
    assert (row.ids.wear.text, row.ids.sale.text) == ("Надета", "Продать")


def test_a_card_for_two_classes_keeps_both_and_the_row_says_so(english: Harness) -> None:
    """The Warriors' and Clerics' shield picked from the cards: a Wizard may not wear it
    (the sheet says why), carries it, and its row reads "Warrior or Cleric only"."""
    ui = english
    screen = open_player(ui, ["Anna", "Bram"])
    ui.app.session.act(GainTrait(player=0, kind="class", name="Wizard"))
    sheet = screen.add_item()
    sheet.ids.name.text = "polite refusal"
    ui.wait_until(lambda: bool(sheet.ids.results.data))
    ui.pump()
    found = [
        r
        for r in sheet.ids.results.children[0].children
        if r.card_id == "gen-shield-of-polite-refusal"
    ]
    assert found, sheet.ids.results.data
    assert "Warrior or Cleric only" in found[0].text
    press(ui, found[0])
    assert sheet.only_kind == "class" and sheet.only_values == ["Warrior", "Cleric"]
    assert sheet.limits_text == "Who may use it: Warrior or Cleric only"
    press(ui, sheet.ids.wear)
    assert sheet.problem == "Anna may not use Shield of Polite Refusal: Warrior or Cleric only"
    press(ui, sheet.ids.carry)
    item = ui.app.session.live_state.players[0].items[0]
    assert not item.equipped and {c.value for c in item.spec.only} == {"Warrior", "Cleric"}
    assert screen.strength == 1
    row = item_rows(screen)[0]
    assert row.detail.endswith("Warrior or Cleric only") and row.wear_refused


def test_a_card_not_for_a_race_is_kept_as_the_card_says(english: Harness) -> None:
    ui = english
    screen = open_player(ui, ["Anna", "Bram"])
    ui.app.session.act(GainTrait(player=0, kind="race", name="Elf"))
    sheet = screen.add_item()
    sheet.pick_card("gen-helmet-of-loud-opinions")
    assert sheet.only_kind == "card" and sheet.limits_text == "Who may use it: not for Elf"
    press(ui, sheet.ids.wear)
    assert sheet.problem.endswith("not for Elf")
    press(ui, sheet.ids.carry)
    item = ui.app.session.live_state.players[0].items[0]
    assert [(c.kind, c.value) for c in item.spec.not_for] == [("race", "Elf")]
