"""Things that run beside the UI for the app's whole life, on the same asyncio loop.

The device manager is one: it starts with the app, follows the open game and mirrors
it onto the counters. A service is registered here by name as "module:factory"; the
factory takes the app and returns an object with the `AppService` methods.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from companion.core import Game
    from companion.ui.app import CompanionApp

# Service name -> "package.module:factory". Factories are called once, when the app starts.
SERVICES: dict[str, str] = {
    "devices": "companion.ui.device_service:DeviceService",
    "dice": "companion.ui.dice_service:DiceService",
}


class AppService(Protocol):
    """What the app expects of a background service."""

    async def run(self) -> None:
        """Work until cancelled (the app cancels it when the window closes)."""

    def game_changed(self, game: Game | None) -> None:
        """A game was opened or closed; subscribe to it (`game.subscribe`) if needed."""


def make_services(app: CompanionApp) -> list[AppService]:
    """Build every registered service for this app."""
    services: list[AppService] = []
    for target in SERVICES.values():
        module_name, _, factory_name = target.partition(":")
        factory = getattr(importlib.import_module(module_name), factory_name)
        services.append(factory(app))
    return services
