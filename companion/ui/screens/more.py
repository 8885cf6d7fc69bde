"""More: the destinations that do not fit the phone's bottom bar, one big button each."""

from __future__ import annotations

from typing import Any

from kivy.metrics import dp

from companion.ui.i18n import _
from companion.ui.screens import nav_params, split_nav
from companion.ui.screens.base import CompanionScreen
from companion.ui.weak import weakly
from companion.ui.widgets import FlatButton


class MoreScreen(CompanionScreen):
    """Board, saved games, a new game, counters and settings, a tap away."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.buttons: dict[str, FlatButton] = {}

    def refresh(self) -> None:
        if self.buttons:
            return  # the list never changes while the app runs
        box = self.ids.entries
        _bar, rest = split_nav(wide=False, entries=self.app.navigator.entries)
        for entry in rest:
            button = FlatButton(text=_(entry.title), size_hint_y=None, height=dp(60))
            button.screen_name = entry.name
            button.bind(on_release=weakly(self.open, entry.name))
            box.add_widget(button)
            self.buttons[entry.name] = button

    def open(self, name: str) -> None:
        """Go to one of the screens listed here (a new game starts from a clean sheet)."""
        self.app.show(name, **nav_params(name))
