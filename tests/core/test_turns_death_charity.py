"""Turn order and phases, death and looting the body, Charity (§2, §3, §8)."""

from __future__ import annotations

import pytest

from companion.core import (
    AddHelper,
    AdvancePhase,
    AllySpec,
    Charity,
    Die,
    EndTurn,
    FightWithLevelOnly,
    GainItem,
    GainTrait,
    Game,
    ItemSpec,
    LootTheBody,
    Phase,
    RollDie,
    RollForFirstPlayer,
    RuleError,
    SetAlly,
    SetGearBonus,
    SetLevel,
    SetTraitBoost,
    StartCombat,
    Variants,
)

from .conftest import make_game, monster


class TestTurns:
    def test_play_passes_to_the_left_and_wraps(self) -> None:
        game = make_game(players=3, first_player=1)
        seen = [game.state.current]
        for _ in range(3):
            seen.append(game.apply(EndTurn()).current)
        assert seen == [1, 2, 0, 1]
        assert game.state.turn == 4

    def test_phases_in_order(self, game: Game) -> None:
        assert game.state.phase == Phase.KICK_OPEN_THE_DOOR
        assert game.apply(AdvancePhase()).phase == Phase.LOOT_OR_TROUBLE
        assert game.apply(AdvancePhase()).phase == Phase.CHARITY
        with pytest.raises(RuleError) as err:
            game.apply(AdvancePhase())
        assert err.value.rule == "end_turn"
        assert game.apply(EndTurn()).phase == Phase.KICK_OPEN_THE_DOOR

    def test_faster_play_starts_by_listening_at_the_door(self) -> None:
        game = make_game(variants=Variants(faster_play=True))
        assert game.state.phase == Phase.LISTEN_AT_THE_DOOR
        with pytest.raises(RuleError):
            game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
        assert game.apply(AdvancePhase()).phase == Phase.KICK_OPEN_THE_DOOR
        assert game.apply(EndTurn()).phase == Phase.LISTEN_AT_THE_DOOR

    def test_no_ending_the_turn_in_combat(self, game: Game) -> None:
        game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
        with pytest.raises(RuleError) as err:
            game.apply(EndTurn())
        assert err.value.rule == "finish_combat"

    def test_roll_for_the_first_player_with_a_tie(self) -> None:
        game = make_game(players=3, dice=[4, 6, 6, 2, 5])
        state = game.apply(RollForFirstPlayer())
        assert state.current == 2  # seats 1 and 2 tied on 6; seat 2 won the re-roll
        assert game.log[-1].rolls == (4, 6, 6, 2, 5)  # type: ignore[attr-defined]

    def test_first_player_is_chosen_only_before_play(self, game: Game) -> None:
        game.apply(EndTurn())
        with pytest.raises(RuleError):
            game.apply(RollForFirstPlayer(rolls=(1, 2, 3, 4)))

    def test_a_plain_die_roll_is_recorded(self, game: Game) -> None:
        state = game.apply(RollDie(player=2, roll=6, purpose="a curse"))
        assert state.last_roll is not None
        assert (state.last_roll.value, state.last_roll.player) == (6, 2)


class TestDeath:
    def test_death_keeps_level_and_traits_but_loses_gear_and_ally(self, game: Game) -> None:
        game.apply(SetLevel(player=1, level=6))
        game.apply(GainTrait(player=1, kind="class", name="Thief"))
        game.apply(SetTraitBoost(player=1, kind="class"))
        game.apply(GainTrait(player=1, kind="race", name="Elf"))
        game.apply(SetGearBonus(player=1, bonus=5))
        game.apply(GainItem(player=1, item=ItemSpec(name="Hat", bonus=1, slot="headgear")))
        game.apply(SetAlly(player=1, ally=AllySpec(name="Pony", bonus=1)))
        bo = game.apply(Die(player=1)).players[1]
        assert bo.dead and bo.level == 6
        assert bo.classes == ("Thief",) and bo.races == ("Elf",) and bo.super_munchkin
        assert bo.items == () and bo.gear_bonus == 0 and bo.ally is None

    def test_the_dead_cannot_receive_cards(self, game: Game) -> None:
        game.apply(Die(player=1))
        with pytest.raises(RuleError, match="receive cards"):
            game.apply(GainItem(player=1, item=ItemSpec(name="Hat")))

    def test_the_dead_return_when_the_next_turn_starts(self, game: Game) -> None:
        game.apply(Die(player=0))
        game.apply(Die(player=2))
        state = game.apply(EndTurn())
        assert not any(p.dead for p in state.players)

    def test_loot_order_highest_level_first_ties_by_dice(self) -> None:
        game = make_game(dice=[2, 5])
        game.apply(SetLevel(player=1, level=3))
        game.apply(SetLevel(player=2, level=5))
        game.apply(SetLevel(player=3, level=3))
        game.apply(Die(player=0))
        state = game.apply(LootTheBody(player=0))
        assert state.loot is not None
        assert state.loot.order == (2, 3, 1)  # Di beat Bo 5 to 2
        assert state.loot.rolls == (2, 5)

    def test_loot_order_without_ties_needs_no_dice(self) -> None:
        game = make_game(players=3)
        game.apply(SetLevel(player=2, level=2))
        game.apply(Die(player=0))
        assert game.apply(LootTheBody(player=0)).loot.order == (2, 1)  # type: ignore[union-attr]

    def test_recorded_loot_rolls_must_fit(self) -> None:
        game = make_game()
        game.apply(Die(player=0))
        with pytest.raises(RuleError) as err:
            game.apply(LootTheBody(player=0, rolls=(3,)))
        assert err.value.rule == "roll_missing"
        with pytest.raises(RuleError) as err:
            game.apply(LootTheBody(player=0, rolls=(1, 2, 3, 4)))
        assert err.value.rule == "extra_rolls"

    def test_only_the_dead_are_looted(self, game: Game) -> None:
        with pytest.raises(RuleError) as err:
            game.apply(LootTheBody(player=0, rolls=()))
        assert err.value.rule == "not_dead"
        with pytest.raises(RuleError):
            game.apply(LootTheBody(player=0))  # and no die is rolled for it

    def test_a_dead_helper_leaves_the_combat(self, game: Game) -> None:
        game.apply(StartCombat(fighter=0, monsters=(monster(3),)))
        game.apply(AddHelper(helper=1))
        game.apply(FightWithLevelOnly(player=1))
        state = game.apply(Die(player=1))
        assert state.combat is not None and state.combat.helper is None
        assert state.combat.level_only == frozenset()


class TestCharity:
    def test_goes_to_the_lowest_player(self, game: Game) -> None:
        game.apply(SetLevel(player=0, level=4))
        game.apply(SetLevel(player=1, level=2))
        game.apply(SetLevel(player=2, level=3))
        game.apply(SetLevel(player=3, level=3))
        state = game.apply(Charity(giver=0, cards=2))
        assert state.charity is not None and state.charity.shares == {1: 2}

    def test_split_among_tied_lowest_as_evenly_as_possible(self, game: Game) -> None:
        game.apply(SetLevel(player=0, level=4))
        game.apply(SetLevel(player=2, level=3))
        state = game.apply(Charity(giver=0, cards=3))  # Bo and Di are tied at Level 1
        assert state.charity is not None and state.charity.shares == {1: 2, 3: 1}
        game.undo()
        state = game.apply(Charity(giver=0, cards=3, shares={1: 1, 3: 2}))  # giver's choice
        assert state.charity is not None and state.charity.shares == {1: 1, 3: 2}
        game.undo()
        with pytest.raises(RuleError) as err:
            game.apply(Charity(giver=0, cards=3, shares={1: 3}))
        assert err.value.rule == "charity_split"
        with pytest.raises(RuleError):
            game.apply(Charity(giver=0, cards=3, shares={1: 1, 2: 1, 3: 1}))

    def test_the_lowest_giver_discards(self, game: Game) -> None:
        game.apply(SetLevel(player=1, level=2))
        state = game.apply(Charity(giver=0, cards=2))  # Ann is tied lowest with Cy and Di
        assert state.charity is not None
        assert state.charity.shares == {} and state.charity.discarded == 2
        game.undo()
        with pytest.raises(RuleError) as err:
            game.apply(Charity(giver=0, cards=2, shares={2: 2}))
        assert err.value.rule == "charity_discard"

    def test_the_dead_get_no_charity(self, game: Game) -> None:
        game.apply(SetLevel(player=0, level=3))
        game.apply(SetLevel(player=2, level=2))
        game.apply(SetLevel(player=3, level=2))
        game.apply(Die(player=1))
        state = game.apply(Charity(giver=0, cards=2))
        assert state.charity is not None and state.charity.shares == {2: 1, 3: 1}

    def test_charity_on_your_own_turn(self, game: Game) -> None:
        game.apply(SetLevel(player=1, level=3))
        with pytest.raises(RuleError) as err:
            game.apply(Charity(giver=1, cards=1))
        assert err.value.rule == "charity_own_turn"
