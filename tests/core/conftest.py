"""Shared helpers for the rules-engine tests: a table of four and quick monsters."""

from __future__ import annotations

import pytest

from companion.core import (
    CLASSIC,
    LEGACY_RULES,
    RULES_VERSION,
    BadStuff,
    Edition,
    FixedDice,
    Game,
    GameSetup,
    MonsterSpec,
    PlayerSetup,
    Sex,
    Variants,
)

NAMES = ("Ann", "Bo", "Cy", "Di")
COLOURS = ("#ff0000", "#00ff00", "#0000ff", "#ffff00")
SEXES = (Sex.FEMALE, Sex.MALE, Sex.NONE, Sex.FEMALE)


def make_setup(
    players: int = 4,
    edition: Edition = CLASSIC,
    variants: Variants | None = None,
    first_player: int = 0,
    rules: int = RULES_VERSION,
) -> GameSetup:
    return GameSetup(
        players=tuple(
            PlayerSetup(name=NAMES[i], colour=COLOURS[i], sex=SEXES[i]) for i in range(players)
        ),
        edition=edition,
        variants=variants or Variants(),
        first_player=first_player,
        rules=rules,
    )


def make_game(dice: list[int] | None = None, **kwargs: object) -> Game:
    """A game whose dice give `dice` in order (and fail loudly if asked for more)."""
    return Game(make_setup(**kwargs), rng=FixedDice(dice or []))  # type: ignore[arg-type]


def monster(level: int, name: str = "", **kwargs: object) -> MonsterSpec:
    return MonsterSpec(name=name or f"Blob {level}", level=level, **kwargs)  # type: ignore[arg-type]


def nasty(level: int, **bad: object) -> MonsterSpec:
    return MonsterSpec(name=f"Nasty {level}", level=level, bad_stuff=BadStuff(**bad))  # type: ignore[arg-type]


@pytest.fixture
def game() -> Game:
    return make_game()


@pytest.fixture
def legacy() -> Game:
    """A game that plays by the rules of the versions before 3 (an old save)."""
    return make_game(rules=LEGACY_RULES)
