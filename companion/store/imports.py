"""JSON saves of earlier versions, and game logs dropped into the games folder, taken in.

Each file is written into the database together with its record of having been taken
in, in one transaction, and the files themselves stay where they are: an interrupted
import loses nothing and carries on at the next start. A file that is not a game log
is recorded with its problem (and listed as such) until it changes.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from companion.core import Game, check_player_count
from companion.core.errors import RuleError
from companion.core.models import IMPORT_WITHOUT_HOUSE_RULE
from companion.core.phrase import Phrase
from companion.plumbing.errors import NotAFileError, StoreError
from companion.plumbing.files import read_capped
from companion.store.cover import LAST_GAME_KEY
from companion.store.journal import set_meta

GAMES_DIR = "games"
LAST_GAME_FILE = "last-game"
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$")
# Set once the `last-game` file of earlier versions was taken in.
MARKER_IMPORTED_KEY = "last_game_file_imported"
# A game log of 100,000 actions is about 10 MB; a file far larger is not one.
MAX_LOG_BYTES = 64_000_000
# The `last-game` file holds one id.
MAX_MARKER_BYTES = 1024


@dataclass(frozen=True)
class Found:
    """One file to take in: its game, or why it is not one."""

    path: Path
    mtime: float
    game: Game | None
    problem: str | None = None


def check_id(game_id: str) -> None:
    """Refuse ids that could escape the games folder or are not ours."""
    if not ID_RE.match(game_id):
        raise StoreError(f"'{game_id}' is not a valid saved-game id")


def to_take_in(
    folder: Path, done: Mapping[str, float], only: Path | None = None
) -> Iterator[Found]:
    """The game logs in `folder` not taken in yet, or changed since (`done`: file name ->
    modification time when it was taken in); each is read only when its turn comes."""
    try:
        candidates = [only] if only is not None else list(folder.glob("*.json"))
    except OSError:
        return
    dated = []
    for path in candidates:
        try:
            dated.append((path.stat().st_mtime, path))
        except OSError:
            continue
    # Oldest first: the saved games list puts the game taken in last first.
    for mtime, path in sorted(dated):
        if done.get(path.name) == mtime or not ID_RE.match(path.stem):
            continue
        try:  # a file in the games folder is a save of an earlier version: names as written
            yield Found(path, mtime, read_json(path, saved=True))
        except StoreError as exc:
            yield Found(path, mtime, None, str(exc))


def read_json(path: Path, *, saved: bool = False) -> Game:
    """A game-log file; StoreError naming the file and the cause when it is not one.

    It enters as a new game (an import): blank or look-alike player names are refused,
    and so is a count of players the edition's box does not name when the log does not
    choose the house rule for it (a log of rules before 4 never had to), unless it is
    `saved` by the app itself (`Game.from_dict`, `check_player_count`)."""
    try:
        text = read_capped(path, MAX_LOG_BYTES).decode("utf-8")
    except FileNotFoundError as exc:
        raise StoreError(f"{path}: no such saved game") from exc
    except NotAFileError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path}: cannot be read ({exc})") from exc
    try:
        game = Game.from_json(text, saved=saved)
    except ValueError as exc:
        raise StoreError(f"{path}: not a valid game log: {_one_line(exc)}") from exc
    if not saved:
        try:
            check_player_count(game.setup)
        except RuleError as exc:
            raise StoreError(
                Phrase(IMPORT_WITHOUT_HOUSE_RULE, file=str(path), why=exc.phrase)
            ) from exc
    return game


def record_import(
    conn: sqlite3.Connection,
    file: str,
    mtime: float,
    game_id: str | None = None,
    problem: str | None = None,
) -> None:
    """Note that a file was taken in (as that game, or with that problem)."""
    conn.execute(
        "INSERT OR REPLACE INTO imported (file, game_id, mtime, problem) VALUES (?, ?, ?, ?)",
        (file, game_id, mtime, problem),
    )


def import_marker(conn: sqlite3.Connection, marker: Path) -> None:
    """The `last-game` file of earlier versions becomes the game to resume, once."""
    seen = conn.execute("SELECT 1 FROM meta WHERE key = ?", (MARKER_IMPORTED_KEY,)).fetchone()
    if seen is not None:
        return
    try:
        game_id = read_capped(marker, MAX_MARKER_BYTES).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError, StoreError):  # not one of ours: passed over
        game_id = ""
    if ID_RE.match(game_id):
        set_meta(conn, LAST_GAME_KEY, game_id)
    set_meta(conn, MARKER_IMPORTED_KEY, "1")


def _one_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
