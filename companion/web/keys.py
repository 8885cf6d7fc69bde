"""Who may do what at the table link: one random secret per seat and one for the board.

A seat's secret is what its QR code carries (after the `#` of the address, so a
browser never sends it in a request line, a log or a Referer); whoever holds it
may press for that seat. The board's secret only lets a page watch. Seat secrets
belong to one game: a new game gets new ones, and a seat taken back gets a new one
at once. The secrets, whether the link is on, and its port are kept in the user's
data folder (written whole or not at all), so phones come back to their seats
after the app restarts.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from companion.plumbing.errors import StoreError
from companion.plumbing.files import atomic_write_text, set_aside
from companion.plumbing.places import data_dir

_LOGGER = logging.getLogger(__name__)

KEYS_FILE = "table-link.json"
_FORMAT = 1
# 24 random bytes are 192 bits, far past guessing (at least 128 are asked for); as
# URL-safe base64 they are 32 characters, which keeps a QR code small enough to scan
# from across a table.
SECRET_BYTES = 24
SECRET_CHARS = 32
MAX_SEATS = 8
# The file holds ten short strings; anything larger is not this file.
MAX_FILE_BYTES = 16_384

_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def new_secret() -> str:
    """A fresh secret from the operating system's random source."""
    return secrets.token_urlsafe(SECRET_BYTES)


def is_secret_shaped(text: object) -> bool:
    """Whether `text` looks like a secret at all (checked before any comparison).

    >>> is_secret_shaped(new_secret()), is_secret_shaped("short"), is_secret_shaped(None)
    (True, False, False)
    """
    return isinstance(text, str) and len(text) == SECRET_CHARS and set(text) <= _ALPHABET


@dataclass(frozen=True)
class Role:
    """What a secret lets a page do: press for one seat, or watch the board."""

    kind: Literal["seat", "board"]
    seat: int | None = None

    @property
    def writes(self) -> bool:
        """Whether this page may press (only a seat's page may)."""
        return self.kind == "seat"


BOARD = Role("board")


class TableKeys:
    """The secrets of the table link, saved in `path` (the data folder's `table-link.json`).

    A file that cannot be read is set aside (`table-link.json.damaged-<time>`) and new
    secrets are made: the phones scan again, nothing else is lost. `problem` says so.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / KEYS_FILE
        self.problem: str | None = None
        self.board = new_secret()
        self.game_id = ""
        self.seats = [new_secret() for _ in range(MAX_SEATS)]
        self.enabled = False
        self.port: int | None = None
        self._load()

    # -- who is this? ---------------------------------------------------------------------

    def who(self, secret: object) -> Role | None:
        """The role a secret gives, or None for anything that is not one of ours.

        Every secret is compared, each in constant time, so the answer's timing tells
        nothing about which one (if any) came close.
        """
        if not is_secret_shaped(secret):
            return None
        assert isinstance(secret, str)
        given = secret.encode()
        found: Role | None = None
        if hmac.compare_digest(given, self.board.encode()):
            found = BOARD
        for seat, key in enumerate(self.seats):
            if hmac.compare_digest(given, key.encode()):
                found = Role("seat", seat)
        return found

    def secret_of(self, role: Role) -> str:
        """The secret a code for this role carries."""
        if role.kind == "board":
            return self.board
        assert role.seat is not None
        return self.seats[role.seat]

    # -- changes --------------------------------------------------------------------------

    def for_game(self, game_id: str) -> bool:
        """Use the seat secrets of this game: a game other than the last one gets new ones
        (yesterday's phones cannot press in today's game). True when they changed."""
        if game_id == self.game_id:
            return False
        self.game_id = game_id
        self.seats = [new_secret() for _ in range(MAX_SEATS)]
        self.save()
        return True

    def take_back(self, seat: int) -> str:
        """A new secret for a seat: the phone that held the old one can no longer press."""
        if not 0 <= seat < MAX_SEATS:
            raise ValueError(f"there is no seat {seat + 1} at the table link")
        self.seats[seat] = new_secret()
        self.save()
        return self.seats[seat]

    def set_enabled(self, on: bool, port: int | None = None) -> None:
        """Remember whether the link is on (it starts again with the app) and its port."""
        self.enabled = on
        if port is not None:
            self.port = port
        self.save()

    def save(self) -> None:
        """Write the secrets whole; a failure is kept in `problem` and logged, never raised
        (the link keeps working with the secrets in memory)."""
        data = {
            "format": _FORMAT,
            "board": self.board,
            "game": self.game_id,
            "seats": self.seats,
            "enabled": self.enabled,
            "port": self.port,
        }
        try:
            atomic_write_text(self.path, json.dumps(data, indent=1))
        except OSError as exc:
            self.problem = f"{self.path}: the table link's codes could not be saved: {exc}"
            _LOGGER.warning("%s", self.problem)

    # -- inside ---------------------------------------------------------------------------

    def _load(self) -> None:
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return
        except OSError as exc:
            self.problem = f"{self.path}: cannot be read ({exc}); new codes are used"
            return
        try:
            self._take(raw)
        except ValueError as exc:
            try:
                kept = set_aside(self.path)
            except (OSError, StoreError):
                kept = self.path
            self.problem = f"{self.path}: {exc}; kept as {kept.name}, new codes are used"
            _LOGGER.warning("%s", self.problem)
            self.board = new_secret()
            self.seats = [new_secret() for _ in range(MAX_SEATS)]

    def _take(self, raw: bytes) -> None:
        if len(raw) > MAX_FILE_BYTES:
            raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"not valid JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f'"format" is not {_FORMAT}')
        board, seats, game = data.get("board"), data.get("seats"), data.get("game")
        if not is_secret_shaped(board):
            raise ValueError('"board" is not a secret')
        if (
            not isinstance(seats, list)
            or len(seats) != MAX_SEATS
            or not all(map(is_secret_shaped, seats))
        ):
            raise ValueError(f'"seats" is not a list of {MAX_SEATS} secrets')
        if not isinstance(game, str) or len(game) > 200:
            raise ValueError('"game" is not a game id')
        port = data.get("port")
        if port is not None and (not isinstance(port, int) or not 0 < port < 65536):
            raise ValueError('"port" is not a port number')
        self.board, self.seats, self.game_id = str(board), [str(key) for key in seats], game
        self.enabled = data.get("enabled") is True
        self.port = port
