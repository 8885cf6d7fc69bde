"""The Devices screen's line about a firmware install that has ended follows a language
switch: the outcome is kept as what happened and worded when the screen shows it. The
install itself is stood in for (the real one, on a board, is tests/ui/test_devices_install.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from companion.core.phrase import Phrase
from companion.devices.install import InstallFailedError, InstallResult
from companion.devices.status import CounterStatus
from companion.ui import i18n
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

KEY, PORT = "serial:/dev/ttyACM0", "/dev/ttyACM0"


class Manager:
    """A device manager holding one counter on USB, which lets go of it when asked."""

    tokens = None

    def __init__(self) -> None:
        self.held = [CounterStatus(key=KEY, transport="serial", name="Counter 1", address=PORT)]

    def statuses(self) -> list[CounterStatus]:
        return list(self.held)

    async def remove(self, key: str) -> None:
        self.held = [status for status in self.held if status.key != key]


def stand_in_installer(monkeypatch: pytest.MonkeyPatch, fails: bool) -> None:
    from companion.devices import discovery, install

    class Installer:
        def __init__(self, port: str, **_kwargs: Any) -> None:
            self.port = port

        async def ask(self) -> str:
            return "0.9.0"

        async def run(self) -> InstallResult:
            if fails:
                raise InstallFailedError(Phrase("The board said: {text}", text="OSError 28"))
            return InstallResult(port=self.port, before="0.9.0", after="1.4.0", installed=True)

    async def nothing_found(**_kwargs: Any) -> list[Any]:
        return []

    monkeypatch.setattr(install, "Installer", Installer)
    monkeypatch.setattr(discovery, "discover", nothing_found)


@pytest.mark.parametrize(
    ("fails", "english", "template", "values"),
    [
        (
            False,
            "Firmware 1.4.0 installed (it ran 0.9.0).",
            "Firmware {after} installed (it ran {before}).",
            {"after": "1.4.0", "before": "0.9.0"},
        ),
        (True, "The board said: OSError 28", "The board said: {text}", {"text": "OSError 28"}),
    ],
)
async def test_the_outcome_of_an_install_follows_a_language_switch(
    ui: Harness,
    monkeypatch: pytest.MonkeyPatch,
    fails: bool,
    english: str,
    template: str,
    values: dict[str, str],
) -> None:
    from companion.ui.device_service import DeviceService

    stand_in_installer(monkeypatch, fails)
    service = DeviceService(ui.app, manager=Manager())
    service.statuses = service.manager.statuses()
    monkeypatch.setattr(ui.app, "devices", service)
    ui.nav("devices")
    service.install_firmware(KEY)
    await ui.until(
        lambda: KEY in service.installs and not service.installs[KEY].busy, "the install ends"
    )
    ui.pump(frames=2)
    (row,) = ui.screen("devices").ids.installs.children
    assert row.text == english
    try:
        i18n.set_language("de")
        ui.nav("devices")
        ui.pump(frames=2)
        (row,) = ui.screen("devices").ids.installs.children
        german = i18n._(template).format(**values)
        assert german != english
        assert row.text == german
        shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
        if shot:
            from kivy.core.window import Window

            Window.screenshot(f"{shot}/install-outcome-de-{'failed' if fails else 'done'}.png")
    finally:
        i18n.set_language("en")
        ui.pump()
