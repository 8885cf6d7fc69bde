"""A game saved by a version that played by the rules before version 3 keeps playing by them
when the database gives it back (docs/game-log.md, "Versions")."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from companion.core import (
    CLASSIC,
    LEGACY_RULES,
    RULES_VERSION,
    GainTrait,
    Game,
    GameSetup,
    MonsterSpec,
    PlayerSetup,
    SetLevel,
    Sex,
    StartCombat,
)
from companion.store import GameStore


def warrior_at_a_tie() -> Game:
    setup = GameSetup(
        players=(
            PlayerSetup(name="Ada", colour="#e53935", sex=Sex.FEMALE),
            PlayerSetup(name="Bo", colour="#1e88e5", sex=Sex.MALE),
        ),
        edition=CLASSIC,
    )
    game = Game(setup)
    game.apply(GainTrait(player=0, kind="class", name="Warrior"))
    game.apply(SetLevel(player=0, level=4))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Blob", level=4),)))
    return game


def test_a_game_saved_before_version_3_keeps_its_rules(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    game = warrior_at_a_tie()
    assert game.state.combat is not None and game.state.combat.fighters_winning  # rules 3
    store.save("old", game)
    store.close()
    # What version 2 wrote: its setup had no rules, and its row said log version 2.
    with sqlite3.connect(tmp_path / "games.sqlite3") as conn:
        (text,) = conn.execute("SELECT setup FROM games WHERE id = 'old'").fetchone()
        setup = json.loads(text)
        del setup["rules"]
        conn.execute(
            "UPDATE games SET setup = ?, log_version = 2 WHERE id = 'old'", (json.dumps(setup),)
        )
        conn.execute("DELETE FROM checkpoints")
    loaded = GameStore(tmp_path).load("old")
    assert loaded.setup.rules == LEGACY_RULES
    combat = loaded.state.combat
    assert combat is not None and not combat.fighters_winning  # monsters won ties then
    assert RULES_VERSION > LEGACY_RULES
