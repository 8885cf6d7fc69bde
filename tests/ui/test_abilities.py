"""Class abilities and Magic quotes through the screens of a 360x640 phone: the Combat
screen offers what the rules accept for the players in the fight (the Warrior's berserking,
the Cleric's turning, the Thief's backstab, the Wizard's charm), asks for cards, victim or
monster on a sheet and says why when the rules refuse; the Thief steals from the Player
screen on the game's die; a Magic quote is typed, and one said before is refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion.core import (
    AddHelper,
    AddMonster,
    FixedDice,
    GainItem,
    GainTrait,
    GoUpLevel,
    ItemSpec,
    MonsterSpec,
    StartCombat,
)
from tests.ui.conftest import PHONE, Harness
from tests.ui.items_driving import press

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram", "Cleo"]


@pytest.fixture
def dice(ui: Harness) -> Iterator[Harness]:
    """The game's dice give what a test says (put back afterwards)."""
    kept = ui.app.session.dice
    yield ui
    ui.app.session.dice = kept


def fight(ui: Harness, *monsters: MonsterSpec, classes: dict[int, str]) -> Any:
    ui.start_game(NAMES)
    session = ui.app.session
    for seat, name in classes.items():
        assert session.act(GainTrait(player=seat, kind="class", name=name))
    chosen = monsters or (MonsterSpec(name="Gnasher", level=8, treasure=2),)
    assert session.act(StartCombat(fighter=0, monsters=chosen))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    return combat


def sheet_on_show(ui: Harness) -> Any:
    from kivy.core.window import Window

    from companion.ui.sheets import Sheet

    ui.pump(frames=4)
    shown = [w for w in Window.children if isinstance(w, Sheet) and not w.closing]
    assert len(shown) == 1, shown
    return shown[0]


def option(sheet: Any, text: str) -> Any:
    [button] = [b for b in sheet.buttons.values() if b.text == text]
    return button


def closed(ui: Harness, sheet: Any) -> bool:
    ui.wait_until(lambda: sheet.parent is None, timeout_s=5)
    return True


def test_the_warrior_goes_berserk_with_the_cards_the_rules_still_allow(ui: Harness) -> None:
    combat = fight(ui, classes={0: "Warrior"})
    session = ui.app.session
    before = combat.players_strength
    button = combat.ability_buttons[(0, "berserking")]
    assert button.text == "Anna: go berserk" and not button.dimmed
    assert (0, "turning") not in combat.ability_buttons  # no Cleric at the table
    press(ui, button)
    sheet = sheet_on_show(ui)
    assert sorted(b.text for b in sheet.buttons.values()) == [
        "1 card: +1",
        "2 cards: +2",
        "3 cards: +3",
    ]
    press(ui, option(sheet, "2 cards: +2"))
    assert closed(ui, sheet)
    ui.pump(frames=4)
    assert combat.players_strength == before + 2
    assert [(u.ability, u.cards) for u in session.live_state.combat.uses] == [("berserking", 2)]
    press(ui, combat.ability_buttons[(0, "berserking")])
    sheet = sheet_on_show(ui)
    assert [b.text for b in sheet.buttons.values()] == ["1 card: +1"]  # 3 at most a combat
    press(ui, option(sheet, "1 card: +1"))
    assert closed(ui, sheet)
    ui.pump(frames=4)
    button = combat.ability_buttons[(0, "berserking")]
    assert button.dimmed and combat.players_strength == before + 3
    ui.app.root.ids.banner.hide()
    press(ui, button)
    assert ui.banner() == "At most 3 cards can power it in one combat"


def test_the_cleric_turns_only_undead_and_hears_why_not(ui: Harness) -> None:
    combat = fight(ui, classes={0: "Cleric"})
    button = combat.ability_buttons[(0, "turning")]
    assert button.dimmed
    press(ui, button)
    assert ui.banner() == "Turning works only against Undead"
    session = ui.app.session
    undead = MonsterSpec(name="Ghoul", level=2, tags=("undead",))
    ui.app.root.ids.banner.hide()
    assert session.act(AddMonster(monster=undead))
    ui.pump(frames=4)
    before = combat.players_strength
    button = combat.ability_buttons[(0, "turning")]
    assert not button.dimmed
    press(ui, button)
    sheet = sheet_on_show(ui)
    press(ui, option(sheet, "1 card: +3"))
    assert closed(ui, sheet)
    ui.pump(frames=4)
    assert combat.players_strength == before + 3


def test_a_thief_watching_backstabs_each_fighter_once(ui: Harness) -> None:
    combat = fight(ui, classes={2: "Thief"})
    session = ui.app.session
    assert session.act(AddHelper(helper=1))
    ui.pump(frames=4)
    before = combat.players_strength
    press(ui, combat.ability_buttons[(2, "backstab")])
    sheet = sheet_on_show(ui)
    assert sorted(b.text for b in sheet.buttons.values()) == ["Anna: \u22122", "Bram: \u22122"]
    press(ui, option(sheet, "Bram: \u22122"))
    assert closed(ui, sheet)
    ui.pump(frames=4)
    assert combat.players_strength == before - 2
    press(ui, combat.ability_buttons[(2, "backstab")])  # Bram only once: Anna it is
    ui.pump(frames=4)
    assert combat.players_strength == before - 4
    assert [u.target for u in session.live_state.combat.uses] == [1, 0]
    button = combat.ability_buttons[(2, "backstab")]
    assert button.dimmed
    ui.app.root.ids.banner.hide()
    press(ui, button)
    assert ui.banner() == "Each player can be backstabbed once per combat"


def test_the_wizard_charms_one_monster_away_with_the_whole_hand(ui: Harness) -> None:
    first = MonsterSpec(name="Gnasher", level=8, treasure=2)
    second = MonsterSpec(name="Slime", level=12, treasure=3)
    combat = fight(ui, first, second, classes={0: "Wizard"})
    session = ui.app.session
    press(ui, combat.ability_buttons[(0, "charm")])
    sheet = sheet_on_show(ui)
    press(ui, option(sheet, "Slime"))
    assert closed(ui, sheet)
    hand = sheet_on_show(ui)
    assert next(b.text for b in hand.buttons.values()) == "3 cards"
    press(ui, option(hand, "4 cards"))
    assert closed(ui, hand)
    ui.pump(frames=4)
    state = session.live_state
    assert [m.spec.name for m in state.combat.monsters] == ["Gnasher"]
    [line] = [a for a in session.game.log if a.type == "charm"]
    assert (line.monster, line.cards) == (1, 4)


def test_without_an_ability_nothing_is_offered(ui: Harness) -> None:
    combat = fight(ui, classes={})
    assert combat.ability_buttons == {} and not combat.has_abilities
    assert combat.ids.abilities_caption.height == 0


def theft_set_up(ui: Harness) -> Any:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="class", name="Thief"))
    assert session.act(GainItem(player=1, item=ItemSpec(name="Cheese Grater", bonus=2)))
    assert session.act(GainItem(player=2, item=ItemSpec(name="Anvil", bonus=3, big=True)))
    screen = ui.app.show("player", seat=0)
    ui.pump(frames=4)
    return screen


def pick_row(ui: Harness, picker: Any, text: str) -> None:
    from tests.ui.test_new_game import tap_row

    ui.pump(frames=4)
    tap_row(ui, picker, text)


def test_the_thief_steals_a_small_item_on_a_good_roll(dice: Harness) -> None:
    ui = dice
    ui.app.session.dice = FixedDice([5])
    screen = theft_set_up(ui)
    assert screen.can_steal and screen.ids.steal.height >= 48
    press(ui, screen.ids.steal)
    picker = screen.sheet
    # The Big anvil cannot be stolen, so it is not offered.
    assert [c.text for c in picker.choices] == ["Cheese Grater of Bram"]
    pick_row(ui, picker, "Cheese Grater of Bram")
    ui.pump(frames=4)
    players = ui.app.session.live_state.players
    assert [i.spec.name for i in players[0].items] == ["Cheese Grater"] and not players[1].items
    assert ui.banner() == "Anna rolls 5 and steals Cheese Grater from Bram"


def test_a_thief_caught_loses_a_level(dice: Harness) -> None:
    ui = dice
    ui.app.session.dice = FixedDice([2])
    screen = theft_set_up(ui)
    assert ui.app.session.act(GoUpLevel(player=0))
    press(ui, screen.ids.steal)
    pick_row(ui, screen.sheet, "Cheese Grater of Bram")
    ui.pump(frames=4)
    players = ui.app.session.live_state.players
    assert players[0].level == 1 and [i.spec.name for i in players[1].items] == ["Cheese Grater"]
    assert ui.banner() == "Anna rolls 2, is caught stealing from Bram and loses a level"


def test_nobody_steals_in_a_fight_and_the_reason_is_shown(ui: Harness) -> None:
    screen = theft_set_up(ui)
    assert ui.app.session.act(StartCombat(fighter=0, monsters=(MonsterSpec(name="X", level=1),)))
    ui.app.show("player", seat=0)
    ui.pump(frames=4)
    press(ui, screen.ids.steal)
    assert ui.banner() == "Nobody can steal from or while fighting in a combat"


def test_only_a_thief_is_offered_theft(ui: Harness) -> None:
    theft_set_up(ui)
    screen = ui.app.show("player", seat=1)
    ui.pump(frames=4)
    assert not screen.can_steal and screen.ids.steal.height == 0


def start_disney(ui: Harness) -> Any:
    from tests.ui.test_items_rules import start_in

    return start_in(ui, "disney")


def test_a_magic_quote_is_said_once_a_game(ui: Harness) -> None:
    screen = start_disney(ui)
    assert screen.can_quote and screen.ids.quote.height >= 48
    press(ui, screen.ids.quote)
    sheet = sheet_on_show(ui)
    sheet.ids.quote.text = "Just keep swimming!"
    press(ui, sheet.ids.say)
    assert closed(ui, sheet)
    assert ui.app.session.live_state.quotes == ("just keep swimming",)
    press(ui, screen.ids.quote)
    sheet = sheet_on_show(ui)
    press(ui, sheet.ids.say)
    assert sheet.problem == "Type the quote first."
    sheet.ids.quote.text = "  just keep SWIMMING "
    press(ui, sheet.ids.say)
    ui.pump(frames=4)
    assert sheet.parent is not None  # stays open with the reason, the words kept
    assert sheet.problem == "That quote was already used in this game: find another"
    assert sheet.ids.quote.text == "  just keep SWIMMING "
    assert ui.app.session.live_state.quotes == ("just keep swimming",)


def test_magic_quotes_in_a_disney_fight(ui: Harness) -> None:
    start_disney(ui)
    session = ui.app.session
    assert session.act(StartCombat(fighter=0, monsters=(MonsterSpec(name="X", level=3),)))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    button = combat.ability_buttons[(0, "quote")]
    press(ui, button)
    sheet = sheet_on_show(ui)
    sheet.ids.quote.text = "To infinity and beyond"
    press(ui, sheet.ids.say)
    assert closed(ui, sheet)
    [line] = [a for a in session.game.log if a.type == "say_quote"]
    assert (line.player, line.quote) == (0, "To infinity and beyond")


def test_other_editions_have_no_magic_quotes(ui: Harness) -> None:
    combat = fight(ui, classes={})
    assert not any(key[1] == "quote" for key in combat.ability_buttons)
    screen = ui.app.show("player", seat=0)
    ui.pump(frames=4)
    assert not screen.can_quote and screen.ids.quote.height == 0


def test_every_bad_stuff_choice_shows_on_a_phone(ui: Harness) -> None:
    from kivy.core.window import Window

    from companion.ui.questions import QUICK_BAD_STUFF

    assert tuple(Window.size) == PHONE
    ui.start_game(NAMES)
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    assert len(combat.bad_stuff_buttons) == len(QUICK_BAD_STUFF)
    for button in combat.bad_stuff_buttons.values():
        left, _bottom = button.to_window(button.x, button.y)
        assert left >= 0 and left + button.width <= PHONE[0], button.text
        assert button.height >= 48 and button.width >= 48
    last = combat.bad_stuff_buttons["death"]
    press(ui, last)
    assert combat.quick_bad == "death"


def test_charming_the_only_monster_ends_the_fight_without_a_kill(ui: Harness) -> None:
    combat = fight(ui, MonsterSpec(name="Slime", level=12, treasure=3), classes={0: "Wizard"})
    session = ui.app.session
    press(ui, combat.ability_buttons[(0, "charm")])  # one monster: only the hand is asked
    hand = sheet_on_show(ui)
    assert hand.title == "Anna charms Slime"
    press(ui, option(hand, "3 cards"))
    assert closed(ui, hand)
    ui.pump(frames=4)
    state = session.live_state
    assert state.combat is None and state.players[0].level == 1
    result = state.last_combat
    assert (result.outcome, result.treasure) == ("defeat", 3)
    assert combat.result_text == "Ended without a kill: Slime."


def test_with_nothing_small_to_steal_the_thief_hears_why(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainTrait(player=0, kind="class", name="Thief"))
    screen = ui.app.show("player", seat=0)
    ui.pump(frames=4)
    press(ui, screen.ids.steal)
    assert ui.banner() == "Nobody has an item to steal."
    assert session.act(GainItem(player=2, item=ItemSpec(name="Anvil", bonus=3, big=True)))
    ui.app.root.ids.banner.hide()
    press(ui, screen.ids.steal)
    assert ui.banner() == "Only small items can be stolen, not Big ones"
