"""The Devices screen's boards without MicroPython: found, explained, an image chosen with
Kivy's file chooser, a wrong one refused, a right one written with its progress on show.

What the boards are is `bare.find_bare`'s (tested in tests/firmware/test_bare.py with a
fake ROM bootloader and a BOOTSEL-shaped folder); here it answers with three boards, and
the writing is held at a known point so that its progress can be looked at."""

from __future__ import annotations

import asyncio
import os
import struct
from pathlib import Path
from typing import Any

import pytest

from companion.devices import bare
from companion.devices.install import InstallResult, Progress, Step
from companion.ui import i18n
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

SHOTS = os.environ.get("INSTALL_SHOTS")  # a folder: the screenshots are saved there too


def esp_image(chip_id: int) -> bytes:
    data = bytearray(b"\xff" * 0x9000)
    data[0:14] = bytes([0xE9, 3, 2, 0x20, 0, 0x80, 0x3C, 0x40, 0xEE, 0, 0, 0]) + struct.pack(
        "<H", chip_id
    )
    data[0x8000:0x8002] = b"\xaa\x50"
    return bytes(data)


def shoot(tmp_path: Path, name: str) -> Path:
    from kivy.core.window import Window

    shot = tmp_path / name
    Path(Window.screenshot(name=str(shot))).replace(shot)
    if SHOTS:
        (Path(SHOTS) / name).write_bytes(shot.read_bytes())
    return shot


async def test_a_board_without_micropython_is_made_a_counter_from_the_devices_screen(
    ui: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.ui.device_service import DeviceService
    from tests.ui.test_contrast import poor_contrast
    from tests.ui.test_i18n_live import clipped_labels

    esp = bare.BareBoard(bare.Kind.ESP_BOOTLOADER, "ESP32-S3", port="/dev/ttyACM0", usb="espressif")
    pico = bare.BareBoard(bare.Kind.BOOTSEL, "RP2040", drive=Path("/media/me/RPI-RP2"))
    silent = bare.BareBoard(bare.Kind.SILENT, None, port="/dev/ttyUSB0", usb="bridge")
    monkeypatch.setattr(bare, "find_bare", lambda **_kw: [esp, pico, silent])
    images = tmp_path / "images"
    images.mkdir()
    (images / "ESP32_GENERIC_C3.bin").write_bytes(esp_image(5))
    (images / "ESP32_GENERIC_S3.bin").write_bytes(esp_image(9))
    (images / "notes.txt").write_text("not an image")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: images))

    asked: dict[str, Any] = {}
    hold = asyncio.Event()

    async def make_counter(board, image, *, pinout, erase, on_progress, **_kw) -> InstallResult:
        asked.update(board=board, image=image, pinout=pinout, erase=erase)
        size = len(image.data)
        on_progress(Progress(Step.ERASING))
        on_progress(Progress(Step.FLASHING, 0, 1, size // 3, size))
        await asyncio.wait_for(hold.wait(), 60)
        on_progress(Progress(Step.REBOOTING))
        on_progress(Progress(Step.DONE))
        return InstallResult("/dev/ttyACM0", None, "1.4.0", True)

    monkeypatch.setattr(bare, "make_counter", make_counter)
    service = DeviceService(ui.app, manager=None)
    monkeypatch.setattr(ui.app, "devices", service)
    ui.nav("devices")
    screen = ui.screen("devices")
    screen.refresh()
    ui.pump()
    try:
        assert screen.can_make_counters and screen.ids.look_for_bare.height >= 48
        ui.tap(screen.ids.look_for_bare)
        await ui.until(lambda: len(screen.ids.bare.children) == 3, "the three boards have rows")
        rows = list(reversed(screen.ids.bare.children))
        esp_row, pico_row, silent_row = rows
        assert esp_row.title == "ESP32-S3 in its bootloader on /dev/ttyACM0"
        assert "download page for ESP32-S3 generic boards" in esp_row.text
        assert "Raspberry Pi Pico W" in pico_row.text and not pico_row.esp
        assert pico_row.ids.becomes.height == 0  # one counter fits a Pico: nothing to choose
        assert "hold its BOOT button, tap RESET" in silent_row.text
        assert silent_row.ids.choose.height == 0  # nothing to write on it yet
        # Two counters fit an S3: the button goes through them; erasing first is asked.
        assert esp_row.becomes_text == "Becomes: Level board, ESP32-S3, 20 spaces (Epic)"
        ui.tap(esp_row.ids.becomes)
        assert esp_row.becomes_text == "Becomes: Level board, ESP32-S3, 10 spaces"
        ui.tap(esp_row.ids.erase)
        assert esp_row.erase_text == "Erase the flash first: yes"
        ui.pump(frames=4)
        for language in ("en", "de"):
            i18n.set_language(language)
            screen = ui.screen("devices")
            screen.refresh()
            ui.pump(frames=6)
            for row in screen.ids.bare.children:
                assert not clipped_labels(row), language
                for button in (row.ids.becomes, row.ids.erase, row.ids.choose):
                    assert button.height in (0,) or button.height >= 48
            screen.ids.bare.parent.parent.scroll_to(screen.ids.bare.children[-1], animate=False)
            ui.pump(frames=4)
            shoot(tmp_path, f"bare-boards-{language}.png")
        i18n.set_language("en")
        screen = ui.screen("devices")
        screen.refresh()
        ui.pump(frames=4)
        esp_row = screen.ids.bare.children[-1]

        # The chooser shows the .bin files only; a C3 image is refused in one line.
        ui.tap(esp_row.ids.choose)
        chooser = screen.chooser
        await ui.until(lambda: chooser.ids.chooser.files, "the chooser lists the folder")
        names = sorted(Path(f).name for f in chooser.ids.chooser.files if not Path(f).is_dir())
        assert names == ["ESP32_GENERIC_C3.bin", "ESP32_GENERIC_S3.bin"]
        ui.pump(frames=4)
        shoot(tmp_path, "bare-chooser-en.png")
        chooser.ids.chooser.selection = [str(images / "ESP32_GENERIC_C3.bin")]
        ui.tap(chooser.ids.action)
        banner = ui.app.root.banner
        await ui.until(lambda: "ESP32_GENERIC_C3.bin" in banner.text, "the refusal is said")
        assert "made for the ESP32-C3, but this board is an ESP32-S3" in banner.text
        assert not screen.ids.installs.children and not asked

        # The right one: written, its progress in the row of installs.
        screen.write_image(0, images / "ESP32_GENERIC_S3.bin")
        await ui.until(lambda: bool(screen.ids.installs.children), "the writing has its row")
        (row,) = screen.ids.installs.children
        await ui.until(lambda: "KB" in row.text, "the bytes written are said")
        assert row.busy and 0.3 < row.fraction < 0.4 and row.text.endswith("of 36 KB")
        assert asked["pinout"] == "levelboard-esp32s3" and asked["erase"] is True
        for language, theme in (("en", "dark"), ("de", "light")):
            i18n.set_language(language)
            ui.app.theme.apply(theme)
            screen = ui.screen("devices")
            screen.refresh()
            ui.pump(frames=6)
            (row,) = screen.ids.installs.children
            assert not clipped_labels(row), (language, theme)
            assert not list(poor_contrast(ui)), (language, theme)
            shoot(tmp_path, f"bare-writing-{language}-{theme}.png")
        i18n.set_language("en")
        ui.app.theme.apply("dark")
        screen = ui.screen("devices")
        screen.refresh()
        hold.set()
        (row,) = screen.ids.installs.children
        await ui.until(lambda: not row.busy, "the writing ends")
        assert row.text == "MicroPython and counter firmware 1.4.0 are on the board."
        assert not row.error
        await ui.until(lambda: len(screen.ids.bare.children) == 2, "the board left the list")
    finally:
        hold.set()
        i18n.set_language("en")
        ui.app.theme.apply("dark")
