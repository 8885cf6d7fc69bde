"""The plays the log can say, in the app: a no-limit game, a trait's lasting bonus on the
Player screen, and the victim's pick when the Bad Stuff would take one of several things."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from companion.core import (
    BadStuff,
    GainItem,
    GainTrait,
    ItemSpec,
    MonsterSpec,
    RuleError,
    RunAway,
    SetLevel,
    StartCombat,
)
from companion.ui import i18n
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram"]


@contextmanager
def caught_in_german(ui: Harness, *monsters: MonsterSpec) -> Iterator[tuple[Any, Any]]:
    """Anna (Level 4) runs from `monsters` with the app in German and rolls a 1 against
    the first: the Run away screen and that roll's row. English again afterwards."""
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(SetLevel(player=0, level=4))
    assert session.act(StartCombat(fighter=0, monsters=monsters))
    try:
        i18n.set_language("de")
        ui.app.show("run_away")
        ui.pump()
        run = ui.screen("run_away")
        ui.tap(run.ids.physical.children[5])  # "1": caught by the first monster
        ui.pump(frames=6)
        rows = [w for w in run.walk(restrict=True) if type(w).__name__ == "FleeRow"]
        yield run, next(r for r in rows if (r.fighter, r.monster) == (0, 0))
    finally:
        i18n.set_language("en")
        ui.pump()


def test_a_no_limit_game_from_the_new_game_screen(ui: Harness) -> None:
    screen = ui.screen("new_game")
    assert screen.ids.epic.text == "Play to Level 10"
    ui.tap(screen.ids.epic)
    assert screen.ids.epic.text == "Epic: play to Level 20"
    ui.tap(screen.ids.epic)
    assert screen.ids.epic.text == "No limit: nobody wins by Level"
    ui.tap(screen.ids.start)
    state = ui.app.session.state
    assert state.setup.variants.no_limit and not state.winners
    ui.app.show("new_game", fresh=True)
    ui.pump()
    assert ui.screen("new_game").ids.epic.text == "Play to Level 10"  # one game's choice


def test_a_trait_bonus_is_entered_on_the_player_screen(ui: Harness) -> None:
    ui.start_game(NAMES)
    ui.app.show("player", seat=0)
    ui.pump()
    screen = ui.screen("player")
    warrior = next(
        b for b in screen.ids.traits.walk(restrict=True) if getattr(b, "text", "") == "Warrior"
    )
    ui.tap(warrior)
    steppers = [w for w in screen.ids.traits.walk(restrict=True) if hasattr(w, "caption")]
    assert [s.caption for s in steppers] == ["Warrior: bonus in every combat"]
    ui.tap(steppers[0].ids.plus)
    player = ui.app.session.state.players[0]
    assert [(b.name, b.bonus) for b in player.trait_bonuses] == [("Warrior", 1)]
    assert player.strength == 2 and screen.strength == 2
    stepper = next(w for w in screen.ids.traits.walk(restrict=True) if hasattr(w, "caption"))
    assert stepper.value == "+1"


def test_the_victim_picks_what_the_bad_stuff_takes_once_caught(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    for name in ("Club", "Sword"):
        item = ItemSpec(name=name, bonus=3, slot="hands", hands=1)
        assert session.act(GainItem(player=0, item=item, equip=True))
    assert session.act(GainTrait(player=0, kind="class", name="Wizard"))
    bully = MonsterSpec(name="Bully", level=15, bad_stuff=BadStuff(lose=("biggest_item",)))
    assert session.act(StartCombat(fighter=0, monsters=(bully,)))
    ui.app.show("run_away")
    ui.pump()
    run = ui.screen("run_away")
    buttons = [b for b in run.ids.picks.walk(restrict=True) if type(b).__name__ == "FlatButton"]
    assert [b.text for b in buttons] == ["Club", "Sword"]
    ui.tap(run.ids.physical.children[5])  # "1", before choosing: caught, the 1 is kept
    assert session.state.combat is not None and session.state.combat.rolls == ()
    assert ui.banner() == "Caught on a 1: choose what the Bad Stuff takes."
    ui.tap(run.ids.physical.children[0])  # another die changes nothing: the 1 stands
    assert session.state.combat is not None and session.state.combat.rolls == ()
    buttons = [b for b in run.ids.picks.walk(restrict=True) if type(b).__name__ == "FlatButton"]
    ui.tap(buttons[1])  # the Sword: the roll that caught her is recorded with it
    state = session.state
    assert state.combat is None
    assert [i.spec.name for i in state.players[0].items] == ["Club"]
    assert state.last_combat.rolls[0].items_lost == ("Sword",)
    assert "lost Sword" in run.summary


def test_the_bad_stuff_of_a_failed_roll_reads_in_the_chosen_language(ui: Harness) -> None:
    ogre = MonsterSpec(name="Ogre", level=15, bad_stuff=BadStuff(lose_levels=2))
    thief = MonsterSpec(
        name="Thief", level=15, bad_stuff=BadStuff(lose=("headgear",), text="Brr, kalt.")
    )
    session = ui.app.session
    with caught_in_german(ui, ogre, thief) as (run, caught):  # the Thief still waits
        assert session.state.combat is not None and len(session.state.combat.rolls) == 1
        assert caught.outcome == "hat 2 Stufen verloren"
        ui.tap(run.ids.physical.children[5])  # "1": caught by the Thief too; the combat ends
        assert session.state.combat is None
        assert run.summary.splitlines() == [
            "Anna würfelte 1 (+0) und wurde erwischt: hat 2 Stufen verloren",
            # the card's own text is shown as written
            "Anna würfelte 1 (+0) und wurde erwischt: "
            "hatte keine Kopfbedeckung zu verlieren; Brr, kalt.",
        ]
        i18n.set_language("ru")  # a change shows at once (the screen is built again)
        ui.pump()
        summary = ui.screen("run_away").summary
        assert summary.splitlines()[0].endswith(": потерял 2 уровня"), summary
    summary = ui.screen("run_away").summary
    assert summary.splitlines()[0] == "Anna rolled 1 (+0) and was caught: lost 2 levels"


def test_the_victims_choice_error_names_the_thing_in_the_chosen_language(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    for name in ("Club", "Sword"):
        item = ItemSpec(name=name, bonus=3, slot="hands", hands=1)
        assert session.act(GainItem(player=0, item=item, equip=True))
    bully = MonsterSpec(name="Bully", level=15, bad_stuff=BadStuff(lose=("biggest_item",)))
    assert session.act(StartCombat(fighter=0, monsters=(bully,)))
    with pytest.raises(RuleError) as err:
        session.game.apply(RunAway(fighter=0, monster=0, roll=2))
    try:
        i18n.set_language("de")
        said = i18n.tr(err.value)
    finally:
        i18n.set_language("en")
        ui.pump()
    assert said == "Anna muss wählen, was Bully nimmt (Gegenstand mit Bonus): Club oder Sword"


def test_a_long_run_away_row_wraps_instead_of_cutting_words(ui: Harness) -> None:
    from tests.ui.looking import clipped

    long_name = "Gelatinous Octahedron of the Deepest Dungeon"
    slime = MonsterSpec(
        name=long_name,
        level=15,
        bad_stuff=BadStuff(lose_levels=2, lose=("headgear",), text="Your boots fill with slime."),
    )
    ogre = MonsterSpec(name="Ogre", level=15)  # still waits, so the rows stay on show
    with caught_in_german(ui, slime, ogre) as (_run, row):
        texts = row.ids.texts
        labels = list(reversed(texts.children))
        assert [label.text for label in labels] == [row.title, row.detail, row.outcome]
        assert long_name in row.title and "Kopfbedeckung" in row.outcome
        for label in labels:
            label.texture_update()
            assert not label.shorten and not clipped(label), label.text
            assert label.texture_size[1] <= label.height + 1, label.text
        # The row grew to hold every line, inside its frame.
        assert texts.height > 88 and row.height >= texts.height
        assert texts.y >= row.y - 1 and texts.top <= row.top + 1


def test_a_monster_that_does_not_pursue_needs_no_roll_on_the_run_away_screen(
    ui: Harness,
) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    sloth = MonsterSpec(name="Sloth", level=15, pursues_above_level=2)
    assert session.act(StartCombat(fighter=0, monsters=(sloth,)))
    ui.app.show("run_away")
    ui.pump()
    run = ui.screen("run_away")
    ui.tap(run.ids.roll)  # the app would roll; this monster spares Level 2 and below
    state = session.state
    assert state.combat is None and state.last_combat is not None
    roll = state.last_combat.rolls[0]
    assert roll.escaped and not roll.pursued
    assert run.summary == "Anna was not pursued and escaped"
