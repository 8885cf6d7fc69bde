"""The companion App: wires the store, the rules engine, the screens and background services.

The App holds the open game and publishes its state as a Kivy property; screens read
that state and send actions through `act()`. Rules live in `companion.core`; the App
only routes actions, shows rule errors, saves after every action and navigates.

Start-up comes in two steps so the window shows at once: the first frame needs only
Kivy (the frame of the app, in the user's theme and language); right after it, the
settings, saved games and rules engine are loaded and the last game is resumed
(`ready` turns True then).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.base import ExceptionHandler, ExceptionManager
from kivy.clock import Clock, mainthread
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen, ScreenManager

from companion.resources import SETTINGS_FILE, user_data_dir
from companion.ui.awake import keep_awake
from companion.ui.i18n import _, set_language
from companion.ui.screens import ScreenEntry, kv_path, registry
from companion.ui.screens.base import CompanionScreen
from companion.ui.services import AppService, make_services
from companion.ui.theme import Theme
from companion.ui.widgets import Banner, NavButton

if TYPE_CHECKING:
    # Loaded after the first frame (see `CompanionApp._finish_start`): pydantic and the
    # rules engine are the larger part of the app's start-up.
    from pydantic import ValidationError

    from companion.core import Game, GameSetup, GameState, RandomSource
    from companion.store import GameStore, Settings, SettingsStore

log = logging.getLogger(__name__)

# Windows at least this wide (in dp) get the two-column desktop layouts.
WIDE_LAYOUT_DP = 720
# Keys that mean "back": Escape on desktop, the back button on Android.
BACK_KEYS = (27,)
HOME_SCREEN = "table"
START_SCREEN = "new_game"
# Shown for the moment between the first frame and the game being loaded.
OPENING_SCREEN = "opening"
# A change is handed to the store after the frame that shows it, or after this long (s)
# when no frame is drawn (a window in the background).
SAVE_AFTER_S = 0.1


def first_look(data_dir: Path | None) -> tuple[str, str]:
    """Theme and language for the first frame, read before anything heavy is imported.

    Only these two values are peeked at, without validation; the full settings are
    loaded and checked right after the first frame, and a damaged file is reported then.
    """
    path = (data_dir if data_dir is not None else user_data_dir()) / SETTINGS_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    if not isinstance(saved, dict):
        saved = {}
    theme, language = saved.get("theme"), saved.get("language")
    return (
        theme if theme in ("dark", "light") else "dark",
        language if isinstance(language, str) and language else "en",
    )


class AppRoot(FloatLayout):
    """The frame around the screens: top bar, banner, screen manager, navigation bar."""

    def build_nav(self, entries: list[ScreenEntry], show: Callable[[str], None]) -> None:
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

    @staticmethod
    def app_theme() -> Theme:
        return App.get_running_app().theme


class CompanionApp(App):
    """The app. Public methods are what screens and services call."""

    theme = ObjectProperty(None)
    # The open game's latest state (None while no game is open); screens bind to it.
    state = ObjectProperty(None, allownone=True)
    game_id = StringProperty("")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)
    can_go_back = BooleanProperty(False)
    screen_title = StringProperty("")
    # True when the window is wide enough for the desktop layouts.
    wide = BooleanProperty(False)
    # Reserved for the device layer: do not start virtual counters.
    no_virtual = BooleanProperty(False)
    # True once settings, saved games and the rules engine are loaded (just after the
    # first frame); background services start then.
    ready = BooleanProperty(False)

    def __init__(
        self, data_dir: Path | None = None, no_virtual: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.title = "Munchkin Companion"
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.no_virtual = no_virtual
        theme, language = first_look(self.data_dir)
        set_language(language)
        self.theme = Theme(theme)
        # Set by _finish_start, right after the first frame.
        self.settings_store: SettingsStore
        self.settings: Settings
        self.games: GameStore
        self.dice: RandomSource  # where the app's own dice come from (tests fix them)
        self.game: Game | None = None
        self._cards: Any = None
        self.services: list[AppService] = []
        self.entries: dict[str, ScreenEntry] = registry()
        self._loaded_kv: set[str] = set()
        self._back: list[str] = []
        self._unsubscribe: Callable[[], None] | None = None
        self._startup_problems: list[str] = []
        self._publish_trigger = Clock.create_trigger(self._publish)
        # A change waits to be handed to the store (see `_game_changed`).
        self._save_due = False

    # -- Kivy life cycle ---------------------------------------------------------------
    def build(self) -> AppRoot:
        Builder.load_file(str(Path(__file__).with_suffix(".kv")))
        root = AppRoot()
        self.screen_title = _("Companion")
        opening = Screen(name=OPENING_SCREEN)
        opening.add_widget(
            Label(text=_("Opening your game…"), color=self.theme.dim, font_size=self.theme.body)
        )
        root.ids.manager.add_widget(opening)
        root.build_nav(list(self.entries.values()), self.show)
        Window.bind(on_keyboard=self._on_keyboard, size=self._on_window_size)
        self._on_window_size(Window, Window.size)
        return root

    def on_start(self) -> None:
        # The window shows the app's frame first; the rest loads on the frame after.
        Window.bind(on_flip=self._first_frame_drawn)

    def _first_frame_drawn(self, *_args: Any) -> None:
        Window.unbind(on_flip=self._first_frame_drawn)
        Clock.schedule_once(self._finish_start, 0)

    def _finish_start(self, *_args: Any) -> None:
        from companion.core import SecretsDice
        from companion.store import GameStore, SettingsStore

        self.settings_store = SettingsStore(self.data_dir)
        self.settings = self.settings_store.load()
        if self.settings_store.problem:
            self._startup_problems.append(self.settings_store.problem)
        if self.settings.theme != self.theme.name:  # the file was damaged: defaults apply
            self.theme.apply(self.settings.theme)
        self.games = GameStore(self.data_dir)
        # Told on the loop the saves came from, or on the writer thread without one.
        self.games.problem_listeners.add(mainthread(self._save_failed))
        if self.games.problem:
            self._startup_problems.append(self.games.problem)
        self.dice = SecretsDice()
        self.services = self._start_services()
        self.ready = True
        keep_awake(self.settings.keep_awake)
        self._resume_last_game()
        self.manager.remove_widget(self.manager.get_screen(OPENING_SCREEN))
        for problem in self._startup_problems:
            self.notify(problem, error=True)

    def on_stop(self) -> None:
        self._save()

    # -- navigation ----------------------------------------------------------------------
    @property
    def manager(self) -> ScreenManager:
        return self.root.ids.manager

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
            self.notify(_("That screen is not available."), error=True)
            return None
        if not self.ready:
            return None  # a tap in the split second before the game is loaded
        if entry.needs_game and self.game is None:
            self.notify(_("Start a game first."))
            name = START_SCREEN
        screen = self.screen(name)
        screen.prepare(**params)
        manager = self.manager
        if manager.current != name:
            if manager.current in self.entries:
                self._back.append(manager.current)
                del self._back[:-20]
            manager.current = name
        else:
            screen.on_pre_enter()
        self._screen_shown(name)
        return screen

    def back(self) -> bool:
        """Return to the previous screen; False when there is none."""
        while self._back:
            name = self._back.pop()
            if self.entries[name].needs_game and self.game is None:
                continue
            self.manager.current = name
            self._screen_shown(name)
            return True
        return False

    def _forget_back(self) -> None:
        self._back.clear()
        self.can_go_back = False

    def _screen_shown(self, name: str) -> None:
        self.screen_title = self.manager.get_screen(name).title
        self.can_go_back = bool(self._back)
        self.root.mark_nav(name)

    def _on_keyboard(self, _window: Any, key: int, *_args: Any) -> bool:
        return key in BACK_KEYS and self.back()

    def _on_window_size(self, _window: Any, size: tuple[int, int]) -> None:
        self.wide = size[0] >= dp(WIDE_LAYOUT_DP)

    # -- messages ------------------------------------------------------------------------
    def notify(self, text: str, error: bool = False) -> None:
        """Show a short message across the top; errors in red."""
        if error:
            log.info("shown to the user: %s", text)
        banner: Banner = self.root.ids.banner
        banner.show(text, error=error)

    # -- the game ------------------------------------------------------------------------
    def act(self, action: Any, **fields: Any) -> bool:
        """Apply an action (an instance, or an action class plus its fields) to the game.

        A broken rule or a bad value is shown to the user and changes nothing; the
        answer says whether the action was applied.
        """
        from pydantic import ValidationError

        from companion.core import RuleError

        if self.game is None:
            self.notify(_("Start a game first."))
            return False
        try:
            if isinstance(action, type):
                action = action(**fields)
            self.game.apply(action)
        except RuleError as exc:
            self.notify(str(exc), error=True)
            return False
        except ValidationError as exc:
            self.notify(_first_problem(exc), error=True)
            return False
        except ValueError as exc:  # any other refusal from the engine, in its own words
            self.notify(str(exc), error=True)
            return False
        return True

    def allowed(self, action: Any, **fields: Any) -> bool:
        """Whether the rules would accept the action now (for dimming buttons); changes nothing."""
        if self.game is None:
            return False
        try:
            if isinstance(action, type):
                action = action(**fields)
        except ValueError:
            return False
        return self.game.check(action) is None

    @property
    def live_state(self) -> GameState | None:
        """The game's state right now (`state` follows it on the next frame)."""
        return self.game.state if self.game is not None else None

    def undo(self, steps: int = 1) -> None:
        """Take back the last `steps` actions, saying what was taken back."""
        game = self.game
        if game is None or not game.can_undo:
            self.notify(_("Nothing to undo."))
            return
        steps = max(1, min(steps, game.revision))
        last = self._last_in_words(game)
        game.undo(steps)
        if steps == 1:
            self.notify(_("Undone: {what}").format(what=last))
        else:
            self.notify(_("Undone: the last {n} actions").format(n=steps))

    def redo(self, steps: int = 1) -> None:
        """Apply again the last `steps` actions taken back, saying what was brought back."""
        game = self.game
        if game is None or not game.can_redo:
            self.notify(_("Nothing to redo."))
            return
        steps = max(1, min(steps, game.recorded - game.revision))
        game.redo(steps)
        if steps == 1:
            self.notify(_("Redone: {what}").format(what=self._last_in_words(game)))
        else:
            self.notify(_("Redone: the last {n} actions").format(n=steps))

    @staticmethod
    def _last_in_words(game: Game) -> str:
        from companion.core import describe

        revision = game.revision - 1
        try:
            return describe(game.action_at(revision), game.state_at(revision))
        except (ValueError, LookupError, AttributeError):
            return game.action_at(revision).type.replace("_", " ")

    def start_game(self, setup: GameSetup) -> Game:
        """Open a new game from a setup, save it at once and show the table."""
        from companion.core import Game

        game = Game(setup, rng=self.dice)
        self._open(self.games.new_id(), game)
        self._save()
        self.show(HOME_SCREEN)
        self._forget_back()
        return game

    def open_game(self, game_id: str) -> bool:
        """Open a saved game; a damaged file is reported and nothing changes."""
        from companion.store import StoreError

        try:
            game = self.games.load(game_id)
        except StoreError as exc:
            self.notify(str(exc), error=True)
            return False
        self._open(game_id, game)
        self.games.last_id = game_id
        self.show("game_over" if game.state.winners else HOME_SCREEN)
        self._forget_back()
        return True

    def close_game(self) -> None:
        """Put the open game away (it stays saved)."""
        self._save()
        self._open("", None)

    def delete_game(self, game_id: str) -> None:
        """Delete a saved game (closing it first if it is open)."""
        from companion.store import StoreError

        if game_id == self.game_id:
            self._open("", None)
        try:
            self.games.delete(game_id)
        except (StoreError, OSError) as exc:
            self.notify(str(exc), error=True)

    def export_game(self, game_id: str, dest: Path) -> Path | None:
        """Write a saved game's log to `dest`; returns the file written."""
        from companion.store import StoreError

        self._save()
        try:
            written = self.games.export(game_id, dest)
        except (StoreError, OSError) as exc:
            self.notify(str(exc), error=True)
            return None
        self.notify(_("Saved to {path}").format(path=written))
        return written

    def import_game(self, src: Path) -> str | None:
        """Add a game-log file to the saved games; returns its id."""
        from companion.store import StoreError

        try:
            game_id = self.games.import_file(src)
        except (StoreError, OSError) as exc:
            self.notify(str(exc), error=True)
            return None
        self.notify(_("Game imported."))
        return game_id

    def save_settings(self) -> None:
        """Write `self.settings` (after a screen changed it)."""
        try:
            self.settings_store.save(self.settings)
        except OSError as exc:
            self.notify(str(exc), error=True)

    def settings_changed(self, settings: Settings) -> None:
        """Tell the background services that the settings changed (e.g. LED brightness)."""
        for service in self.services:
            hook = getattr(service, "settings_changed", None)
            if hook is not None:
                hook(settings)

    @property
    def cards(self) -> Any:
        """The card database (loaded on first use), or None when it cannot be loaded."""
        if self._cards is None:
            try:
                from companion.cards import load_database

                self._cards = load_database(strict=False)
            except (ValueError, OSError) as exc:
                self.notify(
                    _("The card database could not be loaded: {problem}").format(problem=exc), True
                )
                self._cards = False
        return self._cards or None

    def _open(self, game_id: str, game: Game | None) -> None:
        if self._take_save_due():  # the game being put away has a change to hand over
            self._save_soon()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.game = game
        self.game_id = game_id
        if game is not None:
            self._unsubscribe = game.subscribe(self._game_changed)
        for service in self.services:
            service.game_changed(game)
        self._publish()

    def _game_changed(self, _state: GameState) -> None:
        # The screen first (the counters heard the game before this), then the save: it is
        # handed to the store's writer thread once the frame showing the change is drawn
        # (waking that thread costs the UI thread a few ms), or after SAVE_AFTER_S when no
        # frame comes. A counter's press is acknowledged only once its save is durable
        # (`GameStore.wait_durable`), so nothing is acknowledged early.
        self._publish_trigger()
        if not self._save_due:
            self._save_due = True
            Window.bind(on_flip=self._save_after_frame)
            Clock.schedule_once(self._save_after_frame, SAVE_AFTER_S)

    def _save_after_frame(self, *_args: Any) -> None:
        if self._publish_trigger.is_triggered:
            return  # the frame that shows the change is the next one
        if self._take_save_due():
            self._save_soon()

    def _take_save_due(self) -> bool:
        """Whether a change was waiting to be handed to the store; it no longer waits."""
        Window.unbind(on_flip=self._save_after_frame)
        Clock.unschedule(self._save_after_frame)
        due, self._save_due = self._save_due, False
        return due

    def _publish(self, *_args: Any) -> None:
        game = self.game
        before = self.state
        self.state = game.state if game is not None else None
        self.can_undo = bool(game is not None and game.can_undo)
        self.can_redo = bool(game is not None and game.can_redo)
        newly_won = (
            self.state is not None
            and self.state.winners
            and (before is None or not before.winners or before.setup != self.state.setup)
        )
        if newly_won and self.manager.current != "game_over":
            self.show("game_over")

    def _save_soon(self) -> None:
        if self.game is None or not self.game_id:
            return
        from companion.store import StoreError

        try:
            self.games.save_soon(self.game_id, self.game)
        except StoreError as exc:
            self._save_failed(self.game_id, str(exc))

    def _save_failed(self, _game_id: str, problem: str) -> None:
        self.notify(_("The game could not be saved: {problem}").format(problem=problem), True)

    def _save(self) -> None:
        self._take_save_due()  # this save writes everything
        if self.game is None or not self.game_id:
            return
        from companion.store import StoreError

        try:
            self.games.save(self.game_id, self.game)
        except (StoreError, OSError) as exc:
            self.notify(_("The game could not be saved: {problem}").format(problem=exc), True)

    def _resume_last_game(self) -> None:
        from companion.store import StoreError

        try:
            last = self.games.load_last()
        except StoreError as exc:
            self._startup_problems.append(str(exc))
            last = None
        if last is None:
            self.show(START_SCREEN)
            return
        game_id, game = last
        self._open(game_id, game)
        self.show("game_over" if game.state.winners else HOME_SCREEN)

    # -- background services ------------------------------------------------------------
    def _start_services(self) -> list[AppService]:
        try:
            return make_services(self)
        except Exception as exc:  # a broken service must not stop the table from playing
            log.exception("a background service could not be created")
            self._startup_problems.append(str(exc))
            return []


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])


class KeepPlaying(ExceptionHandler):
    """An unexpected error inside a Kivy callback is logged and shown, not a crash.

    The game is saved after every action, so carrying on is safe; closing the app on
    a bug in one screen would cost the table more than the bug does.
    """

    def __init__(self, app: CompanionApp) -> None:
        super().__init__()
        self.app = app

    def handle_exception(self, inst: BaseException) -> int:
        if not isinstance(inst, Exception):  # KeyboardInterrupt, SystemExit: really stop
            return ExceptionManager.RAISE
        log.error("unexpected error, the app carries on", exc_info=inst)
        with contextlib.suppress(Exception):
            self.app.notify(_("Something went wrong: {problem}").format(problem=inst), True)
        return ExceptionManager.PASS


async def run_app(app: CompanionApp) -> None:
    """Run the app and its background services on one asyncio loop until the window closes."""

    async def guarded(service: AppService) -> None:
        try:
            await service.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("background service %r stopped", service)

    started = asyncio.Event()
    finished = False
    tasks: list[asyncio.Future[None]] = []
    # Services start once the app has loaded its settings and game (just after the first frame).
    app.bind(ready=lambda *_args: started.set())

    async def ui() -> None:
        nonlocal finished
        try:
            await app.async_run(async_lib="asyncio")
        finally:
            finished = True
            started.set()
            for task in tasks:
                task.cancel()

    async def services() -> None:
        await started.wait()
        if finished:
            return
        tasks.extend(asyncio.ensure_future(guarded(s)) for s in app.services)
        await asyncio.gather(*tasks, return_exceptions=True)

    guard = KeepPlaying(app)
    ExceptionManager.add_handler(guard)
    try:
        await asyncio.gather(ui(), services())
    finally:
        ExceptionManager.remove_handler(guard)
