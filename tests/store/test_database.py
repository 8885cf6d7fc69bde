"""The SQLite store: a recorder writes only what changed, undo and redo are kept,
checkpoints are trusted only when the log agrees, old JSON saves are taken in once, and
durability is announced."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest

from companion.core import Game, GoUpLevel
from companion.core.randomplay import random_game
from companion.store import GameStore, StoreError, imports
from companion.store import games as games_module
from companion.store.checkpoints import SAVED_INTERVAL as SAVED_CHECKPOINT_INTERVAL


def rows(store: GameStore, sql: str, *params: object) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(store.database)) as conn, conn:
        return conn.execute(sql, params).fetchall()


@pytest.fixture(scope="module")
def long_game() -> Game:
    return random_game(SAVED_CHECKPOINT_INTERVAL * 2 + 40, seed=11, allow_win=False)


def test_a_save_writes_only_the_new_action(tmp_path: Path, long_game: Game) -> None:
    store = GameStore(tmp_path)
    recorder = store.recorder()
    game = Game.from_actions(long_game.setup, long_game.log[:100])
    recorder.follow("g1", game)
    recorder.save()
    # Mark the first row: if a save rewrote the log, the mark would be gone.
    with closing(sqlite3.connect(store.database)) as conn, conn:
        conn.execute("UPDATE actions SET chain = 'marked' WHERE game_id = 'g1' AND number = 1")
    game.apply(long_game.log[100])
    store.flush()
    assert rows(store, "SELECT chain FROM actions WHERE number = 1") == [("marked",)]
    assert rows(store, "SELECT count(*) FROM actions") == [(101,)]
    store.close()


def test_a_loaded_game_goes_on_from_what_the_database_holds(
    tmp_path: Path, long_game: Game
) -> None:
    GameStore(tmp_path).save("g1", Game.from_actions(long_game.setup, long_game.log[:100]))
    store = GameStore(tmp_path)
    game = store.load("g1")
    recorder = store.recorder()
    recorder.follow("g1", game)
    with closing(sqlite3.connect(store.database)) as conn, conn:
        conn.execute("UPDATE actions SET chain = 'marked' WHERE game_id = 'g1' AND number = 1")
    game.apply(long_game.log[100])
    store.flush()
    assert rows(store, "SELECT chain FROM actions WHERE number = 1") == [("marked",)]
    assert GameStore(tmp_path).load("g1").state == game.state
    store.close()


def test_the_store_hears_each_change_once_and_when_it_is_told(
    tmp_path: Path, long_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(tmp_path)
    waiting: list[object] = []
    recorder = store.recorder(schedule=waiting.append)
    game = Game.from_actions(long_game.setup, long_game.log[:10])
    recorder.follow("g1", game)
    recorder.save()
    submitted: list[int] = []
    real_submit = store.submit
    monkeypatch.setattr(store, "submit", lambda change: submitted.append(1) or real_submit(change))
    for action in long_game.log[10:13]:
        game.apply(action)
    game.undo()
    assert submitted == [] and len(waiting) == 1  # one burst, one write when told
    waiting.pop()()  # the frame is drawn
    assert submitted == [1]
    store.flush()
    assert GameStore(tmp_path).load("g1").revision == 12
    store.close()


def test_undo_redo_and_a_new_branch_are_saved(tmp_path: Path, long_game: Game) -> None:
    store = GameStore(tmp_path)
    recorder = store.recorder()
    game = Game.from_actions(long_game.setup, long_game.log[:50])
    recorder.follow("g1", game)
    game.undo(3)
    recorder.save()
    reopened = GameStore(tmp_path).load("g1")
    assert reopened.revision == 47 and reopened.recorded == 50
    assert reopened.redo(3) == Game.from_actions(long_game.setup, long_game.log[:50]).state
    game.apply(GoUpLevel(player=0, override="a card says so"))
    recorder.save()
    again = GameStore(tmp_path).load("g1")
    assert again.recorded == 48 and not again.can_redo
    assert again.state == game.state
    store.close()


def test_a_long_game_resumes_from_its_checkpoint(tmp_path: Path, long_game: Game) -> None:
    store = GameStore(tmp_path)
    store.save("long", long_game)
    loaded = GameStore(tmp_path).load("long")
    assert loaded.resumed_from == 2 * SAVED_CHECKPOINT_INTERVAL
    assert loaded.state == long_game.state
    store.close()


def test_a_checkpoint_that_disagrees_with_the_log_is_rebuilt(
    tmp_path: Path, long_game: Game
) -> None:
    store = GameStore(tmp_path)
    store.save("long", long_game)
    at = 2 * SAVED_CHECKPOINT_INTERVAL
    wrong = long_game.state_at(7).model_copy(update={"revision": at})
    with closing(sqlite3.connect(store.database)) as conn, conn:
        conn.execute(
            "UPDATE checkpoints SET state = ? WHERE revision = ?", (wrong.model_dump_json(), at)
        )
    first = GameStore(tmp_path)
    loaded = first.load("long")
    assert loaded.state == long_game.state
    assert loaded.resumed_from != at  # not trusted
    first.flush()  # the rebuilt checkpoint is written right after the load
    assert GameStore(tmp_path).load("long").resumed_from == at
    # A checkpoint taken at another log prefix (its fingerprint differs) is not used.
    with closing(sqlite3.connect(store.database)) as conn, conn:
        conn.execute("UPDATE checkpoints SET digest = 'other' WHERE revision = ?", (at,))
    assert GameStore(tmp_path).load("long").state == long_game.state
    store.close()


def test_json_saves_are_taken_in_once_and_kept(tmp_path: Path, long_game: Game) -> None:
    games = tmp_path / "games"
    games.mkdir()
    short = Game.from_actions(long_game.setup, long_game.log[:5])
    (games / "old-one.json").write_text(short.to_json(), encoding="utf-8")
    (games / "old-two.json").write_text(long_game.to_json(), encoding="utf-8")
    (tmp_path / "last-game").write_text("old-one\n", encoding="utf-8")

    store = GameStore(tmp_path)
    assert sorted(s.id for s in store.list()) == ["old-one", "old-two"]
    assert store.load_last() is not None and store.last_id == "old-one"
    assert store.load("old-two").state == long_game.state
    assert (games / "old-one.json").exists()  # originals stay
    store.last_id = "old-two"
    again = GameStore(tmp_path)  # a second start imports nothing twice
    assert len(again.list()) == 2 and again.last_id == "old-two"
    store.close()
    again.close()


def test_an_interrupted_import_carries_on_at_the_next_start(
    tmp_path: Path, long_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = tmp_path / "games"
    games.mkdir()
    for number in range(3):
        game = Game.from_actions(long_game.setup, long_game.log[: 5 + number])
        (games / f"old-{number}.json").write_text(game.to_json(), encoding="utf-8")
    real = imports.read_json
    calls = []

    def power_cut_on_the_second(path: Path, *, saved: bool = False) -> Game:
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process ends here
        return real(path, saved=saved)

    monkeypatch.setattr(imports, "read_json", power_cut_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        GameStore(tmp_path)
    monkeypatch.undo()
    store = GameStore(tmp_path)
    assert sorted((s.id, s.actions) for s in store.list()) == [
        ("old-0", 5),
        ("old-1", 6),
        ("old-2", 7),
    ]
    store.close()


def test_a_damaged_database_is_kept_aside_and_a_new_one_started(tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"this is not a database at all" * 100)
    store = GameStore(tmp_path)
    assert store.problem is not None and "games.sqlite3" in store.problem
    assert [p.name.startswith("games.sqlite3.damaged-") for p in tmp_path.iterdir()].count(True)
    assert store.list() == []
    store.close()


def test_the_list_reads_summaries_without_opening_any_game(
    tmp_path: Path, long_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(tmp_path)
    store.save("long", long_game)

    def no_loading(*_args: object, **_kwargs: object) -> Game:
        raise AssertionError("the list must not open a game")

    monkeypatch.setattr(Game, "resume", no_loading)
    (listed,) = store.list()
    state = long_game.state
    assert listed.actions == len(long_game.log)
    assert listed.players == tuple(p.name for p in state.players)
    assert listed.levels == tuple(p.level for p in state.players)
    store.close()


async def test_a_change_is_queued_at_once_and_durability_is_announced_on_the_loop(
    tmp_path: Path, long_game: Game
) -> None:
    store = GameStore(tmp_path)
    recorder = store.recorder()
    game = Game.from_actions(long_game.setup, long_game.log[:20])
    recorder.follow("g", game)
    heard: list[tuple[str, int, bool]] = []
    store.durability.durable_listeners.add(
        lambda gid, seq: heard.append((gid, seq, threading.current_thread() is main))
    )
    main = threading.current_thread()
    game.apply(long_game.log[20])
    sequence = game.sequence
    await asyncio.wait_for(recorder.wait_durable(sequence), timeout=10)
    assert recorder.is_durable(sequence)
    assert ("g", sequence, True) in heard
    assert GameStore(tmp_path).load("g").state == game.state
    await asyncio.wait_for(recorder.wait_durable(sequence), timeout=1)  # already there
    store.close()


async def test_a_wait_is_for_the_game_followed_when_it_was_asked(
    tmp_path: Path, long_game: Game
) -> None:
    store = GameStore(tmp_path)
    waiting: list[object] = []
    recorder = store.recorder(schedule=waiting.append)
    first = Game.from_actions(long_game.setup, long_game.log[:20])
    recorder.follow("first", first)
    first.apply(long_game.log[20])
    durable = recorder.wait_durable(first.sequence)  # as a counter's press asks
    recorder.follow("second", Game.from_actions(long_game.setup, long_game.log[:3]))
    await asyncio.wait_for(durable, timeout=10)  # the first game's change went first
    assert GameStore(tmp_path).load("first").revision == 21
    store.close()


async def test_a_failed_save_is_reported_to_whoever_waits(
    tmp_path: Path, long_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(tmp_path)
    recorder = store.recorder()
    game = Game.from_actions(long_game.setup, long_game.log[:20])
    recorder.follow("g", game)
    recorder.save()
    problems: list[str] = []
    recorder.problem_listeners.add(problems.append)

    def disk_full(*_args: object, **_kwargs: object) -> str:
        raise OSError("disk full")

    monkeypatch.setattr("companion.store.journal.log_digest", disk_full)
    game.apply(long_game.log[20])
    with pytest.raises(StoreError, match="disk full"):
        await asyncio.wait_for(recorder.wait_durable(game.sequence), timeout=10)
    assert problems == ["disk full"]
    monkeypatch.undo()
    recorder.save()  # written whole this time
    assert GameStore(tmp_path).load("g").state == game.state
    store.close()


def test_a_deleted_game_is_followed_no_more(tmp_path: Path, long_game: Game) -> None:
    store = GameStore(tmp_path)
    recorder = store.recorder()
    game = Game.from_actions(long_game.setup, long_game.log[:20])
    recorder.follow("g", game)
    store.delete("g")
    game.apply(long_game.log[20])
    assert store.list() == [] and recorder.game is None
    store.close()


def test_the_list_can_stop_at_the_newest_games(tmp_path: Path, long_game: Game) -> None:
    store = GameStore(tmp_path)
    for number in range(5):
        store.save(f"g{number}", long_game, wait=False)
    store.flush()
    assert store.count() == 5
    assert [s.id for s in store.list(limit=2)] == ["g4", "g3"]
    assert len(store.list()) == 5
    store.close()


def test_a_folder_that_cannot_hold_the_database_still_opens(
    tmp_path: Path, long_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.store import opening
    from companion.store.database import UnavailableDatabaseError

    real_connect = opening.connect

    def refuse_the_data_folder(path: Path) -> sqlite3.Connection:
        if path.parent == tmp_path:
            raise UnavailableDatabaseError(f"{path}: cannot be opened (read-only file system)")
        return real_connect(path)

    monkeypatch.setattr(opening, "connect", refuse_the_data_folder)
    monkeypatch.setattr(games_module, "connect", refuse_the_data_folder)
    monkeypatch.setattr("companion.store.writer.connect", refuse_the_data_folder)
    store = GameStore(tmp_path)
    assert store.notice is not None and "only until the app closes" in store.notice
    store.save("g", long_game)
    assert store.load("g").state == long_game.state
    assert not (tmp_path / "games.sqlite3").exists()
    store.close()


def test_a_database_from_a_newer_version_is_left_alone(tmp_path: Path) -> None:
    GameStore(tmp_path).close()
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        conn.execute("PRAGMA user_version = 99")
    store = GameStore(tmp_path)
    assert store.notice is not None and "newer version" in store.notice
    assert store.list() == []
    store.close()
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (99,)
