"""The frame around the screens: top bar (back, title or a message, Undo, Redo), screens,
nav bar."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty
from kivy.uix.floatlayout import FloatLayout

from companion.ui.i18n import _
from companion.ui.screens import MORE_SCREEN, ScreenEntry, nav_params, split_nav
from companion.ui.scrolling import show_bars_only_when_scrolled
from companion.ui.theme import Theme
from companion.ui.widgets import Banner, NavButton

KV_FILE = Path(__file__).with_suffix(".kv")
# Room left at the top right for the Board's own "Leave full screen" button.
FULL_SCREEN_BUTTON_DP = dp(170)


def load_layout() -> None:
    """Load the frame's kv rules (once, before the first `AppRoot` is built)."""
    show_bars_only_when_scrolled()
    Builder.load_file(str(KV_FILE))


class AppRoot(FloatLayout):
    """The app's root widget; its `ids.manager` holds the screens.

    In `full_screen` (the Board on a TV) the top bar and the navigation step aside.
    """

    full_screen = BooleanProperty(False)
    # Left, top, right, bottom: what the system bars cover (`companion.ui.system_ui`).
    insets = ListProperty([0, 0, 0, 0])
    # How tall the message on show is (0 when none): the top bar grows to hold it.
    message_height = NumericProperty(0)

    def __init__(self, **kwargs: Any) -> None:
        self._behind_more: set[str] = set()
        self._current = ""
        super().__init__(**kwargs)
        banner = self.ids.banner
        banner.bind(texture_size=self._measure_message, shown=self._measure_message)

    def _measure_message(self, *_args: Any) -> None:
        banner = self.ids.banner
        self.message_height = banner.texture_size[1] + dp(8) if banner.shown else 0

    def on_full_screen(self, _root: Any, full: bool) -> None:
        """With no top bar (the Board on a TV) a message shows at the top left, clear of
        the Board's own button at the top right."""
        banner = self.ids.banner
        banner.parent.remove_widget(banner)
        if full:
            banner.size_hint = (None, None)
            banner.pos_hint = {"x": 0, "top": 1}
            self._fit_overlay()
            self.bind(width=self._fit_overlay)
            banner.bind(texture_size=self._fit_overlay)
            self.add_widget(banner)
        else:
            self.unbind(width=self._fit_overlay)
            banner.unbind(texture_size=self._fit_overlay)
            banner.size_hint = (1, 1)
            banner.pos_hint = {"x": 0, "y": 0}
            self.ids.title_slot.add_widget(banner)

    def _fit_overlay(self, *_args: Any) -> None:
        banner = self.ids.banner
        banner.width = max(dp(120), self.width - FULL_SCREEN_BUTTON_DP)
        banner.height = max(dp(48), banner.texture_size[1] + dp(12))

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
