"""Bad Stuff that takes items, on a 360x640 phone: the victim is asked which, listing only
what fits, before the roll on the Run away screen; a monster entered by its level gets its
Bad Stuff in one tap; losing a card that gave an allowance asks at once what goes with it."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import (
    BadStuff,
    GainItem,
    GainTrait,
    ItemSpec,
    MonsterSpec,
    SetLevel,
    StartCombat,
)
from tests.ui.conftest import Harness
from tests.ui.items_driving import press

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram"]
CARD = "a card says otherwise"


def give(ui: Harness, name: str, wear: bool = False, **spec: Any) -> str:
    """Anna gets an item (worn past the rules with `wear`: two pairs of boots); its id."""
    session = ui.app.session
    item = ItemSpec(name=name, **spec)
    assert session.act(GainItem(player=0, item=item, equip=wear, override=CARD if wear else None))
    return session.live_state.players[0].items[-1].id


def run_from(ui: Harness, bad: BadStuff) -> Any:
    """Anna (Level 1) meets a Level 15 monster with this Bad Stuff and goes to run away."""
    session = ui.app.session
    monster = MonsterSpec(name="Gnasher", level=15, bad_stuff=bad)
    assert session.act(StartCombat(fighter=0, monsters=(monster,)))
    ui.nav("combat")
    combat = ui.screen("combat")
    # What the Bad Stuff would take is chosen after this: running is no less allowed.
    assert not combat.ids.run_away.dimmed
    press(ui, combat.ids.run_away)
    assert ui.app.manager.current == "run_away"
    return ui.screen("run_away")


def questions(run: Any) -> list[tuple[str, list[Any]]]:
    """The questions on show, top first: (caption, option buttons)."""
    found: list[tuple[str, list[Any]]] = []
    for widget in reversed(run.ids.picks.children):
        if type(widget).__name__ == "Label" or hasattr(widget, "text"):
            found.append((widget.text, []))
        else:
            found[-1][1].extend(reversed(widget.children))
    return found


def die(run: Any, value: int) -> Any:
    """The die face a player taps after throwing a real die."""
    return next(b for b in run.ids.physical.children if b.value == value)


def names(state: Any) -> list[str]:
    return [i.spec.name for i in state.players[0].items]


def test_lose_your_footgear_asks_which_and_lists_only_footgear(ui: Harness) -> None:
    ui.start_game(NAMES)
    give(ui, "Boots of Butt-Kicking", wear=True, bonus=2, slot="footgear")
    give(ui, "Sneakers", wear=True, bonus=1, slot="footgear")
    give(ui, "Horned Helmet", wear=True, bonus=1, slot="headgear")
    give(ui, "Spare Sandals", slot="footgear")  # carried: "your footgear" is the worn one
    run = run_from(ui, BadStuff(lose=("footgear",)))
    [(caption, options)] = questions(run)
    assert caption == "If caught, which footgear does Anna lose?"
    assert [b.text for b in options] == ["Boots of Butt-Kicking", "Sneakers"]
    for button in options:
        assert button.height >= 48
    press(ui, die(run, 1))  # caught, and nothing chosen: the 1 waits for the choice
    session = ui.app.session
    assert session.live_state.combat.rolls == ()
    assert ui.banner() == "Caught on a 1: choose what the Bad Stuff takes."
    press(ui, questions(run)[0][1][1])  # the Sneakers: the roll is recorded with them
    state = session.live_state
    assert state.combat is None
    assert names(state) == ["Boots of Butt-Kicking", "Horned Helmet", "Spare Sandals"]
    assert state.last_combat.rolls[0].items_lost == ("Sneakers",)


def test_an_escape_needs_no_answer(ui: Harness) -> None:
    ui.start_game(NAMES)
    give(ui, "Boots of Butt-Kicking", wear=True, bonus=2, slot="footgear")
    give(ui, "Sneakers", wear=True, bonus=1, slot="footgear")
    run = run_from(ui, BadStuff(lose=("footgear",)))
    assert questions(run)
    press(ui, die(run, 6))  # away: the Bad Stuff never comes, nothing had to be chosen
    state = ui.app.session.live_state
    assert state.combat is None and state.last_combat.rolls[0].escaped
    assert len(state.players[0].items) == 2


def test_one_footgear_worn_is_lost_without_a_question(ui: Harness) -> None:
    ui.start_game(NAMES)
    give(ui, "Boots of Butt-Kicking", wear=True, bonus=2, slot="footgear")
    give(ui, "Horned Helmet", wear=True, bonus=1, slot="headgear")
    run = run_from(ui, BadStuff(lose=("footgear",)))
    assert questions(run) == []
    press(ui, die(run, 2))
    assert names(ui.app.session.live_state) == ["Horned Helmet"]


def test_lose_two_items_asks_for_two(ui: Harness) -> None:
    ui.start_game(NAMES)
    for name in ("Club", "Pointy Hat", "Rat on a Stick", "Lute"):
        give(ui, name, bonus=1)
    run = run_from(ui, BadStuff(lose_items=2))
    [(caption, options)] = questions(run)
    assert caption == "If caught, which 2 items does Anna lose?"
    assert [b.text for b in options] == ["Club", "Pointy Hat", "Rat on a Stick", "Lute"]
    press(ui, options[0])
    press(ui, questions(run)[0][1][3])
    press(ui, questions(run)[0][1][1])  # a third tap: the oldest choice gives way
    assert [b.selected for b in questions(run)[0][1]] == [False, True, False, True]
    press(ui, die(run, 1))  # chosen before the roll: caught, it goes at once
    state = ui.app.session.live_state
    assert names(state) == ["Club", "Rat on a Stick"]
    assert set(state.last_combat.rolls[0].items_lost) == {"Pointy Hat", "Lute"}


def test_a_later_question_lists_what_the_earlier_answer_left(ui: Harness) -> None:
    ui.start_game(NAMES)
    give(ui, "Boots of Butt-Kicking", wear=True, bonus=2, slot="footgear")
    give(ui, "Sneakers", wear=True, bonus=1, slot="footgear")
    give(ui, "Lute")
    run = run_from(ui, BadStuff(lose=("footgear",), lose_items=1))
    (_boots, first), (items_caption, second) = questions(run)
    assert items_caption == "If caught, which item does Anna lose?"
    press(ui, first[1])  # the Sneakers go to the footgear: the Boots may go as "an item"
    (_boots, first), (_items, second) = questions(run)
    assert [b.text for b in second] == ["Boots of Butt-Kicking", "Lute"]
    press(ui, second[1])
    press(ui, die(run, 1))
    assert names(ui.app.session.live_state) == ["Boots of Butt-Kicking"]


def test_the_race_lost_to_bad_stuff_asks_which_big_item_goes(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="race", name="Dwarf"))
    give(ui, "Anvil", big=True)
    give(ui, "Ladder", big=True)
    run = run_from(ui, BadStuff(lose=("race",)))
    [(caption, options)] = questions(run)
    assert caption == "If caught: Anna may carry only one Big item: which one goes?"
    assert [b.text for b in options] == ["Anvil", "Ladder"]
    press(ui, options[0])
    press(ui, die(run, 1))
    state = session.live_state
    assert state.players[0].races == () and names(state) == ["Ladder"]


def test_a_monster_entered_by_its_level_gets_its_bad_stuff_in_one_tap(ui: Harness) -> None:
    ui.start_game(NAMES)
    ui.nav("combat")
    combat = ui.screen("combat")
    strip = combat.bad_stuff_buttons
    assert list(strip) == [
        "none",
        "level",
        "levels2",
        "levels3",
        "headgear",
        "armor",
        "footgear",
        "item",
        "items2",
        "items3",
        "death",
    ]
    assert strip["none"].selected
    for button in strip.values():
        assert button.height >= 48 and button.width >= 48
    press(ui, strip["footgear"])  # chosen first: it goes with the next monster
    press(ui, combat.level_buttons[8])
    state = ui.app.session.live_state
    assert state.combat.monsters[0].spec.bad_stuff.lose == ("footgear",)
    assert strip["footgear"].selected  # the strip shows that monster's
    press(ui, combat.level_buttons[4])  # the next monster starts from none
    assert strip["none"].selected
    press(ui, strip["items2"])  # chosen after its level: it is that monster's
    monsters = ui.app.session.live_state.combat.monsters
    assert [m.spec.bad_stuff for m in monsters] == [
        BadStuff(lose=("footgear",)),
        BadStuff(lose_items=2),
    ]
    press(ui, combat.level_buttons[2])
    assert ui.app.session.live_state.combat.monsters[2].spec.bad_stuff == BadStuff()
    press(ui, strip["levels3"])
    assert ui.app.session.live_state.combat.monsters[2].spec.bad_stuff == BadStuff(lose_levels=3)
    press(ui, combat.ids.add_monster)  # the "other level" button works the same way
    press(ui, strip["level"])
    assert ui.app.session.live_state.combat.monsters[3].spec.bad_stuff == BadStuff(lose_levels=1)


def test_a_quick_monsters_bad_stuff_is_asked_and_applied_when_caught(ui: Harness) -> None:
    ui.start_game(NAMES)
    give(ui, "Boots of Butt-Kicking", wear=True, bonus=2, slot="footgear")
    ui.app.session.act(SetLevel(player=0, level=3))
    ui.nav("combat")
    combat = ui.screen("combat")
    press(ui, combat.bad_stuff_buttons["death"])
    press(ui, combat.level_buttons[12])
    press(ui, combat.ids.run_away)
    run = ui.screen("run_away")
    rows = [w for w in run.ids.rows.children if type(w).__name__ == "FleeRow"]
    assert rows[0].outcome == "Bad Stuff: death"
    press(ui, die(run, 1))
    state = ui.app.session.live_state
    assert state.players[0].dead and state.players[0].items == ()


# -- allowances that go --------------------------------------------------------------------


def trait_button(screen: Any, text: str) -> Any:
    return next(b for b in screen.ids.traits.walk(restrict=True) if getattr(b, "text", "") == text)


def choice_sheet() -> Any:
    from kivy.core.window import Window

    from companion.ui.sheets import ChoiceSheet

    shown = [w for w in Window.children if isinstance(w, ChoiceSheet)]
    assert len(shown) == 1, "no question is on show"
    return shown[0]


def test_losing_the_dwarf_with_two_big_items_asks_which_goes(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="race", name="Dwarf"))
    anvil = give(ui, "Anvil", big=True)
    give(ui, "Ladder", big=True)
    press(ui, ui.screen("table").tiles[0])
    screen = ui.screen("player")
    press(ui, trait_button(screen, "Dwarf"))
    sheet = choice_sheet()
    assert sheet.question == "Anna may carry only one Big item: which one goes?"
    assert sheet.title == "Discarding Dwarf"
    assert [b.text for b in sheet.buttons.values()] == ["Anvil", "Ladder"]
    assert session.live_state.players[0].races == ("Dwarf",)  # nothing yet
    press(ui, sheet.buttons[anvil])
    player = session.live_state.players[0]
    assert player.races == () and names(session.live_state) == ["Ladder"]
    last = session.game.log[-1]
    assert last.type == "lose_trait" and last.drop == (anvil,)
    from companion.core import describe

    said = str(describe(last, session.game.state_at(session.game.revision - 1)))
    assert said == "Anna is no longer a Dwarf and gives up Anvil"


def test_closing_the_question_keeps_everything(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="race", name="Dwarf"))
    give(ui, "Anvil", big=True)
    give(ui, "Ladder", big=True)
    press(ui, ui.screen("table").tiles[0])
    screen = ui.screen("player")
    press(ui, trait_button(screen, "Dwarf"))
    sheet = choice_sheet()
    revision = session.game.revision
    press(ui, sheet.ids.cancel)
    assert session.game.revision == revision
    assert session.live_state.players[0].races == ("Dwarf",) and len(names(session.live_state)) == 2


def test_losing_super_munchkin_with_two_classes_asks_which_class_goes(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="class", name="Wizard"))
    press(ui, ui.screen("table").tiles[0])
    screen = ui.screen("player")
    press(ui, trait_button(screen, "Super Munchkin"))
    press(ui, trait_button(screen, "Warrior"))
    assert session.live_state.players[0].classes == ("Wizard", "Warrior")
    press(ui, trait_button(screen, "Super Munchkin"))
    sheet = choice_sheet()
    assert sheet.question == "Anna may keep only one class: which one goes?"
    press(ui, sheet.buttons["Wizard"])
    player = session.live_state.players[0]
    assert player.classes == ("Warrior",) and not player.super_munchkin
    assert session.game.log[-1].drop == ("Wizard",)
