"""The frame around the screens: top bar (back, title, Undo, Redo), banner, screens, nav bar."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty
from kivy.uix.floatlayout import FloatLayout

from companion.ui.i18n import _
from companion.ui.screens import MORE_SCREEN, ScreenEntry, nav_params, split_nav
from companion.ui.theme import Theme
from companion.ui.widgets import Banner, NavButton

KV_FILE = Path(__file__).with_suffix(".kv")


def load_layout() -> None:
    """Load the frame's kv rules (once, before the first `AppRoot` is built)."""
    Builder.load_file(str(KV_FILE))


class AppRoot(FloatLayout):
    """The app's root widget; its `ids.manager` holds the screens.

    In `full_screen` (the Board on a TV) the top bar and the navigation step aside.
    """

    full_screen = BooleanProperty(False)
    # Left, top, right, bottom: what the system bars cover (`companion.ui.system_ui`).
    insets = ListProperty([0, 0, 0, 0])

    def __init__(self, **kwargs: Any) -> None:
        self._behind_more: set[str] = set()
        self._current = ""
        super().__init__(**kwargs)

    def build_nav(
        self, entries: dict[str, ScreenEntry], show: Callable[..., Any], wide: bool
    ) -> None:
        """The bottom bar: every destination on a wide window; on a phone the first few
        and "More" (never a bar that scrolls sideways)."""
        bar = self.ids.nav
        bar.clear_widgets()
        in_bar, rest = split_nav(wide, entries)
        self._behind_more = {entry.name for entry in rest}
        if rest:
            in_bar = [*in_bar, entries[MORE_SCREEN]]
        for entry in in_bar:
            button = NavButton(text=_(entry.title), font_size=self.app_theme().small * 1.1)
            button.screen_name = entry.name
            button.bind(on_release=lambda b: show(b.screen_name, **nav_params(b.screen_name)))
            bar.add_widget(button)
        self.mark_nav(self._current)

    def mark_nav(self, name: str) -> None:
        """Highlight the button of the screen on show ("More" for the screens it lists)."""
        self._current = name
        marked = MORE_SCREEN if name in self._behind_more else name
        for button in self.ids.nav.children:
            button.selected = getattr(button, "screen_name", None) == marked

    @property
    def banner(self) -> Banner:
        """The message strip across the top."""
        return self.ids.banner

    @staticmethod
    def app_theme() -> Theme:
        return App.get_running_app().theme
