"""Which screen is on show: building screens on first visit, parameters, and the way back.

The `Navigator` owns the screen manager's current screen and the back stack; it knows
screens only through the registry (`companion.ui.screens`). Screens that need a game
are refused while none is open (the player lands on the New game screen instead).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.event import EventDispatcher
from kivy.lang import Builder
from kivy.properties import BooleanProperty, StringProperty

from companion.ui.i18n import _
from companion.ui.screens import ScreenEntry, kv_path

if TYPE_CHECKING:
    from kivy.uix.screenmanager import ScreenManager

    from companion.ui.screens.base import CompanionScreen

HOME_SCREEN = "table"
START_SCREEN = "new_game"
BACK_DEPTH = 20  # screens remembered for "back"; older ones are forgotten


class Navigator(EventDispatcher):
    """Shows screens by name and goes back; fires `on_shown(name)` after each change."""

    can_go_back = BooleanProperty(False)
    # The title of the screen on show (a screen may change it, e.g. to a player's name).
    screen_title = StringProperty("")
    # The name of the screen on show.
    current_name = StringProperty("")
    # False until the app has loaded its game: a tap before then goes nowhere.
    enabled = BooleanProperty(False)

    __events__ = ("on_shown",)

    def __init__(
        self,
        entries: dict[str, ScreenEntry],
        has_game: Callable[[], bool],
        notify: Callable[[str, bool], None],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.entries = entries
        self._has_game = has_game
        self._notify = notify
        self._loaded_kv: set[str] = set()
        self._back: list[str] = []
        self._params: dict[str, dict[str, Any]] = {}  # each screen's last parameters
        self.manager: ScreenManager

    def on_shown(self, name: str) -> None:
        """Default handler: nothing (the root widget marks its navigation bar)."""

    def attach(self, manager: ScreenManager) -> None:
        """The screen manager the screens live in (the root widget's)."""
        self.manager = manager

    @property
    def current(self) -> str:
        """The name of the screen on show."""
        return self.manager.current

    def screen(self, name: str) -> CompanionScreen:
        """The screen called `name`, built on first use."""
        manager = self.manager
        if manager.has_screen(name):
            return manager.get_screen(name)
        if name not in self.entries:
            raise KeyError(f"no screen called '{name}'")
        entry = self.entries[name]
        module = entry.load()
        path = kv_path(module)
        if str(path) not in self._loaded_kv and path.exists():
            Builder.load_file(str(path))
            self._loaded_kv.add(str(path))
        screen = getattr(module, entry.cls)(name=name)
        screen.title = _(entry.title)
        manager.add_widget(screen)
        return screen

    def show(self, name: str, **params: Any) -> CompanionScreen | None:
        """Go to a screen, passing it parameters (see `CompanionScreen.prepare`)."""
        entry = self.entries.get(name)
        if entry is None:
            self._notify(_("That screen is not available."), True)
            return None
        if not self.enabled:
            return None  # a tap in the split second before the game is loaded
        if entry.needs_game and not self._has_game():
            self._notify(_("Start a game first."), False)
            name = START_SCREEN
        screen = self.screen(name)
        screen.prepare(**params)
        self._params[name] = params
        manager = self.manager
        if manager.current != name:
            if manager.current in self.entries:
                self._back.append(manager.current)
                del self._back[:-BACK_DEPTH]
            manager.current = name
        else:
            screen.on_pre_enter()
        self._shown(name)
        return screen

    def replace(self, name: str, **params: Any) -> CompanionScreen | None:
        """Go to a screen in place of the one on show: "back" does not return to that one
        (a Game over whose win was undone, say)."""
        kept = len(self._back)
        screen = self.show(name, **params)
        del self._back[kept:]
        self.can_go_back = bool(self._back)
        return screen

    def show_before_start(self, name: str) -> CompanionScreen:
        """Put a screen on show before the app is loaded (the cover of the game to resume);
        the caller fills it in. Taps go nowhere until `enabled`."""
        screen = self.screen(name)
        self.manager.current = name
        self._shown(name)
        return screen

    def back(self) -> bool:
        """Return to the previous screen; False when there is none."""
        while self._back:
            name = self._back.pop()
            if self.entries[name].needs_game and not self._has_game():
                continue
            self.manager.current = name
            self._shown(name)
            return True
        return False

    def retranslate(self) -> None:
        """After a language change: drop the built screens (their kv texts were translated
        when they were built) and build the one on show again, with its last parameters."""
        manager = self.manager
        current = manager.current
        for screen in list(manager.screens):
            if screen.name in self.entries:
                manager.remove_widget(screen)
        if current in self.entries:
            screen = self.screen(current)
            screen.prepare(**self._params.get(current, {}))
            manager.current = current
            self._shown(current)

    def forget_back(self) -> None:
        """Start the way back afresh (after a game is opened, say)."""
        self._back.clear()
        self.can_go_back = False

    def _shown(self, name: str) -> None:
        self.screen_title = self.manager.get_screen(name).title
        self.current_name = name
        self.can_go_back = bool(self._back)
        self.dispatch("on_shown", name)
