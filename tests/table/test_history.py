"""The table's history at Game over: what a won game meant, worked out from the summaries
of the games saved before it (never their logs), and the game exported for BG Stats and a
spreadsheet into the data folder."""

from __future__ import annotations

import csv
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from companion.core import Game
from companion.core.milestones import Milestone, MilestoneKind
from companion.store import GameStore, StoreError
from companion.table.app import Table
from tests.core.conftest import make_game
from tests.core.test_milestones import ends_turns, win

SUMMARY_WAIT_S = 30.0


def earlier_games(table: Table) -> None:
    """Ann won in 9 turns (a Slime), Bo in 6 (a Troll); a game of 12 turns was left."""
    first = win(make_game(players=2), 0, 9)
    second = win(make_game(players=2), 1, 6, "Troll")
    third = make_game(players=2)
    ends_turns(third, 11)
    for number, game in enumerate((first, second, third), start=1):
        table.games.save(f"20261120-20000{number}-000{number}", game)


def play_to_a_win(table: Table, seat: int, at_turn: int, monster_name: str) -> Game:
    """A new game opened at the table and won there, action by action."""
    source = win(make_game(players=2), seat, at_turn, monster_name)
    game = Game(source.setup)
    table.adopt(game)
    for action in source.log:
        game.apply(action)
    return game


@pytest.fixture
def table(tmp_path: Path) -> Table:
    table = Table(tmp_path)
    yield table
    table.shutdown()


def test_a_won_game_says_what_it_meant_at_the_table(table: Table) -> None:
    earlier_games(table)
    play_to_a_win(table, 0, 7, "Plutonium Dragon")
    assert table.meaning() == [
        Milestone(MilestoneKind.WINS, "Ann", 2),
        Milestone(MilestoneKind.FASTEST_WIN, "Ann", 7),
        Milestone(MilestoneKind.FIRST_KILL, "Plutonium Dragon"),
    ]


def test_a_winner_merged_into_someone_since_counts_as_that_person(table: Table) -> None:
    earlier_games(table)  # Ann won once, in 9 turns
    source = win(make_game(players=2), 0, 7, "Slime")
    anne = source.setup.players[0].model_copy(update={"name": "Anne"})
    game = Game(source.setup.model_copy(update={"players": (anne, *source.setup.players[1:])}))
    table.adopt(game)  # saved: Anne is someone new
    table.games.people.merge("Anne", "Ann")  # "Anne was Ann", said while the game goes on
    for action in source.log:
        game.apply(action)
    assert table.meaning() == [
        Milestone(MilestoneKind.WINS, "Ann", 2),
        Milestone(MilestoneKind.FASTEST_WIN, "Ann", 7),
    ]


def test_the_first_game_at_a_table_and_a_game_going_on_say_nothing(table: Table) -> None:
    play_to_a_win(table, 0, 3, "Slime")
    assert table.meaning() == []
    earlier_games(table)
    table.adopt(make_game(players=2))
    assert table.meaning() == []


def test_the_meaning_reads_summaries_and_never_opens_an_earlier_game(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    earlier_games(table)

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("an earlier game was opened or folded again")

    monkeypatch.setattr(GameStore, "load", refused)
    monkeypatch.setattr("companion.store.shelf.summarise", refused)
    play_to_a_win(table, 1, 2, "Troll")
    assert table.meaning()[0] == Milestone(MilestoneKind.WINS, "Bo", 2)


def test_games_waiting_to_be_summarised_are_summarised_and_then_counted(
    table: Table, tmp_path: Path
) -> None:
    earlier_games(table)
    table.games.flush()
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        conn.execute("UPDATE stats SET engine = '1'")  # as an older version made them
    play_to_a_win(table, 0, 7, "Plutonium Dragon")
    assert table.meaning() == []  # a record against some of the games only is none
    job = table.games.summarise_waiting()
    assert job.finished.wait(SUMMARY_WAIT_S), "the older games were not summarised in time"
    assert [m.kind for m in table.meaning()] == [
        MilestoneKind.WINS,
        MilestoneKind.FASTEST_WIN,
        MilestoneKind.FIRST_KILL,
    ]


def test_the_open_game_is_exported_into_the_data_folder(table: Table, tmp_path: Path) -> None:
    play_to_a_win(table, 1, 4, "Troll")
    bgstats, spreadsheet = table.export_game()
    assert bgstats == tmp_path / "exports" / f"{table.game_id}-bgstats.json"
    play = json.loads(bgstats.read_text(encoding="utf-8"))
    assert [(p["name"], p["score"], p["winner"]) for p in play["players"]] == [
        ("Ann", 1, False),
        ("Bo", 10, True),
    ]
    with spreadsheet.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["player"], row["level"], row["won"], row["turns"]) for row in rows] == [
        ("Ann", "1", "0", "4"),
        ("Bo", "10", "1", "4"),
    ]


def test_a_game_going_on_is_not_exported(table: Table, tmp_path: Path) -> None:
    table.adopt(make_game(players=2))
    with pytest.raises(StoreError, match="not finished"):
        table.export_game()
    assert not (tmp_path / "exports").exists()
