"""The item screens laid out on a 360x640 phone in every language: the Player screen with
items (a long name, one that does not count, one in the sale, the Halfling's double sale),
the sheets that add an item, act on one and ask what goes with an allowance, the Run away
screen asking what the Bad Stuff takes, and the one-tap Bad Stuff in Combat. No words cut,
overflowing or leaving the window; buttons at least 48 dp; and a picture of each, for a
person to look at, with COMPANION_LAYOUT_SHOTS=/some/folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from companion.core import (
    BadStuff,
    GainItem,
    GainTrait,
    ItemSpec,
    LoseTrait,
    MonsterSpec,
    SetTraitBoost,
    StartCombat,
)
from companion.ui import i18n
from tests.ui.conftest import PHONE, Harness
from tests.ui.items_driving import press
from tests.ui.test_i18n_live import clipped_labels

pytestmark = pytest.mark.slow

CARD = "a card says otherwise"
LONG_NAME = "Really Impressive Title of the Most Ancient Dungeon Lords"


@pytest.fixture
def english(ui: Harness) -> Iterator[Harness]:
    yield ui
    i18n.set_language("en")
    ui.pump()


def set_up(ui: Harness) -> None:
    """Anna, a Halfling and Dwarf Half-Breed who was a Wizard, with worn, carried,
    restricted and Big items."""
    ui.start_game(["Anna", "Bram", "Cleo"])
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="class", name="Wizard"))
    assert session.act(GainTrait(player=0, kind="race", name="Halfling"))
    assert session.act(SetTraitBoost(player=0, kind="race"))
    assert session.act(GainTrait(player=0, kind="race", name="Dwarf"))
    items = (
        (ItemSpec(name="Horned Helmet", bonus=2, slot="headgear", gold=600), True),
        (ItemSpec(name="Boots of Butt-Kicking", bonus=2, slot="footgear", gold=400), True),
        (ItemSpec(name="Sneakers", bonus=1, slot="footgear", gold=200), True),
        (
            ItemSpec(
                name=LONG_NAME,
                bonus=3,
                slot="hands",
                hands=2,
                big=True,
                gold=1000,
                run_away_bonus=1,
                requires={"kind": "class", "value": "Wizard"},
            ),
            True,
        ),
        (ItemSpec(name="Rat on a Stick", bonus=1, slot="hands", hands=1), False),
        (ItemSpec(name="Anvil", big=True), False),
    )
    for spec, worn in items:
        assert session.act(GainItem(player=0, item=spec, equip=worn, override=CARD))
    assert session.act(LoseTrait(player=0, kind="class", name="Wizard"))  # the staff idles


def problems_of(widget: Any, where: str) -> list[str]:
    return [f"{where}: {text}" for text in clipped_labels(widget).values()]


def small_buttons(widget: Any, where: str) -> list[str]:
    from companion.ui.widgets import FlatButton

    found = []
    for button in widget.walk(restrict=True):
        shown = isinstance(button, FlatButton) and button.opacity > 0 and button.height > 1
        if shown and (button.height < 48 - 0.5 or button.width < 48 - 0.5):
            found.append(f"{where}: {button.text!r} is {button.width:.0f}x{button.height:.0f}")
    return found


def shoot(name: str) -> None:
    """A picture of the window, when asked for (painting one takes a twentieth of a second,
    and nobody looks at them in an ordinary run)."""
    from kivy.core.window import Window

    folder = os.environ.get("COMPANION_LAYOUT_SHOTS")
    if folder:
        Window.screenshot(name=os.path.join(folder, f"items-{name}.png"))


def sheet_on_show() -> Any:
    from kivy.core.window import Window

    from companion.ui.sheets import Sheet

    shown = [w for w in Window.children if isinstance(w, Sheet)]
    assert len(shown) == 1
    return shown[0]


def close_sheets(ui: Harness) -> None:
    from kivy.core.window import Window

    from companion.ui.sheets import Sheet

    for sheet in [w for w in Window.children if isinstance(w, Sheet)]:
        sheet.dismiss()
    ui.wait_until(lambda: not any(isinstance(w, Sheet) for w in Window.children))


@pytest.mark.parametrize("language", sorted(i18n.LANGUAGES))
def test_the_item_screens_fit_a_phone(english: Harness, language: str) -> None:
    from kivy.core.window import Window

    ui = english
    assert tuple(Window.size) == PHONE
    set_up(ui)
    session = ui.app.session
    i18n.set_language(language)
    ui.app.show("player", seat=0)
    ui.pump(frames=6)
    screen = ui.screen("player")
    rows = [w for w in screen.ids.item_box.children if type(w).__name__ == "ItemRow"]
    press(
        ui, next(r for r in rows if r.item_id == session.live_state.players[0].items[0].id).ids.sale
    )
    assert screen.can_double and screen.sale_refused  # 600 gold: no level yet
    found = problems_of(ui.app.root, "player") + small_buttons(screen, "player")
    shoot(f"player-{language}")
    screen.ids.scroll.scroll_y = 0.55
    ui.pump(frames=4)
    shoot(f"player-sale-{language}")

    add = screen.add_item()
    add.ids.name.text = "helm"
    ui.pump(frames=4)
    press(ui, add.kind_buttons["class"])
    press(ui, add.ids.carry)  # no class chosen yet: the sheet says so
    assert add.problem
    found += problems_of(add, "add item") + small_buttons(add, "add item")
    shoot(f"add-item-{language}")
    close_sheets(ui)

    item = screen.open_item(session.live_state.players[0].items[0].id)
    found += problems_of(item, "item sheet") + small_buttons(item, "item sheet")
    shoot(f"item-sheet-{language}")
    close_sheets(ui)

    screen.toggle_trait("race", "Dwarf")
    ui.pump(frames=4)
    choice = sheet_on_show()
    found += problems_of(choice, "allowance") + small_buttons(choice, "allowance")
    shoot(f"allowance-{language}")
    close_sheets(ui)

    monster = MonsterSpec(
        name="Gnasher",
        level=20,
        bad_stuff=BadStuff(lose=("footgear", "race"), lose_items=2, lose_levels=2),
    )
    assert session.act(StartCombat(fighter=0, monsters=(monster,)))
    run = ui.app.show("run_away")
    ui.pump(frames=6)
    dwarf = next(
        b
        for b in run.ids.picks.walk(restrict=True)
        if getattr(b, "text", "") == i18n.card_name("Dwarf") and hasattr(b, "selected")
    )
    press(ui, dwarf)  # the Dwarf goes: which Big item goes with it is asked too
    assert len([w for w in run.ids.picks.children if hasattr(w, "cols")]) == 4
    found += problems_of(ui.app.root, "run away") + small_buttons(run.ids.picks, "run away")
    shoot(f"run-away-{language}")

    combat = ui.app.show("combat")
    ui.pump(frames=4)
    found += problems_of(combat.ids.bad_stuff_strip, "combat")
    found += small_buttons(combat.ids.bad_stuff_strip, "combat")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("players", [2, 8])
def test_the_item_screens_fit_a_phone_with_few_or_many_players(ui: Harness, players: int) -> None:
    """With two players and with eight, a player's items, the sheet that gives one
    away (a button per other player), the Run away questions and the one-tap Bad Stuff.
    The player whose turn it is has the items, so that the same player can fight."""
    names = ["Anna", "Bram", "Cleo", "Dara", "Emil", "Fern", "Gus", "Hedwig"][:players]
    ui.start_game(names)
    session = ui.app.session
    seat = 0
    specs = (
        ItemSpec(name="Horned Helmet", bonus=2, slot="headgear", gold=600),
        ItemSpec(name="Boots of Butt-Kicking", bonus=2, slot="footgear", gold=400),
        ItemSpec(name="Sneakers", bonus=1, slot="footgear", gold=200),
        ItemSpec(name=LONG_NAME, bonus=3, slot="hands", hands=2, big=True, gold=1000),
    )
    for spec in specs:
        assert session.act(GainItem(player=seat, item=spec, equip=spec.name != "Sneakers"))
    screen = ui.app.show("player", seat=seat)
    ui.pump(frames=6)
    found = problems_of(ui.app.root, "player") + small_buttons(screen, "player")
    shoot(f"player-{players}")

    item = screen.open_item(session.live_state.players[seat].items[0].id)
    ui.pump(frames=6)
    assert len(item.receivers) == players - 1
    found += problems_of(item, "item sheet") + small_buttons(item, "item sheet")
    for button in item.receivers.values():
        _left, bottom = button.to_window(button.x, button.y)
        assert bottom >= 0 and bottom + button.height <= PHONE[1], button.text
    shoot(f"item-sheet-{players}")
    close_sheets(ui)

    monster = MonsterSpec(
        name="Gnasher", level=20, bad_stuff=BadStuff(lose=("footgear",), lose_items=2)
    )
    assert session.act(StartCombat(fighter=seat, monsters=(monster,)))
    run = ui.app.show("run_away")
    ui.pump(frames=6)
    found += problems_of(ui.app.root, "run away") + small_buttons(run.ids.picks, "run away")
    shoot(f"run-away-{players}")

    combat = ui.app.show("combat")
    ui.pump(frames=4)
    found += problems_of(combat.ids.bad_stuff_strip, "combat")
    found += small_buttons(combat.ids.bad_stuff_strip, "combat")
    shoot(f"combat-{players}")
    assert not found, "\n".join(found)
