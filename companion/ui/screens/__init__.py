"""The registry of screens, in one place: name, title, class and where it sits in the navigation.

A screen is a `CompanionScreen` subclass in `<name>.py` with its layout in `<name>.kv`
beside it, plus one line in `SCREENS` below. A screen's module is imported, and its
layout loaded, on the first visit: the app draws its first frame without any of them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from companion.ui.i18n import N_


@dataclass(frozen=True)
class ScreenEntry:
    """How the app knows a screen: its name, title and place in the navigation."""

    name: str  # the module name in this package, and the Kivy Screen.name
    title: str  # an untranslated message id (mark it with N_), translated on display
    cls: str  # class name inside the module
    nav_order: int | None = None  # position in the navigation; None = reached otherwise
    needs_game: bool = False  # only reachable while a game is open

    def load(self) -> ModuleType:
        """Import the screen's module (once; Python caches it)."""
        return importlib.import_module(f"{__name__}.{self.name}")


# On a phone the bottom bar holds the first PHONE_NAV_SLOTS destinations (by nav_order)
# and a "More" entry; the More screen lists the rest. Wide windows show them all.
PHONE_NAV_SLOTS = 4
MORE_SCREEN = "more"

SCREENS: tuple[ScreenEntry, ...] = (
    ScreenEntry("table", N_("Table"), "TableScreen", nav_order=10, needs_game=True),
    ScreenEntry("combat", N_("Combat"), "CombatScreen", nav_order=20, needs_game=True),
    ScreenEntry("dice", N_("Dice"), "DiceScreen", nav_order=30),
    ScreenEntry("history", N_("History"), "HistoryScreen", nav_order=40, needs_game=True),
    ScreenEntry("board_view", N_("Board"), "BoardViewScreen", nav_order=45, needs_game=True),
    ScreenEntry("games", N_("Games"), "GamesScreen", nav_order=50),
    ScreenEntry("statistics", N_("Statistics"), "StatisticsScreen", nav_order=55),
    ScreenEntry("new_game", N_("New game"), "NewGameScreen", nav_order=60),
    ScreenEntry("invite", N_("Invite"), "InviteScreen", nav_order=65),
    ScreenEntry("devices", N_("Devices"), "DevicesScreen", nav_order=70),
    ScreenEntry("settings", N_("Settings"), "SettingsScreen", nav_order=90),
    ScreenEntry(MORE_SCREEN, N_("More"), "MoreScreen"),
    ScreenEntry("player", N_("Player"), "PlayerScreen", needs_game=True),
    ScreenEntry("run_away", N_("Run away"), "RunAwayScreen", needs_game=True),
    ScreenEntry("game_over", N_("Game over"), "GameOverScreen", needs_game=True),
    # Reached from Statistics: who played here, to rename or merge.
    ScreenEntry("people", N_("People"), "PeopleScreen"),
)


def registry() -> dict[str, ScreenEntry]:
    """Every screen, by name."""
    found: dict[str, ScreenEntry] = {}
    for entry in SCREENS:
        if entry.name in found:
            raise ValueError(f"two screens are called '{entry.name}'")
        found[entry.name] = entry
    return found


def destinations(entries: dict[str, ScreenEntry] | None = None) -> list[ScreenEntry]:
    """The screens of the navigation, in their order."""
    found = (entries or registry()).values()
    return sorted((e for e in found if e.nav_order is not None), key=lambda e: e.nav_order or 0)


def split_nav(wide: bool, entries: dict[str, ScreenEntry] | None = None) -> tuple[list, list]:
    """(in the bar, behind "More"): everything in the bar on a wide window."""
    every = destinations(entries)
    if wide or len(every) <= PHONE_NAV_SLOTS + 1:
        return every, []
    return every[:PHONE_NAV_SLOTS], every[PHONE_NAV_SLOTS:]


def nav_params(name: str) -> dict[str, object]:
    """What a screen is told when reached from the navigation (a new game starts afresh)."""
    return {"fresh": True} if name == "new_game" else {}


def kv_path(module: ModuleType) -> Path:
    """The layout file beside a screen module."""
    return Path(str(module.__file__)).with_suffix(".kv")
