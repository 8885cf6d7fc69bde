"""The settings file peeked at before the first frame; the file helpers and file errors
themselves live in `companion.plumbing` and are named here for the store's callers."""

from __future__ import annotations

from pathlib import Path

from companion.plumbing.errors import NotAFileError, StoreError
from companion.plumbing.files import read_capped
from companion.plumbing.places import SETTINGS_FILE, user_data_dir

__all__ = ["MAX_SETTINGS_BYTES", "NotAFileError", "StoreError", "peek_settings"]

# Settings are a few hundred bytes; anything far larger is not a settings file.
MAX_SETTINGS_BYTES = 1_000_000


def peek_settings(data_dir: Path | None) -> dict[str, object]:
    """The saved settings as a plain mapping, read before anything heavy is imported.

    Nothing is validated and nothing is reported: a missing, damaged or hostile file
    gives {} here, and the full load says what was wrong with it.
    """
    import json

    path = (data_dir if data_dir is not None else user_data_dir()) / SETTINGS_FILE
    try:  # capped, and never a pipe or a device: this runs before the first frame
        saved = json.loads(read_capped(path, MAX_SETTINGS_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return saved if isinstance(saved, dict) else {}
