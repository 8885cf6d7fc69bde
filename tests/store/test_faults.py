"""Saved games under faults: a full disk, damaged pages, a write-ahead log removed or
damaged, an empty file, a newer version, a read-only folder. A healthy database is never
set aside; a damaged one is, said so, and what SQLite still reads comes back; every
SQLite error is the store's own; nothing reported saved is lost."""

from __future__ import annotations

import functools
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, suppress
from pathlib import Path

import pytest

from companion.core import Game, GoUpLevel
from companion.core.randomplay import random_game
from companion.store import GameStore, StoreError
from tests.store.fault_tools import (
    CannotHurt,
    child_reports,
    damage_pages,
    fill,
    read_only,
    small_fs_or_skip,
)


def saved_games(folder: Path, count: int = 4, actions: int = 60) -> dict[str, Game]:
    """`count` games saved in `folder`, the last one the game to resume."""
    store = GameStore(folder)
    games = {f"g{number}": random_game(actions + number, seed=number) for number in range(count)}
    for game_id, game in games.items():
        store.save(game_id, game)
    store.close()
    return games


@pytest.fixture
def small_fs() -> Iterator[Path]:
    yield from small_fs_or_skip()


def set_aside(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("games.sqlite3.damaged-*"))


# -- a full disk ----------------------------------------------------------------------------
def test_a_full_disk_at_start_never_sets_a_healthy_database_aside(small_fs: Path) -> None:
    folder = small_fs / "data"
    games = saved_games(folder)
    filler = fill(small_fs)

    store = GameStore(folder)
    assert set_aside(folder) == [], "a healthy database is never renamed"
    assert store.problem is not None and "full" in store.problem
    assert sorted(saved.id for saved in store.list()) == sorted(games)
    assert store.load("g2").state == games["g2"].state  # read what can be read
    store.close()

    filler.unlink()  # room again: the next start uses the database as ever
    again = GameStore(folder)
    assert again.problem is None
    assert sorted(saved.id for saved in again.list()) == sorted(games)
    again.save("g9", random_game(5, seed=9))
    again.close()
    assert "g9" in {saved.id for saved in GameStore(folder).list()}


def test_the_database_is_opened_again_once_there_is_room(
    small_fs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.store.games as games_module

    folder = small_fs / "data"
    games = saved_games(folder, count=2)
    filler = fill(small_fs)
    store = GameStore(folder)
    recorder = store.recorder()
    game = store.load("g1")
    recorder.follow("g1", game)
    game.apply(GoUpLevel(player=0, override="a card says so"))
    store.flush()
    assert store.database != store.home  # played on in a temporary database

    filler.unlink()
    monkeypatch.setattr(games_module, "REOPEN_EVERY_S", 0.0)
    store._next_reopen = 0.0  # the moment the next try is due
    game.apply(GoUpLevel(player=1, override="a card says so"))
    store.flush()
    assert store.database == store.home and store.notice is None
    store.close()
    reopened = GameStore(folder)
    assert reopened.load("g1").state == game.state, "the game played meanwhile is there"
    assert reopened.load("g0").state == games["g0"].state
    reopened.close()


def test_a_database_set_aside_before_is_offered_back_and_recovered(tmp_path: Path) -> None:
    games = saved_games(tmp_path)
    # What earlier versions did on a full disk: a healthy database renamed as damaged.
    (tmp_path / "games.sqlite3").rename(tmp_path / "games.sqlite3.damaged-20260101-120000")

    store = GameStore(tmp_path)
    assert store.list() == []
    assert [path.name for path in store.recoverable] == ["games.sqlite3.damaged-20260101-120000"]
    assert store.problem is not None and "recover" in store.problem
    report = store.recover()
    assert sorted(report.whole) == sorted(games) and report.lost == []
    assert {saved.id: saved.actions for saved in store.list()} == {
        game_id: game.revision for game_id, game in games.items()
    }
    assert store.recoverable == []
    store.close()
    assert GameStore(tmp_path).recoverable == [], "recovered once, not offered again"


# -- damaged pages -------------------------------------------------------------------------
def test_damaged_pages_never_escape_as_sqlite_errors(tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    saved_games(pristine, count=6, actions=120)
    rnd = random.Random(7)
    damaged_starts = 0
    for trial in range(60):
        folder = tmp_path / f"trial-{trial}"
        folder.mkdir()
        (folder / "games.sqlite3").write_bytes((pristine / "games.sqlite3").read_bytes())
        damage_pages(folder / "games.sqlite3", rnd, pages=rnd.choice((1, 3, 8)))
        try:
            store = GameStore(folder)
            for saved in store.list():
                with suppress(StoreError):
                    store.load(saved.id)
            with suppress(StoreError):
                store.load_last()
            store.save("new-game", random_game(3, seed=trial))
            store.close()
        except StoreError:
            pass  # the store's own error: said to the player
        except sqlite3.Error as exc:
            pytest.fail(f"trial {trial}: a raw SQLite error escaped: {exc!r}")
        damaged_starts += bool(set_aside(folder))
    assert damaged_starts > 20, "the damage was found at the start, most of the time"


def test_a_damaged_database_is_set_aside_said_and_recovered(tmp_path: Path) -> None:
    games = saved_games(tmp_path, count=6, actions=150)
    # Pages whose damage SQLite's quick check sees (some bytes of a page are unused, and
    # an index's rows are only compared by the full check): which pages a seed hits
    # moves with the database's layout.
    damage_pages(tmp_path / "games.sqlite3", random.Random(7), pages=2)

    store = GameStore(tmp_path)
    (kept,) = set_aside(tmp_path)
    assert store.problem is not None and kept in store.problem and "recover" in store.problem
    assert [path.name for path in store.recoverable] == [kept]
    report = store.recover()
    # Every game comes back or is said to be lost (a damaged page can also make up an id
    # that is then said lost: its row names no game to bring back).
    assert set(games) <= {*report.whole, *report.shortened, *report.lost}, report
    assert report.brought_back >= 3, report
    for game_id in report.whole:
        assert store.load(game_id).state == games[game_id].state
    for game_id in report.shortened:
        # Up to the damage as it was, then what could still be read after it, in order.
        shortened, original = store.load(game_id).log, iter(games[game_id].log)
        assert all(action in original for action in shortened)
    store.close()
    print(
        f"recovered {len(report.whole)} whole, {len(report.shortened)} cut short, "
        f"{len(report.lost)} lost"
    )


def test_sqlite_errors_mid_session_are_the_stores_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.store.database import DamagedDatabaseError

    saved_games(tmp_path, count=3, actions=200)
    damage_pages(tmp_path / "games.sqlite3", random.Random(11), pages=40)
    # Damage that comes after the start (the start's check would have found this).
    monkeypatch.setattr("companion.store.opening.check", lambda *_args: None)
    store = GameStore(tmp_path)
    problems = []
    for saved in ("g0", "g1", "g2"):
        try:
            store.load(saved)
        except DamagedDatabaseError as exc:
            problems.append(str(exc))
        except StoreError:
            pass
    assert problems, "the damage was met"
    assert all("recover" in problem for problem in problems)
    store.close()


# -- the write-ahead log ----------------------------------------------------------------------
@functools.cache
def _intended() -> Game:
    return random_game(400, seed=5, allow_win=False)


def _play_and_report(folder: Path, report: int, stop: int) -> None:
    """The child: play a game with its recorder, reporting each durable action count."""
    store = GameStore(folder)
    intended = _intended()
    game = Game(intended.setup)
    saved: dict[int, int] = {}
    store.durability.durable_listeners.add(
        lambda _gid, seq: (
            saved.get(seq) is not None and os.write(report, f"{saved[seq]}\n".encode())
        )
    )
    store.recorder().follow("crash", game)
    game.subscribe(lambda _state: saved.__setitem__(game.sequence, game.recorded))
    for action in intended.log[:stop]:
        game.apply(action)
        time.sleep(0.002)
    store.flush()
    time.sleep(30)  # wait to be killed


def _run_child(folder: Path, hurt: Callable[[Path], None], at: int) -> int:
    """Play in a child, `hurt` the folder once `at` actions are reported saved, kill the
    child once 60 more are; returns the most actions it reported saved."""
    _intended()  # made before the child starts, so it starts playing at once
    return child_reports(
        lambda report: _play_and_report(folder, report, stop=400),
        kill_at_s=120.0,
        hurt=lambda: hurt(folder),
        hurt_at_count=at,
        kill_at_count=at + 60,
    )


def _remove_log(folder: Path) -> None:
    Path(f"{folder / 'games.sqlite3'}-wal").unlink(missing_ok=True)


def _garble_log(folder: Path) -> None:
    log = Path(f"{folder / 'games.sqlite3'}-wal")
    if log.exists():
        with log.open("r+b") as handle:
            handle.write(os.urandom(4096))


def _empty_log(folder: Path) -> None:
    log = Path(f"{folder / 'games.sqlite3'}-wal")
    if log.exists():
        os.truncate(log, 0)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize(
    "hurt", [_remove_log, _garble_log, _empty_log], ids=["removed", "garbled", "emptied"]
)
def test_a_write_ahead_log_lost_mid_game_loses_nothing_reported_saved(
    tmp_path: Path, hurt: Callable[[Path], None]
) -> None:
    for trial, at in enumerate((10, 80, 200)):
        folder = tmp_path / f"trial-{trial}"
        folder.mkdir()
        best = _run_child(folder, hurt, at)
        assert best >= at + 60, f"the child did not play on after the fault ({best})"
        store = GameStore(folder)
        game = store.load("crash")
        assert game.recorded >= best, f"{best} actions reported saved, {game.recorded} found"
        store.close()


@pytest.mark.parametrize("emptied_at", [2, 30, 61], ids=["second save", "mid-game", "last save"])
def test_a_write_ahead_log_emptied_right_after_a_save_loses_nothing_reported_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, emptied_at: int
) -> None:
    """The log is emptied in place (same file) between a save's commit and the checkpoint
    that moves it into the database: the save is not reported durable, is written again,
    and the database is never overwritten with what the emptied log holds (zeros)."""
    from companion.store import writer

    seen = {"commits": 0}
    real_identity = writer.wal_identity

    def emptied_after_a_commit(path: Path) -> tuple[int, int] | None:
        seen["commits"] += 1  # asked once after each commit, before its checkpoint
        if seen["commits"] == emptied_at:
            os.truncate(f"{path}-wal", 0)
        return real_identity(path)

    monkeypatch.setattr(writer, "wal_identity", emptied_after_a_commit)
    store = GameStore(tmp_path)
    recorder = store.recorder()
    intended = random_game(120, seed=5, allow_win=False)
    game = Game(intended.setup)
    recorder.follow("g", game)
    reported = 0
    for action in intended.log[:60]:
        game.apply(action)
        store.flush()
        if recorder.is_durable(game.sequence):
            reported = game.recorded
    store.flush()
    store.close()  # the app closed (or was killed) here
    again = GameStore(tmp_path)
    assert again.problem is None  # nothing set aside as damaged
    assert again.load("g").recorded >= reported
    again.close()


def test_saves_go_on_after_the_write_ahead_log_was_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("companion.store.writer.IDLE_EXIT_S", 0.05)
    store = GameStore(tmp_path)
    recorder = store.recorder()
    intended = random_game(200, seed=2, allow_win=False)
    game = Game(intended.setup)
    recorder.follow("g", game)
    for action in intended.log[:50]:
        game.apply(action)
    store.flush()
    _remove_log(tmp_path)
    for action in intended.log[50:100]:
        game.apply(action)
    store.flush()
    assert recorder.is_durable(game.sequence)
    recorder.follow("g", None)  # the game closed: the writer's quiet spell ends it
    deadline = time.monotonic() + 10
    while store._writer._thread is not None:  # its quiet spell: it opens anew after
        assert time.monotonic() < deadline, "the writer thread never ended"
        time.sleep(0.01)
    recorder.follow("g", game)
    for action in intended.log[100:150]:
        game.apply(action)
    store.flush()
    assert recorder.is_durable(game.sequence), "saves go on after the writer opens anew"
    assert [saved.actions for saved in store.list()] == [150]
    store.close()
    assert GameStore(tmp_path).load("g").state == game.state


# -- an empty file, a newer version, a read-only folder ---------------------------------------
def test_a_zero_length_database_is_empty_only_the_first_time(tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"")
    first = GameStore(tmp_path)
    assert first.problem is None and first.list() == []
    first.save("g", random_game(10, seed=1))
    first.close()

    (tmp_path / "games.sqlite3").write_bytes(b"")  # emptied by a crash or a cleaner
    again = GameStore(tmp_path)
    assert again.problem is not None and "empty" in again.problem
    assert len(set_aside(tmp_path)) == 1
    again.close()


def test_a_newer_database_is_said_and_read_as_it_is(tmp_path: Path) -> None:
    games = saved_games(tmp_path)
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        conn.execute("PRAGMA user_version = 99")

    store = GameStore(tmp_path)
    assert store.problem is not None and "newer version" in store.problem
    assert sorted(saved.id for saved in store.list()) == sorted(games)
    assert store.load("g1").state == games["g1"].state
    assert store.last_id == "g3"
    store.save("mine", random_game(4, seed=4))  # kept until the app closes
    assert "mine" in {saved.id for saved in store.list()}
    store.close()
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (99,)


def test_a_read_only_folder_is_said_and_its_games_read(tmp_path: Path) -> None:
    games = saved_games(tmp_path)
    try:
        with read_only(tmp_path):
            store = GameStore(tmp_path)
            assert store.problem is not None
            assert sorted(saved.id for saved in store.list()) == sorted(games)
            assert store.load("g0").state == games["g0"].state
            store.close()
    except CannotHurt as exc:
        pytest.skip(str(exc))


def test_a_damaged_byte_inside_an_action_opens_the_game_up_to_it(tmp_path: Path) -> None:
    games = saved_games(tmp_path, count=2, actions=100)
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        body = conn.execute("SELECT body FROM actions WHERE game_id = 'g1' AND number = 40")
        (text,) = body.fetchone()
        # Still valid JSON, still UTF-8: only the fingerprint chain can tell.
        damaged = text.replace('"player":1', '"player":0') if '"player":1' in text else text + " "
        conn.execute("UPDATE actions SET body = ? WHERE game_id = 'g1' AND number = 40", (damaged,))

    store = GameStore(tmp_path)
    game = store.load("g1")
    (said,) = store.news()
    assert "damaged after action 39 of 101" in said
    assert game.log == games["g1"].log[:39]
    store.flush()
    assert store.load("g1").recorded == 39, "written back without the damaged rows"
    assert store.news() == []
    assert store.load("g0").state == games["g0"].state
    store.close()
