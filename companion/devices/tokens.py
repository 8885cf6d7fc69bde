"""The app's claim tokens: one secret per counter it claimed, kept in the user's data folder."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from companion.devices import wire
from companion.store.files import atomic_write_text, data_dir

_LOGGER = logging.getLogger(__name__)

TOKENS_FILE = "counters.json"
_FORMAT = 1


class TokenStore:
    """Counter id -> 16-byte token, saved as JSON (hex) with an atomic replace on every change.

    `path` defaults to `counters.json` in the user's data folder. A damaged file
    is treated as empty (the counters can be claimed again) and logged.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / TOKENS_FILE
        self._tokens: dict[int, bytes] = {}
        self._places: dict[int, str] = {}  # where each counter was claimed ("ble:<address>")
        self._load()

    def get(self, counter_id: int) -> bytes | None:
        """The token this app gave the counter, or None if it never claimed it."""
        return self._tokens.get(counter_id)

    def put(self, counter_id: int, token: bytes, place: str | None = None) -> None:
        """Remember the token just given to a counter (replaces an older one), and where
        (`place`, e.g. "ble:<address>") the counter was when it took it."""
        if len(token) != wire.TOKEN_SIZE:
            raise ValueError(f"a claim token has {wire.TOKEN_SIZE} bytes, not {len(token)}")
        self._tokens[counter_id] = bytes(token)
        self._places.pop(counter_id, None)
        if place is not None:
            self._places[counter_id] = place
        self._save()

    def place(self, counter_id: int) -> str | None:
        """Where the counter was when this app claimed it, if known."""
        return self._places.get(counter_id)

    def moved(self, counter_id: int, place: str) -> None:
        """The counter proved the token at `place`: it is there now."""
        if counter_id in self._tokens and self._places.get(counter_id) != place:
            self._places[counter_id] = place
            self._save()

    def forget(self, counter_id: int) -> None:
        """Drop a counter's token (it was claimed by another table, or given away)."""
        self._places.pop(counter_id, None)
        if self._tokens.pop(counter_id, None) is not None:
            self._save()

    def __contains__(self, counter_id: object) -> bool:
        return counter_id in self._tokens

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            _LOGGER.warning("%s is unreadable (%s); counters must be claimed again", self.path, exc)
            return
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, dict):
            _LOGGER.warning("%s holds no tokens; counters must be claimed again", self.path)
            return
        for key, value in tokens.items():
            try:
                token = bytes.fromhex(value)
                counter_id = int(key, 16)
            except (TypeError, ValueError):
                continue
            if len(token) == wire.TOKEN_SIZE:
                self._tokens[counter_id] = token
        places = data.get("places")
        for key, value in places.items() if isinstance(places, dict) else ():
            try:
                counter_id = int(key, 16)
            except (TypeError, ValueError):
                continue
            if counter_id in self._tokens and isinstance(value, str):
                self._places[counter_id] = value

    def _save(self) -> None:
        data = {
            "format": _FORMAT,
            "tokens": {f"{cid:08x}": token.hex() for cid, token in sorted(self._tokens.items())},
            "places": {f"{cid:08x}": place for cid, place in sorted(self._places.items())},
        }
        atomic_write_text(self.path, json.dumps(data, indent=1) + "\n")
