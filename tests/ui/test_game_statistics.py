"""The Game over statistics from one fold that follows the game, against a state per revision."""

from __future__ import annotations

from typing import Any

from companion.core import (
    CLASSIC,
    Game,
    GameSetup,
    GoUpLevel,
    MonsterSpec,
    PlayerSetup,
    ResolveCombat,
    SetLevel,
    Sex,
    StartCombat,
)
from companion.core.randomplay import random_game
from companion.ui.screens.game_over import GameStatistics, statistics_for


def by_every_state(game: Game) -> dict[str, Any]:
    """The statistics the slow way: `state_at` for every revision."""
    states = [game.state_at(r) for r in range(game.revision + 1)]
    count = len(states[0].players)
    kills, deaths = [0] * count, [0] * count
    for action, before, after in zip(game.log, states, states[1:], strict=False):
        if isinstance(action, ResolveCombat) and action.outcome == "kill" and before.combat:
            kills[before.combat.fighter] += len(before.combat.monsters)  # a kill a monster
        for seat in range(count):
            if after.players[seat].dead and not before.players[seat].dead:
                deaths[seat] += 1
    levels = [[state.players[seat].level for state in states] for seat in range(count)]
    best = [max(column) for column in levels]
    return {"kills": kills, "deaths": deaths, "best": best, "levels": levels}


def test_a_long_random_game_gives_the_same_statistics_as_every_state() -> None:
    for seed in range(4):
        game = random_game(300, seed=seed)
        stats = GameStatistics(game)
        assert stats.at(game.revision) == by_every_state(game)
        stats.close()


def test_the_statistics_follow_plays_undos_and_a_replaced_record() -> None:
    game = random_game(150, seed=11, allow_win=False)
    stats = GameStatistics(game)
    while not stats.catch_up(budget_s=0.0):  # a step at a time, as the frames do it
        pass
    assert stats.folded == game.revision
    game.apply(GoUpLevel(player=0))
    assert stats.folded == game.revision  # added from the states around it, no fold
    assert stats.at(game.revision) == by_every_state(game)
    game.undo(40)
    assert stats.at(game.revision) == by_every_state(game)
    game.apply(GoUpLevel(player=1))  # the undone actions are dropped
    assert stats.at(game.revision) == by_every_state(game)
    game.undo(5)
    game.redo(5)
    assert stats.at(game.revision) == by_every_state(game)
    stats.close()


def test_one_game_is_followed_at_a_time() -> None:
    first, second = random_game(20, seed=1), random_game(20, seed=2)
    stats = statistics_for(first)
    assert statistics_for(first) is stats
    assert statistics_for(second) is not stats
    first.apply(GoUpLevel(player=0))  # the closed follower no longer listens
    assert stats.folded <= 20


def test_a_fight_won_against_two_monsters_counts_two_kills() -> None:
    players = tuple(PlayerSetup(name=n, colour="#ff0000", sex=Sex.MALE) for n in ("Ann", "Bo"))
    game = Game(GameSetup(players=players, edition=CLASSIC))
    game.apply(SetLevel(player=0, level=8))
    pair = (MonsterSpec(name="Rat", level=1), MonsterSpec(name="Bat", level=2))
    game.apply(StartCombat(fighter=0, monsters=pair))
    game.apply(ResolveCombat(outcome="kill"))
    stats = GameStatistics(game)
    assert stats.at(game.revision)["kills"] == [2, 0]
    stats.close()
