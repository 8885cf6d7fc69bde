"""What the app offers its screens: they depend on this, not on the App.

`companion.ui.app.CompanionApp` is the one real host; a test may hand a screen any object
with these members. The services declare their own, smaller needs (`DeviceHost`,
`DiceHost`), and nothing here names a screen or the navigator: the arrows point one way.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kivy.uix.screenmanager import Screen

    from companion.store import Settings
    from companion.ui.countdown import KillCountdown
    from companion.ui.device_service import DeviceService
    from companion.ui.screens import ScreenEntry
    from companion.ui.session import GameSession
    from companion.ui.theme import Theme


class Navigation(Protocol):
    """What screens read and set of the navigation (the app's `Navigator`)."""

    # Every screen the app has, by name (the More screen lists those not in the bar).
    entries: dict[str, ScreenEntry]
    # The title of the screen on show (a screen may change it, e.g. to a player's name).
    screen_title: str

    def replace(self, name: str, **params: Any) -> Any:
        """Go to a screen in place of the one on show ("back" does not return to it)."""


class Host(Protocol):
    """The members of the app that screens use."""

    theme: Theme
    settings: Settings
    # True when the window is wide enough for the desktop layouts (a Kivy property).
    wide: bool
    # `companion app --no-virtual`: do not start virtual counters.
    no_virtual: bool
    # The user's data folder chosen on the command line (None: the platform's default).
    data_dir: Path | None
    session: GameSession
    navigator: Navigation
    # The wait before a kill is final (it keeps running on every screen).
    countdown: KillCountdown
    # The counters' service (None until the app has started it, or when it failed to start).
    devices: DeviceService | None

    @property
    def cards(self) -> Any:
        """The card database (loaded on first use), or None when it cannot be loaded."""

    def remember_monster(self, name: str, level: int, treasure: int) -> None:
        """Keep a monster the table typed, so the next game's search finds it."""

    def bind(self, **callbacks: Any) -> None:
        """Follow the host's Kivy properties (`wide`, ...)."""

    def notify(self, text: str, error: bool = False) -> None:
        """Show a short message across the top; errors in red."""

    def clear_notice(self) -> None:
        """Take the message across the top away (it was about a screen no longer shown)."""

    def show(self, name: str, **params: Any) -> Screen | None:
        """Go to a screen, passing it parameters."""

    def set_full_screen(self, on: bool) -> None:
        """Hide (or bring back) the top bar and the navigation, for a TV."""

    def save_settings(self) -> None:
        """Write `settings` (after a screen changed it)."""

    def settings_changed(self, settings: Settings) -> None:
        """Tell the counters' service that the settings changed."""
