"""Finished games exported as BG Stats plays and as CSV: the plays hold to the format BG
Stats documents for apps that hand plays over (modelled below from its documentation), the
CSV opens with the csv module, and the figures are the ones worked out by hand."""

from __future__ import annotations

import csv
import json
import sqlite3
import urllib.parse
from contextlib import closing
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from companion.store import GameStore
from companion.store.exports import (
    BGSTATS_LINK,
    ExportError,
    bgstats_link,
    bgstats_play,
    bgstats_text,
    csv_text,
    parse_since,
    select,
    write_whole,
)
from companion.store.plays import PlayedGame
from tests.core.test_statistics import first_game, second_game, unfinished_game

FIRST, SECOND, THIRD = "20261129-040000-0001", "20261129-050000-0002", "20261129-060000-0003"
# When each game was first and last saved (UTC): the first took 45 minutes, the second
# was put away and finished two days later, the third is not finished.
TIMES = {
    FIRST: (datetime(2026, 11, 20, 19, 30, tzinfo=UTC), datetime(2026, 11, 20, 20, 15, tzinfo=UTC)),
    SECOND: (datetime(2026, 11, 21, 18, 0, tzinfo=UTC), datetime(2026, 11, 23, 18, 5, tzinfo=UTC)),
    THIRD: (datetime(2026, 11, 22, 9, 0, tzinfo=UTC), datetime(2026, 11, 22, 9, 20, tzinfo=UTC)),
}


# --- BG Stats' play, as its documentation for apps lays it out -------------------------
# https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/
# A play is a JSON object handed over url-encoded in
# bgstats://app.bgstatsapp.com/createPlay.html?data=<data>; its fields are those of the
# documented example (sourceName and sourcePlayId say which app, and which of its plays).
# No other field is allowed here, so a field BG Stats does not know fails the test.
class BgsGame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    bggId: int = Field(gt=0)
    highestWins: bool
    name: str = Field(min_length=1)
    noPoints: bool
    sourceGameId: str = Field(min_length=1)


class BgsPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1)
    sourcePlayerId: str = Field(min_length=1)
    startPlayer: bool = False
    winner: bool = False
    score: float | int | None = None
    rank: int | None = None
    role: str | None = None


class BgsPlay(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    sourceName: str = Field(min_length=1)
    sourcePlayId: str | None = None
    playDate: str = Field(pattern=r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")
    durationMin: int | None = Field(default=None, ge=0)
    board: str | None = None
    comments: str | None = None
    location: str | None = None
    game: BgsGame
    players: list[BgsPlayer] = Field(min_length=1)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    store = GameStore(tmp_path)
    for game_id, game in zip(
        (FIRST, SECOND, THIRD), (first_game(), second_game(), unfinished_game()), strict=True
    ):
        store.save(game_id, game)
    store.close()
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        for game_id, (started, saved) in TIMES.items():
            conn.execute(
                "UPDATE games SET created = ?, updated = ? WHERE id = ?",
                (started.timestamp(), saved.timestamp(), game_id),
            )
    return tmp_path


@pytest.fixture
def played(folder: Path) -> list[PlayedGame]:
    store = GameStore(folder)
    try:
        return store.played().games
    finally:
        store.close()


def test_the_games_come_in_the_order_they_were_started_with_their_times(
    played: list[PlayedGame],
) -> None:
    assert [(game.id, game.started, game.saved) for game in played] == [
        (game_id, *TIMES[game_id]) for game_id in (FIRST, SECOND, THIRD)
    ]
    assert played[0].minutes == 45


def test_a_play_holds_to_bg_stats_documented_format_with_the_games_figures(
    played: list[PlayedGame],
) -> None:
    play = BgsPlay.model_validate(bgstats_play(played[0], UTC))
    assert play.sourceName == "Munchkin Companion"
    assert play.sourcePlayId == FIRST
    assert play.playDate == "2026-11-20 19:30:00"
    assert play.durationMin == 45
    assert play.board == "Classic fantasy"
    assert play.game == BgsGame(
        bggId=1927, highestWins=True, name="Munchkin", noPoints=False, sourceGameId="munchkin"
    )
    # Ann won at Level 10 and played turn 1; Bo ended at Level 1, Cy at 2.
    assert [(p.name, p.score, p.winner, p.startPlayer) for p in play.players] == [
        ("Ann", 10, True, True),
        ("Bo", 1, False, False),
        ("Cy", 2, False, False),
    ]
    assert [p.sourcePlayerId for p in play.players] == ["ann", "bo", "cy"]


def test_a_game_put_away_and_resumed_has_no_duration_and_bo_started_it(
    played: list[PlayedGame],
) -> None:
    play = BgsPlay.model_validate(bgstats_play(played[1], UTC))
    assert play.durationMin is None  # two days between its first and last save
    assert play.board == "Martial arts"
    assert [(p.name, p.score, p.winner, p.startPlayer) for p in play.players] == [
        ("Ann", 1, False, False),
        ("Bo", 10, True, True),
    ]


def test_the_link_opens_the_same_play_in_bg_stats(played: list[PlayedGame]) -> None:
    play = bgstats_play(played[0], UTC)
    link = bgstats_link(play)
    assert link.startswith(BGSTATS_LINK)
    data = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["data"]
    assert json.loads(data[0]) == play


def test_one_game_is_one_play_and_many_are_a_list_of_plays(played: list[PlayedGame]) -> None:
    finished = select(played)
    assert [game.id for game in finished] == [FIRST, SECOND]  # the third is not finished
    one = json.loads(bgstats_text(finished[:1], one=True, zone=UTC))
    BgsPlay.model_validate(one)
    many = json.loads(bgstats_text(finished, one=False, zone=UTC))
    assert [BgsPlay.model_validate(play).sourcePlayId for play in many] == [FIRST, SECOND]


def test_the_csv_opens_with_the_csv_module_one_row_per_player_per_game(
    played: list[PlayedGame], tmp_path: Path
) -> None:
    path = write_whole(tmp_path / "out" / "plays.csv", csv_text(select(played), UTC))
    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [
        (r["date"], r["game"], r["edition"], r["player"], r["level"], r["won"]) for r in rows
    ] == [
        ("2026-11-20 19:30", FIRST, "classic", "Ann", "10", "1"),
        ("2026-11-20 19:30", FIRST, "classic", "Bo", "1", "0"),
        ("2026-11-20 19:30", FIRST, "classic", "Cy", "2", "0"),
        ("2026-11-21 18:00", SECOND, "fu", "Ann", "1", "0"),
        ("2026-11-21 18:00", SECOND, "fu", "Bo", "10", "1"),
    ]
    # Ann killed 3 (two in one fight), helped once; Bo died running from the Nasty.
    ann, bo, cy = rows[:3]
    assert (ann["kills"], ann["helped kills"], ann["deaths"]) == ("3", "1", "0")
    assert (bo["kills"], bo["deaths"], cy["kills"]) == ("0", "1", "1")
    assert [r["turns"] for r in rows] == ["4", "4", "4", "1", "1"]
    assert [r["minutes"] for r in rows] == ["45", "45", "45", "", ""]
    assert [r["started"] for r in rows] == ["1", "0", "0", "0", "1"]
    assert path.read_bytes().startswith("\ufeff".encode())  # spreadsheets read accents right


@pytest.mark.parametrize(
    ("asked", "found"),
    [
        ({"game_id": SECOND}, [SECOND]),
        ({"edition": "classic"}, [FIRST]),
        ({"since": date(2026, 11, 21)}, [SECOND]),
    ],
)
def test_games_are_chosen_by_id_edition_or_date(
    played: list[PlayedGame], asked: dict[str, object], found: list[str]
) -> None:
    assert [game.id for game in select(played, zone=UTC, **asked)] == found  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ({"game_id": "nope"}, "no saved game has the id 'nope'"),
        ({"game_id": THIRD}, f"game {THIRD} is not finished"),
        ({"edition": "space"}, "no edition is called 'space'; known: adventure_time, classic"),
        ({"edition": "oz"}, "no finished game matches"),
        ({"since": date(2027, 1, 1)}, "no finished game matches"),
    ],
)
def test_what_cannot_be_exported_is_said(
    played: list[PlayedGame], asked: dict[str, object], said: str
) -> None:
    with pytest.raises(ExportError, match=said.replace("(", r"\(")):
        select(played, **asked)  # type: ignore[arg-type]


def test_a_date_that_is_not_one_is_said() -> None:
    assert parse_since("2026-11-21") == date(2026, 11, 21)
    with pytest.raises(ExportError, match=r"'21\.11\.2026' is not a date like 2025-01-31"):
        parse_since("21.11.2026")
