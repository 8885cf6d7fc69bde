"""The user's settings: one JSON file, validated on load, written atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from companion.core.errors import first_validation_error
from companion.plumbing.errors import NotAFileError, StoreError
from companion.plumbing.files import atomic_write_text, read_capped, set_aside
from companion.plumbing.places import SETTINGS_FILE, data_dir
from companion.store.files import MAX_SETTINGS_BYTES


class Settings(BaseModel):
    """Everything the user can set; every field has a sensible default."""

    # Unknown keys (from a newer version of the app) are kept, not dropped.
    model_config = ConfigDict(extra="allow", validate_assignment=True)

    theme: Literal["dark", "light"] = "dark"
    keep_awake: bool = True
    language: str = "en"
    # Defaults offered on the New game screen.
    edition: str = "classic"
    winning_level: Literal[10, 20] = 10
    shared_victory: bool = False
    faster_play: bool = False
    # The pause before a kill is final, so anyone can still interfere.
    victory_countdown_s: float = Field(default=2.6, ge=0.0, le=30.0)
    # Start virtual counters when no real counter answers.
    virtual_counters: bool = True
    led_brightness: int = Field(default=96, ge=1, le=255)


class SettingsStore:
    """Loads and saves `Settings`; a damaged file is kept aside and reported, never lost.

    Whatever the file holds, `load()` returns usable settings (the defaults when the
    file cannot be used) and says why in `problem`; it never raises.
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder if folder is not None else data_dir()) / SETTINGS_FILE
        # A sentence for the user when the file could not be used, else None.
        self.problem: str | None = None
        # True while a damaged file could not be set aside: it must not be overwritten.
        self._damaged_in_place = False

    def load(self) -> Settings:
        """The saved settings, or the defaults when there are none or they are unreadable."""
        self.problem = None
        self._damaged_in_place = False
        try:
            data = read_capped(self.path, MAX_SETTINGS_BYTES)
        except FileNotFoundError:
            return Settings()
        except NotAFileError as exc:
            return self._damaged(str(exc).removeprefix(f"{self.path}: "))
        except OSError as exc:
            # Unreadable is not the same as damaged, but it must not be written over either.
            self._damaged_in_place = True
            self.problem = f"{self.path}: cannot be read ({exc.strerror}); using the defaults"
            return Settings()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self._damaged(f"not UTF-8 text (a bad byte at offset {exc.start})")
        try:
            raw = json.loads(text)
        except RecursionError:
            return self._damaged("not valid JSON (nested too deeply)")
        except ValueError as exc:
            return self._damaged(f"not valid JSON ({exc})")
        try:
            return Settings.model_validate(raw)
        except ValidationError as exc:
            where, what, _count = first_validation_error(exc)
            return self._damaged(f"field '{where or '(file)'}': {what}")

    def save(self, settings: Settings) -> None:
        """Write the settings atomically; raises StoreError rather than overwrite a damaged file."""
        if self._damaged_in_place:
            # The damaged file is the user's only copy of their old settings.
            set_aside(self.path)
            self._damaged_in_place = False
        atomic_write_text(self.path, settings.model_dump_json(indent=2) + "\n")

    def _damaged(self, why: str) -> Settings:
        try:
            kept = set_aside(self.path)
        except StoreError as exc:
            self._damaged_in_place = True
            self.problem = f"{self.path}: {why}; {exc}; the defaults are in use"
        else:
            self.problem = (
                f"{self.path}: {why}; the file was kept as {kept.name} and the defaults are in use"
            )
        return Settings()
