"""A MicroPython image checked for a chip, and what goes wrong in writing one: shared by
`bare` (which finds boards and checks images) and `esp_flash` (which drives esptool)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.devices.install import InstallError


class WrongImageError(InstallError):
    """The chosen image is not MicroPython for this board's chip."""


class FlashError(InstallError):
    """Writing MicroPython did not work; the message says what esptool or the drive said."""


@dataclass(frozen=True)
class Image:
    """A MicroPython image checked for a chip: where it goes and what it holds."""

    path: Path
    chip: str
    kind: str  # "esp" (a .bin for write_flash) or "uf2" (copied to the BOOTSEL drive)
    data: bytes
    offset: int = 0  # flash offset (esp)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
