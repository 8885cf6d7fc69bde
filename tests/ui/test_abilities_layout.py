"""The ability and Magic controls laid out on a 360x640 phone, with two players and with
eight, in English and German: the Combat screen's ability buttons, the sheets asking for
cards, a victim or the charmer's hand, the Thief's list of items to steal, the quote sheet
and the one-tap Bad Stuff in rows. No words cut, nothing leaving the window, buttons at
least 48 dp; and a picture of each for a person to look at, with
COMPANION_LAYOUT_SHOTS=/some/folder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion.core import (
    AddHelper,
    GainItem,
    GainTrait,
    ItemSpec,
    MonsterSpec,
    ResolveCombat,
    SetTraitBoost,
    StartCombat,
)
from companion.ui import i18n
from tests.ui.conftest import PHONE, Harness
from tests.ui.items_driving import press
from tests.ui.test_abilities import sheet_on_show
from tests.ui.test_items_layout import close_sheets, problems_of, shoot, small_buttons

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram", "Cleo", "Dara", "Emil", "Fern", "Gus", "Hedwig"]
# Every class of the classic game, again and again round the table.
CLASSES = ["Warrior", "Wizard", "Thief", "Cleric"]


@pytest.fixture
def english(ui: Harness) -> Iterator[Harness]:
    yield ui
    i18n.set_language("en")
    ui.pump()


def start_in(ui: Harness, names: list[str], edition: str) -> None:
    from companion.core import EDITIONS
    from companion.ui.labels import edition_title
    from tests.ui.conftest import _rows
    from tests.ui.test_new_game import tap_row

    screen = ui.set_up_game(names)
    if screen.edition_id != edition:
        picker = screen.choose_edition()
        ui.pump()
        tap_row(ui, picker, edition_title(EDITIONS[edition]))
    ui.tap(_rows(screen)[0].ids.first)
    ui.tap(screen.ids.start)
    ui.pump()
    assert ui.app.session.live_state.setup.edition.id == edition


def in_window(widget: Any, where: str) -> list[str]:
    """Buttons that leave the window's sides (a choice a player could not reach)."""
    from companion.ui.widgets import FlatButton

    found = []
    for button in widget.walk(restrict=True):
        if isinstance(button, FlatButton) and button.opacity > 0 and button.height > 1:
            left, _bottom = button.to_window(button.x, button.y)
            if left < -0.5 or left + button.width > PHONE[0] + 0.5:
                found.append(f"{where}: {button.text!r} leaves the window")
    return found


def check(widget: Any, where: str) -> list[str]:
    return problems_of(widget, where) + small_buttons(widget, where) + in_window(widget, where)


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("players", [2, 8])
def test_the_ability_controls_fit_a_phone(english: Harness, players: int, language: str) -> None:
    from kivy.core.window import Window

    ui = english
    assert tuple(Window.size) == PHONE
    names = NAMES[:players]
    ui.start_game(names)
    session = ui.app.session
    for seat in range(players):
        name = CLASSES[seat % len(CLASSES)]
        assert session.act(GainTrait(player=seat, kind="class", name=name))
    # Anna the Warrior is a Thief too (Super Munchkin): her backstab joins the list.
    assert session.act(SetTraitBoost(player=0, kind="class"))
    assert session.act(GainTrait(player=0, kind="class", name="Thief"))
    assert session.act(GainItem(player=1, item=ItemSpec(name="Cheese Grater", bonus=2)))
    i18n.set_language(language)
    ui.pump()
    combat = ui.app.show("combat")
    ui.pump(frames=6)
    strip = combat.ids.bad_stuff_strip
    combat.ids.scroll.scroll_to(strip, padding=10, animate=False)
    ui.pump(frames=4)
    found = check(strip, "bad stuff")
    shoot(f"bad-stuff-{players}-{language}")
    monsters = (
        MonsterSpec(name="Gnasher", level=8, treasure=2, tags=("undead",)),
        MonsterSpec(name="Slime", level=4, treasure=1),
    )
    assert session.act(StartCombat(fighter=0, monsters=monsters))
    assert session.act(AddHelper(helper=1))
    combat = ui.app.show("combat")
    ui.pump(frames=6)
    grid = combat.ids.abilities
    assert grid.children, "no ability offered"
    combat.ids.scroll.scroll_to(grid, padding=10, animate=False)
    ui.pump(frames=4)
    found += check(grid, "abilities") + problems_of(combat.ids.abilities_caption, "caption")
    shoot(f"abilities-{players}-{language}")

    press(ui, combat.ability_buttons[(0, "berserking")])
    found += check(sheet_on_show(ui), "cards")
    shoot(f"berserk-sheet-{players}-{language}")
    close_sheets(ui)
    press(ui, combat.ability_buttons[(1, "charm")])
    found += check(sheet_on_show(ui), "monster")
    close_sheets(ui)
    combat.use_ability(1, "charm")
    sheet = sheet_on_show(ui)
    press(ui, next(iter(sheet.buttons.values())))
    found += check(sheet_on_show(ui), "hand")
    shoot(f"charm-hand-{players}-{language}")
    close_sheets(ui)

    thief = 2 if players == 8 else 0
    assert session.act(ResolveCombat(outcome="defeat"))
    screen = ui.app.show("player", seat=thief)
    ui.pump(frames=6)
    screen.ids.scroll.scroll_to(screen.ids.steal, padding=10, animate=False)
    ui.pump(frames=4)
    found += check(screen.ids.steal.parent, "player")
    shoot(f"steal-button-{players}-{language}")
    press(ui, screen.ids.steal)
    picker = screen.sheet
    ui.pump(frames=6)
    found += problems_of(picker, "steal list")
    shoot(f"steal-list-{players}-{language}")
    picker.dismiss()
    ui.wait_until(lambda: picker.parent is None)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("players", [2, 8])
def test_the_quote_controls_fit_a_phone(english: Harness, players: int, language: str) -> None:
    ui = english
    start_in(ui, NAMES[:players], "disney")
    session = ui.app.session
    i18n.set_language(language)
    ui.pump()
    assert session.act(StartCombat(fighter=0, monsters=(MonsterSpec(name="X", level=3),)))
    assert session.act(AddHelper(helper=players - 1))
    combat = ui.app.show("combat")
    ui.pump(frames=6)
    grid = combat.ids.abilities
    assert len(grid.children) == 2  # the fighter and the helper may each quote
    combat.ids.scroll.scroll_to(grid, padding=10, animate=False)
    ui.pump(frames=4)
    found = check(grid, "quotes")
    shoot(f"quote-buttons-{players}-{language}")
    press(ui, combat.ability_buttons[(0, "quote")])
    sheet = sheet_on_show(ui)
    sheet.ids.quote.text = "Hakuna matata"
    press(ui, sheet.ids.say)
    ui.wait_until(lambda: sheet.parent is None)
    press(ui, combat.ability_buttons[(players - 1, "quote")])
    sheet = sheet_on_show(ui)
    sheet.ids.quote.text = "hakuna matata!"
    press(ui, sheet.ids.say)
    assert sheet.problem  # said before: the reason shows in the sheet
    found += check(sheet, "quote sheet")
    shoot(f"quote-sheet-{players}-{language}")
    close_sheets(ui)
    assert not found, "\n".join(found)
