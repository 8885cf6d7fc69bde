"""What the rules allow with items, on a 360x640 phone: during someone's fight those in the
combat may not change their gear, trade or play items from the hand, and a tap on a refused
change says why, while a player watching re-equips and trades; and the edition played
decides (the classic Dwarf's Big items, the edition's own cards as restrictions)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion.core import GainItem, GainTrait, ItemSpec, MonsterSpec, StartCombat
from tests.ui.conftest import Harness
from tests.ui.items_driving import press
from tests.ui.test_items import add_typed, closed, rows

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram", "Cleo"]
SWORD = ItemSpec(name="Sword", bonus=3, slot="hands", hands=1, gold=400)


@pytest.fixture(autouse=True)
def no_sheet_left(ui: Harness) -> Iterator[None]:
    """A sheet left open would sit over the next test's screens."""
    yield
    from tests.ui.test_items_layout import close_sheets

    close_sheets(ui)


def fight(ui: Harness) -> Any:
    """Anna fights a Level 12 monster; Anna and Bram each carry a Sword."""
    ui.start_game(NAMES)
    session = ui.app.session
    for seat in (0, 1):
        assert session.act(GainItem(player=seat, item=SWORD)), ui.banner()
    assert session.act(StartCombat(fighter=0, monsters=(MonsterSpec(name="Troll", level=12),)))
    return session


def player_screen(ui: Harness, seat: int) -> Any:
    ui.app.show("player", seat=seat)
    ui.pump(frames=4)
    return ui.screen("player")


def items_of(ui: Harness, seat: int) -> dict[str, bool]:
    return {i.spec.name: i.equipped for i in ui.app.session.live_state.players[seat].items}


def test_the_fighter_may_not_change_gear_and_a_tap_says_why(ui: Harness) -> None:
    fight(ui)
    screen = player_screen(ui, 0)
    row = rows(screen)["Sword"]
    assert row.wear_refused, "the Worn button is not dimmed for the fighter"
    ui.app.root.ids.banner.hide()
    press(ui, row.ids.wear)
    assert items_of(ui, 0) == {"Sword": False}
    assert ui.banner() == "Equipment cannot be changed during combat or running away"


def test_the_fighter_may_not_play_an_item_from_the_hand(ui: Harness) -> None:
    fight(ui)
    screen = player_screen(ui, 0)
    sheet = add_typed(ui, screen, "Pointy Hat", bonus=1, slot="headgear", wear=False)
    assert not closed(ui, sheet)
    assert sheet.problem == "In combat only one-shots may be played from the hand"
    assert items_of(ui, 0) == {"Sword": False}


def test_a_player_watching_the_fight_re_equips_and_trades(ui: Harness) -> None:
    fight(ui)
    screen = player_screen(ui, 1)
    row = rows(screen)["Sword"]
    assert not row.wear_refused
    press(ui, row.ids.wear)  # Bram gets ready to offer help
    assert items_of(ui, 1) == {"Sword": True}
    press(ui, rows(screen)["Sword"])
    sheet = screen.sheet
    # The fighter may not take part in a trade; Cleo, who watches too, may.
    assert sheet.receivers[0].dimmed and not sheet.receivers[2].dimmed
    press(ui, sheet.receivers[2])
    assert closed(ui, sheet)
    assert items_of(ui, 1) == {} and items_of(ui, 2) == {"Sword": False}


def test_a_trade_with_the_fighter_is_refused_with_the_reason(ui: Harness) -> None:
    fight(ui)
    screen = player_screen(ui, 1)
    press(ui, rows(screen)["Sword"])
    ui.app.root.ids.banner.hide()
    press(ui, screen.sheet.receivers[0])
    assert ui.banner() == "Items cannot be traded during combat"
    assert items_of(ui, 1) == {"Sword": False} and items_of(ui, 0) == {"Sword": False}


def start_in(ui: Harness, edition: str) -> Any:
    """A game of three in `edition`, set up on the New game screen; Anna's Player screen."""
    from companion.core import EDITIONS
    from companion.ui.labels import edition_title
    from tests.ui.conftest import _rows
    from tests.ui.test_new_game import tap_row

    screen = ui.set_up_game(NAMES)
    if screen.edition_id != edition:  # picked from the list, by the name on its box
        picker = screen.choose_edition()
        ui.pump()
        tap_row(ui, picker, edition_title(EDITIONS[edition]))
    assert screen.edition_id == edition
    ui.tap(_rows(screen)[0].ids.first)
    ui.tap(screen.ids.start)
    ui.pump()
    assert ui.app.session.live_state.setup.edition.id == edition
    return player_screen(ui, 0)


def test_the_classic_dwarf_carries_any_number_of_big_items(ui: Harness) -> None:
    screen = start_in(ui, "classic")
    assert ui.app.session.act(GainTrait(player=0, kind="race", name="Dwarf"))
    for name in ("Anvil", "Boulder"):
        sheet = add_typed(ui, screen, name, big=True, wear=False)
        assert closed(ui, sheet), sheet.problem
    assert items_of(ui, 0) == {"Anvil": False, "Boulder": False}


def test_who_may_use_an_item_offers_the_edition_s_own_cards(ui: Harness) -> None:
    screen = start_in(ui, "disney")
    press(ui, screen.ids.add_item)
    sheet = screen.sheet
    assert set(sheet.kind_buttons) == {"", "class", "sex", "motivation"}  # no races here
    press(ui, sheet.kind_buttons["class"])
    assert set(sheet.value_buttons) == {"Princess", "Hero", "Companion", "Fairy Godmother"}
