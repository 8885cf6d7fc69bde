"""The table link's pages in real browsers of the three engines, all from Debian:

- **Chromium**: `chromium` driven by `chromium-driver` (selenium);
- **Firefox**: `firefox-esr` driven through its own WebDriver BiDi agent
  (`--remote-debugging-port`, a WebSocket) by the small client below: Debian has no
  geckodriver;
- **WebKit** (the engine Safari is built on): WebKitGTK's MiniBrowser driven by
  `WebKitWebDriver` (`webkit2gtk-driver`, selenium). WebKitGTK has no headless mode, so
  its window is full screen on a virtual X display (`xvfb`) exactly the page's size.

Each engine's browser is started once per test process and kept (`Browsers`); a test
opens pages (windows) in it and closes them. Every blocking call runs in a thread
(`asyncio.to_thread`) while the host's loop keeps serving. Without an engine its tests
skip with the reason, except in CI (CI=true), where a missing engine fails them: CI
installs all three (.ci/run).
"""

from __future__ import annotations

import abc
import asyncio
import base64
import contextlib
import glob
import json
import os
import queue
import re
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ENGINES = ("chromium", "firefox", "webkit")
CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHROMEDRIVER_NAMES = ("chromedriver", "chromium-driver")
FIREFOX_NAMES = ("firefox-esr", "firefox")
PAGE_LOAD_S = 30.0
START_S = 60.0
# No call to a driver waits longer than this: selenium's own default is to wait for ever,
# and a thread stuck in a call keeps the test's loop (and the whole run) from ending.
COMMAND_S = 150
# Chromium with nothing of its own going on: no updates, no sync, no first-run pages.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Pages in windows the tests do not look at keep their timers running.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
)
# Firefox likewise: no updates, telemetry, first-run pages or default-browser question.
FIREFOX_PREFS = {
    "app.update.auto": False,
    "app.update.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "dom.min_background_timeout_value": 4,
    "intl.accept_languages": "en",
}


# Wait inside the page until `check` (the test's function body) returns something true;
# looks again each time 50 ms pass, within one call: no sleep on the test's side. The
# body is written into the script (no `new Function`: the page's CSP forbids eval, and
# WebKit holds a driver's scripts to it).
def _waiter(body: str) -> str:
    return (
        "function check() {\n" + body + "\n}\n"
        "function waitFor(timeoutMs, rest, done) {\n"
        "  var end = Date.now() + timeoutMs;\n"
        "  (function look() {\n"
        "    var found;\n"
        "    try { found = check.apply(null, rest); } catch (e) { found = null; }\n"
        "    if (found) return done(found);\n"
        "    if (Date.now() > end) return done(null);\n"
        "    setTimeout(look, 50);\n"
        "  })();\n"
        "}\n"
    )


def _which(names: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def _minibrowser() -> str | None:
    found = sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))
    return found[-1] if found else None


def engine_missing(engine: str) -> str | None:
    """Why `engine`'s tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
        import websocket  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if engine == "chromium":
        if _which(CHROMIUM_NAMES) is None or _which(CHROMEDRIVER_NAMES) is None:
            return "Chromium is not installed (sudo apt install chromium chromium-driver)"
    elif engine == "firefox":
        if _which(FIREFOX_NAMES) is None:
            return "Firefox is not installed (sudo apt install firefox-esr)"
    elif engine == "webkit":
        if shutil.which("WebKitWebDriver") is None or _minibrowser() is None:
            return "WebKit is not installed (sudo apt install webkit2gtk-driver xvfb)"
        if shutil.which("Xvfb") is None:
            return "WebKit needs a virtual display: Xvfb is not installed (sudo apt install xvfb)"
    else:
        return f"no such engine: {engine}"
    return None


def need_engine(engine: str) -> None:
    """Skip without the engine; in CI, fail instead (every engine must run there)."""
    reason = engine_missing(engine)
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"the browser tests must run in CI: {reason}")
    pytest.skip(f"{engine}: {reason}")


def need_browser() -> None:
    """Chromium, for the tests that run in it alone."""
    need_engine("chromium")


class Page(abc.ABC):
    """One page of a given size (a phone or a TV) in one engine's browser; each engine
    says how it does what the page asks (the abstract methods below)."""

    engine = ""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height

    # -- what each engine does, blocking ---------------------------------------------------
    @abc.abstractmethod
    def _open(self, url: str) -> None: ...

    @abc.abstractmethod
    def _reload(self) -> None: ...

    @abc.abstractmethod
    def _run(self, script: str, args: tuple[Any, ...]) -> Any: ...

    @abc.abstractmethod
    def _wait(self, script: str, timeout_s: float, args: tuple[Any, ...]) -> Any: ...

    @abc.abstractmethod
    def _click(self, css: str) -> None: ...

    @abc.abstractmethod
    def _screenshot(self) -> bytes: ...

    @abc.abstractmethod
    def _close(self) -> None: ...

    # -- the tests' calls, each in a thread --------------------------------------------
    async def open(self, url: str) -> None:
        await asyncio.to_thread(self._open, url)

    async def reload(self) -> None:
        await asyncio.to_thread(self._reload)

    async def run(self, script: str, *args: Any) -> Any:
        """Run `script` (a function body; `arguments` holds `args`) and return its value."""
        return await asyncio.to_thread(self._run, script, args)

    async def click(self, css: str) -> None:
        """A real click in the middle of the element (whatever is on top there gets it)."""
        await asyncio.to_thread(self._click, css)

    async def text(self, css: str) -> str:
        return str(
            await self.run(
                "var e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css
            )
        )

    async def state(self) -> dict[str, Any]:
        """What the page holds (role, view, presses not answered yet, connected)."""
        found = await self.run(
            "return window.companionTable ? window.companionTable.state() : null;"
        )
        return found or {}

    async def wait(self, script: str, what: str, timeout_s: float = 20.0, *args: Any) -> Any:
        """Wait until `script` (a JavaScript function body) returns something true."""
        found = await asyncio.to_thread(self._wait, script, timeout_s, args)
        if not found:
            state = await self.state()
            raise AssertionError(f"{self.engine}: the page never showed {what}; it holds {state}")
        return found

    async def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(await asyncio.to_thread(self._screenshot))

    async def close(self) -> None:
        await asyncio.to_thread(self._close)


# -- selenium: Chromium and WebKit ---------------------------------------------------------
class _SeleniumPage(Page):
    def __init__(self, driver: Any, lock: threading.Lock, handle: str, width: int, height: int):
        super().__init__(width, height)
        self.driver = driver
        self.lock = lock
        self.handle = handle

    def _here(self) -> None:
        if self.driver.current_window_handle != self.handle:
            self.driver.switch_to.window(self.handle)

    def _open(self, url: str) -> None:
        with self.lock:
            self._here()
            self.driver.get(url)

    def _reload(self) -> None:
        with self.lock:
            self._here()
            self.driver.refresh()

    def _run(self, script: str, args: tuple[Any, ...]) -> Any:
        with self.lock:
            self._here()
            return self.driver.execute_script(script, *args)

    def _wait(self, script: str, timeout_s: float, args: tuple[Any, ...]) -> Any:
        waiter = _waiter(script) + (
            "var a = Array.prototype.slice.call(arguments);"
            "waitFor(a[0], a.slice(1, -1), a[a.length - 1]);"
        )
        from selenium.common.exceptions import WebDriverException

        end = time.monotonic() + timeout_s
        while True:
            left = max(0.1, end - time.monotonic())
            with self.lock:
                self._here()
                self.driver.set_script_timeout(left + 10)
                try:
                    return self.driver.execute_async_script(waiter, int(left * 1000), *args)
                except WebDriverException as error:
                    # The page went away under the wait (it reloaded): wait in the next one.
                    if "unload" not in str(error) or time.monotonic() > end:
                        raise

    def _click(self, css: str) -> None:
        from selenium.webdriver.common.by import By

        with self.lock:
            self._here()
            self.driver.find_element(By.CSS_SELECTOR, css).click()

    def _screenshot(self) -> bytes:
        with self.lock:
            self._here()
            return bytes(self.driver.get_screenshot_as_png())


class ChromiumPage(_SeleniumPage):
    engine = "chromium"

    def __init__(self, browser: Chromium, handle: str, width: int, height: int, mobile: bool):
        super().__init__(browser.driver, browser.lock, handle, width, height)
        self.browser = browser
        with self.lock:
            self._here()
            # The page's own size, as a phone or a TV has it (the window adds nothing).
            self.driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
            )

    def _close(self) -> None:
        with self.lock:
            self._here()
            self.driver.close()
            self.driver.switch_to.window(self.browser.home)


class Chromium:
    """One headless Chromium; each page is a window of its own (never a background tab)."""

    def __init__(self, language: str = "en") -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = Path(tempfile.mkdtemp(prefix="companion-chromium-"))
        options = webdriver.ChromeOptions()
        options.binary_location = _which(CHROMIUM_NAMES) or "chromium"
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile}")
        options.add_argument("--window-size=1920,1080")
        options.add_argument(f"--lang={language}")
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        service = Service(executable_path=_which(CHROMEDRIVER_NAMES) or "chromedriver")
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.command_executor.client_config.timeout = COMMAND_S
        self.driver.set_page_load_timeout(PAGE_LOAD_S)
        self.home = self.driver.current_window_handle
        self.lock = threading.Lock()

    def page(self, width: int, height: int, mobile: bool) -> ChromiumPage:
        with self.lock:
            self.driver.switch_to.window(self.home)
            self.driver.switch_to.new_window("window")
            handle = self.driver.current_window_handle
        return ChromiumPage(self, handle, width, height, mobile)

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


class WebKitPage(_SeleniumPage):
    """A WebKitGTK MiniBrowser full screen on an X display of exactly the page's size."""

    engine = "webkit"

    def __init__(self, width: int, height: int) -> None:
        from selenium import webdriver
        from selenium.webdriver.remote.client_config import ClientConfig
        from selenium.webdriver.remote.remote_connection import RemoteConnection
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        self.display = _Xvfb(width, height)
        options = Options()
        options.binary_location = _minibrowser() or "MiniBrowser"
        options.add_argument("--automation")
        options.add_argument("--full-screen")
        env = {**os.environ, "DISPLAY": self.display.name, "GDK_BACKEND": "x11"}
        env.pop("WAYLAND_DISPLAY", None)
        # The driver is started here and reached through a connection of our own:
        # selenium's WebKitGTK class still names it the deprecated way.
        self.service = Service(executable_path=shutil.which("WebKitWebDriver") or "", env=env)
        try:
            self.service.start()
            config = ClientConfig(
                remote_server_addr=self.service.service_url, keep_alive=True, timeout=COMMAND_S
            )
            driver = webdriver.Remote(RemoteConnection(client_config=config), options=options)
        except BaseException:
            self.service.stop()
            self.display.close()
            raise
        driver.set_page_load_timeout(PAGE_LOAD_S)
        super().__init__(driver, threading.Lock(), driver.current_window_handle, width, height)
        # Full screen (no toolbar), and the window as big as the display.
        driver.set_window_rect(0, 0, width, height)
        inner = driver.execute_script("return [innerWidth, innerHeight]")
        if inner != [width, height]:
            self.quit()
            raise RuntimeError(f"WebKit's page is {inner}, not {width}x{height}")

    def _close(self) -> None:
        with self.lock:
            self.driver.get("about:blank")

    def quit(self) -> None:
        try:
            self.driver.quit()
        finally:
            self.service.stop()
            self.display.close()


class _Xvfb:
    """A virtual X display of one size, on a free display number."""

    def __init__(self, width: int, height: int) -> None:
        read, write = os.pipe()
        self.process = subprocess.Popen(
            [
                *("Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24"),
                *("-nolisten", "tcp", "-nolisten", "unix", "-noreset"),
            ],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        number = ""
        with os.fdopen(read, "rb", buffering=0) as numbers:
            end = time.monotonic() + START_S
            while not number.endswith("\n") and time.monotonic() < end:
                ready, _, _ = select.select([numbers], [], [], end - time.monotonic())
                piece = numbers.read(16) if ready else b""
                if not piece:
                    break
                number += piece.decode("ascii", "replace")
        number = number.strip()
        if not number:
            self.process.kill()
            raise RuntimeError("Xvfb did not start")
        self.name = f":{number}"

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


# -- Firefox, through WebDriver BiDi ---------------------------------------------------------
class BidiError(RuntimeError):
    pass


def _value(remote: dict[str, Any]) -> Any:
    """A WebDriver BiDi RemoteValue as plain Python."""
    kind = remote.get("type")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean", "number"):
        value = remote.get("value")
        if kind == "number" and isinstance(value, str):
            return float(value.replace("Infinity", "inf"))
        return value
    if kind in ("array", "set"):
        return [_value(item) for item in remote.get("value", [])]
    if kind in ("object", "map"):
        return {
            (key if isinstance(key, str) else _value(key)): _value(item)
            for key, item in remote.get("value", [])
        }
    return remote  # a node, a window...: kept as the reference the protocol gave


def _local(value: Any) -> dict[str, Any]:
    """Plain Python as a WebDriver BiDi LocalValue (an argument to a function)."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, int | float):
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, list | tuple):
        return {"type": "array", "value": [_local(item) for item in value]}
    raise TypeError(f"cannot pass {value!r} to a page")


class Firefox:
    """One headless Firefox driven through its WebDriver BiDi agent; a page is a window."""

    def __init__(self) -> None:
        import websocket

        self.profile = Path(tempfile.mkdtemp(prefix="companion-firefox-"))
        prefs = FIREFOX_PREFS
        (self.profile / "user.js").write_text(
            "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items())
        )
        self.process = subprocess.Popen(
            [
                *(_which(FIREFOX_NAMES) or "firefox", "--headless", "--no-remote"),
                *("--profile", str(self.profile), "--remote-debugging-port", "0", "about:blank"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1"},
        )
        address = self._listening()
        self.socket = websocket.create_connection(
            address + "/session", timeout=START_S, suppress_origin=True
        )
        self.socket.settimeout(None)
        self.lock = threading.Lock()
        self.next_id = 0
        self.waiting: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.reader = threading.Thread(target=self._read, name="firefox-bidi", daemon=True)
        self.reader.start()
        self.call("session.new", {"capabilities": {}})

    def _listening(self) -> str:
        """The agent's address, from the line Firefox prints; then stderr is drained."""
        assert self.process.stderr is not None
        found: queue.Queue[str] = queue.Queue()

        def drain() -> None:
            assert self.process.stderr is not None
            try:
                for line in self.process.stderr:
                    match = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
                    if match:
                        found.put(match.group(1))
            except (OSError, ValueError):  # closed as the browser is
                pass
            found.put("")

        threading.Thread(target=drain, name="firefox-stderr", daemon=True).start()
        try:
            address = found.get(timeout=START_S)
        except queue.Empty:
            address = ""
        if not address:
            self.process.kill()
            raise RuntimeError("Firefox did not start its WebDriver BiDi agent")
        return address

    def _read(self) -> None:
        while True:
            try:
                message = json.loads(self.socket.recv())
            except Exception:  # closed: every caller still waiting is told
                for waiter in list(self.waiting.values()):
                    waiter.put({"type": "error", "error": "closed", "message": "Firefox went away"})
                return
            waiter = self.waiting.pop(message.get("id", -1), None)
            if waiter is not None:
                waiter.put(message)

    def call(self, method: str, params: dict[str, Any], timeout_s: float = 60.0) -> Any:
        answer: queue.Queue[dict[str, Any]] = queue.Queue()
        with self.lock:
            self.next_id += 1
            number = self.next_id
            self.waiting[number] = answer
            self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        try:
            message = answer.get(timeout=timeout_s)
        except queue.Empty:
            self.waiting.pop(number, None)
            raise BidiError(f"{method}: no answer in {timeout_s} s") from None
        if message.get("type") == "error":
            raise BidiError(f"{method}: {message.get('error')}: {message.get('message')}")
        return message.get("result")

    def page(self, width: int, height: int) -> FirefoxPage:
        context = self.call("browsingContext.create", {"type": "window"})["context"]
        self.call(
            "browsingContext.setViewport",
            {"context": context, "viewport": {"width": width, "height": height}},
        )
        return FirefoxPage(self, context, width, height)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("session.end", {}, timeout_s=10)
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
            if self.process.stderr is not None:
                self.process.stderr.close()
            shutil.rmtree(self.profile, ignore_errors=True)


class FirefoxPage(Page):
    engine = "firefox"

    def __init__(self, browser: Firefox, context: str, width: int, height: int) -> None:
        super().__init__(width, height)
        self.browser = browser
        self.context = context

    def _call_function(
        self, declaration: str, args: tuple[Any, ...], timeout_s: float = 60.0
    ) -> Any:
        result = self.browser.call(
            "script.callFunction",
            {
                "functionDeclaration": declaration,
                "arguments": [_local(a) for a in args],
                "target": {"context": self.context},
                "awaitPromise": True,
                "userActivation": True,
                "serializationOptions": {"maxObjectDepth": 20},
            },
            timeout_s,
        )
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise BidiError(f"script failed: {details.get('text')}")
        return result.get("result", {})

    def _open(self, url: str) -> None:
        self.browser.call(
            "browsingContext.navigate",
            {"context": self.context, "url": url, "wait": "complete"},
            PAGE_LOAD_S,
        )

    def _reload(self) -> None:
        self.browser.call(
            "browsingContext.reload", {"context": self.context, "wait": "complete"}, PAGE_LOAD_S
        )

    def _run(self, script: str, args: tuple[Any, ...]) -> Any:
        return _value(self._call_function("function () {\n" + script + "\n}", args))

    def _wait(self, script: str, timeout_s: float, args: tuple[Any, ...]) -> Any:
        declaration = (
            "function (timeoutMs) {\n" + _waiter(script) + "\n"
            "var rest = Array.prototype.slice.call(arguments, 1);\n"
            "return new Promise(function (done) {\n"
            "  waitFor(timeoutMs, rest, function (found) { done([!!found, found]); });\n"
            "});\n}"
        )
        # Whether it was found is told apart: a page's own object (a service worker, say)
        # comes back as a reference with nothing in it.
        found, value = _value(
            self._call_function(declaration, (int(timeout_s * 1000), *args), timeout_s + 10)
        )
        return (value or True) if found else None

    def _click(self, css: str) -> None:
        node = self._call_function("function (css) { return document.querySelector(css); }", (css,))
        if node.get("type") != "node":
            raise BidiError(f"no element {css!r} to click")
        origin = {"type": "element", "element": {"sharedId": node["sharedId"]}}
        self.browser.call(
            "input.performActions",
            {
                "context": self.context,
                "actions": [
                    {
                        "type": "pointer",
                        "id": "mouse",
                        "parameters": {"pointerType": "mouse"},
                        "actions": [
                            {"type": "pointerMove", "x": 0, "y": 0, "origin": origin},
                            {"type": "pointerDown", "button": 0},
                            {"type": "pointerUp", "button": 0},
                        ],
                    }
                ],
            },
        )

    def _screenshot(self) -> bytes:
        found = self.browser.call("browsingContext.captureScreenshot", {"context": self.context})
        return base64.b64decode(found["data"])

    def _close(self) -> None:
        self.browser.call("browsingContext.close", {"context": self.context})


# -- every engine's browser, kept for the whole run ----------------------------------------
class Browsers:
    """One browser per engine for the test process, started when first needed.

    Chromium and Firefox open each page in a window of their own; WebKit keeps one
    MiniBrowser per screen size (its window fills a virtual display of that size), and
    hands an idle one out again."""

    def __init__(self) -> None:
        self.chromium: Chromium | None = None
        self.firefox: Firefox | None = None
        self.webkit_idle: dict[tuple[int, int], list[WebKitPage]] = {}
        self.webkit_all: list[WebKitPage] = []

    def page(self, engine: str, width: int, height: int, mobile: bool = False) -> Page:
        if engine == "chromium":
            if self.chromium is None:
                self.chromium = Chromium()
            return self.chromium.page(width, height, mobile)
        if engine == "firefox":
            if self.firefox is None:
                self.firefox = Firefox()
            return self.firefox.page(width, height)
        if engine == "webkit":
            idle = self.webkit_idle.get((width, height))
            if idle:
                return idle.pop()
            page = WebKitPage(width, height)
            self.webkit_all.append(page)
            return page
        raise ValueError(engine)

    def release(self, page: Page) -> None:
        page._close()
        if isinstance(page, WebKitPage):
            self.webkit_idle.setdefault((page.width, page.height), []).append(page)

    def close(self) -> None:
        for closing in (self.chromium, self.firefox, *self.webkit_all):
            if closing is None:
                continue
            try:
                if isinstance(closing, WebKitPage):
                    closing.quit()
                else:
                    closing.close()
            except Exception:
                pass


class Pages:
    """The pages one test opened, all closed when it ends."""

    def __init__(self, browsers: Browsers, engine: str) -> None:
        self.browsers = browsers
        self.engine = engine
        self.opened: list[Page] = []

    async def open(
        self, width: int, height: int, *, mobile: bool = False, engine: str | None = None
    ) -> Page:
        page = await asyncio.to_thread(
            self.browsers.page, engine or self.engine, width, height, mobile
        )
        self.opened.append(page)
        return page

    async def phone(self, height: int = 640) -> Page:
        return await self.open(360, height, mobile=True)

    async def close(self) -> None:
        for page in self.opened:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.browsers.release, page)
        self.opened.clear()


class Browser(ChromiumPage):
    """A Chromium of its own, for a test that needs one set up differently (a language)."""

    def __init__(self, width: int, height: int, *, mobile: bool = False, language: str = "en"):
        self.own = Chromium(language)
        self.own.driver.switch_to.window(self.own.home)
        super().__init__(self.own, self.own.home, width, height, mobile)

    def _close(self) -> None:
        self.own.close()
