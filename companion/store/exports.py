"""Finished games written out for other programs: as BG Stats plays (the JSON its makers
document for apps that hand plays over, https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/)
and as CSV for a spreadsheet, one row per player per game. Made from the statistics
summaries and the times the store keeps (`companion.store.plays`): no log is replayed.

A file is written whole or not at all (a temporary file renamed over it). Nothing is sent
anywhere: the files stay where they are written.
"""

from __future__ import annotations

import csv
import io
import json
import urllib.parse
from collections.abc import Iterable, Sequence
from datetime import date, tzinfo
from pathlib import Path
from typing import Any

from companion.core.models import EDITIONS
from companion.core.statistics import player_key
from companion.plumbing.errors import StoreError
from companion.plumbing.files import atomic_write_text
from companion.store.plays import PlayedGame

# The game as BG Stats and BoardGameGeek know it: every edition here is Munchkin, told
# apart by its "board" (BG Stats' field for the board or variant played).
BGG_ID = 1927
GAME_NAME = "Munchkin"
SOURCE_NAME = "Munchkin Companion"
SOURCE_GAME_ID = "munchkin"
# BG Stats opens a play handed to it as JSON in this link (the same documentation).
BGSTATS_LINK = "bgstats://app.bgstatsapp.com/createPlay.html?data="
# A game whose first and last saves are further apart than this was not played in one
# sitting (it was put away and resumed): its time played is not known, so none is given.
LONGEST_SITTING_MIN = 12 * 60
# The data folder's folder the app writes exports into.
EXPORTS_DIR = "exports"

CSV_COLUMNS = (
    "date",
    "game",
    "edition",
    "seat",
    "player",
    "level",
    "won",
    "kills",
    "helped kills",
    "deaths",
    "turns",
    "minutes",
    "started",
)


class ExportError(StoreError):
    """The games asked for cannot be exported (none match, an unknown edition...)."""


def edition_name(edition: str) -> str:
    known = EDITIONS.get(edition)
    return known.name if known is not None else edition


def minutes_played(game: PlayedGame) -> int | None:
    """Whole minutes from the game's first save to its last, when it was played in one
    sitting (None otherwise, or when it took less than a minute)."""
    minutes = round(game.minutes)
    return minutes if 0 < minutes <= LONGEST_SITTING_MIN else None


def select(
    games: Iterable[PlayedGame],
    *,
    game_id: str | None = None,
    edition: str | None = None,
    since: date | None = None,
    zone: tzinfo | None = None,
) -> list[PlayedGame]:
    """The finished games asked for: one by id, those of an edition, those started on
    `since` or after (in the time zone `zone`, the local one by default). ExportError
    when none matches, saying why."""
    games = list(games)
    if (
        edition is not None
        and edition not in EDITIONS
        and all(game.summary.edition != edition for game in games)
    ):
        raise ExportError(f"no edition is called {edition!r}; known: {', '.join(sorted(EDITIONS))}")
    if game_id is not None:
        games = [game for game in games if game.id == game_id]
        if not games:
            raise ExportError(f"no saved game has the id {game_id!r}")
        if not games[0].summary.finished:
            raise ExportError(f"game {game_id} is not finished: only finished games are exported")
    chosen = [
        game
        for game in games
        if game.summary.finished
        and (edition is None or game.summary.edition == edition)
        and (since is None or game.started.astimezone(zone).date() >= since)
    ]
    if not chosen:
        raise ExportError("no finished game matches")
    return chosen


def bgstats_play(game: PlayedGame, zone: tzinfo | None = None) -> dict[str, Any]:
    """One game as a BG Stats play: the game (BoardGameGeek's id, highest score wins),
    when it started (in `zone`, the local time by default), each player with their final
    Level as the score, the winners and who played turn 1."""
    summary = game.summary
    play: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": game.id,
        "playDate": game.started.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S"),
        "game": {
            "bggId": BGG_ID,
            "name": GAME_NAME,
            "highestWins": True,
            "noPoints": False,
            "sourceGameId": SOURCE_GAME_ID,
        },
        "board": edition_name(summary.edition),
        "players": [
            {
                "name": name,
                "sourcePlayerId": player_key(name),
                "score": summary.levels[seat],
                "winner": seat in summary.winners,
                "startPlayer": seat == summary.starter,
            }
            for seat, name in enumerate(summary.players)
        ],
    }
    minutes = minutes_played(game)
    if minutes is not None:
        play["durationMin"] = minutes
    return play


def bgstats_link(play: dict[str, Any]) -> str:
    """The link that opens one play in BG Stats, on a phone that has it."""
    text = json.dumps(play, ensure_ascii=False, separators=(",", ":"))
    return BGSTATS_LINK + urllib.parse.quote(text, safe="")


def bgstats_text(games: Sequence[PlayedGame], *, one: bool, zone: tzinfo | None = None) -> str:
    """The plays as JSON: the play itself when `one` game was asked for, else a list of
    plays (BG Stats takes one play at a time; a list is for scripts to hand them over)."""
    plays = [bgstats_play(game, zone) for game in games]
    return json.dumps(plays[0] if one else plays, ensure_ascii=False, indent=2) + "\n"


def csv_rows(games: Iterable[PlayedGame], zone: tzinfo | None = None) -> list[dict[str, object]]:
    """One row per player per game, the columns of `CSV_COLUMNS`."""
    rows: list[dict[str, object]] = []
    for game in games:
        summary = game.summary
        when = game.started.astimezone(zone).strftime("%Y-%m-%d %H:%M")
        minutes = minutes_played(game)
        for seat, name in enumerate(summary.players):
            figures = summary.figures[seat]
            rows.append(
                {
                    "date": when,
                    "game": game.id,
                    "edition": summary.edition,
                    "seat": seat + 1,
                    "player": name,
                    "level": summary.levels[seat],
                    "won": int(seat in summary.winners),
                    "kills": figures.kills,
                    "helped kills": figures.helped_kills,
                    "deaths": figures.deaths,
                    "turns": summary.turns,
                    "minutes": "" if minutes is None else minutes,
                    "started": int(seat == summary.starter),
                }
            )
    return rows


def csv_text(games: Iterable[PlayedGame], zone: tzinfo | None = None) -> str:
    """The rows as CSV, with a header, opening with a byte-order mark so that spreadsheets
    read the names' accents right."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_rows(games, zone))
    return "\ufeff" + out.getvalue()


def write_whole(path: Path, text: str) -> Path:
    """Write `text` to `path` whole or not at all; StoreError saying why it could not."""
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise StoreError(f"{path}: cannot be written ({exc.strerror or exc})") from exc
    return path


def parse_since(text: str) -> date:
    """A --since date (YYYY-MM-DD); ExportError when it is not one."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ExportError(f"{text!r} is not a date like 2025-01-31") from None
