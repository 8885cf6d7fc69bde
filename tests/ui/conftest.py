"""A real Kivy app for the UI tests: started once per session, reset between tests.

Kivy allows one App per process and one Window, so the session fixture builds the
app once (in an offscreen window) and every test drives Kivy's event loop itself:
`pump()` runs frames, `tap()` sends a touch down/up through the Window to a widget,
exactly where a finger would land.

The app runs on a hand-stepped clock: every frame it sees lasts exactly `FRAME_S`
however long the machine took to draw it, so a fade, the victory countdown or a fling
plays out in the same frames on a loaded machine as on a quiet one, and "after 3 s"
means 3 s of the app's time has certainly passed. Between tests every list is put back
at its top with nothing left moving.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmarks.kivy_driver import lift, press, scroller_of, slide, window_centre
from tests.waiting import until

os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
# The tests read the English texts whatever the machine's language (a first start follows it).
os.environ["LANGUAGE"] = "en"

PHONE = (360, 640)
FRAME_S = 1 / 60
# A player waits this long (in the app's time) for a list laid out again to find its place.
SETTLE_S = 5.0
# Whatever is still moving after a test (a fling, a list scrolling to a row) has this
# long, in the app's time, to come to rest before the test is failed for it.
AT_REST_S = 10.0
UI_TESTS = Path(__file__).resolve().parent


def missing_opengl() -> str | None:
    """Why Kivy cannot open a window here, or None. Desktops have OpenGL; a bare server may not.

    SDL loads the OpenGL libraries (Mesa on Linux) only when the window opens, so a
    machine without them fails late and obscurely; say what to install instead.
    """
    if not sys.platform.startswith("linux"):
        return None
    for library in ("libEGL.so.1", "libGL.so.1"):
        try:
            ctypes.CDLL(library)
        except OSError:
            return (
                f"OpenGL is not installed ({library} not found); to run the UI tests install "
                "Mesa: sudo apt install libegl1 libgl1 libgl1-mesa-dri"
            )
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing_opengl()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if UI_TESTS in Path(str(item.path)).parents:
            item.add_marker(skip)


class SteppedClock:
    """Kivy's clock moved by hand: the app's time advances by `frame_s` at each frame."""

    def __init__(self) -> None:
        from kivy.clock import Clock

        self.frame_s = FRAME_S
        self.now = Clock.time()

    def install(self) -> None:
        from kivy.clock import Clock

        Clock.time = self.time  # the instance's own, ahead of the class's real clock
        Clock._max_fps = 0  # no waiting for a 60 Hz tick that the clock no longer tells
        Clock._last_tick = self.now

    def time(self) -> float:
        return self.now

    def step(self) -> None:
        self.now += self.frame_s


class Harness:
    """The running app plus helpers to drive it like a player would."""

    def __init__(self, app: Any, data_dir: Path, clock: SteppedClock) -> None:
        self.app = app
        self.data_dir = data_dir
        self.clock = clock

    def pump(self, frames: int = 3) -> None:
        """Run `frames` Kivy frames."""
        from kivy.base import EventLoop

        for _ in range(frames):
            self.clock.step()
            EventLoop.idle()

    def advance(self, seconds: float) -> None:
        """Run frames until `seconds` of the app's time have passed: whatever the app has
        scheduled within them (a fade, a countdown's end) has certainly happened."""
        end = self.clock.now + seconds
        while self.clock.now < end:
            self.pump(frames=1)

    @contextmanager
    def frames_of(self, seconds: float) -> Iterator[None]:
        """Frames of `seconds` each inside the block, as on a slow phone or in a long pause."""
        before, self.clock.frame_s = self.clock.frame_s, seconds
        try:
            yield
        finally:
            self.clock.frame_s = before

    async def until(self, check: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
        """Run Kivy frames and the asyncio loop together until `check()` holds.

        The loop gets at least a frame's time between two frames, as in the app, where
        Kivy waits for the next 60 Hz tick on the same loop, and as long as the frame took
        on a slow machine: the counters and dice (all on the loop) are never starved by
        frames drawn back to back."""
        await until(check, what, timeout_s, between=lambda: self.pump(frames=1), poll_s=FRAME_S)

    def wait_until(self, done: Callable[[], bool], timeout_s: float = 10.0) -> None:
        """Run Kivy frames until `done()` holds; fail after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, f"still waiting after {timeout_s} s"
            self.pump(frames=1)

    def screen(self, name: str) -> Any:
        return self.app.screen(name)

    def tap(self, widget: Any) -> None:
        """Touch the middle of `widget` and lift the finger, through the Window."""
        from kivy.core.window import Window

        self.pump()
        assert widget.get_root_window() is not None, f"{widget} is not on the screen"
        scroller = scroller_of(widget)
        # A player waits for the screen to settle before touching it: a list laid out
        # again (after a language change, say) takes a few frames to find its place.
        x, y = window_centre(widget)
        settle_until = self.clock.now + SETTLE_S

        def in_view(x: float, y: float) -> bool:
            if not (0 <= x < Window.width and 0 <= y < Window.height):
                return False
            if scroller is None:
                return True
            left, bottom = scroller.to_window(scroller.x, scroller.y)
            return left <= x < left + scroller.width and bottom <= y < bottom + scroller.height

        on_screen = in_view(x, y)
        while True:
            if scroller is not None and not on_screen:
                scroller.scroll_to(widget, padding=10, animate=False)
            self.pump()
            before, (x, y) = (x, y), window_centre(widget)
            on_screen = in_view(x, y)
            if (on_screen and (x, y) == before) or self.clock.now > settle_until:
                break
        assert on_screen, self._off_screen(widget, (x, y), scroller)
        self.touch_at(x, y)

    def touch_at(self, x: float, y: float) -> None:
        """A finger down and up at window point (x, y), whatever is there."""
        finger = press(x, y, "ui-test")
        self.pump(frames=1)
        lift(finger)
        self.pump()

    def drag(self, scroller: Any, dy: float, moves: int = 3) -> None:
        """Put a finger on a list, slide it `dy` pixels up (negative: down) across its middle
        in `moves` equal steps, one frame apart, and lift it where it stopped: a fling when
        the steps are long, a pull past the end when the list is already there."""
        x, y = window_centre(scroller)
        y -= dy / 2
        finger = press(x, y, "ui-test")
        # The first step comes with the touch, before any frame: on a slow phone the list
        # sees a finger already moving, and does not hand the touch to a button under it.
        for step in range(1, moves + 1):
            if step > 1:
                self.pump(frames=1)
            slide(finger, x, y + dy * step / moves)
        lift(finger)  # still moving as it leaves the glass: a pause first would stop the list

    def widgets(self) -> list[Any]:
        """Every widget of the app: in its frame, on every screen built so far, and in any
        pop-up."""
        from kivy.core.window import Window

        found: dict[int, Any] = {}
        for top in [self.app.root, *self.app.manager.screens, *Window.children]:
            for widget in top.walk(restrict=True):
                found.setdefault(id(widget), widget)
        return list(found.values())

    def lists(self) -> list[Any]:
        """Every scrolling list of the app."""
        from kivy.uix.scrollview import ScrollView

        return [widget for widget in self.widgets() if isinstance(widget, ScrollView)]

    def stop_animations(self) -> None:
        """Let every animation run to its end, then stop what never ends by itself (a
        pulse that repeats): the next test starts with nothing animating."""
        from kivy.animation import Animation

        give_up = self.clock.now + AT_REST_S
        while Animation._instances and self.clock.now < give_up:
            self.pump(frames=1)
        for widget in self.widgets():
            Animation.cancel_all(widget)

    def at_rest(self) -> bool:
        """No finger on any list, no list moving, no list animating to a new place."""
        from kivy.animation import Animation

        for scroller in self.lists():
            for effect in (scroller.effect_x, scroller.effect_y):
                if effect is not None and (
                    effect.is_manual
                    or effect.velocity
                    or effect.trigger_velocity_update.is_triggered
                ):
                    return False
        return not any(
            {"scroll_x", "scroll_y"} & set(animation.animated_properties)
            for animation in Animation._instances
        )

    def reset_lists(self) -> None:
        """Let whatever moves come to rest, then close pop-ups and put every list at its top.

        Fails when something was still moving long after the test (a list flung away),
        having stopped it first so the next test starts clean all the same."""
        from kivy.animation import Animation
        from kivy.core.window import Window
        from kivy.uix.modalview import ModalView

        give_up = self.clock.now + AT_REST_S
        while not self.at_rest() and self.clock.now < give_up:
            self.pump(frames=1)
        moving = (
            [f"{type(s).__name__} at scroll_y {s.scroll_y}" for s in self.lists()]
            if not self.at_rest()
            else []
        )
        for view in [w for w in Window.children if isinstance(w, ModalView)]:
            view.dismiss(animation=False)
        for scroller in self.lists():
            Animation.stop_all(scroller)
            for effect in (scroller.effect_x, scroller.effect_y):
                if effect is not None:  # forget its motion and the last touches
                    effect.trigger_velocity_update.cancel()
                    effect.is_manual = False
                    effect.velocity = 0
                    effect.history = []
            scroller.scroll_x, scroller.scroll_y = 0.0, 1.0
        self.stop_animations()
        self.pump()
        self.stop_animations()  # any a pop-up's closing or the lists' return started
        misplaced = [
            f"{type(s).__name__} at scroll_x {s.scroll_x}, scroll_y {s.scroll_y}"
            for s in self.lists()
            if (s.scroll_x, s.scroll_y) != (0.0, 1.0)
        ]
        assert moving == [], f"still moving {AT_REST_S} s after the test: {moving}"
        assert misplaced == [], misplaced
        assert self.at_rest()
        assert not Animation._instances, f"still animating: {Animation._instances}"

    def reset_services(self) -> None:
        """The counters' service and the table link stopped, with nothing left on show from
        an earlier test."""
        link = self.app.table_link
        assert link is None or not link.running, "a test left the table link on"
        service = self.app.devices
        if service is None:
            return
        assert not service.running, "a test left the counters' service running"
        service.statuses = []
        service.frames = {}
        service.found = []
        service.activity = ""

    def _off_screen(self, widget: Any, at: tuple[float, float], scroller: Any) -> str:
        """Why a widget could not be touched: where it is, and what holds it."""
        from kivy.core.window import Window

        chain, node = [], widget
        while node is not None and len(chain) < 12:
            where = f"{tuple(node.pos)}{tuple(node.size)}" if hasattr(node, "pos") else ""
            chain.append(f"{type(node).__name__}{where}")
            node = node.parent if node.parent is not node else None
        told = f"{widget} is off screen at {at}, window {tuple(Window.size)}, "
        told += f"on show {self.app.manager.current!r}; held by {' < '.join(chain)}"
        if scroller is not None:
            told += f"; scroll_y {scroller.scroll_y}"
        return told

    def nav_button(self, name: str) -> Any:
        """The bottom bar's button for a screen, or None when it is not in the bar."""
        for button in self.app.root.ids.nav.children:
            if getattr(button, "screen_name", None) == name:
                return button
        return None

    def nav(self, name: str) -> int:
        """Go to a screen through the navigation as a player would; returns the taps used.

        A screen that is not in the bottom bar is behind "More".
        """
        button = self.nav_button(name)
        if button is not None:
            self.tap(button)
            return 1
        more = self.nav_button("more")
        assert more is not None, f"no navigation button for {name}"
        self.tap(more)
        assert self.app.manager.current == "more", f"More did not open: {self.app.manager.current}"
        entry = self.screen("more").buttons.get(name)
        assert entry is not None, f"{name} is neither in the bar nor behind More"
        self.tap(entry)
        return 2

    def banner(self) -> str:
        """The message on show, or "" when the banner is hidden."""
        banner = self.app.root.ids.banner
        return banner.text if banner.shown else ""

    def set_up_game(self, names: list[str]) -> Any:
        """A fresh New game screen with one row per name, filled in; not started yet."""
        self.app.show("new_game", fresh=True)
        self.pump()
        screen = self.screen("new_game")
        while len(screen.ids.rows.children) < len(names):
            self.tap(screen.ids.add)
        while len(screen.ids.rows.children) > len(names):
            self.tap(_rows(screen)[-1].ids.drop)
        for row, name in zip(_rows(screen), names, strict=True):
            row.ids.name.text = name
        if screen.house_needed and not screen.house_players:
            self.tap(screen.ids.house)  # two players, or seven or eight: the house rule
        return screen

    def start_game(self, names: list[str]) -> None:
        """Set up and start a game through the New game screen, as a player would."""
        screen = self.set_up_game(names)
        self.tap(_rows(screen)[0].ids.first)
        self.tap(screen.ids.start)
        self.pump()


def _rows(screen: Any) -> list[Any]:
    # BoxLayout children are stored last-first.
    return list(reversed(screen.ids.rows.children))


def draw_only_for_screenshots(window: Any) -> None:
    """The tests read sizes, positions, colours and texts, never pixels, except in a
    screenshot: the window paints only for one. Software painting is about a quarter of a
    UI test's time otherwise. Everything else about a frame stays: the layout, the labels'
    textures, and `on_flip`, which the app's saving and start-up wait for.
    (COMPANION_TEST_DRAW=1 paints every frame, to watch a test run.)"""
    paint = window.on_draw
    take = window.screenshot

    def screenshot(*args: Any, **kwargs: Any) -> Any:
        paint()
        return take(*args, **kwargs)

    window.on_draw = lambda *_args: None
    window.screenshot = screenshot


@pytest.fixture(scope="session")
def _session_app() -> Iterator[Harness]:
    from kivy.config import Config

    Config.set("graphics", "width", str(PHONE[0]))
    Config.set("graphics", "height", str(PHONE[1]))
    Config.set("kivy", "exit_on_escape", "0")
    from companion.ui.app import CompanionApp

    clock = SteppedClock()
    clock.install()
    data_dir = Path(tempfile.mkdtemp(prefix="companion-ui-"))
    app = CompanionApp(data_dir=data_dir)
    app._run_prepare()  # what App.run() does before the main loop
    from kivy.core.window import Window

    # A test module that imported Kivy's window first made it before the size was set.
    if tuple(Window.size) != PHONE:
        Window.size = PHONE
    if not os.environ.get("COMPANION_TEST_DRAW"):
        draw_only_for_screenshots(Window)
    harness = Harness(app, data_dir, clock)
    deadline = time.monotonic() + 30
    while not app.ready:  # the rules engine and the saved games load after the first frame
        assert time.monotonic() < deadline, "the app did not finish starting"
        harness.pump(frames=1)
    yield harness
    app.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def ui(_session_app: Harness) -> Iterator[Harness]:
    """The app with no game open, no saved games, fixed settings, on the New game screen,
    every list at its top; afterwards nothing is left moving or animating for the next test."""
    from companion.store import Settings

    app = _session_app.app
    _session_app.reset_lists()
    _session_app.reset_services()
    app.session.close()
    for saved in app.session.games.list():
        app.session.games.delete(saved.id)
    app.settings = Settings(victory_countdown_s=0.4)
    app.root.ids.banner.hide()
    app.show("new_game", fresh=True)
    app.navigator.forget_back()
    _session_app.pump()
    yield _session_app
    _session_app.reset_lists()
