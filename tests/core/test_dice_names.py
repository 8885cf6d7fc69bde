"""The smart dice named beside multi-roll actions (the first-player roll, looting ties):
additive to the log, shown in the History words, one name per roll, never read by replay."""

from __future__ import annotations

import pytest

from companion.core import Die, Game, LootTheBody, RollForFirstPlayer, RuleError
from companion.core.chapters.base import words
from companion.core.game import action_record

from .conftest import make_game


def test_first_player_rolls_keep_the_dice_that_gave_them() -> None:
    game = make_game(players=2)
    before = game.state
    action = RollForFirstPlayer(rolls=(4, 4, 2, 5), dice=("Ruby (d6)", "", "Ruby (d6)", ""))
    state = game.apply(action)
    assert state.current == 1
    assert (
        words(action, before)
        == "Everyone rolls for the first player (4 on Ruby (d6), 4, 2 on Ruby (d6), 5)"
    )
    assert action_record(action)["dice"] == ["Ruby (d6)", "", "Ruby (d6)", ""]
    again = Game.from_json(game.to_json())
    assert again.state == state
    assert again.log[-1].dice == action.dice  # type: ignore[attr-defined]


def test_without_dice_the_log_is_as_before() -> None:
    assert "dice" not in action_record(RollForFirstPlayer(rolls=(3, 1)))
    assert "dice" not in action_record(LootTheBody(player=0, rolls=(3, 1)))
    assert words(RollForFirstPlayer(rolls=(3, 1)), make_game(players=2).state) == (
        "Everyone rolls for the first player (3, 1)"
    )


def test_one_die_name_per_roll() -> None:
    game = make_game(players=2)
    with pytest.raises(RuleError, match="One die name per roll: 2 rolls, 1 die names"):
        game.apply(RollForFirstPlayer(rolls=(4, 5), dice=("Ruby (d6)",)))
    game = make_game(players=3)
    game.apply(Die(player=0))
    with pytest.raises(RuleError, match="2 rolls, 3 die names"):
        game.apply(LootTheBody(player=0, rolls=(3, 5), dice=("Ruby (d6)", "", "")))


def test_looting_ties_name_their_dice() -> None:
    game = make_game(players=3)
    game.apply(Die(player=0))
    before = game.state
    action = LootTheBody(player=0, rolls=(3, 5), dice=("Ruby (d6)", "Jade (d6)"))
    state = game.apply(action)
    assert state.loot is not None and state.loot.order == (2, 1)
    assert words(action, before).endswith("tie rolls 3 on Ruby (d6), 5 on Jade (d6)")
