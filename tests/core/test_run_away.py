"""Running away: per fighter, per monster, in the chosen order; Bad Stuff; ally sacrifice (§7)."""

from __future__ import annotations

import pytest

from companion.core import (
    AddHelper,
    AllySpec,
    GainItem,
    GameState,
    ItemSpec,
    Phase,
    ResolveCombat,
    RuleError,
    RunAway,
    RunAwayRoll,
    SacrificeAlly,
    Said,
    SetAlly,
    SetGearBonus,
    SetLevel,
    SetRunAwayBonus,
    StartCombat,
)
from companion.core.phrase import Phrase

from .conftest import make_game, monster, nasty


def test_five_or_more_escapes() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(nasty(9, lose_levels=1),)))
    state = game.apply(RunAway(fighter=0, monster=0, roll=5))
    assert state.combat is None and state.players[0].level == 1
    assert state.last_combat is not None and state.last_combat.outcome == "ran_away"
    assert state.last_combat.rolls[0].escaped
    assert state.phase == Phase.CHARITY


def caught_at_level_5() -> GameState:
    """Level 5 with a gear bonus of 3 rolls a 4 against a monster whose Bad Stuff takes
    2 levels, 2 gear points and says "cry"."""
    game = make_game()
    game.apply(SetLevel(player=0, level=5))
    game.apply(SetGearBonus(player=0, bonus=3))
    game.apply(
        StartCombat(fighter=0, monsters=(nasty(12, lose_levels=2, lose_gear=2, text="cry"),))
    )
    return game.apply(RunAway(fighter=0, monster=0, roll=4))


def test_four_fails_and_the_bad_stuff_hits() -> None:
    state = caught_at_level_5()
    assert state.players[0].level == 3 and state.players[0].gear_bonus == 1
    roll = state.last_combat.rolls[0]  # type: ignore[union-attr]
    assert not roll.escaped and "lost 2 levels" in roll.bad_stuff and "cry" in roll.bad_stuff
    assert state.last_roll is not None and state.last_roll.value == 4


def test_the_bad_stuff_words_keep_their_templates_through_json() -> None:
    state = caught_at_level_5()
    copy = GameState.model_validate_json(state.model_dump_json())
    assert copy == state
    roll = copy.last_combat.rolls[0]  # type: ignore[union-attr]
    parts = [part.phrase() for part in roll.bad_stuff_said]
    assert parts == ["lost 2 levels", "lost 2 gear bonus", "cry"]
    levels, gear, text = parts
    assert isinstance(levels, Phrase) and levels.plural == "lost {levels} levels"
    assert (levels.template, levels.number, levels.params) == ("lost a level", 2, {"levels": 2})
    assert isinstance(gear, Phrase) and gear.params == {"points": 2}
    assert not isinstance(text, Phrase)  # the card's own text is shown as written
    assert roll.bad_stuff == "lost 2 levels; lost 2 gear bonus; cry"


def test_a_roll_saved_with_words_only_keeps_them_as_written() -> None:
    old = {"fighter": 0, "monster": 0, "roll": 2, "modifier": 0, "escaped": False}
    roll = RunAwayRoll.model_validate({**old, "bad_stuff": "lost a level"})
    assert roll.bad_stuff == "lost a level"
    assert roll.bad_stuff_said == (Said(text="lost a level"),)
    assert RunAwayRoll.model_validate({**old, "bad_stuff": ""}).bad_stuff_said == ()


def test_a_said_value_may_not_be_a_sentence_itself() -> None:
    with pytest.raises(ValueError, match="sentence"):
        Said.of(Phrase("lost {thing}", thing=Phrase("{first} and {second}", first="A", second="B")))


def test_losing_levels_stops_at_level_1() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(nasty(12, lose_levels=3),)))
    assert game.apply(RunAway(fighter=0, monster=0, roll=1)).players[0].level == 1


def test_modifiers_of_fighter_items_and_monster_count() -> None:
    game = make_game()
    game.apply(SetRunAwayBonus(player=0, bonus=1))
    boots = ItemSpec(name="Boots", slot="footgear", run_away_bonus=1)
    game.apply(GainItem(player=0, item=boots, equip=True))
    slow = monster(20, run_away_modifier=1)
    game.apply(StartCombat(fighter=0, monsters=(slow,)))
    state = game.apply(RunAway(fighter=0, monster=0, roll=2))  # 2 + 1 + 1 + 1 = 5
    assert state.last_combat is not None and state.last_combat.rolls[0].escaped
    assert state.last_combat.rolls[0].modifier == 3


def test_a_fast_monster_makes_escape_harder() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(monster(20, run_away_modifier=-1),)))
    state = game.apply(RunAway(fighter=0, monster=0, roll=5))
    assert state.last_combat is not None and not state.last_combat.rolls[0].escaped


def test_each_fighter_rolls_per_monster_in_their_own_order() -> None:
    game = make_game()
    monsters = (nasty(10, lose_levels=1), nasty(11, lose_levels=1))
    game.apply(SetLevel(player=0, level=4))
    game.apply(SetLevel(player=1, level=4))
    game.apply(StartCombat(fighter=0, monsters=monsters))
    game.apply(AddHelper(helper=1))
    game.apply(RunAway(fighter=1, monster=1, roll=6))
    assert game.state.combat is not None and game.state.combat.running
    game.apply(RunAway(fighter=0, monster=1, roll=2))
    with pytest.raises(RuleError) as err:
        game.apply(RunAway(fighter=0, monster=1, roll=6))
    assert err.value.rule == "already_rolled"
    game.apply(RunAway(fighter=0, monster=0, roll=3))
    assert game.state.combat is not None  # the helper still has one monster to face
    state = game.apply(RunAway(fighter=1, monster=0, roll=5))
    assert state.combat is None
    assert state.players[0].level == 2 and state.players[1].level == 4
    assert [(r.fighter, r.monster) for r in state.last_combat.rolls] == [  # type: ignore[union-attr]
        (1, 1),
        (0, 1),
        (0, 0),
        (1, 0),
    ]


def test_death_stops_the_remaining_rolls() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=6))
    game.apply(GainItem(player=0, item=ItemSpec(name="Hat", bonus=1, slot="headgear"), equip=True))
    game.apply(StartCombat(fighter=0, monsters=(nasty(15, death=True), nasty(14, lose_levels=1))))
    state = game.apply(RunAway(fighter=0, monster=0, roll=1))
    assert state.players[0].dead and state.players[0].level == 6
    assert state.players[0].items == ()
    assert state.combat is None  # nobody is left to roll
    with pytest.raises(RuleError):
        game.apply(RunAway(fighter=0, monster=1, roll=6))


def test_a_dead_helper_stops_rolling_while_the_fighter_goes_on() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(nasty(15, death=True), nasty(14, lose_levels=1))))
    game.apply(AddHelper(helper=1))
    game.apply(RunAway(fighter=1, monster=0, roll=2))
    with pytest.raises(RuleError) as err:
        game.apply(RunAway(fighter=1, monster=1, roll=6))
    assert err.value.rule == "dead_stops_rolling"
    game.apply(RunAway(fighter=0, monster=0, roll=6))
    state = game.apply(RunAway(fighter=0, monster=1, roll=6))
    assert state.combat is None and not state.players[0].dead


def test_no_running_when_the_players_are_winning() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(monster(0),)))
    with pytest.raises(RuleError) as err:
        game.apply(RunAway(fighter=0, monster=0, roll=6))
    assert err.value.rule == "no_need_to_run"


def test_nothing_changes_once_running_has_started() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(monster(9), monster(9))))
    game.apply(RunAway(fighter=0, monster=0, roll=6))
    with pytest.raises(RuleError) as err:
        game.apply(AddHelper(helper=1))
    assert err.value.rule == "running_away"
    with pytest.raises(RuleError):
        game.apply(ResolveCombat(outcome="defeat"))


def test_sacrificing_an_ally_escapes_every_monster() -> None:
    game = make_game()
    game.apply(SetAlly(player=0, ally=AllySpec(name="Loyal Dog", bonus=1)))
    game.apply(StartCombat(fighter=0, monsters=(nasty(9, death=True), nasty(9, death=True))))
    state = game.apply(SacrificeAlly(player=0))
    assert state.combat is None and not state.players[0].dead
    assert state.players[0].ally is None


def test_the_owner_decides_whether_the_helper_escapes_too() -> None:
    game = make_game()
    game.apply(SetAlly(player=0, ally=AllySpec(name="Loyal Dog")))
    game.apply(StartCombat(fighter=0, monsters=(nasty(20, lose_levels=1),)))
    game.apply(AddHelper(helper=1))
    game.apply(SacrificeAlly(player=0, partner_escapes=False))
    assert game.state.combat is not None  # the helper must still roll
    game.apply(RunAway(fighter=1, monster=0, roll=1))
    assert game.state.combat is None

    game2 = make_game()
    game2.apply(SetAlly(player=0, ally=AllySpec(name="Loyal Dog")))
    game2.apply(StartCombat(fighter=0, monsters=(nasty(20, lose_levels=1),)))
    game2.apply(AddHelper(helper=1))
    assert game2.apply(SacrificeAlly(player=0, partner_escapes=True)).combat is None


def test_no_ally_no_sacrifice() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(monster(9),)))
    with pytest.raises(RuleError) as err:
        game.apply(SacrificeAlly(player=0))
    assert err.value.rule == "no_ally"


def test_the_game_rolls_when_no_result_is_given_and_records_it() -> None:
    game = make_game(dice=[3])
    game.apply(StartCombat(fighter=0, monsters=(nasty(9, lose_levels=1),)))
    game.apply(SetLevel(player=1, level=2))
    game.apply(RunAway(fighter=0, monster=0))
    logged = game.log[-1]
    assert isinstance(logged, RunAway) and logged.roll == 3
    assert game.state.last_roll is not None and game.state.last_roll.value == 3
