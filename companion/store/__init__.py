"""Persistence: crash-safe saved games and the user's settings.

The names below are loaded on first use: `companion.store.cover`, read before the first
frame, must not pull in the rules engine that the saved games need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.plumbing.errors import StoreError
    from companion.plumbing.files import atomic_write_text
    from companion.plumbing.places import data_dir
    from companion.store.games import GameStore
    from companion.store.reading import SavedGame
    from companion.store.recorder import Recorder
    from companion.store.settings import Settings, SettingsStore

_HOMES = {
    "GameStore": "companion.store.games",
    "Recorder": "companion.store.recorder",
    "SavedGame": "companion.store.reading",
    "Settings": "companion.store.settings",
    "SettingsStore": "companion.store.settings",
    "StoreError": "companion.plumbing.errors",
    "atomic_write_text": "companion.plumbing.files",
    "data_dir": "companion.plumbing.places",
}

__all__ = [
    "GameStore",
    "Recorder",
    "SavedGame",
    "Settings",
    "SettingsStore",
    "StoreError",
    "atomic_write_text",
    "data_dir",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'companion.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
