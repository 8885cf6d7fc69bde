"""The app's claim tokens: one secret per counter it claimed, kept in the user's data folder."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from companion.core.phrase import Phrase, plural_phrase
from companion.devices import wire
from companion.plumbing.errors import NotAFileError, StoreError
from companion.plumbing.files import set_aside
from companion.plumbing.places import data_dir
from companion.store.records import read_records, write_records

_LOGGER = logging.getLogger(__name__)

TOKENS_FILE = "counters.json"


# A few dozen counters take a few kilobytes; anything far larger is not this file.
MAX_TOKENS_BYTES = 1_000_000


class TokenStore:
    """Counter id -> 16-byte token, saved on every change as one checksummed line per
    counter, written twice (`companion.store.records`), so a bad byte costs one claim at most.

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
        self._session_only: set[int] = set()  # tokens of counters that forget their claims
        # A sentence for the user when the saved tokens could not be read or saved, else None.
        self.problem: str | None = None
        # True while an unreadable file is still in place: it must not be overwritten.
        self._keep_file = False
        self._load()

    def get(self, counter_id: int) -> bytes | None:
        """The token this app gave the counter, or None if it never claimed it."""
        return self._tokens.get(counter_id)

    def put(
        self, counter_id: int, token: bytes, place: str | None = None, *, save: bool = True
    ) -> None:
        """Remember the token just given to a counter (replaces an older one), and where
        (`place`, e.g. "ble:<address>") the counter was when it took it.

        The counter holds the token already, so a file that cannot be written does not
        undo the claim: the token is kept for this session and `problem` says so. With
        `save` False the token is kept for this session only, never written (a counter
        that forgets its claim when it stops).
        """
        if len(token) != wire.TOKEN_SIZE:
            raise ValueError(f"a claim token has {wire.TOKEN_SIZE} bytes, not {len(token)}")
        self._tokens[counter_id] = bytes(token)
        self._places.pop(counter_id, None)
        if place is not None:
            self._places[counter_id] = place
        if not save:
            self._session_only.add(counter_id)
            return
        self._session_only.discard(counter_id)
        self._save()

    def place(self, counter_id: int) -> str | None:
        """Where the counter was when this app claimed it, if known."""
        return self._places.get(counter_id)

    def moved(self, counter_id: int, place: str) -> None:
        """The counter proved the token at `place`: it is there now."""
        if counter_id in self._tokens and self._places.get(counter_id) != place:
            self._places[counter_id] = place
            if counter_id not in self._session_only:
                self._save()

    def forget(self, counter_id: int) -> None:
        """Drop a counter's token (it was claimed by another table, or given away)."""
        self._places.pop(counter_id, None)
        if self._tokens.pop(counter_id, None) is not None:
            if counter_id in self._session_only:
                self._session_only.discard(counter_id)
                return
            self._save()

    def remembers_counters(self) -> bool:
        """True when this app has claimed a counter that keeps its claim (a real one: a
        virtual counter's claim is for its session only)."""
        return any(counter_id not in self._session_only for counter_id in self._tokens)

    def __contains__(self, counter_id: object) -> bool:
        return counter_id in self._tokens

    def _load(self) -> None:
        try:
            found = read_records(self.path, MAX_TOKENS_BYTES)
        except FileNotFoundError:
            return
        except NotAFileError as exc:  # a pipe, a device, a folder, or far too large
            self._damaged(str(exc).removeprefix(f"{self.path}: "))
            return
        except OSError as exc:
            self._keep_file = True
            self._report(
                Phrase(
                    "{file} cannot be read ({reason}); counters must be claimed again",
                    file=self.path.name,
                    reason=exc.strerror,
                )
            )
            return
        if found.other is not None:  # the JSON file of earlier versions
            why = self._parse(found.other)
            if why is not None:
                self._damaged(why)
            return
        # One checksummed line per counter, written twice: a bad byte costs one line,
        # which the copy beside the file usually still has (companion.store.records).
        for key, record in found.records.items():
            try:
                counter_id, token = int(key, 16), bytes.fromhex(record.get("token", ""))
            except ValueError:
                continue
            if len(token) == wire.TOKEN_SIZE:
                self._tokens[counter_id] = token
                if "place" in record:
                    self._places[counter_id] = record["place"]
        if found.damaged and not self.path.exists():  # only its copy was left
            self._report(Phrase("{file} was missing; its copy was used", file=self.path.name))
            self._save()
        elif found.damaged:
            self._damaged(
                plural_phrase(
                    "{n} of its entries is damaged",
                    "{n} of its entries are damaged",
                    found.damaged,
                    n=found.damaged,
                ),
                whole=found.complete,
                known=found.known,
            )

    def _parse(self, data: bytes) -> str | None:
        """Fill the tokens from the file's bytes; returns what is wrong with it, or None."""
        try:
            parsed = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return Phrase("not UTF-8 text (a bad byte at offset {offset})", offset=exc.start)
        except RecursionError:
            return Phrase("not valid JSON (nested too deeply)")
        except ValueError as exc:
            return Phrase("not valid JSON ({problem})", problem=str(exc))
        tokens = parsed.get("tokens") if isinstance(parsed, dict) else None
        if not isinstance(tokens, dict):
            return Phrase("it holds no tokens")
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
            return Phrase(
                "{unreadable} of its {total} tokens are unreadable",
                unreadable=unreadable,
                total=len(tokens),
            )
        return None

    def _damaged(self, why: str, whole: bool = False, known: bool = True) -> None:
        """Set the damaged file aside and say so; `whole`: every token came back;
        `known`: whether how many there were is known (else none is said to be lost)."""
        try:
            kept = set_aside(self.path)
        except StoreError as exc:
            self._keep_file = True
            self._report(
                Phrase(
                    "{file} is damaged ({why}); {problem}, and new claims are kept for this "
                    "session only",
                    file=self.path.name,
                    why=why,
                    problem=str(exc),
                )
            )
            return
        recovered = len(self._tokens)
        if whole:
            outcome = Phrase("every token was recovered")
            self._save()
        elif recovered and not known:
            outcome = plural_phrase(
                "{n} counter's token was recovered; a counter it does not recognise must be "
                "claimed again",
                "{n} counters' tokens were recovered; a counter it does not recognise must be "
                "claimed again",
                recovered,
                n=recovered,
            )
            self._save()
        elif recovered:
            outcome = plural_phrase(
                "{n} counters' tokens were recovered, the others must be claimed again",
                "{n} counters' tokens were recovered, the others must be claimed again",
                recovered,
                n=recovered,
            )
            self._save()
        else:
            outcome = Phrase("counters claimed before must be claimed again")
        self._report(
            Phrase(
                "{file} was damaged ({why}); it was kept as {kept}; {outcome}",
                file=self.path.name,
                why=why,
                kept=kept.name,
                outcome=outcome,
            )
        )

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
        records = {
            f"{cid:08x}": {"token": token.hex()}
            | ({"place": self._places[cid]} if cid in self._places else {})
            for cid, token in self._tokens.items()
            if cid not in self._session_only
        }
        try:
            write_records(self.path, records)
        except OSError as exc:
            self._report(
                Phrase(
                    "claim tokens could not be saved to {file} ({reason}); "
                    "they are kept for this session only",
                    file=self.path.name,
                    reason=exc.strerror or exc,
                )
            )
