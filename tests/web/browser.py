"""Debian's headless Chromium, driven by selenium through chromium-driver, for the table link.

Selenium is blocking, so every call runs in a thread (`asyncio.to_thread`) while the
host's loop keeps serving. Without a browser the tests skip with the reason, except
in CI (CI=true), where a missing browser fails them: CI installs it (.ci/run).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser")
DRIVER_NAMES = ("chromedriver", "chromium-driver")
PAGE_LOAD_S = 30.0
# Chromium with nothing of its own going on: no updates, no sync, no first-run pages.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def _which(names: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if _which(CHROMIUM_NAMES) is None:
        return "Chromium is not installed (sudo apt install chromium chromium-driver)"
    if _which(DRIVER_NAMES) is None:
        return "chromium-driver is not installed (sudo apt install chromium-driver)"
    return None


def need_browser() -> None:
    """Skip without a browser; in CI, fail instead (the browser tests must run there)."""
    reason = browser_missing()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"the browser tests must run in CI: {reason}")
    pytest.skip(reason)


class Browser:
    """One headless Chromium window of a given size (a phone or a TV)."""

    def __init__(self, width: int, height: int, *, mobile: bool = False, language: str = "en"):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = Path(tempfile.mkdtemp(prefix="companion-chromium-"))
        options = webdriver.ChromeOptions()
        options.binary_location = _which(CHROMIUM_NAMES) or "chromium"
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile}")
        options.add_argument(f"--window-size={width},{height}")
        options.add_argument(f"--lang={language}")
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        service = Service(executable_path=_which(DRIVER_NAMES) or "chromedriver")
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_page_load_timeout(PAGE_LOAD_S)
        # The page's own size, as a phone or a TV has it (the window adds nothing headless).
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    # -- blocking calls, each run in a thread --------------------------------------------
    async def open(self, url: str) -> None:
        await asyncio.to_thread(self.driver.get, url)

    async def reload(self) -> None:
        await asyncio.to_thread(self.driver.refresh)

    async def run(self, script: str, *args: Any) -> Any:
        return await asyncio.to_thread(self.driver.execute_script, script, *args)

    async def click(self, css: str) -> None:
        from selenium.webdriver.common.by import By

        def click() -> None:
            self.driver.find_element(By.CSS_SELECTOR, css).click()

        await asyncio.to_thread(click)

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
        """Wait until `script` (a JavaScript expression's body) returns something true.

        The browser looks again each time the page changes or 50 ms pass, inside one
        call: no sleep on this side.
        """
        waiter = """
            var body = arguments[0], rest = Array.prototype.slice.call(arguments, 1, -1);
            var done = arguments[arguments.length - 1];
            var check = new Function(body);
            var end = Date.now() + TIMEOUT_MS;
            (function look() {
              var found;
              try { found = check.apply(null, rest); } catch (e) { found = null; }
              if (found) return done(found);
              if (Date.now() > end) return done(null);
              setTimeout(look, 50);
            })();
        """.replace("TIMEOUT_MS", str(int(timeout_s * 1000)))
        self.driver.set_script_timeout(timeout_s + 10)
        found = await asyncio.to_thread(self.driver.execute_async_script, waiter, script, *args)
        if not found:
            state = await self.state()
            raise AssertionError(f"the page never showed {what}; it holds {state}")
        return found

    async def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(self.driver.save_screenshot, str(path))

    async def close(self) -> None:
        await asyncio.to_thread(self.driver.quit)
        shutil.rmtree(self.profile, ignore_errors=True)
