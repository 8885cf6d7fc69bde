"""Combat: strengths, helpers, several monsters, enhancers, modifiers, verdict, rewards (§6)."""

from __future__ import annotations

import pytest

from companion.core import (
    CLASSIC,
    AddEnhancer,
    AddHelper,
    AddMonster,
    AdvancePhase,
    AllySpec,
    ChangeHelper,
    ClearOneShots,
    Condition,
    Die,
    EndTurn,
    EnhancerSpec,
    FightWithLevelOnly,
    GainItem,
    GainTrait,
    Game,
    ItemSpec,
    MonsterModifier,
    Phase,
    PlayOneShot,
    RemoveHelper,
    RemoveMonster,
    ResolveCombat,
    RuleError,
    SetAlly,
    SetGearBonus,
    SetLevel,
    SetWinsTies,
    StartCombat,
    Variants,
)

from .conftest import make_game, monster


def fight(game: Game, *monsters: object, fighter: int = 0) -> None:
    game.apply(StartCombat(fighter=fighter, monsters=monsters))  # type: ignore[arg-type]


def test_strength_is_level_plus_gear_plus_ally(game: Game) -> None:
    game.apply(SetLevel(player=0, level=3))
    game.apply(SetGearBonus(player=0, bonus=4))
    game.apply(GainItem(player=0, item=ItemSpec(name="Hat", bonus=2, slot="headgear"), equip=True))
    game.apply(GainItem(player=0, item=ItemSpec(name="Spare Hat", bonus=5, slot="headgear")))
    game.apply(SetAlly(player=0, ally=AllySpec(name="Squire", bonus=1)))
    assert game.state.players[0].strength == 3 + 4 + 2 + 1  # the carried hat gives nothing
    fight(game, monster(5))
    combat = game.state.combat
    assert combat is not None
    assert combat.fighter_strength == 10 and combat.players_strength == 10


def test_a_tie_goes_to_the_monster(game: Game) -> None:
    game.apply(SetLevel(player=0, level=4))
    fight(game, monster(4))
    combat = game.state.combat
    assert combat is not None and not combat.fighters_winning
    with pytest.raises(RuleError) as err:
        game.apply(ResolveCombat(outcome="kill"))
    assert err.value.rule == "monsters_win_ties"
    assert "Monsters win ties: 4 against 4" in str(err.value)


def test_one_more_point_wins(game: Game) -> None:
    game.apply(SetLevel(player=0, level=5))
    fight(game, monster(4))
    assert game.state.combat is not None and game.state.combat.fighters_winning


def test_a_card_that_wins_ties(game: Game) -> None:
    game.apply(SetLevel(player=0, level=4))
    fight(game, monster(4))
    game.apply(SetWinsTies(reason="Warrior"))
    assert game.state.combat is not None and game.state.combat.fighters_winning
    game.apply(ResolveCombat(outcome="kill"))
    assert game.state.players[0].level == 5


def test_strength_can_go_below_one(game: Game) -> None:
    game.apply(SetGearBonus(player=0, bonus=-5))
    fight(game, monster(1))
    assert game.state.combat is not None and game.state.combat.players_strength == -4
    assert game.state.players[0].level == 1


def test_helper_adds_their_whole_strength_and_gains_no_level(game: Game) -> None:
    game.apply(SetLevel(player=1, level=3))
    game.apply(SetGearBonus(player=1, bonus=3))
    fight(game, monster(6))
    game.apply(AddHelper(helper=1))
    combat = game.state.combat
    assert combat is not None and combat.helper_strength == 6
    assert combat.players_strength == 7 and combat.fighters_winning
    state = game.apply(ResolveCombat(outcome="kill"))
    assert state.players[0].level == 2 and state.players[1].level == 3
    assert state.last_combat is not None and state.last_combat.treasure == 1


def test_only_one_helper_and_not_yourself(game: Game) -> None:
    fight(game, monster(1))
    with pytest.raises(RuleError, match="cannot help themselves"):
        game.apply(AddHelper(helper=0))
    game.apply(AddHelper(helper=1))
    with pytest.raises(RuleError) as err:
        game.apply(AddHelper(helper=2))
    assert err.value.rule == "one_helper"
    game.apply(RemoveHelper())
    game.apply(AddHelper(helper=2))
    assert game.state.combat is not None and game.state.combat.helper == 2


def test_a_pick_from_the_helper_list_is_one_action(game: Game) -> None:
    fight(game, monster(1))
    game.apply(ChangeHelper(helper=1))
    game.apply(ChangeHelper(helper=2))  # takes Bo's place in one step
    assert game.state.combat is not None and game.state.combat.helper == 2
    assert [a.type for a in game.log[-2:]] == ["change_helper", "change_helper"]
    with pytest.raises(RuleError, match="cannot help themselves"):
        game.apply(ChangeHelper(helper=0))
    with pytest.raises(RuleError) as err:
        game.apply(ChangeHelper(helper=2))
    assert err.value.rule == "same_helper"
    game.apply(ChangeHelper(helper=None))
    assert game.state.combat.helper is None


def test_dead_players_cannot_help(game: Game) -> None:
    game.apply(Die(player=3))
    fight(game, monster(1))
    with pytest.raises(RuleError, match="dead"):
        game.apply(AddHelper(helper=3))


def test_class_bonus_counts_once_when_fighter_and_helper_share_the_class(game: Game) -> None:
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainTrait(player=1, kind="class", name="wizard"))
    hater = monster(
        5,
        modifiers=(MonsterModifier(bonus=3, condition=Condition(kind="class", value="Wizard")),),
    )
    fight(game, hater)
    assert game.state.combat is not None and game.state.combat.monsters_strength == 8
    game.apply(AddHelper(helper=1))
    assert game.state.combat.monsters_strength == 8  # type: ignore[union-attr]


def test_class_bonus_applies_when_only_the_helper_has_the_class(game: Game) -> None:
    game.apply(GainTrait(player=1, kind="class", name="Cleric"))
    hater = monster(
        2, modifiers=(MonsterModifier(bonus=4, condition=Condition(kind="class", value="Cleric")),)
    )
    fight(game, hater)
    assert game.state.combat is not None and game.state.combat.monsters_strength == 2
    game.apply(AddHelper(helper=1))
    assert game.state.combat.monsters_strength == 6  # type: ignore[union-attr]


def test_sex_and_human_conditions(game: Game) -> None:
    picky = monster(
        1,
        modifiers=(
            MonsterModifier(bonus=2, condition=Condition(kind="sex", value="female")),
            MonsterModifier(bonus=5, condition=Condition(kind="race", value="Human")),
        ),
    )
    fight(game, picky)  # Ann is female and, with no race, Human
    assert game.state.combat is not None and game.state.combat.monsters_strength == 8


def test_per_empty_hand_bonus_counts_both_fighters_hands(game: Game) -> None:
    grabby = monster(1, modifiers=(MonsterModifier(bonus=2, per_empty_hand=True),))
    sword = ItemSpec(name="Sword", bonus=3, slot="hands", hands=1)
    game.apply(GainItem(player=0, item=sword, equip=True))
    fight(game, grabby)
    assert game.state.combat is not None and game.state.combat.monsters_strength == 1 + 2 * 1
    game.apply(AddHelper(helper=1))
    assert game.state.combat.monsters_strength == 1 + 2 * 3  # type: ignore[union-attr]


def test_two_monsters_with_an_enhancer_on_only_one(game: Game) -> None:
    game.apply(SetLevel(player=0, level=9))
    game.apply(SetGearBonus(player=0, bonus=10))
    fight(game, monster(6, treasure=2), monster(4, treasure=1))
    game.apply(AddEnhancer(monster=1, enhancer=EnhancerSpec(name="Huge", bonus=5, treasure=2)))
    combat = game.state.combat
    assert combat is not None
    assert [m.strength for m in combat.monsters] == [6, 9]
    assert [m.treasure for m in combat.monsters] == [2, 3]
    assert combat.monsters_strength == 15 and combat.treasure == 5 and combat.levels == 2
    assert combat.players_strength == 19 and combat.fighters_winning
    state = game.apply(ResolveCombat(outcome="kill"))
    assert state.players[0].level == 10 and state.winners == (0,)
    assert state.last_combat is not None and state.last_combat.treasure == 5


def test_an_enhancer_can_take_treasure_down_but_not_below_zero(game: Game) -> None:
    fight(game, monster(1, treasure=1))
    game.apply(AddEnhancer(monster=0, enhancer=EnhancerSpec(name="Baby", bonus=-5, treasure=-2)))
    combat = game.state.combat
    assert combat is not None and combat.treasure == 0 and combat.monsters_strength == -4


def test_enhancer_on_a_monster_that_is_not_there(game: Game) -> None:
    fight(game, monster(1))
    with pytest.raises(RuleError) as err:
        game.apply(AddEnhancer(monster=1, enhancer=EnhancerSpec(name="Huge", bonus=5)))
    assert err.value.rule == "no_such_monster"


def test_a_wandering_monster_joins(game: Game) -> None:
    game.apply(SetLevel(player=0, level=6))
    fight(game, monster(3))
    assert game.state.combat is not None and game.state.combat.fighters_winning
    game.apply(AddMonster(monster=monster(4)))
    assert game.state.combat.monsters_strength == 7 and not game.state.combat.fighters_winning  # type: ignore[union-attr]


def test_one_shots_on_either_side(game: Game) -> None:
    fight(game, monster(3))
    game.apply(PlayOneShot(side="players", bonus=5, name="Potion"))
    assert game.state.combat is not None and game.state.combat.players_strength == 6
    game.apply(PlayOneShot(side="monsters", bonus=3))
    assert game.state.combat.monsters_strength == 6  # type: ignore[union-attr]
    game.apply(ResolveCombat(outcome="defeat"))
    assert game.state.combat is None


def test_one_shots_of_one_side_can_be_taken_back(game: Game) -> None:
    fight(game, monster(3))
    game.apply(PlayOneShot(side="players", bonus=5))
    game.apply(PlayOneShot(side="players", bonus=2))
    game.apply(PlayOneShot(side="monsters", bonus=4))
    game.apply(ClearOneShots(side="players"))
    combat = game.state.combat
    assert combat is not None and combat.players_strength == 1
    assert combat.monsters_strength == 7  # the monsters' one-shot stays
    with pytest.raises(RuleError, match="No one-shots have been played for the players"):
        game.apply(ClearOneShots(side="players"))


def test_one_shots_are_gone_after_the_combat() -> None:
    game = make_game()
    game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
    game.apply(PlayOneShot(side="players", bonus=9))
    game.apply(ResolveCombat(outcome="kill"))
    game.apply(EndTurn())
    game.apply(StartCombat(fighter=1, monsters=(monster(1),)))
    assert game.state.combat is not None and game.state.combat.players_strength == 1


def test_fight_with_level_only(game: Game) -> None:
    game.apply(SetLevel(player=0, level=2))
    game.apply(SetGearBonus(player=0, bonus=6))
    fight(game, monster(5))
    game.apply(FightWithLevelOnly(player=0))
    assert game.state.combat is not None and game.state.combat.players_strength == 2
    game.apply(FightWithLevelOnly(player=0, on=False))
    assert game.state.combat.players_strength == 8  # type: ignore[union-attr]


def test_an_ally_played_during_combat_counts_at_once(game: Game) -> None:
    fight(game, monster(2))
    game.apply(SetAlly(player=0, ally=AllySpec(name="Hound", bonus=2)))
    assert game.state.combat is not None and game.state.combat.fighters_winning


def test_gear_cannot_change_during_combat(game: Game) -> None:
    fight(game, monster(2))
    with pytest.raises(RuleError) as err:
        game.apply(SetGearBonus(player=0, bonus=5))
    assert err.value.rule == "equipment_in_combat"


def test_defeat_without_killing_gives_no_level(game: Game) -> None:
    fight(game, monster(8))
    state = game.apply(ResolveCombat(outcome="defeat", treasure=1))
    assert state.players[0].level == 1
    assert state.last_combat is not None and state.last_combat.outcome == "defeat"
    assert state.last_combat.treasure == 1


def test_removing_the_last_monster_ends_the_combat_without_a_kill(game: Game) -> None:
    fight(game, monster(8))
    state = game.apply(RemoveMonster(monster=0))
    assert state.combat is None and state.players[0].level == 1
    assert state.last_combat is not None and state.last_combat.outcome == "defeat"


def test_combat_moves_the_turn_on_to_charity(game: Game) -> None:
    fight(game, monster(0))
    assert game.apply(ResolveCombat(outcome="kill")).phase == Phase.CHARITY


def test_look_for_trouble_after_the_door(game: Game) -> None:
    game.apply(AdvancePhase())
    assert game.state.phase == Phase.LOOT_OR_TROUBLE
    fight(game, monster(0))
    assert game.state.combat is not None


def test_fights_happen_on_your_own_turn_in_the_right_phase(game: Game) -> None:
    with pytest.raises(RuleError) as err:
        fight(game, monster(1), fighter=1)
    assert err.value.rule == "fight_own_turn"
    game.apply(AdvancePhase())
    game.apply(AdvancePhase())
    with pytest.raises(RuleError) as err:
        fight(game, monster(1))
    assert err.value.rule == "fight_phase"
    game.apply(StartCombat(fighter=2, monsters=(monster(1),), override="Curse of company"))
    assert game.state.combat is not None and game.state.combat.fighter == 2


def test_shared_victory_makes_the_helper_win_too() -> None:
    game = make_game(variants=Variants(shared_victory=True))
    game.apply(SetLevel(player=0, level=9))
    fight(game, monster(1))
    game.apply(AddHelper(helper=2))
    state = game.apply(ResolveCombat(outcome="kill"))
    assert state.winners == (0, 2)
    assert state.players[2].level == 1  # the helper wins, but gains no level


def test_without_shared_victory_only_the_fighter_wins() -> None:
    game = make_game(edition=CLASSIC)
    game.apply(SetLevel(player=0, level=9))
    fight(game, monster(1))
    game.apply(AddHelper(helper=2))
    assert game.apply(ResolveCombat(outcome="kill")).winners == (0,)


def test_a_fighter_who_dies_in_combat_ends_it(game: Game) -> None:
    fight(game, monster(1))
    state = game.apply(Die(player=0, reason="a trap"))
    assert state.combat is None
    assert state.last_combat is not None and state.last_combat.outcome == "fighter_died"


def test_strength_of_reads_the_combat_for_fighters_only(game: Game) -> None:
    game.apply(SetLevel(player=0, level=3))
    game.apply(SetGearBonus(player=0, bonus=4))
    game.apply(SetGearBonus(player=1, bonus=2))
    game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
    game.apply(AddHelper(helper=1))
    game.apply(FightWithLevelOnly(player=0))
    state = game.state
    assert [state.strength_of(s) for s in range(4)] == [3, 3, 1, 1]


def test_rewards_come_only_when_the_combat_ends(game: Game) -> None:
    game.apply(SetLevel(player=0, level=5))
    game.apply(StartCombat(fighter=0, monsters=(monster(2, treasure=2),)))
    game.apply(AddHelper(helper=1))
    assert game.state.players[0].level == 5 and game.state.last_combat is None
    state = game.apply(ResolveCombat(outcome="kill"))
    assert state.players[0].level == 6
    assert state.last_combat is not None
    assert state.last_combat.treasure == 2 and state.last_combat.treasure_face_up


def test_treasure_is_face_down_when_alone(game: Game) -> None:
    game.apply(StartCombat(fighter=0, monsters=(monster(0),)))
    state = game.apply(ResolveCombat(outcome="kill"))
    assert state.last_combat is not None and not state.last_combat.treasure_face_up
