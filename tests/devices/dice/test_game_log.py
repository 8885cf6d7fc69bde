"""A die's roll goes into the game log like a typed one, with the die named; replay holds."""

from __future__ import annotations

from companion.core import (
    CLASSIC,
    FixedDice,
    Game,
    GameSetup,
    MonsterSpec,
    PlayerSetup,
    RollDie,
    RunAway,
    Sex,
    StartCombat,
)
from companion.core.in_words import describe
from companion.devices.dice import DieType, SettledRoll


def _game() -> Game:
    players = (
        PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
        PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE),
    )
    return Game(GameSetup(players=players, edition=CLASSIC), rng=FixedDice([]))


def test_a_die_roll_is_logged_with_the_die_and_replays_the_same() -> None:
    roll = SettledRoll("C0:00:00:00:00:01", "Ruby", DieType.D6, 3, 0.0)
    game = _game()
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Slime", level=20),)))
    before = game.state
    game.apply(RunAway(fighter=0, monster=0, roll=roll.d6(), die=roll.label))
    game.apply(RollDie(player=1, roll=6, die="Jade (d6)", purpose="a card"))
    assert "rolls 3 to run from Slime (on Ruby (d6))" in describe(game.log[1], before)
    assert "rolls 6 on Jade (d6) for a card" in describe(game.log[2], game.state_at(2))

    copy = Game.from_json(game.to_json(), rng=FixedDice([]))  # no dice left: nothing re-rolled
    assert copy.log == game.log
    assert copy.state == game.state
    assert copy.log[1].die == "Ruby (d6)"  # type: ignore[attr-defined]


def test_a_typed_roll_logs_no_die() -> None:
    game = _game()
    game.apply(RollDie(player=0, roll=2))
    assert '"die"' not in game.to_json()  # the default stays out of the file
