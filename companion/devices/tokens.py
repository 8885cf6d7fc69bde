"""The app's claim tokens: one secret per counter it claimed, kept in the user's data folder."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from companion.devices import wire
from companion.store.files import StoreError, atomic_write_text, data_dir, set_aside

_LOGGER = logging.getLogger(__name__)

TOKENS_FILE = "counters.json"
_FORMAT = 1


# A few dozen counters take a few kilobytes; anything far larger is not this file.
MAX_TOKENS_BYTES = 1_000_000


class TokenStore:
    """Counter id -> 16-byte token, saved as JSON (hex) with an atomic replace on every change.

    `path` defaults to `counters.json` in the user's data folder. A file that cannot
    be read whole is never written over: it is set aside (`counters.json.damaged-<time>`)
    with whatever tokens could be recovered written back, or, when it cannot be set
    aside, left alone and new tokens kept for this session only. `problem` says so in
    a sentence for the Devices screen.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / TOKENS_FILE
        self._tokens: dict[int, bytes] = {}
        self._places: dict[int, str] = {}  # where each counter was claimed ("ble:<address>")
        # A sentence for the user when the saved tokens could not be read or saved, else None.
        self.problem: str | None = None
        # True while an unreadable file is still in place: it must not be overwritten.
        self._keep_file = False
        self._load()

    def get(self, counter_id: int) -> bytes | None:
        """The token this app gave the counter, or None if it never claimed it."""
        return self._tokens.get(counter_id)

    def put(self, counter_id: int, token: bytes, place: str | None = None) -> None:
        """Remember the token just given to a counter (replaces an older one), and where
        (`place`, e.g. "ble:<address>") the counter was when it took it.

        The counter holds the token already, so a file that cannot be written does not
        undo the claim: the token is kept for this session and `problem` says so.
        """
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
            if self.path.stat().st_size > MAX_TOKENS_BYTES:
                self._damaged(f"larger than {MAX_TOKENS_BYTES:,} bytes")
                return
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self._keep_file = True
            self._report(
                f"{self.path.name} cannot be read ({exc.strerror}); counters must be claimed again"
            )
            return
        why = self._parse(data)
        if why is not None:
            self._damaged(why)

    def _parse(self, data: bytes) -> str | None:
        """Fill the tokens from the file's bytes; returns what is wrong with it, or None."""
        try:
            parsed = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return f"not UTF-8 text (a bad byte at offset {exc.start})"
        except RecursionError:
            return "not valid JSON (nested too deeply)"
        except ValueError as exc:
            return f"not valid JSON ({exc})"
        tokens = parsed.get("tokens") if isinstance(parsed, dict) else None
        if not isinstance(tokens, dict):
            return "it holds no tokens"
        unreadable = 0
        for key, value in tokens.items():
            try:
                token = bytes.fromhex(value)
                counter_id = int(key, 16)
            except (TypeError, ValueError):
                unreadable += 1
                continue
            if len(token) != wire.TOKEN_SIZE:
                unreadable += 1
                continue
            self._tokens[counter_id] = token
        places = parsed.get("places")
        for key, value in places.items() if isinstance(places, dict) else ():
            try:
                counter_id = int(key, 16)
            except (TypeError, ValueError):
                continue
            if counter_id in self._tokens and isinstance(value, str):
                self._places[counter_id] = value
        if unreadable:
            return f"{unreadable} of its {len(tokens)} tokens are unreadable"
        return None

    def _damaged(self, why: str) -> None:
        try:
            kept = set_aside(self.path)
        except StoreError as exc:
            self._keep_file = True
            self._report(
                f"{self.path.name} is damaged ({why}); {exc}, and new claims are kept for this "
                "session only"
            )
            return
        recovered = len(self._tokens)
        if recovered:
            outcome = (
                f"{recovered} counters' tokens were recovered, the others must be claimed again"
            )
            self._save()
        else:
            outcome = "counters claimed before must be claimed again"
        self._report(f"{self.path.name} was damaged ({why}); it was kept as {kept.name}; {outcome}")

    def _report(self, problem: str) -> None:
        # The screen names the file; the log says where it is.
        _LOGGER.warning("%s (in %s)", problem, self.path.parent)
        self.problem = problem

    def _save(self) -> None:
        if self._keep_file:
            try:
                kept = set_aside(self.path)
            except StoreError:
                return  # said when the file was read; writing over it would lose it
            self._keep_file = False
            _LOGGER.warning("the unreadable %s was kept as %s", self.path, kept.name)
        data = {
            "format": _FORMAT,
            "tokens": {f"{cid:08x}": token.hex() for cid, token in sorted(self._tokens.items())},
            "places": {f"{cid:08x}": place for cid, place in sorted(self._places.items())},
        }
        try:
            atomic_write_text(self.path, json.dumps(data, indent=1) + "\n")
        except OSError as exc:
            self._report(
                f"claim tokens could not be saved to {self.path.name} ({exc.strerror or exc}); "
                "they are kept for this session only"
            )
