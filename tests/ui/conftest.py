"""A real Kivy app for the UI tests: started once per session, reset between tests.

Kivy allows one App per process and one Window, so the session fixture builds the
app once (in an offscreen window) and every test drives Kivy's event loop itself:
`pump()` runs frames, `tap()` sends a touch down/up through the Window to a widget,
exactly where a finger would land.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
# The tests read the English texts whatever the machine's language (a first start follows it).
os.environ["LANGUAGE"] = "en"

PHONE = (360, 640)
FRAME_S = 1 / 60
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


_touch_ids = count(1)


class Harness:
    """The running app plus helpers to drive it like a player would."""

    def __init__(self, app: Any, data_dir: Path) -> None:
        self.app = app
        self.data_dir = data_dir

    def pump(self, seconds: float = 0.0, frames: int = 3) -> None:
        """Run Kivy frames for at least `seconds` and at least `frames` frames."""
        from kivy.base import EventLoop

        end = time.monotonic() + seconds
        done = 0
        while done < frames or time.monotonic() < end:
            EventLoop.idle()
            done += 1

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
        from kivy.uix.scrollview import ScrollView

        self.pump()
        scroller = widget.parent
        while scroller is not None and not isinstance(scroller, ScrollView):
            scroller = scroller.parent if scroller is not scroller.parent else None
        # A player waits for the screen to settle before touching it: a list laid out
        # again (after a language change, say) takes a few frames to find its place.
        x, y = widget.to_window(*widget.center)
        settle_until = time.monotonic() + 5.0

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
            before, (x, y) = (x, y), widget.to_window(*widget.center)
            on_screen = in_view(x, y)
            if (on_screen and (x, y) == before) or time.monotonic() > settle_until:
                break
        assert on_screen, self._off_screen(widget, (x, y), scroller)
        self.touch_at(x, y)

    def touch_at(self, x: float, y: float) -> None:
        """A finger down and up at window point (x, y), whatever is there."""
        from kivy.base import EventLoop
        from kivy.core.window import Window
        from kivy.input.motionevent import MotionEvent

        class Finger(MotionEvent):
            def depack(self, args: tuple[float, float]) -> None:
                self.sx, self.sy = args
                self.is_touch = True
                self.profile = ["pos"]
                super().depack(args)

        finger = Finger("ui-test", next(_touch_ids), (x / Window.width, y / Window.height))
        EventLoop.post_dispatch_input("begin", finger)
        self.pump(frames=1)
        EventLoop.post_dispatch_input("end", finger)
        self.pump()

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


@pytest.fixture(scope="session")
def _session_app() -> Iterator[Harness]:
    from kivy.config import Config

    Config.set("graphics", "width", str(PHONE[0]))
    Config.set("graphics", "height", str(PHONE[1]))
    Config.set("kivy", "exit_on_escape", "0")
    from companion.ui.app import CompanionApp

    data_dir = Path(tempfile.mkdtemp(prefix="companion-ui-"))
    app = CompanionApp(data_dir=data_dir)
    app._run_prepare()  # what App.run() does before the main loop
    harness = Harness(app, data_dir)
    deadline = time.monotonic() + 30
    while not app.ready:  # the rules engine and the saved games load after the first frame
        assert time.monotonic() < deadline, "the app did not finish starting"
        harness.pump(frames=1)
    yield harness
    app.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def ui(_session_app: Harness) -> Harness:
    """The app with no game open, no saved games, fixed settings, on the New game screen."""
    from companion.store import Settings

    app = _session_app.app
    app.session.close()
    for saved in app.session.games.list():
        app.session.games.delete(saved.id)
    app.settings = Settings(victory_countdown_s=0.4)
    app.root.ids.banner.hide()
    app.show("new_game", fresh=True)
    app.navigator.forget_back()
    _session_app.pump()
    return _session_app
