"""What a won game meant at its table: games played through the engine as logs, the facts
worked out by hand and checked against `milestones`."""

from __future__ import annotations

from companion.core import (
    EndTurn,
    Game,
    ResolveCombat,
    RollForFirstPlayer,
    SetGearBonus,
    SetLevel,
    StartCombat,
)
from companion.core.milestones import Milestone, MilestoneKind, milestones
from companion.core.statistics import GameSummary, summarise

from .conftest import make_game, monster


def summary_of(game: Game) -> GameSummary:
    return summarise(game.setup, game.log)


def ends_turns(game: Game, turns: int) -> None:
    for _ in range(turns):
        game.apply(EndTurn())


def win(game: Game, seat: int, at_turn: int, monster_name: str = "Slime") -> Game:
    """`seat` kills a Level 1 `monster_name` at Level 9 in turn `at_turn` (the seats take
    their turns in order from the first player)."""
    ends_turns(game, at_turn - 1)
    assert game.state.current == seat, "the winner must be the one whose turn it is"
    game.apply(SetLevel(player=seat, level=9))
    game.apply(SetGearBonus(player=seat, bonus=5))
    game.apply(StartCombat(fighter=seat, monsters=(monster(1, monster_name),)))
    game.apply(ResolveCombat(outcome="kill"))
    assert game.state.winners == (seat,)
    return game


def history() -> list[GameSummary]:
    """Three games: Ann wins in turn 9 (a Slime), Bo in turn 6 (a Troll), and an unfinished
    one of 12 turns."""
    first = win(make_game(players=2), 0, 9)  # turns 1..9: Ann, Bo, Ann...: turn 9 is Ann's
    second = win(make_game(players=2), 1, 6, "Troll")
    third = make_game(players=2)
    ends_turns(third, 11)
    return [summary_of(first), summary_of(second), summary_of(third)]


def test_no_history_says_nothing() -> None:
    this = summary_of(win(make_game(players=2), 0, 3))
    assert milestones([], this) == []


def test_an_unfinished_game_says_nothing() -> None:
    game = make_game(players=2)
    ends_turns(game, 2)
    assert milestones(history(), summary_of(game)) == []


def test_a_second_win_that_is_a_personal_best_and_a_first_kill() -> None:
    # Ann won once before, in 9 turns; now in 7, killing a Dragon nobody killed before.
    this = summary_of(win(make_game(players=2), 0, 7, "Plutonium Dragon"))
    assert milestones(history(), this) == [
        Milestone(MilestoneKind.WINS, "Ann", 2),
        Milestone(MilestoneKind.FASTEST_WIN, "Ann", 7),
        Milestone(MilestoneKind.FIRST_KILL, "Plutonium Dragon"),
    ]


def test_a_table_record_and_a_first_win() -> None:
    # Cy never won (never played): a first win, in 3 turns, fewer than Bo's 6; the Slime
    # was killed before, so it is no first kill.
    game = make_game(players=3, first_player=2)
    this = summary_of(win(game, 2, 1))
    assert milestones(history(), this) == [
        Milestone(MilestoneKind.FIRST_WIN, "Cy"),
        Milestone(MilestoneKind.SHORTEST_GAME, count=1),
    ]


def test_equal_is_no_record_and_the_longest_game_counts_unfinished_ones() -> None:
    # Bo wins in turn 6 again: no personal best (6 is not fewer than 6), no table record.
    again = summary_of(win(make_game(players=2), 1, 6, "Troll"))
    assert milestones(history(), again) == [Milestone(MilestoneKind.WINS, "Bo", 2)]
    # Bo wins in turn 14: longer than the unfinished game's 12 turns.
    long = summary_of(win(make_game(players=2), 1, 14, "Troll"))
    assert milestones(history(), long) == [
        Milestone(MilestoneKind.WINS, "Bo", 2),
        Milestone(MilestoneKind.LONGEST_GAME, count=14),
    ]


def test_names_are_matched_whatever_their_case_and_at_most_three_facts() -> None:
    earlier = history()
    this = summary_of(win(make_game(players=2), 0, 1, "Plutonium Dragon"))
    this.players = ("  ANN ", "Bo")
    found = milestones(earlier, this)
    assert found[0] == Milestone(MilestoneKind.WINS, "  ANN ", 2)
    assert len(found) == 3  # wins, fastest win, shortest game; the first kill left out
    assert [m.kind for m in milestones(earlier, this, limit=5)][3:] == [MilestoneKind.FIRST_KILL]


def test_the_summary_knows_who_played_turn_one_and_what_each_fighter_killed() -> None:
    game = make_game(players=3)
    game.apply(RollForFirstPlayer(rolls=(3, 5, 5, 6, 2)))  # Bo goes first
    summary = summary_of(win(game, 1, 1, "Plutonium Dragon"))
    assert summary.starter == 1
    assert summary.figures[1].slain == {"Plutonium Dragon": 1}
    assert GameSummary.from_json(summary.to_json()) == summary
