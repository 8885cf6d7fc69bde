"""Saved games: one crash-safe JSON game log per game, the last one remembered for resuming."""

from __future__ import annotations

import contextlib
import re
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from companion.core import Game
from companion.store.files import StoreError, atomic_write_text, data_dir

GAMES_DIR = "games"
LAST_GAME_FILE = "last-game"
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$")


@dataclass(frozen=True)
class SavedGame:
    """What the saved-games list shows about one file, without opening the game."""

    id: str
    path: Path
    updated: datetime
    players: tuple[str, ...]
    actions: int
    winners: tuple[str, ...]
    # Set when the file cannot be read as a game; the file is left untouched.
    problem: str | None = None

    @property
    def title(self) -> str:
        """A short human title: the players' names."""
        return ", ".join(self.players) if self.players else self.id


class GameStore:
    """Saved games in a folder: `<id>.json` each, in the game-log format of `docs/game-log.md`."""

    def __init__(self, folder: Path | None = None) -> None:
        self.root = folder if folder is not None else data_dir()
        self.folder = self.root / GAMES_DIR
        # A read-only data folder must not stop the app: saving says so when it fails.
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
        # The id this store last wrote into the marker file, so autosaving the same game
        # after every action does not rewrite (and sync) the marker each time.
        self._marked: str | None = None

    # -- ids and paths ---------------------------------------------------------------
    def new_id(self) -> str:
        """A fresh id that sorts by creation time, e.g. `20261121-195502-3fa1`."""
        return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"

    def path_of(self, game_id: str) -> Path:
        """The file of a game; refuses ids that could escape the games folder."""
        if not _ID_RE.match(game_id):
            raise StoreError(f"'{game_id}' is not a valid saved-game id")
        return self.folder / f"{game_id}.json"

    # -- saving and loading ------------------------------------------------------------
    def save(self, game_id: str, game: Game) -> Path:
        """Write the whole game log atomically and remember it as the last game."""
        path = self.path_of(game_id)
        atomic_write_text(path, game.to_json())
        if self._marked != game_id:
            self.last_id = game_id
        return path

    def load(self, game_id: str) -> Game:
        """Read a saved game; a damaged file raises StoreError naming the file and the cause."""
        return self._read(self.path_of(game_id))

    def delete(self, game_id: str) -> None:
        """Remove a saved game (forgetting it as the last game too)."""
        self.path_of(game_id).unlink(missing_ok=True)
        if self.last_id == game_id:
            self.last_id = None

    def list(self) -> list[SavedGame]:
        """Every saved game, newest first; unreadable files are listed with their problem."""
        found = [self._describe(path) for path in self.folder.glob("*.json")]
        return sorted(found, key=lambda saved: saved.updated, reverse=True)

    # -- the game to resume ------------------------------------------------------------
    @property
    def last_id(self) -> str | None:
        """Id of the game to resume on start, if its file still exists."""
        try:
            game_id = (self.root / LAST_GAME_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if not _ID_RE.match(game_id) or not self.path_of(game_id).exists():
            return None
        return game_id

    @last_id.setter
    def last_id(self, game_id: str | None) -> None:
        marker = self.root / LAST_GAME_FILE
        if game_id is None:
            marker.unlink(missing_ok=True)
        else:
            atomic_write_text(marker, game_id + "\n")
        self._marked = game_id

    def load_last(self) -> tuple[str, Game] | None:
        """The last game and its id, or None when there is none (a damaged one raises)."""
        game_id = self.last_id
        if game_id is None:
            return None
        return game_id, self.load(game_id)

    # -- export and import -------------------------------------------------------------
    def export(self, game_id: str, dest: Path) -> Path:
        """Copy a saved game's log to `dest` (a file, or a folder to put `<id>.json` in)."""
        game = self.load(game_id)
        dest = Path(dest)
        if dest.is_dir():
            dest = dest / f"{game_id}.json"
        try:
            atomic_write_text(dest, game.to_json())
        except OSError as exc:
            raise StoreError(f"{dest}: cannot be written ({exc.strerror or exc})") from exc
        return dest

    def import_file(self, src: Path) -> str:
        """Validate a game-log file and add it as a new saved game; returns its id."""
        game = self._read(Path(src))
        game_id = self.new_id()
        atomic_write_text(self.path_of(game_id), game.to_json())
        return game_id

    # -- internals ---------------------------------------------------------------------
    def _read(self, path: Path) -> Game:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError as exc:
            raise StoreError(f"{path}: no such saved game") from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"{path}: cannot be read ({exc})") from exc
        try:
            return Game.from_json(text)
        except ValueError as exc:
            raise StoreError(f"{path}: not a valid game log: {_one_line(exc)}") from exc

    def _describe(self, path: Path) -> SavedGame:
        updated = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
        try:
            game = self._read(path)
        except StoreError as exc:
            return SavedGame(path.stem, path, updated, (), 0, (), problem=str(exc))
        state = game.state
        names = tuple(player.name for player in state.players)
        winners = tuple(names[i] for i in state.winners)
        return SavedGame(path.stem, path, updated, names, len(game.log), winners)


def _one_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
