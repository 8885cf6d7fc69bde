"""One rule for every name that enters the game log: players refuse what breaks it, names
from cards, dice and old logs are made to keep it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from companion.core import CLASSIC, Game, GameSetup, MonsterSpec, PlayerSetup, Sex, StartCombat
from companion.core.names import NAME_MAX, log_name

OVERRIDE = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "Slime" would read "emilS" and flip what follows


def test_a_monster_name_enters_the_log_without_text_direction_marks() -> None:
    game = Game(
        GameSetup(
            players=(
                PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
                PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE),
            ),
            edition=CLASSIC,
        )
    )
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name=f"Sl{OVERRIDE}ime", level=3),)))
    assert game.state.combat is not None
    assert game.state.combat.monsters[0].spec.name == "Slime"
    assert OVERRIDE not in game.to_json()
    copy = Game.from_json(game.to_json().replace("Slime", f"Sl{OVERRIDE}ime"))
    assert copy.state == game.state  # an old log that held one is read to the same game


def test_names_from_elsewhere_are_cut_to_fit_the_log() -> None:
    spec = MonsterSpec(name="Gelatinous " * 20, level=1)
    assert len(spec.name) <= NAME_MAX and spec.name.endswith("\u2026")
    assert log_name("  Ruby \t (d6)\n", NAME_MAX) == "Ruby (d6)"


def test_a_player_name_that_breaks_the_rule_is_refused() -> None:
    with pytest.raises(ValidationError, match="text-direction"):
        PlayerSetup(name=f"Ann{OVERRIDE}", colour="#ff0000", sex=Sex.FEMALE)
