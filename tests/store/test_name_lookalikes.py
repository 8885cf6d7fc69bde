"""A saved game whose players' names look alike (saved before names were compared by
their look) still opens, from its checkpoint, with its names as written; the same log
imported as a new game is refused, naming the file and the two names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.core import Game, GameSetup
from companion.core.models import SAVED_GAME
from companion.core.randomplay import random_game
from companion.store import GameStore, StoreError
from companion.store.checkpoints import SAVED_INTERVAL

LOOKALIKES = ("Ann", "Ann\u200b")  # the second with a zero-width space


@pytest.fixture(scope="module")
def old_game() -> Game:
    """A long game whose first two players' names differ by an invisible character."""
    played = random_game(SAVED_INTERVAL * 2 + 10, seed=5, allow_win=False)
    data = played.setup.model_dump(mode="json")
    for player, name in zip(data["players"], LOOKALIKES, strict=False):
        player["name"] = name
    setup = GameSetup.model_validate(data, context={SAVED_GAME: True})
    return Game.from_actions(setup, played.log)


def names(game: Game) -> tuple[str, ...]:
    return tuple(p.name for p in game.state.setup.players[:2])


def test_a_saved_game_with_lookalike_names_opens_from_its_checkpoint(
    tmp_path: Path, old_game: Game
) -> None:
    store = GameStore(tmp_path)
    store.save("old", old_game)
    store.close()
    reopened = GameStore(tmp_path)
    loaded = reopened.load("old")
    assert names(loaded) == LOOKALIKES
    assert loaded.state == old_game.state
    assert loaded.resumed_from == 2 * SAVED_INTERVAL  # its checkpoint is read back too
    assert [s.problem for s in reopened.list()] == [None]
    reopened.close()


def test_importing_a_log_with_lookalike_names_is_refused_naming_the_file_and_names(
    tmp_path: Path, old_game: Game
) -> None:
    store = GameStore(tmp_path / "data")
    store.save("old", old_game)
    exported = store.export("old", tmp_path / "shared.json")

    with pytest.raises(StoreError) as refused:
        store.import_file(exported)
    message = str(refused.value)
    assert message.startswith(f"{exported}: not a valid game log")
    assert "“Ann” and “Ann” look like the same name" in message
    assert [s.id for s in store.list()] == ["old"]  # nothing was added
    store.close()


def test_an_imported_log_with_a_blank_looking_name_is_refused(tmp_path: Path) -> None:
    played = random_game(3, seed=2)
    data = json.loads(played.to_json())
    data["setup"]["players"][1]["name"] = "\u3164"  # HANGUL FILLER: shows nothing
    path = tmp_path / "blank.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    store = GameStore(tmp_path / "data")
    with pytest.raises(StoreError, match=r"blank\.json: .*blank or invisible"):
        store.import_file(path)
    store.close()


def test_an_old_save_in_the_games_folder_is_taken_in_with_its_names(
    tmp_path: Path, old_game: Game
) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "older.json").write_text(old_game.to_json(), encoding="utf-8")
    store = GameStore(tmp_path)
    assert [(s.id, s.problem) for s in store.list()] == [("older", None)]
    assert names(store.load("older")) == LOOKALIKES
    store.close()
