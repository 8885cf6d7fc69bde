"""The Devices screen's Install firmware button: a real install on a counter on USB (the VM
board of tests/firmware on a pty), its progress on the screen while the screen stays in use,
the versions and the outcome in words, and the counter back on the screen after it."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from companion.ui import i18n
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE_TESTS = ROOT / "tests" / "firmware"
for _path in (ROOT / "firmware", FIRMWARE_TESTS / "vmside", FIRMWARE_TESTS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

PINOUT = "levelboard-picow"
SHOTS = os.environ.get("INSTALL_SHOTS")  # a folder: the screenshots are saved there too


@pytest.fixture
async def usb_counter(tmp_path: Path) -> AsyncIterator[Any]:
    """A level board on USB running an older firmware ("0.9.0")."""
    from boardvm import board_on_older_firmware

    async with board_on_older_firmware(tmp_path, PINOUT) as vm:
        yield vm


async def test_install_firmware_from_the_devices_screen(
    ui: Harness, usb_counter: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kivy.core.window import Window

    from companion.devices import discovery
    from companion.devices.install import shipped_version
    from companion.devices.sim.bumble_backend import VirtualRadio
    from companion.devices.sync import DeviceManager
    from companion.devices.tokens import TokenStore
    from companion.ui.device_service import DeviceService
    from tests.ui.test_contrast import poor_contrast
    from tests.ui.test_i18n_live import clipped_labels

    # The board is the one on USB; no virtual counters, a radio that hears nobody.
    candidate = discovery.SerialCandidate(usb_counter.path, "VM board")
    monkeypatch.setattr(discovery, "serial_candidates", lambda ports=None: [candidate])
    monkeypatch.setattr(ui.app, "no_virtual", True)
    ui.start_game(["Anna", "Bram"])
    manager = DeviceManager(
        tokens=TokenStore(tmp_path / "counters.json"), backend=VirtualRadio().bleak_backend()
    )
    service = DeviceService(ui.app, manager=manager, scan_timeout_s=0.2)
    monkeypatch.setattr(ui.app, "devices", service)
    service.game_changed(ui.app.session.game)
    running = asyncio.ensure_future(service.run())
    try:
        await ui.until(
            lambda: [s.firmware for s in service.statuses] == ["0.9.0"],
            "the counter on USB answers with its old firmware",
        )
        ui.nav("devices")
        screen = ui.screen("devices")
        await ui.until(lambda: len(screen.rows) == 1, "the counter has its row")
        (row,) = screen.rows.values()
        assert row.installable and row.ids.install.height >= 48

        ui.tap(row.ids.install)
        steps: list[str] = []
        await ui.until(lambda: bool(screen.ids.installs.children), "the install has its row")
        (install_row,) = screen.ids.installs.children

        def copying() -> bool:
            steps.append(install_row.text)
            return install_row.busy and "Copying files" in install_row.text

        await ui.until(copying, "the files are being copied", timeout_s=60)
        # The screen stays in use meanwhile: brightness steps while the files go over.
        before = ui.app.settings.led_brightness
        ui.tap(screen.ids.brightness.ids.minus)
        assert ui.app.settings.led_brightness < before
        assert 0 < install_row.fraction < 1
        ui.pump(frames=2)
        shot = tmp_path / "install-progress-en-dark.png"
        Path(Window.screenshot(name=str(shot))).replace(shot)
        if SHOTS:
            (Path(SHOTS) / shot.name).write_bytes(shot.read_bytes())
        await ui.until(lambda: not install_row.busy, "the install ends", timeout_s=90)
        assert not install_row.error, install_row.text
        assert install_row.text == f"Firmware {shipped_version()} installed (it ran 0.9.0)."
        assert any("Stopping" in s for s in steps)
        await ui.until(
            lambda: [s.firmware for s in service.statuses] == [shipped_version()],
            "the counter is back, with its new firmware",
        )
        assert install_row.ids.dismiss.height >= 48

        # Looked at: English and German, dark and light, at 360x640.
        for language in ("en", "de"):
            i18n.set_language(language)
            for theme in ("dark", "light"):
                ui.app.theme.apply(theme)
                screen.refresh()
                ui.pump(frames=6)
                assert not clipped_labels(install_row), (language, theme)
                assert not list(poor_contrast(ui)), (language, theme)
                name = f"install-{language}-{theme}.png"
                Path(Window.screenshot(name=str(tmp_path / name))).replace(tmp_path / name)
                if SHOTS:
                    (Path(SHOTS) / name).write_bytes((tmp_path / name).read_bytes())

        screen = ui.screen("devices")  # built again in the new language
        (install_row,) = screen.ids.installs.children
        ui.tap(install_row.ids.dismiss)
        await ui.until(lambda: not screen.ids.installs.children, "the outcome is put away")
    finally:
        i18n.set_language("en")
        ui.app.theme.apply("dark")
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
