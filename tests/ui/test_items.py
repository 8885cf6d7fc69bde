"""Items on the Player screen of a 360x640 phone, driven by taps: added from the cards or
typed, worn and carried, sold for levels (the Halfling's double sale too), given to another
player, discarded; the gear bonus kept by hand beside them."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import EndTurn, GainItem, GainTrait, ItemSpec, SetLevel
from tests.ui.conftest import PHONE, Harness
from tests.ui.items_driving import press

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram", "Cleo"]


def open_player(ui: Harness, seat: int = 0) -> Any:
    """A new game of three; the Player screen of `seat`, reached by a tap on its tile."""
    ui.start_game(NAMES)
    press(ui, ui.screen("table").tiles[seat])
    assert ui.app.manager.current == "player"
    return ui.screen("player")


def rows(screen: Any) -> dict[str, Any]:
    """The item rows on show, by the item's name."""
    ui_rows = [w for w in screen.ids.item_box.children if type(w).__name__ == "ItemRow"]
    return {row.title: row for row in ui_rows}


def add_typed(
    ui: Harness,
    screen: Any,
    name: str,
    bonus: int = 0,
    slot: str = "other",
    gold: int = 0,
    big: bool = False,
    wear: bool = True,
) -> Any:
    """Add an item through the add sheet, typed field by field as a player would."""
    press(ui, screen.ids.add_item)
    sheet = screen.sheet
    assert sheet is not None and sheet.parent is not None, "the add sheet did not open"
    sheet.ids.name.text = name
    stepper = sheet.ids.bonus
    for _ in range(abs(bonus)):
        press(ui, stepper.ids.plus if bonus > 0 else stepper.ids.minus)
    press(ui, sheet.ids[f"slot_{slot}"])
    for _ in range(gold // 100):
        press(ui, sheet.ids.gold.ids.plus)
    if big:
        press(ui, sheet.ids.big)
    press(ui, sheet.ids.wear if wear else sheet.ids.carry)
    return sheet


def closed(ui: Harness, sheet: Any) -> bool:
    """Whether the sheet was closed; once closed, it has faded out (over a few frames)."""
    if not sheet.closing:
        return False
    ui.wait_until(lambda: sheet.parent is None, timeout_s=5)
    return True


def anna(ui: Harness) -> Any:
    return ui.app.session.live_state.players[0]


def test_a_typed_item_worn_adds_to_strength_and_a_tap_carries_it(ui: Harness) -> None:
    screen = open_player(ui)
    assert screen.strength == 1
    sheet = add_typed(ui, screen, "Helm of Hope", bonus=2, slot="headgear", gold=400)
    assert closed(ui, sheet), "the sheet stays open after adding"
    item = anna(ui).items[0]
    assert (item.spec.name, item.spec.bonus, item.spec.slot, item.spec.gold) == (
        "Helm of Hope",
        2,
        "headgear",
        400,
    )
    assert item.equipped and anna(ui).strength == 3 and screen.strength == 3
    row = rows(screen)["Helm of Hope"]
    assert row.worn and row.ids.wear.text == "Worn"
    assert "+2" in row.detail and "Headgear" in row.detail and "400 gold" in row.detail
    press(ui, row.ids.wear)  # one tap: carried, no longer counted
    assert not anna(ui).items[0].equipped and screen.strength == 1
    assert rows(screen)["Helm of Hope"].ids.wear.text == "Carried"
    press(ui, rows(screen)["Helm of Hope"].ids.wear)
    assert anna(ui).items[0].equipped and screen.strength == 3


def test_items_and_the_gear_bonus_kept_by_hand_add_up(ui: Harness) -> None:
    screen = open_player(ui)
    press(ui, screen.ids.gear.ids.plus)
    press(ui, screen.ids.gear.ids.plus)
    add_typed(ui, screen, "Sword", bonus=3, slot="one_hand")
    assert anna(ui).gear_bonus == 2 and screen.strength == 1 + 2 + 3
    tile = ui.screen("table")
    ui.nav("table")
    assert tile.tiles[0].strength == 6


def test_an_item_found_in_the_cards_fills_the_form(ui: Harness) -> None:
    screen = open_player(ui)
    cards = ui.app.cards
    helmet = next(c for c in cards.search("helm", kind="item", limit=12) if not c.one_shot)
    press(ui, screen.ids.add_item)
    sheet = screen.sheet
    sheet.ids.name.text = "helm"
    ui.pump()
    found = [r for r in sheet.ids.results.children[0].children if r.card_id == helmet.id]
    assert found, [r.text for r in sheet.ids.results.children[0].children]
    press(ui, found[0])
    spec = helmet.to_spec()
    assert sheet.ids.name.text == spec.name and sheet.bonus == spec.bonus
    assert sheet.ids.results.data == []  # the list is put away once a card is picked
    press(ui, sheet.ids.carry)
    item = anna(ui).items[0]
    assert item.spec == spec and not item.equipped  # the card's id and all it gives


def test_the_add_sheet_says_what_is_missing_and_what_the_rules_refuse(ui: Harness) -> None:
    screen = open_player(ui)
    press(ui, screen.ids.add_item)
    sheet = screen.sheet
    press(ui, sheet.ids.wear)
    assert sheet.problem == "Type the item's name, or pick a card."
    assert not closed(ui, sheet) and anna(ui).items == ()
    sheet.ids.name.text = "Rock"
    press(ui, sheet.ids.big)
    press(ui, sheet.ids.carry)
    assert [i.spec.big for i in anna(ui).items] == [True]
    sheet = add_typed(ui, screen, "Boulder", big=True)  # a second Big item: refused
    assert not closed(ui, sheet), "a refused item closes the sheet"
    assert sheet.problem == "Anna can carry only one Big item"
    assert len(anna(ui).items) == 1
    press(ui, sheet.ids.close)
    assert closed(ui, sheet)


def test_an_item_only_some_may_use_counts_only_while_its_owner_qualifies(ui: Harness) -> None:
    screen = open_player(ui)
    ui.app.session.act(GainTrait(player=0, kind="class", name="Wizard"))
    press(ui, screen.ids.add_item)
    sheet = screen.sheet
    sheet.ids.name.text = "Staff of Napalm"
    press(ui, sheet.ids.bonus.ids.plus)
    press(ui, sheet.ids.bonus.ids.plus)
    press(ui, sheet.ids.slot_one_hand)
    press(ui, sheet.kind_buttons["class"])
    press(ui, sheet.value_buttons["Wizard"])
    press(ui, sheet.ids.wear)
    staff = anna(ui).items[0]
    assert [(c.kind, c.value) for c in staff.spec.only] == [("class", "Wizard")]
    assert screen.strength == 3
    wizard = next(
        b for b in screen.ids.traits.walk(restrict=True) if getattr(b, "text", "") == "Wizard"
    )
    press(ui, wizard)  # the Wizard class goes: the staff stays worn and stops counting
    row = rows(screen)["Staff of Napalm"]
    assert row.worn and row.idle and row.detail.startswith("Does not count now")
    assert screen.strength == 1


def test_wearing_new_headgear_takes_the_old_off_in_one_tap(ui: Harness) -> None:
    screen = open_player(ui)
    add_typed(ui, screen, "Old Hat", bonus=1, slot="headgear")
    add_typed(ui, screen, "Horned Helmet", bonus=2, slot="headgear", wear=False)
    press(ui, rows(screen)["Horned Helmet"].ids.wear)
    worn = {i.spec.name: i.equipped for i in anna(ui).items}
    assert worn == {"Old Hat": False, "Horned Helmet": True}
    assert screen.strength == 3


def test_a_sale_of_marked_items_buys_levels(ui: Harness) -> None:
    screen = open_player(ui)
    session = ui.app.session
    for name, gold in (("Cheese Grater", 400), ("Rat on a Stick", 300), ("Lute", 500)):
        session.act(GainItem(player=0, item=ItemSpec(name=name, gold=gold)))
    ui.pump()
    assert screen.sale_text.startswith("Mark items to sell")
    press(ui, rows(screen)["Cheese Grater"].ids.sale)
    press(ui, rows(screen)["Rat on a Stick"].ids.sale)
    assert rows(screen)["Cheese Grater"].for_sale
    assert screen.sale_refused and "700 gold buys no level" in screen.sale_text
    screen.ids.gold.text = "300"  # a card the table does not track
    ui.pump()
    assert screen.sale_text == "1000 gold buys 1 level" and not screen.sale_refused
    press(ui, screen.ids.sell)
    assert anna(ui).level == 2
    assert [i.spec.name for i in anna(ui).items] == ["Lute"]
    assert "1 level" in ui.banner() and screen.ids.gold.text == ""
    assert not rows(screen)["Lute"].for_sale


def test_selling_never_reaches_the_winning_level(ui: Harness) -> None:
    screen = open_player(ui)
    session = ui.app.session
    session.act(SetLevel(player=0, level=9, override="a card says so"))
    session.act(GainItem(player=0, item=ItemSpec(name="Golden Idol", gold=1000)))
    ui.pump()
    press(ui, rows(screen)["Golden Idol"].ids.sale)
    assert screen.sale_refused
    assert screen.sale_text == "Selling items cannot take you to Level 10"
    assert screen.ids.sell.dimmed
    press(ui, screen.ids.sell)  # still tappable: the banner says why, nothing is sold
    assert "Level 10" in ui.banner()
    assert anna(ui).level == 9 and len(anna(ui).items) == 1


def test_the_halfling_sells_one_item_a_turn_at_double_price(ui: Harness) -> None:
    screen = open_player(ui)
    session = ui.app.session
    assert not screen.can_double and screen.ids.double.height == 0
    session.act(GainTrait(player=0, kind="race", name="Halfling"))
    for name in ("Pointy Hat", "Spiked Boots"):
        session.act(GainItem(player=0, item=ItemSpec(name=name, gold=600)))
    ui.pump()
    assert screen.can_double and screen.ids.double.height >= 48
    press(ui, rows(screen)["Pointy Hat"].ids.sale)
    assert "buys no level" in screen.sale_text
    press(ui, screen.ids.double)
    assert screen.sale_text == "1200 gold buys 1 level"
    press(ui, screen.ids.sell)
    assert anna(ui).level == 2
    assert not screen.can_double and not screen.double  # once a turn
    for _ in NAMES:  # a whole round later it may again
        session.act(EndTurn())
    ui.pump()
    assert screen.can_double


def test_an_item_is_given_to_another_player_from_its_sheet(ui: Harness) -> None:
    screen = open_player(ui)
    add_typed(ui, screen, "Boots of Butt-Kicking", bonus=2, slot="footgear")
    press(ui, rows(screen)["Boots of Butt-Kicking"])  # the row itself: what else to do
    sheet = screen.sheet
    assert sheet.parent is not None and sheet.title == "Boots of Butt-Kicking"
    assert sorted(b.text for b in sheet.receivers.values()) == ["Bram", "Cleo"]
    press(ui, sheet.receivers[1])
    assert closed(ui, sheet)
    state = ui.app.session.live_state
    assert state.players[0].items == ()
    [boots] = state.players[1].items
    assert boots.spec.name == "Boots of Butt-Kicking" and not boots.equipped
    assert rows(screen) == {} and screen.strength == 1


def test_an_item_is_discarded_from_its_sheet(ui: Harness) -> None:
    screen = open_player(ui)
    add_typed(ui, screen, "Cloak of Obscurity", bonus=4, slot="other")
    press(ui, rows(screen)["Cloak of Obscurity"])
    press(ui, screen.sheet.ids.discard)
    assert anna(ui).items == () and screen.strength == 1
    history = [line for line in ui.app.session.game.log if line.type == "discard_item"]
    assert len(history) == 1


def test_the_item_list_fits_the_phone_and_scrolls_with_the_screen(ui: Harness) -> None:
    from kivy.core.window import Window

    from tests.ui.looking import clipped

    assert tuple(Window.size) == PHONE
    screen = open_player(ui)
    session = ui.app.session
    names = [
        "Really Impressive Title of the Most Ancient Dungeon Lords",
        "Sword",
        "Pointy Hat",
        "Boots",
        "Shield of Ubiquity",
        "Rat on a Stick",
        "Tuba of Charm",
    ]
    for name in names:
        spec = ItemSpec(name=name, bonus=2, slot="hands", hands=1, gold=600, run_away_bonus=1)
        session.act(GainItem(player=0, item=spec))
    ui.pump(frames=6)
    shown = rows(screen)
    assert set(shown) == set(names)
    for row in shown.values():
        for button in (row.ids.wear, row.ids.sale):
            assert button.height >= 48 and button.width >= 48
            assert not clipped(button), button.text
        assert row.ids.title.texture_size[1] <= row.ids.title.height + 1
        assert row.ids.detail.texture_size[1] <= row.ids.detail.height + 1
        assert row.height >= row.ids.top.height + row.ids.detail.height
    # The last row is reached by scrolling the screen, and a tap on it reaches it.
    last = shown["Tuba of Charm"]
    press(ui, last.ids.wear)
    assert anna(ui).items[-1].equipped
