"""Persistence: crash-safe saved games and the user's settings."""

from companion.store.files import StoreError, atomic_write_text, data_dir
from companion.store.games import GameStore, SavedGame
from companion.store.settings import Settings, SettingsStore

__all__ = [
    "GameStore",
    "SavedGame",
    "Settings",
    "SettingsStore",
    "StoreError",
    "atomic_write_text",
    "data_dir",
]
