"""The registry of screens: every module in this package that defines `ENTRY` is a screen.

A screen is a `CompanionScreen` subclass in `<name>.py` with its layout in `<name>.kv`
beside it. Adding a screen means adding those two files; nothing else needs editing.
Modules are imported at start (cheap); the widgets are built on first visit.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType


@dataclass(frozen=True)
class ScreenEntry:
    """How the app knows a screen: its name, title and place in the navigation."""

    name: str  # also the Kivy Screen.name
    title: str  # an untranslated message id (mark it with N_), translated on display
    cls: str  # class name inside the module
    nav_order: int | None = None  # position in the navigation bar; None = reached otherwise
    needs_game: bool = False  # only reachable while a game is open


_EXCLUDED = {"base"}


def discover() -> dict[str, tuple[ScreenEntry, ModuleType]]:
    """Every screen in this package, by name."""
    found: dict[str, tuple[ScreenEntry, ModuleType]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name in _EXCLUDED or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        entry = getattr(module, "ENTRY", None)
        if isinstance(entry, ScreenEntry):
            if entry.name in found:
                raise ValueError(f"two screens are called '{entry.name}'")
            found[entry.name] = (entry, module)
    return found


def kv_path(module: ModuleType) -> Path:
    """The layout file beside a screen module."""
    return Path(str(module.__file__)).with_suffix(".kv")
