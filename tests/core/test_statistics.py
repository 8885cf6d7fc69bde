"""Statistics of games: a set of games played through the engine, their figures worked
out by hand and checked against the summaries and the table's figures."""

from __future__ import annotations

import pytest

from companion.core import (
    FU,
    AddHelper,
    EndTurn,
    GainItem,
    Game,
    ItemSpec,
    ResolveCombat,
    RunAway,
    SellItems,
    SetGearBonus,
    SetLevel,
    StartCombat,
)
from companion.core.statistics import (
    GameSummary,
    StatsFold,
    summarise,
    table_statistics,
)

from .conftest import make_game, monster, nasty


def kill(game: Game, fighter: int, *monsters: object, helper: int | None = None) -> None:
    game.apply(StartCombat(fighter=fighter, monsters=monsters))  # type: ignore[arg-type]
    if helper is not None:
        game.apply(AddHelper(helper=helper))
    game.apply(ResolveCombat(outcome="kill"))


def first_game() -> Game:
    """Ann kills two monsters in one fight, Bo dies running from the Nasty, Cy kills a
    Troll with Ann's help, Ann sells an item for a Level and wins in turn 4."""
    game = make_game(players=3)
    game.apply(SetGearBonus(player=0, bonus=5))
    kill(game, 0, monster(1, "Slime"), monster(1, "Newt"))  # Ann 1 -> 3
    game.apply(EndTurn())
    game.apply(StartCombat(fighter=1, monsters=(nasty(12, death=True),)))
    game.apply(RunAway(fighter=1, monster=0, roll=1))
    game.apply(EndTurn())
    game.apply(SetGearBonus(player=2, bonus=10))
    kill(game, 2, monster(5, "Troll"), helper=0)  # Cy 1 -> 2
    game.apply(EndTurn())
    hat = ItemSpec(name="Hat", bonus=1, slot="headgear", gold=1000)
    game.apply(GainItem(player=0, item=hat))
    game.apply(SellItems(player=0, item_ids=("i1",)))  # Ann 3 -> 4
    game.apply(SetLevel(player=0, level=9))
    kill(game, 0, monster(1, "Slime"))  # Ann 9 -> 10: wins
    return game


def second_game() -> Game:
    """Martial-arts edition, two players: Bo kills a Slime at Level 9 and wins in turn 1."""
    game = make_game(players=2, edition=FU, first_player=1)
    game.apply(SetLevel(player=1, level=9))
    game.apply(SetGearBonus(player=1, bonus=3))
    kill(game, 1, monster(1, "Slime"))
    return game


def unfinished_game() -> Game:
    """Ann and Bo play two turns; nobody wins; Bo dies again, running from the Nasty."""
    game = make_game(players=2)
    game.apply(EndTurn())
    game.apply(StartCombat(fighter=1, monsters=(nasty(12, death=True),)))
    game.apply(RunAway(fighter=1, monster=0, roll=2))
    return game


def summary_of(game: Game) -> GameSummary:
    return summarise(game.setup, game.log)


def test_one_game_summary_counts_what_happened() -> None:
    summary = summary_of(first_game())
    assert summary.players == ("Ann", "Bo", "Cy")
    assert summary.winners == (0,)
    assert summary.levels == (10, 1, 2)
    assert summary.turns == 4
    assert summary.edition == "classic"
    assert summary.minutes is None  # the log holds no times
    ann, bo, cy = summary.figures
    assert (ann.kills, ann.helped_kills, ann.deaths) == (3, 1, 0)  # two in one fight, then one
    assert ann.kill_levels == 2 + 1
    assert (ann.sales, ann.sold_items, ann.sale_levels) == (1, 1, 1)
    assert ann.items == {"Hat": 1}
    assert ann.met == {"Slime": 2, "Newt": 1, "Troll": 1}
    assert (bo.kills, bo.deaths) == (0, 1)
    assert bo.killed_by == {"Nasty 12": 1}
    assert (cy.kills, cy.kill_levels, cy.helped_kills) == (1, 1, 0)


def test_a_summary_reads_back_as_it_was_written() -> None:
    summary = summary_of(first_game())
    assert GameSummary.from_json(summary.to_json()) == summary


@pytest.mark.parametrize("text", ["[]", '{"players": ["Ann"]}', '{"edition": 1}', "nonsense"])
def test_a_damaged_summary_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        GameSummary.from_json(text)


def test_folding_step_by_step_gives_the_whole_game_summary() -> None:
    game = first_game()
    fold = StatsFold(game.setup)
    states = game.states_between(0, game.revision + 1)
    for before, action, after in zip(states[:-1], game.log, states[1:], strict=True):
        fold.step(before, action, after)
    assert fold.summary(game.state) == summary_of(game)


def test_table_figures_over_three_games() -> None:
    summaries = [summary_of(first_game()), summary_of(second_game()), summary_of(unfinished_game())]
    stats = table_statistics(summaries)
    table = stats.table
    assert (table.games, table.wins) == (3, 2)
    assert table.totals.kills == 3 + 1 + 1  # Ann 3, Cy 1, Bo 1
    assert table.totals.deaths == 2
    assert table.fastest_win is not None and table.fastest_win.turns == 1
    assert table.longest_game is not None and table.longest_game.turns == 4
    assert stats.editions == {"classic": 2, "fu": 1}
    by_name = {figures.name: figures for figures in stats.players}
    assert [figures.name for figures in stats.players][:2] == ["Ann", "Bo"]
    ann, bo, cy = by_name["Ann"], by_name["Bo"], by_name["Cy"]
    assert (ann.games, ann.wins, ann.win_rate) == (3, 1, pytest.approx(1 / 3))
    assert ann.average_level == pytest.approx((10 + 1 + 1) / 3)
    assert (bo.games, bo.wins, bo.totals.deaths, bo.totals.kills) == (3, 1, 2, 1)
    assert bo.fastest_win is not None and bo.fastest_win.turns == 1
    assert bo.most_killing() == [("Nasty 12", 2)]
    assert ann.fastest_win is not None and ann.fastest_win.turns == 4
    assert ann.most_met() == [("Slime", 2), ("Newt", 1), ("Troll", 1)]
    assert (cy.games, cy.wins, cy.fastest_win) == (1, 0, None)
    assert table.most_met()[0] == ("Slime", 3)


def test_table_figures_for_one_edition_and_one_player() -> None:
    summaries = [summary_of(first_game()), summary_of(second_game()), summary_of(unfinished_game())]
    fu = table_statistics(summaries, edition="fu")
    assert (fu.table.games, [f.name for f in fu.players]) == (1, ["Bo", "Ann"])
    cy = table_statistics(summaries, player="  cy ")
    assert cy.table.games == 1
    assert [(f.name, f.games, f.totals.kills) for f in cy.players] == [("Cy", 1, 1)]
    nobody = table_statistics(summaries, player="Zed")
    assert (nobody.table.games, nobody.players) == (0, [])
