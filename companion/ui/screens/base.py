"""What every screen shares: the host and its game session, refresh on game changes, parameters;
and the paging of the screens that list the newest entries first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

if TYPE_CHECKING:
    from companion.ui.host import Host
    from companion.ui.session import GameSession


class CompanionScreen(Screen):
    """A screen of the companion.

    Subclasses override `refresh()` to copy what they show from `session.state` into their
    own Kivy properties (the kv binds to those), and `prepare(**params)` to receive
    navigation parameters from `app.show(name, **params)`.
    """

    title = StringProperty("")
    # The game state the screen last drew (None while no game is open).
    state = ObjectProperty(None, allownone=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # -1: in the same frame as the session's publish that asks for it (see GameSession).
        self._refresh_trigger = Clock.create_trigger(self.refresh_now, -1)
        self.session.bind(state=self._state_changed)

    @property
    def app(self) -> Host:
        """The running companion app, as far as screens need to know it."""
        return cast("Host", App.get_running_app())

    @property
    def session(self) -> GameSession:
        """The open game: its state, actions, undo and redo, saved games."""
        return self.app.session

    def prepare(self, **params: Any) -> None:
        """Take navigation parameters before the screen is shown (none by default)."""
        if params:
            raise TypeError(f"{self.name} takes no parameters, got {sorted(params)}")

    def refresh(self) -> None:
        """Copy the current game state into this screen's properties."""

    def on_pre_enter(self, *_args: Any) -> None:
        self.refresh_now()

    def _state_changed(self, _app: Any, _state: Any) -> None:
        if self.manager is not None and self.manager.current == self.name:
            self._refresh_trigger()

    def refresh_now(self, *_args: Any) -> None:
        """Redraw from the game as it is right now (after an action, before the next frame)."""
        self.state = self.session.live_state
        self.refresh()


class PagedScreen(CompanionScreen):
    """A screen listing the newest `page_size` entries, and older ones a page more at a time.

    Kivy lays out every entry of a RecycleView's data on each change, so the list is a
    window onto the newest entries that grows on request; coming back to the screen
    starts from the newest page again. `refresh` lists the newest `listed` entries.
    """

    page_size = 50

    def __init__(self, **kwargs: Any) -> None:
        self.listed = self.page_size
        super().__init__(**kwargs)

    def on_pre_enter(self, *args: Any) -> None:
        self.listed = self.page_size
        super().on_pre_enter(*args)

    def show_older(self) -> None:
        """List one page more of the older entries."""
        self.listed += self.page_size
        self.refresh()
