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


def test_old_saves_beside_the_database_are_not_looked_through_on_every_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    text = make_game(levels=1).to_json()
    for number in range(200):
        (folder / f"old-{number:04d}.json").write_text(text, encoding="utf-8")
    os.utime(folder, (1_000_000, 1_000_000))  # copied in long ago
    store = GameStore(tmp_path)  # takes them in
    assert len(store.list()) == 200

    looked: list[str] = []
    real_stat = Path.stat

    def counted_stat(path: Path, *args: object, **kwargs: object) -> os.stat_result:
        if path.suffix == ".json":
            looked.append(path.name)
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "stat", counted_stat)
    for _ in range(3):
        assert len(store.list()) == 200
    assert looked == []

    # A save dropped in later is still seen by the next listing, and a damaged one listed.
    newcomer = store.new_id() + "n"
    (folder / f"{newcomer}.json").write_text(make_game(levels=2).to_json(), encoding="utf-8")
    (folder / "broken.json").write_text('{"format": "munch', encoding="utf-8")
    listed = {saved.id: saved for saved in store.list()}
    assert listed[newcomer].actions == 2
    assert listed["broken"].problem is not None
    store.close()


def test_the_writer_thread_stays_up_while_a_game_is_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    monkeypatch.setattr("companion.store.writer.IDLE_EXIT_S", 0.02)
    store = GameStore(tmp_path)
    recorder = store.recorder()
    game = make_game(levels=0)
    recorder.follow(store.new_id(), game)
    writer = store._writer
    assert writer.running  # up before the first change
    asked = threading.Semaphore(0)
    real = writer._stay_up

    def counted() -> bool:
        answer = real()
        asked.release()
        return answer

    writer._stay_up = counted
    for _ in range(5):  # five idle spells pass: each one asks whether to stay up
        assert asked.acquire(timeout=10)
    assert writer.running
    thread = writer._thread
    game.apply(GoUpLevel(player=0))
    store.flush()
    assert writer._thread is thread  # the change went to the same thread
    recorder.close()  # no game open: the next idle spell ends it
    assert thread is not None
    thread.join(timeout=10)
    assert not writer.running
    store.close()


def test_a_new_id_never_names_a_game_already_saved_or_handed_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same second comes round again (a clock set back, the hour repeated when daylight
    saving ends) and the random part may repeat: a new game must never take an old one's id
    and write over it."""
    from companion.store import games as games_module

    monkeypatch.setattr(games_module.time, "strftime", lambda _format: "20261025-023000")
    suffixes = iter(["aaaa", "aaaa", "aaaa", "bbbb", "bbbb", "cccc"])
    monkeypatch.setattr(games_module.secrets, "token_hex", lambda _n: next(suffixes))
    store = GameStore(tmp_path)
    first = store.new_id()
    old = make_game(levels=4)
    store.save(first, old)
    second = store.new_id()  # handed out, not yet written
    third = store.new_id()
    assert (first, second, third) == (
        "20261025-023000-aaaa",
        "20261025-023000-bbbb",
        "20261025-023000-cccc",
    )
    store.save(third, make_game(levels=1))
    assert store.load(first).state == old.state  # the old game is still there, whole
    store.close()
    # Another process (the next start) knows the saved ids from the database.
    suffixes2 = iter(["aaaa", "cccc", "dddd"])
    monkeypatch.setattr(games_module.secrets, "token_hex", lambda _n: next(suffixes2))
    again = GameStore(tmp_path)
    assert again.new_id() == "20261025-023000-dddd"
    again.close()
