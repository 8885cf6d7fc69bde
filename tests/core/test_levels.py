"""Levels go through the rules: floor 1, winning level only by a kill, selling, Epic (§1, §5)."""

from __future__ import annotations

import pytest

from companion.core import (
    Die,
    EndTurn,
    GainItem,
    Game,
    GoUpLevel,
    ItemSpec,
    LoseLevel,
    ResolveCombat,
    RuleError,
    SellItems,
    SetLevel,
    StartCombat,
    Variants,
    describe,
)

from .conftest import make_game, monster


def level(game: Game, seat: int) -> int:
    return game.state.players[seat].level


def test_everyone_starts_at_level_1(game: Game) -> None:
    assert [p.level for p in game.state.players] == [1, 1, 1, 1]


def test_level_never_goes_below_1(game: Game) -> None:
    game.apply(GoUpLevel(player=0))
    game.apply(LoseLevel(player=0, levels=3))
    assert level(game, 0) == 1


def test_go_up_a_level_at_9_is_refused_and_changes_nothing(game: Game) -> None:
    game.apply(SetLevel(player=1, level=9))
    before = game.state
    with pytest.raises(RuleError) as err:
        game.apply(GoUpLevel(player=1))
    assert err.value.rule == "winning_level_by_kill"
    assert "Go Up a Level" in str(err.value) and "Level 10" in str(err.value)
    assert game.state is before and len(game.log) == 1


def test_a_card_that_says_otherwise_can_give_the_win_and_is_logged(game: Game) -> None:
    game.apply(SetLevel(player=1, level=9))
    state = game.apply(GoUpLevel(player=1, override="Divine Intervention"))
    assert state.winners == (1,)
    assert game.log[-1].override == "Divine Intervention"  # type: ignore[attr-defined]


def test_setting_a_level_by_hand_cannot_reach_the_winning_level(game: Game) -> None:
    with pytest.raises(RuleError):
        game.apply(SetLevel(player=0, level=10))
    with pytest.raises(RuleError):
        game.apply(SetLevel(player=0, level=11, override="any card"))


def test_killing_a_monster_at_9_wins() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=9))
    game.apply(StartCombat(fighter=0, monsters=(monster(3),)))
    state = game.apply(ResolveCombat(outcome="kill"))
    assert state.players[0].level == 10
    assert state.winners == (0,) and state.game_over


def test_a_two_level_kill_stops_at_the_winning_level() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=9))
    game.apply(StartCombat(fighter=0, monsters=(monster(1, levels_per_kill=2),)))
    assert game.apply(ResolveCombat(outcome="kill")).players[0].level == 10


def test_nothing_happens_after_the_game_is_won() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=9))
    game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
    game.apply(ResolveCombat(outcome="kill"))
    with pytest.raises(RuleError) as err:
        game.apply(EndTurn())
    assert err.value.rule == "game_over" and "Ann won" in str(err.value)


def test_epic_plays_to_20() -> None:
    game = make_game(variants=Variants(winning_level=20))
    game.apply(SetLevel(player=0, level=15))
    assert level(game, 0) == 15 and not game.state.winners
    game.apply(GoUpLevel(player=0, levels=4))
    with pytest.raises(RuleError):
        game.apply(GoUpLevel(player=0))
    game.apply(StartCombat(fighter=0, monsters=(monster(2),)))
    assert game.apply(ResolveCombat(outcome="kill")).winners == (0,)


def test_dead_players_cannot_go_up(game: Game) -> None:
    game.apply(Die(player=2))
    with pytest.raises(RuleError) as err:
        game.apply(GoUpLevel(player=2))
    assert err.value.rule == "dead_cannot_level"


class TestSelling:
    def test_1900_gold_is_one_level_and_no_change(self, game: Game) -> None:
        game.apply(SellItems(player=0, gold=1900))
        assert level(game, 0) == 2

    def test_2000_gold_is_two_levels(self, game: Game) -> None:
        game.apply(SellItems(player=0, gold=2000))
        assert level(game, 0) == 3

    def test_less_than_1000_gold_buys_nothing(self, game: Game) -> None:
        with pytest.raises(RuleError) as err:
            game.apply(SellItems(player=0, gold=999))
        assert err.value.rule == "sell_minimum"

    def test_selling_cannot_take_you_to_level_10(self, game: Game) -> None:
        game.apply(SetLevel(player=0, level=9))
        with pytest.raises(RuleError) as err:
            game.apply(SellItems(player=0, gold=1000))
        assert str(err.value) == "Selling items cannot take you to Level 10"
        assert level(game, 0) == 9

    def test_selling_past_the_winning_level_stops_one_short_and_the_rest_is_lost(
        self, game: Game
    ) -> None:
        game.apply(SetLevel(player=0, level=8))
        before = game.state
        action = SellItems(player=0, gold=2900)
        game.apply(action)
        assert level(game, 0) == 9 and not game.state.winners
        assert describe(action, before) == (
            "Ann sells items worth 2900 gold: up to Level 9, the rest is lost (levels lost: 1)"
        )
        with pytest.raises(RuleError) as err:  # at 9 a sale can buy nothing at all
            game.apply(SellItems(player=0, gold=1000))
        assert err.value.rule == "sell_to_win"

    def test_a_card_may_let_a_sale_reach_the_winning_level(self, game: Game) -> None:
        game.apply(SetLevel(player=0, level=8))
        game.apply(SellItems(player=0, gold=2900, override="Divine Intervention"))
        assert level(game, 0) == 10 and game.state.winners == (0,)

    def test_selling_tracked_items_removes_them_and_adds_their_value(self, game: Game) -> None:
        game.apply(GainItem(player=0, item=ItemSpec(name="Gold Spoon", gold=600)))
        game.apply(GainItem(player=0, item=ItemSpec(name="Tin Cup", gold=300)))
        ids = tuple(i.id for i in game.state.players[0].items)
        game.apply(SellItems(player=0, gold=100, item_ids=ids))
        assert level(game, 0) == 2 and game.state.players[0].items == ()

    def test_only_on_your_own_turn(self, game: Game) -> None:
        with pytest.raises(RuleError) as err:
            game.apply(SellItems(player=1, gold=1000))
        assert err.value.rule == "sell_own_turn"

    def test_not_in_combat(self, game: Game) -> None:
        game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
        with pytest.raises(RuleError) as err:
            game.apply(SellItems(player=0, gold=1000))
        assert err.value.rule == "sell_in_combat"

    def test_epic_selling_stops_short_of_20(self) -> None:
        game = make_game(variants=Variants(winning_level=20))
        game.apply(SetLevel(player=0, level=17))
        game.apply(SellItems(player=0, gold=2000))
        assert level(game, 0) == 19
        with pytest.raises(RuleError, match="Level 20"):
            game.apply(SellItems(player=0, gold=1000))
