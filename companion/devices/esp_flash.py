"""Writing MicroPython on an ESP32-S3/C3 in its ROM bootloader, with esptool's Python API.

Only the desktop app has this module (and esptool): `bare` imports it when a board is
written, after `bare.esptool_available()` said it is there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from companion.core.phrase import Phrase
from companion.devices.images import FlashError, Image, WrongImageError, first_line
from companion.devices.install import InstallError, Listener, Progress, Step


def bootloader_chip(port: str, *, reset: str = "default-reset") -> str | None:
    """The chip in its ROM bootloader on `port` ("ESP32-S3"), or None when none answers SYNC.

    esptool's reset puts a board with an auto-reset circuit (or native USB) into its
    bootloader on its own; the board is reset back out of it afterwards.
    """
    from esptool.cmds import detect_chip

    with _quiet_esptool(None):
        try:
            esp = detect_chip(port, connect_mode=reset, connect_attempts=2)
        except Exception:
            return None
        try:
            name = str(esp.CHIP_NAME)
            if reset != "no-reset":
                with contextlib.suppress(Exception):
                    esp.hard_reset()
        finally:
            with contextlib.suppress(Exception):
                esp._port.close()
    return name


class _quiet_esptool:
    """esptool's output goes nowhere while it runs here; its progress bars to `listener`."""

    def __init__(self, listener: Callable[[int, int], None] | None) -> None:
        self.listener = listener
        self._before: Any = None

    def __enter__(self) -> None:
        from esp_pylib.logger import EspLog
        from esptool.logger import TemplateLogger, log

        heard = self.listener

        class Quiet(TemplateLogger):
            def print(self, *args: Any, **kwargs: Any) -> None:
                pass

            def note(self, message: str) -> None:
                pass

            def warning(self, message: str) -> None:
                pass

            def error(self, message: str) -> None:
                pass

            def stage(self, finish: bool = False) -> None:
                pass

            def progress_bar(
                self,
                cur_iter: int,
                total_iters: int,
                prefix: str = "",
                suffix: str = "",
                bar_length: int = 30,
            ) -> None:
                if heard is not None:
                    heard(cur_iter, total_iters)

            def set_verbosity(self, verbosity: str) -> None:
                pass

        self._before = EspLog.instance
        log.set_logger(Quiet())

    def __exit__(self, *_exc: object) -> None:
        from esp_pylib.logger import EspLog

        EspLog.instance = self._before


def write_esp(
    port: str,
    image: Image,
    *,
    erase: bool = False,
    on_progress: Listener | None = None,
    reset: str = "default-reset",
    after: str = "hard-reset",
) -> None:
    """Write an ESP32 image with esptool (the flasher stub, then write_flash); blocking.

    `reset` is how esptool gets the chip into its bootloader, `after` how it leaves it.
    """
    from esptool.cmds import attach_flash, detect_chip, erase_flash, reset_chip, run_stub
    from esptool.cmds import write_flash as esptool_write

    def report(progress: Progress) -> None:
        if on_progress is not None:
            on_progress(progress)

    def heard(done: int, total: int) -> None:
        size = len(image.data)
        report(Progress(Step.FLASHING, 0, 1, min(size, done * size // max(total, 1)), size))

    with _quiet_esptool(heard):
        try:
            esp = detect_chip(port, connect_mode=reset, connect_attempts=3)
        except Exception as exc:
            raise FlashError(
                Phrase(
                    "No ESP32 bootloader answered on {port}: hold BOOT, tap RESET, let go "
                    "of BOOT, and try again ({why}).",
                    port=port,
                    why=first_line(exc),
                )
            ) from None
        try:
            if image.chip != esp.CHIP_NAME:
                raise WrongImageError(
                    Phrase(
                        "{file} is made for the {other}, but this board is an {chip}.",
                        file=image.path.name,
                        other=image.chip,
                        chip=esp.CHIP_NAME,
                    )
                )
            esp = run_stub(esp)
            attach_flash(esp)
            if erase:
                report(Progress(Step.ERASING))
                erase_flash(esp)
            report(Progress(Step.FLASHING, 0, 1, 0, len(image.data)))
            esptool_write(esp, [(image.offset, image.data)], compress=True)
            report(Progress(Step.FLASHING, 1, 1, len(image.data), len(image.data)))
            reset_chip(esp, after)
        except InstallError:
            raise
        except Exception as exc:
            raise FlashError(
                Phrase(
                    "Writing MicroPython on {port} failed: {why}", port=port, why=first_line(exc)
                )
            ) from None
        finally:
            with contextlib.suppress(Exception):
                esp._port.close()
