"""Who goes first (RULES.md §2): everyone rolls a d6, the highest goes first, and only the
players tied for the highest roll again; a tie lower down decides nothing."""

from __future__ import annotations

from companion.core import Game, RollForFirstPlayer

from .conftest import make_game


def test_only_the_tie_for_highest_rolls_again() -> None:
    # Anna and Bram tie on 6 for first, Cleo and Dev on 2: only Anna and Bram roll again.
    game = make_game(players=4, dice=[6, 6, 2, 2, 5, 3, 1, 1, 1, 1])
    state = game.apply(RollForFirstPlayer())
    assert game.log[-1].rolls == (6, 6, 2, 2, 5, 3)  # type: ignore[attr-defined]
    assert state.current == 0


def test_a_tie_below_the_highest_roll_is_not_rolled_again() -> None:
    game = make_game(players=3, dice=[5, 1, 1, 6, 6])
    state = game.apply(RollForFirstPlayer())
    assert game.log[-1].rolls == (5, 1, 1)  # type: ignore[attr-defined]
    assert state.current == 0


def test_recorded_rolls_settle_the_tie_for_first() -> None:
    game = make_game(players=3)
    state = game.apply(RollForFirstPlayer(rolls=(3, 5, 5, 6, 2)))
    assert state.current == 1


def test_a_game_saved_when_every_tie_rolled_again_opens_with_the_same_first_player() -> None:
    # Saved by an earlier version: Cleo and Dev's tie for third was rolled again too.
    game = make_game(players=4)
    state = game.apply(RollForFirstPlayer(rolls=(6, 6, 2, 2, 5, 3, 4, 1)))
    assert state.current == 0
    again = Game.from_json(game.to_json())
    assert again.state.current == 0


def test_the_smart_dice_wait_only_for_the_tie_for_highest() -> None:
    from companion.core.chapters.rolls import highest_by_rolls
    from companion.ui.throws import next_thrower

    # Anna 6, Bram 6, Cleo 2, Dev 2: Anna then Bram throw again, Cleo and Dev do not.
    assert next_thrower([range(4)], [6, 6, 2, 2], highest_by_rolls) == 0
    assert next_thrower([range(4)], [6, 6, 2, 2, 5], highest_by_rolls) == 1
    assert next_thrower([range(4)], [6, 6, 2, 2, 5, 3], highest_by_rolls) is None
