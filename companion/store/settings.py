"""The user's settings: one JSON file, validated on load, written atomically."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from companion.core.errors import first_validation_error
from companion.resources import SETTINGS_FILE
from companion.store.files import atomic_write_text, data_dir


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
    """Loads and saves `Settings`; a damaged file is kept aside and reported, never lost."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder if folder is not None else data_dir()) / SETTINGS_FILE
        # A sentence for the user when the file could not be used, else None.
        self.problem: str | None = None

    def load(self) -> Settings:
        """The saved settings, or the defaults when there are none or they are unreadable."""
        self.problem = None
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Settings()
        except OSError as exc:
            self.problem = f"{self.path}: cannot be read ({exc.strerror}); using the defaults"
            return Settings()
        try:
            return Settings.model_validate(json.loads(text))
        except (ValueError, ValidationError) as exc:
            kept = self._set_aside()
            self.problem = (
                f"{self.path}: {_first_error(exc)}; the file was kept as {kept.name} "
                "and the defaults are in use"
            )
            return Settings()

    def save(self, settings: Settings) -> None:
        """Write the settings atomically."""
        atomic_write_text(self.path, settings.model_dump_json(indent=2) + "\n")

    def _set_aside(self) -> Path:
        kept = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        self.path.replace(kept)
        return kept


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        where, what, _count = first_validation_error(exc)
        return f"field '{where or '(file)'}': {what}"
    return f"not valid JSON ({exc})"
