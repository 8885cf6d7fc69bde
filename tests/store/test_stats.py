"""Statistics kept beside the saved games: written with each save, made once in the
background for games saved before, read without opening a game; a damaged game is
left out and counted."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from companion.core import Game, GoUpLevel
from companion.core.statistics import (
    STATS_ENGINE,
    PlayerFigures,
    summarise,
    table_statistics,
)
from companion.core.trends import Trends
from companion.store import GameStore
from companion.store.database import SCHEMA_VERSION
from tests.core.test_statistics import first_game, second_game, unfinished_game

FIRST, SECOND, THIRD = "20261129-040000-0001", "20261129-050000-0002", "20261129-060000-0003"


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(path / "games.sqlite3")) as conn:
        return conn.execute(sql).fetchall()


def _change(path: Path, *sql: str) -> None:
    with closing(sqlite3.connect(path / "games.sqlite3")) as conn, conn:
        for statement in sql:
            conn.execute(statement)


def test_a_save_keeps_the_games_summary(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    game = first_game()
    store.save(FIRST, game)
    stored = store.statistics()
    assert (stored.waiting, stored.unreadable) == (0, 0)
    assert stored.summaries == [summarise(game.setup, game.log)]
    store.close()


def test_a_followed_game_is_summarised_as_it_goes_undo_included(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    recorder = store.recorder()
    source = first_game()
    game = Game(source.setup)
    recorder.follow(FIRST, game)
    for number, action in enumerate(source.log):
        game.apply(action)
        recorder.save()
        if number == 5:  # an undo saved, then the same action again
            game.undo()
            recorder.save()
            game.apply(action)
        if number == 8:  # an undo not saved, and another action in its place
            game.undo()
            game.apply(GoUpLevel(player=1))
            recorder.save()
            game.undo()
            game.apply(action)
    recorder.save()
    assert store.statistics().summaries == [summarise(source.setup, source.log)]
    store.close()


def test_games_saved_before_statistics_are_summarised_once_in_the_background(
    tmp_path: Path,
) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, second_game())
    store.close()
    # The database as the version before statistics left it.
    _change(tmp_path, "DROP TABLE stats", "PRAGMA user_version = 2")
    store = GameStore(tmp_path)
    before = store.statistics()
    assert (before.summaries, before.waiting) == ([], 2)
    job = store.summarise_waiting()
    assert job.finished.wait(30)
    assert (job.done, job.total, job.unreadable) == (2, 2, 0)
    after = store.statistics()
    assert after.waiting == 0
    table = table_statistics(after.summaries).table
    assert (table.games, table.wins, table.totals.kills) == (2, 2, 5)  # Ann 3, Cy 1, Bo 1
    assert _rows(tmp_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    # Done once: nothing waits the next time.
    assert store.summarise_waiting().total == 0
    store.close()


def test_a_damaged_game_is_left_out_and_counted(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, second_game())
    store.save(THIRD, unfinished_game())
    store.close()
    _change(
        tmp_path,
        # An action's text changed under its fingerprint, and no summary yet.
        f"UPDATE actions SET body = '{{\"type\":\"end_turn\"}}' WHERE game_id = '{FIRST}' "
        "AND number = 3",
        f"DELETE FROM stats WHERE game_id = '{FIRST}'",
        # A summary damaged in place.
        f"UPDATE stats SET summary = '{{\"players\": 1' WHERE game_id = '{SECOND}'",
    )
    store = GameStore(tmp_path)
    job = store.summarise_waiting()
    assert job.finished.wait(30)
    assert (job.total, job.unreadable) == (1, 1)
    stored = store.statistics()
    assert (stored.unreadable, stored.waiting, len(stored.summaries)) == (2, 0, 1)
    assert stored.summaries[0].players == ("Ann", "Bo")
    store.close()


def test_a_summary_of_an_older_engine_is_made_again(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, second_game())
    store.close()
    _change(tmp_path, "UPDATE stats SET engine = 'old', summary = 'what it said then'")
    store = GameStore(tmp_path)
    assert store.statistics().waiting == 1
    assert store.summarise_waiting().finished.wait(30)
    assert _rows(tmp_path, "SELECT engine FROM stats") == [(STATS_ENGINE,)]
    assert len(store.statistics().summaries) == 1
    store.close()


def test_a_deleted_game_takes_its_summary_with_it(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.delete(FIRST)
    assert store.statistics().summaries == []
    assert _rows(tmp_path, "SELECT count(*) FROM stats") == [(0,)]
    store.close()


def test_a_game_deleted_and_another_saved_is_no_longer_counted(tmp_path: Path) -> None:
    """Read between the delete and the save or not, the statistics hold the new game and
    not the deleted one, though as many games are saved as before."""
    store = GameStore(tmp_path)
    first, second = first_game(), second_game()
    store.save(FIRST, first)
    assert store.statistics().summaries == [summarise(first.setup, first.log)]
    store.delete(FIRST)
    store.save("20261129-050000-0001", second)
    assert store.statistics().summaries == [summarise(second.setup, second.log)]
    _same_figures(store)
    store.close()


def _same_figures(store: GameStore) -> None:
    """The figures the store hands out are those of its summaries added up afresh (of
    games tied for a record, either may be named)."""
    stored = store.statistics()
    kept, afresh = stored.figures(), table_statistics(stored.summaries)
    for figures in [kept.table, afresh.table, *kept.players, *afresh.players]:
        for kind in ("fastest_win", "longest_game"):
            found = getattr(figures, kind)
            if found is not None:
                setattr(figures, kind, replace(found, players=()))
    assert kept == afresh


def test_after_a_save_only_that_game_is_added_up_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(tmp_path)
    for number in range(6):
        store.save(f"20261129-0{number}0000-000{number}", second_game())
    recorder = store.recorder()
    source = first_game()
    game = Game(source.setup)
    recorder.follow(FIRST, game)
    for action in source.log[:4]:
        game.apply(action)
    recorder.save()
    store.statistics().figures()
    added: list[object] = []
    add = PlayerFigures.add
    monkeypatch.setattr(
        PlayerFigures, "add", lambda mine, other: (added.append(1), add(mine, other))
    )
    game.apply(source.log[4])
    recorder.save()
    store.statistics().figures()
    # The game saved, its three players, each into their own figures and the table's:
    # not the other six games.
    assert len(added) == 3 * 2
    monkeypatch.setattr(PlayerFigures, "add", add)
    for action in source.log[5:]:
        game.apply(action)
        recorder.save()
        _same_figures(store)
    store.close()


def test_running_totals_follow_undo_delete_and_records(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(SECOND, second_game())
    store.save(THIRD, unfinished_game())
    recorder = store.recorder()
    source = first_game()
    game = Game(source.setup)
    recorder.follow(FIRST, game)
    for action in source.log:
        game.apply(action)
        recorder.save()
        _same_figures(store)
    # The longest game undone back to a few turns: the record goes to another game.
    for _ in range(len(source.log) - 2):
        game.undo()
        recorder.save()
        _same_figures(store)
    longest = store.statistics().figures().table.longest_game
    assert longest is not None and longest.turns > game.state.turn
    store.delete(SECOND)
    _same_figures(store)
    store.delete(FIRST)
    _same_figures(store)
    store.close()


def test_the_pictures_follow_saves_and_deletes_in_the_order_played(tmp_path: Path) -> None:
    """Each player's last games come in the order they were played (a game played on is
    the latest), and the months from when each game was first saved; a save after the
    first reading, and a delete, are seen."""

    def month_of(at: float) -> tuple[int, int]:
        return (2026, int(at))  # the test's times are months of 2026

    def pictures() -> Trends:
        return store.statistics().trends(month_of=month_of, this_month=(2026, 12))

    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, second_game())
    recorder = store.recorder()
    third = unfinished_game()
    recorder.follow(THIRD, third)  # played in the app: saved as it goes
    recorder.save()
    store.flush()
    _change(
        tmp_path,
        f"UPDATE games SET created = 3 WHERE id = '{FIRST}'",
        f"UPDATE games SET created = 5 WHERE id IN ('{SECOND}', '{THIRD}')",
    )
    found = pictures()
    assert dict(found.months)[(2026, 3)] == 1 and dict(found.months)[(2026, 5)] == 2
    # Bo: lost the first game at Level 1, won the second, is at Level 1 in the third.
    assert [(f.level, f.won) for f in found.finishes("Bo")] == [(1, False), (10, True), (1, False)]
    store.save(SECOND.replace("2", "4"), second_game())  # a fourth game, played last
    third.apply(GoUpLevel(player=0))
    recorder.save()  # the third played on: now the latest
    assert [f.level for f in pictures().finishes("Bo")] == [1, 10, 10, 1]
    store.delete(FIRST)
    assert [f.level for f in pictures().finishes("Bo")] == [10, 10, 1]
    # The second and third games; the fourth was saved today, long after this picture.
    assert sum(count for _month, count in pictures().months) == 2
    store.close()


def test_summaries_read_ahead_give_the_same_statistics_as_read_when_asked(
    tmp_path: Path,
) -> None:
    """The app reads the summaries ahead on a worker thread; statistics asked for while
    it reads, and after, are the same as a store that never read ahead finds."""
    store = GameStore(tmp_path)
    for number, game in enumerate((first_game(), second_game(), unfinished_game()) * 20):
        store.save(f"20261129-0400{number:02d}-00{number:02d}", game, wait=False)
    store.flush()
    store.read_statistics_ahead()
    during = store.statistics()  # waits for the reading ahead when it is still going
    after = store.statistics()
    store.close()
    fresh = GameStore(tmp_path)
    expected = fresh.statistics()
    for found in (during, after):
        assert found.figures() == expected.figures()
        assert (found.unreadable, found.waiting) == (expected.unreadable, expected.waiting)
    fresh.close()
