"""Saved games survive crashes, list themselves, resume, and import/export with clear errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.core import CLASSIC, Game, GameSetup, GoUpLevel, PlayerSetup, Sex
from companion.store import GameStore, StoreError
from companion.store import journal as journal_module


def make_game(levels: int = 2) -> Game:
    setup = GameSetup(
        players=(
            PlayerSetup(name="Ada", colour="#e53935", sex=Sex.FEMALE),
            PlayerSetup(name="Bo", colour="#1e88e5", sex=Sex.MALE),
            PlayerSetup(name="Cy", colour="#43a047", sex=Sex.NONE),
        ),
        edition=CLASSIC,
    )
    game = Game(setup)
    for _ in range(levels):
        game.apply(GoUpLevel(player=1))
    return game


def test_save_and_load_restore_the_same_state(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    game = make_game()
    game_id = store.new_id()
    store.save(game_id, game)

    loaded = store.load(game_id)

    assert loaded.state == game.state
    assert loaded.state.players[1].level == 3


def test_last_game_is_resumed_and_forgotten_when_deleted(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    assert store.load_last() is None
    game_id = store.new_id()
    store.save(game_id, make_game())

    resumed = GameStore(tmp_path).load_last()

    assert resumed is not None and resumed[0] == game_id
    store.delete(game_id)
    assert store.load_last() is None
    assert store.list() == []


def test_a_crash_while_saving_keeps_the_previous_save_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(tmp_path)
    game = make_game(levels=1)
    game_id = store.new_id()
    store.save(game_id, game)
    game.apply(GoUpLevel(player=0))

    def power_cut(*_args: object, **_kwargs: object) -> str:
        raise OSError("power cut")

    # The failure strikes inside the transaction, after the old rows were touched.
    monkeypatch.setattr(journal_module, "log_digest", power_cut)
    with pytest.raises(StoreError, match="power cut"):
        store.save(game_id, game)
    monkeypatch.undo()

    reopened = GameStore(tmp_path)
    assert reopened.load(game_id).state.players[0].level == 1  # the old save, intact
    assert [(s.id, s.actions) for s in reopened.list()] == [(game_id, 1)]  # nothing half-written
    store.save(game_id, game)  # the next save writes what the failed one could not
    assert GameStore(tmp_path).load(game_id).state == game.state


def test_list_shows_newest_first_and_reports_damaged_files_without_deleting_them(
    tmp_path: Path,
) -> None:
    # Saves of earlier versions (JSON files) are taken in with their dates.
    store = GameStore(tmp_path)
    first, second = store.new_id() + "a", store.new_id() + "b"
    store.path_of(first).write_text(make_game(levels=1).to_json(), encoding="utf-8")
    store.path_of(second).write_text(make_game(levels=2).to_json(), encoding="utf-8")
    os.utime(store.path_of(first), (1_000_000, 1_000_000))
    damaged = store.folder / "broken.json"
    damaged.write_text('{"format": "munch', encoding="utf-8")
    os.utime(damaged, (500_000, 500_000))

    listed = store.list()

    assert [saved.id for saved in listed] == [second, first, "broken"]
    assert listed[0].players == ("Ada", "Bo", "Cy")
    assert listed[0].actions == 2
    assert listed[2].problem is not None and "broken.json" in listed[2].problem
    assert damaged.exists()


def test_loading_a_damaged_game_names_the_file(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.path_of("bad").write_text("[1, 2, 3]", encoding="utf-8")

    with pytest.raises(StoreError, match=r"bad\.json: not a valid game log"):
        store.load("bad")


def test_ids_cannot_escape_the_games_folder(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    with pytest.raises(StoreError, match="not a valid saved-game id"):
        store.path_of("../settings")


def test_export_then_import_gives_an_identical_game_under_a_new_id(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "data")
    game = make_game(levels=3)
    game_id = store.new_id()
    store.save(game_id, game)
    exported = store.export(game_id, tmp_path)

    new_id = store.import_file(exported)

    assert exported == tmp_path / f"{game_id}.json"
    assert new_id != game_id
    assert store.load(new_id).state == game.state


def test_importing_a_file_that_is_not_a_game_log_is_refused_and_adds_nothing(
    tmp_path: Path,
) -> None:
    store = GameStore(tmp_path / "data")
    bogus = tmp_path / "notes.json"
    bogus.write_text('{"hello": "world"}', encoding="utf-8")

    with pytest.raises(StoreError, match=r"notes\.json: not a valid game log"):
        store.import_file(bogus)
    with pytest.raises(StoreError, match=r"missing\.json: no such saved game"):
        store.import_file(tmp_path / "missing.json")
    assert store.list() == []


def test_the_game_saved_last_is_the_one_resumed(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    first, second = store.new_id() + "a", store.new_id() + "b"
    store.save(first, make_game(levels=1))
    store.save(second, make_game(levels=2))
    assert store.last_id == second
    store.save(first, make_game(levels=3))  # back to the first game

    resumed = GameStore(tmp_path).load_last()

    assert resumed is not None and resumed[0] == first
    assert resumed[1].state.players[1].level == 4
