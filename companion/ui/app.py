"""The companion App: wires the game session, the navigator, the root widget and the counters.

The work is done elsewhere: `session.GameSession` owns the open game and its saving,
`navigator.Navigator` the screen on show and the way back, `root.AppRoot` the frame
around the screens, and `device_service.DeviceService` the counters. Screens see the App
only through `host.Host`, the services through their own `DeviceHost` and `DiceHost`.

Start-up comes in two steps so the window shows at once: the first frame needs only
Kivy (the frame of the app, in the user's theme and language); right after it, the
settings, saved games and rules engine are loaded and the last game is resumed
(`ready` turns True then).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.base import EventLoop, ExceptionHandler, ExceptionManager
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen, ScreenManager

from companion.plumbing.places import user_data_dir
from companion.ui.app_log import keep_log_quiet
from companion.ui.awake import keep_awake
from companion.ui.countdown import KillCountdown
from companion.ui.frames import frames_after_ready_work
from companion.ui.i18n import _, language, on_change, set_language, start_language
from companion.ui.navigator import HOME_SCREEN, START_SCREEN, Navigator
from companion.ui.root import AppRoot, load_layout
from companion.ui.screens import registry
from companion.ui.session import GameSession
from companion.ui.system_ui import follow_system_ui
from companion.ui.textures import fresh_label_textures
from companion.ui.theme import Theme

if TYPE_CHECKING:
    # Loaded after the first frame (see `CompanionApp._finish_start`): pydantic and the
    # rules engine are the larger part of the app's start-up.
    from companion.core import Game
    from companion.store import Settings, SettingsStore
    from companion.ui.device_service import DeviceService
    from companion.ui.link_service import TableLinkService
    from companion.ui.screens.base import CompanionScreen

log = logging.getLogger(__name__)

# Windows at least this wide (in dp) get the two-column desktop layouts.
WIDE_LAYOUT_DP = 720
# Keys that mean "back": Escape on desktop, the back button on Android.
BACK_KEYS = (27,)
# The user's own card packs, inside the data folder.
PACKS_DIR = "packs"
# The kinds of card the app searches by name (the Combat screen's monster entry).
SEARCHED_KINDS = ("monster", "enhancer")
# Shown for the moment between the first frame and the game being loaded.
OPENING_SCREEN = "opening"
# Where a damaged copy of the saved games is offered for recovery.
RECOVER_SCREEN = "games"


def first_look(data_dir: Path | None) -> tuple[str, str | None]:
    """Theme and language for the first frame, read before anything heavy is imported.

    Only these two values are peeked at, without validation; the full settings are
    loaded and checked right after the first frame, and a damaged file is reported then.
    The language is None when none was ever chosen (the system's is used then).
    """
    from companion.store.files import peek_settings

    saved = peek_settings(data_dir)
    theme, language = saved.get("theme"), saved.get("language")
    return (
        theme if theme in ("dark", "light") else "dark",
        language if isinstance(language, str) and language else None,
    )


def no_pydantic_plugins() -> None:
    """The app uses no pydantic plugins, so pydantic need not look for them: it reads the
    metadata of every installed package for them as it builds its first model, about 7 ms
    of a start before the game can be played. Set in the environment by hand, it stays."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


# s after a resumed game is on screen: the card database is loaded and indexed then (on a
# thread, but holding Python's lock for most of its ~150 ms), after the counters show the
# game rather than in the middle of it. Without a game to resume, as long after New game
# is drawn: while it is built and first tapped, the thread would slow both down.
CARDS_AHEAD_S = 3.0
# s after a game opens: its Game over screen is built then, when nobody is tapping yet and
# a resumed game's counters have long been shown (a start's own figures stay its own).
GAME_OVER_AHEAD_S = 5.0
# s after a game opens: its statistics (Game over's chart) start to be folded then, a few
# ms a frame; a 10,000-action game is folded about a second later, well before Game over
# is built.
STATISTICS_AHEAD_S = 2.0
# s after the first screen is drawn: the saved games' statistics summaries are read on a
# thread then (a few tenths of a second for a thousand games), so that opening Statistics
# or a Game over reads only what changed since.
SUMMARIES_AHEAD_S = 6.0


class CompanionApp(App):
    """Wires the session, the navigator, the root widget, the settings and the counters."""

    theme = ObjectProperty(None)
    session = ObjectProperty(None)
    navigator = ObjectProperty(None)
    # The wait before a kill is final; it outlives the Combat screen.
    countdown = ObjectProperty(None)
    # True when the window is wide enough for the desktop layouts.
    wide = BooleanProperty(False)
    # Reserved for the device layer: do not start virtual counters.
    no_virtual = BooleanProperty(False)
    # True once settings, saved games and the rules engine are loaded (just after the
    # first frame); the counters' service starts then.
    ready = BooleanProperty(False)
    # True once the game to resume is on screen: from its cover in the first frame, or
    # once it is loaded (see `_show_cover`).
    game_shown = BooleanProperty(False)
    # The language on show; kv rules that read it re-translate when it changes.
    language = StringProperty("en")

    def __init__(
        self,
        data_dir: Path | None = None,
        no_virtual: bool = False,
        device_service: Callable[..., DeviceService] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        keep_log_quiet()
        no_pydantic_plugins()
        fresh_label_textures()
        self.title = "Munchkin Companion"
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.no_virtual = no_virtual
        theme, chosen = first_look(self.data_dir)
        # A first start speaks the system's language when the app has it.
        self._language_chosen = chosen is not None
        self.language = start_language(chosen)
        # Followed from the end of the start on (see _finish_start).
        self._stop_following_language: Callable[[], None] = lambda: None
        self.theme = Theme(theme)
        self.session = GameSession(notify=self.notify)
        self.navigator = Navigator(registry(), has_game=self._has_game, notify=self.notify)
        self.countdown = KillCountdown()
        # Set by _finish_start, right after the first frame.
        self.settings_store: SettingsStore
        self.settings: Settings
        self.devices: DeviceService | None = None
        self._device_factory = device_service
        # The table link (phones and TVs in their browsers); off until the host turns it on.
        self.table_link: TableLinkService | None = None
        self._cards: Any = None
        # The virtual counters asked for ahead, from the cover (see `_counters_ahead`).
        self._asking_ahead: asyncio.Task[None] | None = None
        # The background load of the cards (see load_cards_soon): its end, and its outcome.
        self._cards_loading: tuple[Any, list[Any]] | None = None
        self._startup_problems: list[str] = []
        # Start-up builds a few hundred thousand objects that all live on (modules,
        # models, widgets) and frees almost none: the cyclic collector would rescan them
        # again and again for nothing. It is held until the first screen of the game is
        # drawn; then what start-up built is frozen out of its reach (see `_settled`).
        self._collector_held = gc.isenabled()
        gc.disable()

    # -- Kivy life cycle ---------------------------------------------------------------
    def build(self) -> AppRoot:
        load_layout()
        root = AppRoot()
        navigator = self.navigator
        navigator.attach(root.ids.manager)
        navigator.screen_title = _("Companion")
        navigator.bind(on_shown=lambda _nav, name: root.mark_nav(name))
        self._on_window_size(Window, Window.size)  # phone or desktop, before any layout
        root.build_nav(navigator.entries, self.show, self.wide)
        if not self._show_cover():
            # Without a cover there may be no game at all (a first start): words true of
            # every start, not "Opening your game".
            opening = Screen(name=OPENING_SCREEN)
            opening.add_widget(
                Label(
                    text=_("Getting the table ready…"),
                    color=self.theme.dim,
                    font_size=self.theme.body,
                )
            )
            root.ids.manager.add_widget(opening)
            root.ids.manager.current = OPENING_SCREEN
        self.bind(wide=lambda _app, wide: root.build_nav(navigator.entries, self.show, wide))
        self.session.bind(on_opened=self._game_opened, on_won=self._game_won)
        Window.bind(on_keyboard=self._on_keyboard, size=self._on_window_size)
        follow_system_ui(Window, root)
        return root

    def on_start(self) -> None:
        # The window shows the app's frame first; the rest loads on the frame after.
        Window.bind(on_flip=self._first_frame_drawn)

    def _first_frame_drawn(self, *_args: Any) -> None:
        Window.unbind(on_flip=self._first_frame_drawn)
        Clock.schedule_once(self._finish_start, 0)

    def _finish_start(self, *_args: Any) -> None:
        Window.bind(on_flip=self._settled)  # the frame drawn after this start (even a failed one)
        from companion.plumbing.files import remove_partial_writes
        from companion.store import SettingsStore
        from companion.ui.screens.table import table_cover

        self.settings_store = SettingsStore(self.data_dir)
        remove_partial_writes(self.settings_store.path.parent)  # left by a crash mid-save
        self.settings = self.settings_store.load()
        if self.settings_store.problem:
            self._startup_problems.append(self.settings_store.problem)
        if self.settings.theme != self.theme.name:  # the file was damaged: defaults apply
            self.theme.apply(self.settings.theme)
        self._stop_following_language = on_change(self._language_changed)
        if not self._language_chosen:
            self.settings.language = language()
        elif self.settings.language != language():
            set_language(self.settings.language)
        self.session.load(
            self.data_dir,
            cover=table_cover,
            kill_seconds=lambda: float(self.settings.victory_countdown_s),
        )
        self.countdown.follow(self.session.table.countdown)
        self.devices = self._start_devices()
        from companion.ui.link_service import TableLinkService

        self.table_link = TableLinkService(self)
        self.navigator.enabled = True
        self.ready = True
        keep_awake(self.settings.keep_awake)
        problem = self.session.resume()
        if problem is not None:
            self._startup_problems.append(problem)
        if self.session.game is None:
            # New game lists the packs' roles: the cards load once it is drawn (see
            # `_settled`), not while it is built, which their thread would slow down.
            # A damaged copy of the saved games kept aside: the screen that offers to
            # recover it comes first.
            self.show(RECOVER_SCREEN if self.session.games.recoverable else START_SCREEN)
        else:
            self.game_shown = True
            Clock.schedule_once(lambda _dt: self.load_cards_soon(), CARDS_AHEAD_S)
        if self.manager.has_screen("table"):
            # Taps made on the cover while the game loaded, in order (none is lost).
            played = self.manager.get_screen("table").play_waiting()
            if played:
                log.info("%d tap(s) made on the cover played once the game loaded", played)
        if self.manager.has_screen(OPENING_SCREEN):
            self.manager.remove_widget(self.manager.get_screen(OPENING_SCREEN))
        if self._startup_problems:  # all of them, at once, on the first screen
            self.notify("\n".join(self._startup_problems), error=True)

    def _settled(self, *_args: Any) -> None:
        """The first screen of the game (or New game) is drawn: the collector runs again,
        and with no game the cards load a little later (New game lists the packs' roles;
        a role picked before then waits for them)."""
        Window.unbind(on_flip=self._settled)
        self._release_collector()
        if self.ready:
            games = self.session.games
            Clock.schedule_once(lambda _dt: games.read_statistics_ahead(), SUMMARIES_AHEAD_S)
        if self.ready and self.session.game is None:
            # Not at once: the first taps on New game would wait for the cards' thread.
            Clock.schedule_once(lambda _dt: self.load_cards_soon(), CARDS_AHEAD_S)

    def _release_collector(self) -> None:
        if self._collector_held:
            self._collector_held = False
            gc.freeze()  # what start-up built lives as long as the app: never rescanned
            gc.enable()

    def on_stop(self) -> None:
        self._release_collector()
        self._stop_following_language()
        self.session.save()

    # -- what screens call --------------------------------------------------------------
    @property
    def manager(self) -> ScreenManager:
        return self.root.ids.manager

    def show(self, name: str, **params: Any) -> CompanionScreen | None:
        """Go to a screen, passing it parameters (see `CompanionScreen.prepare`)."""
        return self.navigator.show(name, **params)

    def screen(self, name: str) -> CompanionScreen:
        """The screen called `name`, built on first use."""
        return self.navigator.screen(name)

    def back(self) -> bool:
        """Return to the previous screen; False when there is none."""
        return self.navigator.back()

    def set_full_screen(self, on: bool) -> None:
        """The Board on a TV: no top bar, no navigation (Back or Escape leaves it)."""
        self.root.full_screen = on

    def notify(self, text: str, error: bool = False) -> None:
        """Show a short message across the top; errors in red."""
        if error:
            log.info("shown to the user: %s", text)
        self.root.banner.show(text, error=error)

    def clear_notice(self) -> None:
        """Take the message across the top away."""
        self.root.banner.hide()

    def save_settings(self) -> None:
        """Write `self.settings` (after a screen changed it)."""
        from companion.store import StoreError

        try:
            self.settings_store.save(self.settings)
        except (StoreError, OSError) as exc:
            self.notify(str(exc), error=True)

    def settings_changed(self, settings: Settings) -> None:
        """Tell the counters' service that the settings changed (e.g. LED brightness)."""
        if self.devices is not None:
            self.devices.settings_changed(settings)

    def load_cards_soon(self) -> None:
        """Load the card database and build the search indexes on a background thread, so
        the first letter typed in a search does not wait for them."""
        import threading

        if self._cards is not None or self._cards_loading is not None:
            return
        done = threading.Event()
        outcome: list[Any] = []

        def load() -> None:
            try:
                cards = self._load_cards()
                cards.prepare_search(SEARCHED_KINDS)
                outcome.append(cards)
            except (ValueError, OSError) as exc:  # said on the UI thread, at the first search
                outcome.append(exc)
            finally:
                done.set()

        self._cards_loading = (done, outcome)
        threading.Thread(target=load, name="companion-cards", daemon=True).start()

    def _load_cards(self) -> Any:
        from companion.cards import load_database

        if self.data_dir is None:
            cards = load_database(strict=False)
        else:  # a data folder of its own (tests, --data-dir): its packs only
            cards = load_database(strict=False, user=False, extra=[self.data_dir / PACKS_DIR])
        # A search finds a card by its name as the table reads it, in the language on show.
        cards.follow_language(language)
        return cards

    @property
    def cards(self) -> Any:
        """The card database (loaded on first use), or None when it cannot be loaded."""
        if self._cards is None:
            try:
                loading, self._cards_loading = self._cards_loading, None
                if loading is not None:  # started at the app's start: take what it loaded
                    done, outcome = loading
                    done.wait()
                    if isinstance(outcome[0], Exception):
                        raise outcome[0]
                    self._cards = outcome[0]
                else:
                    self._cards = self._load_cards()
            except (ValueError, OSError) as exc:
                self.notify(
                    _("The card database could not be loaded: {problem}").format(problem=exc), True
                )
                self._cards = False
        return self._cards or None

    def remember_monster(self, name: str, level: int, treasure: int) -> None:
        """Keep a monster the table typed in its own card pack, so searches find it next time."""
        from companion.cards import user_packs_dir
        from companion.ui.remembered import remember_monster

        folder = self.data_dir / PACKS_DIR if self.data_dir is not None else user_packs_dir()
        try:
            _pack, problem = remember_monster(folder, name, level, treasure)
        except (OSError, ValueError) as exc:
            log.warning("could not remember the monster %r: %s", name, exc)
            return
        if problem is not None:  # the damaged pack was kept aside: say so
            self.notify(problem, error=True)
        # Loaded again, with the new monster, before the next search.
        self._cards, self._cards_loading = None, None
        self.load_cards_soon()

    # -- wiring ---------------------------------------------------------------------------
    def _language_changed(self, code: str) -> None:
        """Every text follows a new language at once: the frame, and the screens rebuilt."""
        self.language = code
        if self.root is None:
            return
        self.root.build_nav(self.navigator.entries, self.show, self.wide)
        self.navigator.retranslate()
        self.root.mark_nav(self.manager.current)

    def _has_game(self) -> bool:
        return self.session.game is not None

    def _game_opened(self, _session: GameSession, game: Game | None) -> None:
        from companion.ui.screens.game_over import follow

        # Its Game over screen is then ready on the frame after the win. The fold waits
        # until a resumed game's counters show it: it would take a few ms of every frame
        # while they connect.
        follow(game, after_s=STATISTICS_AHEAD_S)
        if self.devices is not None:
            self.devices.game_changed(game)
        if self.table_link is not None:
            self.table_link.game_changed(game)
        if game is not None and self.ready:
            self.show("game_over" if game.state.winners else HOME_SCREEN)
            self.navigator.forget_back()
        if game is not None and not game.state.winners:
            Clock.schedule_once(lambda _dt: self._game_over_ahead(game), GAME_OVER_AHEAD_S)

    def _game_over_ahead(self, game: Game) -> None:
        """Build the Game over screen and its lines for `game` while the table looks on,
        so the frame after the winning tap only fills them in."""
        from companion.ui.screens.game_over import GameOverScreen

        if self.session.game is game and self.ready and not game.state.winners:
            screen = self.screen("game_over")
            if isinstance(screen, GameOverScreen):
                screen.lines_for(len(game.setup.players))

    def _game_won(self, _session: GameSession) -> None:
        if self.manager.current != "game_over":
            self.show("game_over")

    def _on_keyboard(self, _window: Any, key: int, *_args: Any) -> bool:
        if key in BACK_KEYS and self.root.full_screen:
            self.set_full_screen(False)
            return True
        return key in BACK_KEYS and self.back()

    def _on_window_size(self, _window: Any, size: tuple[int, int]) -> None:
        self.wide = size[0] >= dp(WIDE_LAYOUT_DP)

    def _show_cover(self) -> bool:
        """Draw the game to resume from its cover, for the first frame (see
        `companion.store.cover`); False when there is none to draw."""
        from companion.store.cover import read_cover

        found = read_cover(self.data_dir if self.data_dir is not None else user_data_dir())
        if found is None:
            return False
        table = self.navigator.screen(HOME_SCREEN)
        if not table.show_cover(found[1]):
            return False
        self.navigator.show_before_start(HOME_SCREEN)
        self.game_shown = True
        self._counters_ahead(len(table.tiles))
        return True

    def _counters_ahead(self, players: int) -> None:
        """The cover says how many play: the virtual counters' process, if one was started
        as the app opened, starts that table's counters and connects to them now, while
        the app loads its game (see `start_counters_ahead`), rather than once it has."""
        from companion.devices.sim.process import start_counters_ahead

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not run on asyncio: the counters' service asks later
            return
        self._asking_ahead = loop.create_task(start_counters_ahead(players))

    def _start_devices(self) -> DeviceService | None:
        try:
            factory = self._device_factory
            if factory is None:
                from companion.ui.device_service import DeviceService

                factory = DeviceService
            # Presses are acknowledged once the game's recorder has them on disk.
            return factory(self, durable=self.session.recorder.wait_durable)
        except Exception as exc:  # a broken service must not stop the table from playing
            log.exception("the counters' service could not be created")
            self._startup_problems.append(str(exc))
            return None


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
    """Run the app and the counters' service on one asyncio loop until the window closes."""

    started = asyncio.Event()
    finished = False
    running: asyncio.Future[None] | None = None
    serving: asyncio.Future[None] | None = None  # the table link
    # The service starts once the app has loaded its settings and game (after the first frame).
    app.bind(ready=lambda *_args: started.set())

    async def ui() -> None:
        nonlocal finished
        try:
            await app.async_run(async_lib="asyncio")
        finally:
            finished = True
            started.set()
            if running is not None:
                running.cancel()
            if serving is not None:
                serving.cancel()

    async def devices() -> None:
        nonlocal running
        await started.wait()
        if finished or app.devices is None:
            return
        running = asyncio.ensure_future(app.devices.run())
        try:
            await running
        except asyncio.CancelledError:
            if not finished:
                raise
        except Exception:
            log.exception("the counters' service stopped")

    async def table_link() -> None:
        nonlocal serving
        await started.wait()
        if finished or app.table_link is None:
            return
        serving = asyncio.ensure_future(app.table_link.run())
        try:
            await serving
        except asyncio.CancelledError:
            if not finished:
                raise
        except Exception:
            log.exception("the table link stopped")

    async def acknowledgements(budget_s: float) -> bool:
        # The counters' answers due within the frame's wait (see `frames`).
        wait = getattr(app.devices, "wait_acks_due", None)
        return bool(await wait(budget_s)) if wait is not None else False

    guard = KeepPlaying(app)
    ExceptionManager.add_handler(guard)
    try:
        # A counter's round trip is not cut in two by a frame (see `frames`).
        with frames_after_ready_work(Clock, EventLoop, hold=acknowledgements):
            await asyncio.gather(ui(), devices(), table_link())
    finally:
        ExceptionManager.remove_handler(guard)
