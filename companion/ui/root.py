"""The frame around the screens: top bar (back, title, Undo, Redo), banner, screens, nav bar."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.uix.floatlayout import FloatLayout

from companion.ui.i18n import _
from companion.ui.screens import ScreenEntry
from companion.ui.theme import Theme
from companion.ui.widgets import Banner, NavButton

KV_FILE = Path(__file__).with_suffix(".kv")


def load_layout() -> None:
    """Load the frame's kv rules (once, before the first `AppRoot` is built)."""
    Builder.load_file(str(KV_FILE))


class AppRoot(FloatLayout):
    """The app's root widget; its `ids.manager` holds the screens."""

    def build_nav(self, entries: list[ScreenEntry], show: Callable[[str], Any]) -> None:
        """One button per screen that asks to be in the navigation bar."""
        bar = self.ids.nav
        bar.clear_widgets()
        for entry in sorted(
            (e for e in entries if e.nav_order is not None), key=lambda e: e.nav_order or 0
        ):
            button = NavButton(text=_(entry.title), font_size=self.app_theme().small * 1.1)
            button.screen_name = entry.name
            button.bind(on_release=lambda b: show(b.screen_name))
            button.bind(size_hint_min_x=self._fit_nav)
            bar.add_widget(button)
        self.ids.nav_scroll.bind(width=self._fit_nav)
        self._fit_nav()

    def _fit_nav(self, *_args: Any) -> None:
        # The buttons share the bar; when their words do not fit, the bar scrolls instead.
        bar = self.ids.nav
        needed = sum(b.size_hint_min_x or 0 for b in bar.children)
        needed += bar.spacing * len(bar.children) + bar.padding[0] + bar.padding[2]
        bar.width = max(self.ids.nav_scroll.width, needed)

    def mark_nav(self, name: str) -> None:
        """Highlight the button of the screen on show."""
        for button in self.ids.nav.children:
            button.selected = getattr(button, "screen_name", None) == name

    @property
    def banner(self) -> Banner:
        """The message strip across the top."""
        return self.ids.banner

    @staticmethod
    def app_theme() -> Theme:
        return App.get_running_app().theme
