"""A board with no MicroPython yet: found, explained, given MicroPython, then made a counter.

Three kinds of bare board are found here:

- an ESP32-S3 or ESP32-C3 in its ROM bootloader, on a serial port whose USB id is
  Espressif's native USB-Serial/JTAG or a common USB-UART bridge, which answers
  esptool's SYNC;
- a Raspberry Pi Pico (W) in BOOTSEL mode: a USB drive whose INFO_UF2.TXT names
  "RPI-RP2";
- a serial port of such a board that answers nothing at all (no counter, no
  MicroPython, no bootloader), which must be put into its bootloader by hand.

`guide()` is the one place that words what to do next, for `companion install` and
for the Devices screen alike. `check_image()` refuses an image made for another chip
before anything is written. `make_counter()` writes MicroPython (esptool's write_flash
at the chip's offset, or the .uf2 copied to the drive), waits for the board to come
back running MicroPython, and installs the counter firmware with `Installer`.

Writing to an ESP32 needs the `esptool` package, which the desktop app has; on a phone
it is missing and `esptool_available()` says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import importlib.util
import logging
import os
import struct
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import serial
from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo

from companion.core.phrase import Phrase
from companion.devices.images import FlashError, Image, WrongImageError, first_line
from companion.devices.install import (
    BAUD,
    PORT_ERRORS,
    Installer,
    InstallError,
    InstallResult,
    Listener,
    Progress,
    Step,
    pinouts,
)

__all__ = ["FlashError", "Image", "WrongImageError", "first_line"]

log = logging.getLogger(__name__)
# What a port that answers no counter's HELLO can raise beside LinkError.
NO_HELLO: tuple[type[BaseException], ...] = (TimeoutError, RuntimeError, *PORT_ERRORS)

ESP32_S3 = "ESP32-S3"
ESP32_C3 = "ESP32-C3"
RP2040 = "RP2040"

#: Chip id in an ESP image's extended header (byte 12..13) -> chip name (esptool's names).
ESP_IMAGE_CHIPS: dict[int, str] = {
    0: "ESP32",
    2: "ESP32-S2",
    5: ESP32_C3,
    9: ESP32_S3,
    12: "ESP32-C2",
    13: "ESP32-C6",
    16: "ESP32-H2",
    18: "ESP32-P4",
}
#: Where the whole firmware image goes in flash (bootloader first), by chip.
ESP_FLASH_OFFSET: dict[str, int] = {ESP32_S3: 0x0, ESP32_C3: 0x0}
ESP_IMAGE_MAGIC = 0xE9
PARTITION_TABLE_AT = 0x8000  # a whole MicroPython image has its partition table here
PARTITION_MAGIC = b"\xaa\x50"

UF2_MAGIC = (0x0A324655, 0x9E5D5157)
UF2_MAGIC_END = 0x0AB16F30
UF2_FAMILY_FLAG = 0x00002000
UF2_BLOCK = 512
#: UF2 family ids -> chip name (from the UF2 specification's family list).
UF2_FAMILIES: dict[int, str] = {
    0xE48BFF56: RP2040,
    0xE48BFF57: "RP2350",
    0xE48BFF59: "RP2350",
    0xE48BFF5A: "RP2350",
    0xC47E5767: ESP32_S3,
    0xD42BA06C: ESP32_C3,
    0xBFDD4EEE: "ESP32-S2",
}
BOOTSEL_BOARD_ID = "RPI-RP2"

#: USB ids of ports esptool may be tried on (never the Pico's: it has no ROM serial).
ESPRESSIF_VID = 0x303A
BRIDGES: frozenset[tuple[int, int]] = frozenset(
    {
        (0x10C4, 0xEA60),  # Silicon Labs CP210x
        (0x1A86, 0x7523),  # WCH CH340
        (0x1A86, 0x55D4),  # WCH CH9102
        (0x1A86, 0x55D3),  # WCH CH343
        (0x0403, 0x6001),  # FTDI FT232R
        (0x0403, 0x6010),  # FTDI FT2232
        (0x0403, 0x6014),  # FTDI FT232H
        (0x0403, 0x6015),  # FTDI FT231X
    }
)
RASPBERRY_VID = 0x2E8A

MICROPYTHON_WAIT_S = 45.0  # s: a freshly written board makes its filesystem, then answers
DRIVE_GONE_WAIT_S = 20.0  # s: the Pico restarts as soon as the last block is in
COPY_CHUNK = 64 * 1024  # bytes of a .uf2 written between two progress reports
PROMPT_WAIT_S = 1.0  # s: MicroPython's prompt comes at once after a Ctrl-C


class Kind(enum.Enum):
    """What a bare board is doing."""

    ESP_BOOTLOADER = "esp-bootloader"  # an ESP32 in its ROM bootloader
    BOOTSEL = "bootsel"  # a Pico's BOOTSEL drive
    SILENT = "silent"  # a board's port that answers nothing


@dataclass(frozen=True)
class BareBoard:
    """A board found with no MicroPython on it."""

    kind: Kind
    #: "ESP32-S3", "ESP32-C3", "RP2040", or None when nothing said which chip it is.
    chip: str | None
    port: str | None = None  # the serial port (ESP32 and silent boards)
    drive: Path | None = None  # the BOOTSEL drive's folder (a Pico)
    #: For a silent port: "espressif" (BOOT button and RESET), "pico" (BOOTSEL), "bridge".
    usb: str = ""

    @property
    def key(self) -> str:
        """A name for it that stays the same while it is plugged in."""
        return f"bare:{self.port or self.drive}"

    @property
    def where(self) -> str:
        return str(self.port or self.drive or "")


# -- the words ---------------------------------------------------------------------------------


def board_title(board: BareBoard) -> Phrase:
    """Which board was found, in a few words."""
    if board.kind is Kind.BOOTSEL:
        return Phrase("Raspberry Pi Pico in BOOTSEL mode ({drive})", drive=str(board.drive))
    if board.kind is Kind.ESP_BOOTLOADER:
        return Phrase(
            "{chip} in its bootloader on {port}", chip=board.chip or "ESP32", port=str(board.port)
        )
    return Phrase("A board on {port} that answers nothing", port=str(board.port))


def download_page(chip: str) -> Phrase:
    """Where the MicroPython image for a chip is, in words."""
    if chip == RP2040:
        return Phrase(
            "Get MicroPython (a .uf2 file) from the MicroPython download page for the "
            "Raspberry Pi Pico W."
        )
    return Phrase(
        "Get MicroPython (a .bin file) from the MicroPython download page for {chip} "
        "generic boards.",
        chip=chip,
    )


def guide(board: BareBoard, *, command_line: bool) -> list[Phrase]:
    """What to do with a bare board, sentence by sentence (the same words everywhere).

    `command_line` picks the last step: the command to type, or the screen's button.
    """
    lines = [board_title(board)]
    if board.kind is Kind.SILENT:
        lines.append(Phrase("It runs neither MicroPython nor its bootloader."))
        if board.usb == "pico":
            lines.append(
                Phrase(
                    "Unplug it, hold its BOOTSEL button while plugging it back in, then look again."
                )
            )
        else:
            lines.append(
                Phrase(
                    "Put it into its bootloader: hold its BOOT button, tap RESET, let go of "
                    "BOOT, then look again."
                )
            )
        return lines
    chip = board.chip or RP2040
    lines.append(Phrase("It has no MicroPython yet."))
    lines.append(download_page(chip))
    if command_line:
        lines.append(
            Phrase("Then write it and the counter firmware with: companion install --image FILE")
        )
    else:
        lines.append(Phrase("Then choose that file here: it and the counter firmware go on."))
    return lines


# -- the images --------------------------------------------------------------------------------


def check_image(path: Path, chip: str) -> Image:
    """The image at `path`, checked to be a whole MicroPython image for `chip`.

    Raises `WrongImageError` with one line saying why not.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise WrongImageError(
            Phrase("{file} could not be read: {why}", file=str(path), why=exc.strerror or exc)
        ) from None
    name = Path(path).name
    if chip == RP2040:
        found = uf2_family(data)
        if found is None:
            raise WrongImageError(
                Phrase("{file} is not a .uf2 image: a Pico needs one.", file=name)
            )
        if found != RP2040:
            raise WrongImageError(
                Phrase(
                    "{file} is made for the {other}, but this board is an {chip}.",
                    file=name,
                    other=found,
                    chip=chip,
                )
            )
        return Image(Path(path), chip, "uf2", data)
    found = esp_image_chip(data)
    if found is None:
        raise WrongImageError(Phrase("{file} is not an ESP32 firmware image (.bin).", file=name))
    if found != chip:
        raise WrongImageError(
            Phrase(
                "{file} is made for the {other}, but this board is an {chip}.",
                file=name,
                other=found,
                chip=chip,
            )
        )
    if data[PARTITION_TABLE_AT : PARTITION_TABLE_AT + 2] != PARTITION_MAGIC:
        raise WrongImageError(
            Phrase(
                "{file} is only a part of a firmware (it has no partition table): take the "
                "whole .bin from the download page.",
                file=name,
            )
        )
    return Image(Path(path), chip, "esp", data, ESP_FLASH_OFFSET.get(chip, 0))


def esp_image_chip(data: bytes) -> str | None:
    """The chip an ESP image header names ("ESP32-S3"), or None for no ESP image."""
    if len(data) < 24 or data[0] != ESP_IMAGE_MAGIC:
        return None
    chip_id = int.from_bytes(data[12:14], "little")
    return ESP_IMAGE_CHIPS.get(chip_id, f"chip {chip_id}")


def uf2_family(data: bytes) -> str | None:
    """The chip a UF2 file's blocks name ("RP2040"), or None for no UF2 file.

    The first block naming a family decides ("unknown" when none does).
    """
    if len(data) < UF2_BLOCK or len(data) % UF2_BLOCK:
        return None
    for start in range(0, len(data), UF2_BLOCK):
        magic0, magic1, flags = struct.unpack_from("<III", data, start)
        (end,) = struct.unpack_from("<I", data, start + UF2_BLOCK - 4)
        if (magic0, magic1) != UF2_MAGIC or end != UF2_MAGIC_END:
            return None
        if flags & UF2_FAMILY_FLAG:
            (family,) = struct.unpack_from("<I", data, start + 28)
            if family in UF2_FAMILIES:
                return UF2_FAMILIES[family]
            return f"family {family:#010x}"
    return "unknown"


# -- finding ----------------------------------------------------------------------------------


def bootsel_places() -> list[Path]:
    """The folders a BOOTSEL drive is mounted under, on this computer."""
    user = os.environ.get("USER") or os.environ.get("USERNAME") or ""
    places: list[Path] = []
    if sys.platform == "win32":
        places = [Path(f"{letter}:/") for letter in "DEFGHIJKLMNOPQRSTUVWXYZ"]
        return [p for p in places if p.exists()]
    roots = [Path("/Volumes")] if sys.platform == "darwin" else []
    roots += [Path("/media") / user, Path("/run/media") / user, Path("/media"), Path("/mnt")]
    for root in roots:
        with contextlib.suppress(OSError):
            places.extend(p for p in root.iterdir() if p.is_dir())
    return places


def bootsel_drives(places: Iterable[Path] | None = None) -> list[Path]:
    """Mounted BOOTSEL drives of a Pico (RP2040): their INFO_UF2.TXT names RPI-RP2."""
    found = []
    for place in bootsel_places() if places is None else places:
        info = Path(place) / "INFO_UF2.TXT"
        try:
            text = info.read_text(errors="replace")
        except OSError:
            continue
        if any(
            line.split(":", 1)[-1].strip() == BOOTSEL_BOARD_ID
            for line in text.splitlines()
            if line.lower().startswith("board-id")
        ):
            found.append(Path(place))
    return sorted(found)


def usb_kind(info: ListPortInfo) -> str | None:
    """ "espressif", "bridge" or "pico" for a port a counter's board may sit on, else None."""
    if info.vid == ESPRESSIF_VID:
        return "espressif"
    if info.vid == RASPBERRY_VID:
        return "pico"
    if (info.vid, info.pid) in BRIDGES:
        return "bridge"
    return None


def answers_micropython(port: str, timeout_s: float = PROMPT_WAIT_S) -> bool:
    """True when MicroPython's REPL (or raw REPL) answers a Ctrl-C on `port`."""
    try:
        link = serial.Serial(port, BAUD, timeout=0.05, exclusive=True)
    except PORT_ERRORS:
        return False
    try:
        link.write(b"\r\x03\x03")
        link.flush()
        seen = b""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            seen += link.read(max(1, link.in_waiting))
            if b">>> " in seen or b"raw REPL" in seen or b"\r\n>" in seen:
                return True
        return False
    except PORT_ERRORS:
        return False
    finally:
        with contextlib.suppress(*PORT_ERRORS):
            link.close()


def esptool_available() -> bool:
    """True where esptool is installed (the desktop app), so an ESP32 can be written.

    The phone's app has neither esptool nor `esp_flash`, the module that drives it.
    """
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("esptool", "companion.devices.esp_flash")
    )


def bootloader_chip(port: str, *, reset: str = "default-reset") -> str | None:
    """The chip in its ROM bootloader on `port` ("ESP32-S3"), or None when none answers SYNC.

    esptool's reset puts a board with an auto-reset circuit (or native USB) into its
    bootloader on its own; the board is reset back out of it afterwards.
    """
    if not esptool_available():
        return None
    from companion.devices import esp_flash

    return esp_flash.bootloader_chip(port, reset=reset)


def find_bare(
    *,
    ports: Iterable[ListPortInfo] | None = None,
    places: Iterable[Path] | None = None,
    skip: Iterable[str] = (),
    answers: Callable[[str], bool] | None = None,
    chip_of: Callable[[str], str | None] | None = None,
) -> list[BareBoard]:
    """Bare boards plugged in now: BOOTSEL drives, ESP32s in their bootloader, silent ports.

    Blocking (esptool and the REPL check wait on each port): run it in a thread. Ports in
    `skip` (held by the app's counters) are left alone, as is every port where a counter
    or MicroPython answers: those take the ordinary install. `answers` and `chip_of`
    stand in for the MicroPython check and esptool's SYNC in tests.
    """
    answers = answers or _answers_counter_or_micropython
    chip_of = chip_of or bootloader_chip
    found = [BareBoard(Kind.BOOTSEL, RP2040, drive=d) for d in bootsel_drives(places)]
    skipped = set(skip)
    for info in list_ports.comports() if ports is None else ports:
        kind = usb_kind(info)
        if kind is None or info.device in skipped:
            continue
        if answers(info.device):
            continue
        chip = chip_of(info.device) if kind != "pico" else None
        if chip is not None:
            found.append(BareBoard(Kind.ESP_BOOTLOADER, chip, port=info.device, usb=kind))
        else:
            found.append(BareBoard(Kind.SILENT, None, port=info.device, usb=kind))
    return found


def _answers_counter_or_micropython(port: str) -> bool:
    from companion.devices.discovery import probe
    from companion.devices.link import LinkError
    from companion.devices.links import link_to

    async def hello() -> bool:
        try:
            await probe(link_to("serial", port), port, timeout_s=1.0)
        except LinkError:
            return False
        return True

    try:
        if asyncio.run(hello()):
            return True
    except NO_HELLO as exc:  # no counter there: ask MicroPython next
        log.debug("%s: no counter's HELLO (%s)", port, exc)
    return answers_micropython(port)


def fitting_pinouts(chip: str) -> list[str]:
    """The counters (pin map names) a board with this chip can become."""
    want = chip.replace("-", "").upper()
    return [
        name
        for name, pinout in pinouts().items()
        if str(pinout.get("mcu", "")).replace("-", "").upper() == want
    ]


def pick_pinout(chip: str, wanted: str | None) -> str:
    """The pin map for the counter this board becomes; `InstallError` when it must be said."""
    fits = fitting_pinouts(chip)
    if wanted is not None:
        if wanted not in fits:
            raise InstallError(
                Phrase(
                    "{name} is not a counter for the {chip}; one of: {names}",
                    name=wanted,
                    chip=chip,
                    names=", ".join(fits) or "-",
                )
            )
        return wanted
    if len(fits) == 1:
        return fits[0]
    raise InstallError(
        Phrase(
            "Say which counter this {chip} becomes with --board, one of: {names}",
            chip=chip,
            names=", ".join(fits) or "-",
        )
    )


# -- writing ----------------------------------------------------------------------------------


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
    if not esptool_available():
        raise FlashError(
            Phrase(
                "Writing MicroPython on an ESP32 is done from a computer: this app has no "
                "esptool here."
            )
        )
    from companion.devices import esp_flash

    esp_flash.write_esp(port, image, erase=erase, on_progress=on_progress, reset=reset, after=after)


def copy_uf2(
    image: Image,
    drive: Path,
    *,
    on_progress: Listener | None = None,
    gone_wait_s: float = DRIVE_GONE_WAIT_S,
) -> None:
    """Copy a .uf2 to a BOOTSEL drive; blocking. The drive going away afterwards is success."""
    size = len(image.data)
    target = Path(drive) / image.path.name

    def report(done: int) -> None:
        if on_progress is not None:
            on_progress(Progress(Step.FLASHING, 0, 1, done, size))

    done = 0
    report(0)
    try:
        with open(target, "wb") as out:
            for start in range(0, size, COPY_CHUNK):
                piece = image.data[start : start + COPY_CHUNK]
                out.write(piece)
                out.flush()
                done += len(piece)
                report(done)
            with contextlib.suppress(OSError):
                os.fsync(out.fileno())
    except OSError as exc:
        if done < size:
            raise FlashError(
                Phrase(
                    "The Pico's drive went away before the copy was done: put it into "
                    "BOOTSEL mode again and try again ({why}).",
                    why=exc.strerror or str(exc),
                )
            ) from None
        # The Pico restarts as soon as its last block is in: the drive can go under the close.
    report(size)
    deadline = time.monotonic() + gone_wait_s
    while (Path(drive) / "INFO_UF2.TXT").exists():
        if time.monotonic() > deadline:
            raise FlashError(
                Phrase(
                    "The Pico's drive is still there after the copy: the image did not "
                    "start. Unplug the Pico, plug it back in and look again."
                )
            )
        time.sleep(0.2)


def wait_for_micropython(
    known: Iterable[str],
    *,
    timeout_s: float = MICROPYTHON_WAIT_S,
    ports: Callable[[], Iterable[ListPortInfo]] | None = None,
    answers: Callable[[str], bool] = answers_micropython,
) -> str:
    """The serial port a freshly written board comes back on, running MicroPython.

    Ports in `known` are tried last (the same port comes back on an ESP32 with a
    USB-UART bridge); `FlashError` when none answers within `timeout_s`.
    """
    listing = ports or list_ports.comports
    before = set(known)
    deadline = time.monotonic() + timeout_s
    while True:
        names = [i.device for i in listing() if usb_kind(i) is not None]
        for name in sorted(names, key=lambda n: n in before):
            if answers(name):
                return name
        if time.monotonic() > deadline:
            raise FlashError(
                Phrase(
                    "MicroPython is written, but the board did not answer as MicroPython: "
                    "unplug it, plug it back in, and install the counter firmware."
                )
            )
        time.sleep(0.5)


async def make_counter(
    board: BareBoard,
    image: Image,
    *,
    pinout: str,
    erase: bool = False,
    on_progress: Listener | None = None,
    tokens: Any = None,
    identify: bool = True,
    wait: Callable[[Iterable[str]], str] | None = None,
    esp_reset: str = "default-reset",
) -> InstallResult:
    """Write MicroPython on a bare board, then install the counter firmware on it."""
    loop = asyncio.get_running_loop()

    def heard(progress: Progress) -> None:
        if on_progress is not None:
            loop.call_soon_threadsafe(on_progress, progress)

    if board.chip is not None and image.chip != board.chip:
        raise WrongImageError(
            Phrase(
                "{file} is made for the {other}, but this board is an {chip}.",
                file=image.path.name,
                other=image.chip,
                chip=board.chip,
            )
        )
    known = [i.device for i in list_ports.comports()]
    if image.kind == "uf2":
        if board.drive is None:
            raise FlashError(Phrase("Put the Pico into BOOTSEL mode first."))
        drive = board.drive
        await asyncio.to_thread(copy_uf2, image, drive, on_progress=heard)
    else:
        if board.port is None:
            raise FlashError(Phrase("Put the board into its bootloader first."))
        port = board.port
        await asyncio.to_thread(
            write_esp, port, image, erase=erase, on_progress=heard, reset=esp_reset
        )
    heard(Progress(Step.REBOOTING))
    waiting = wait or wait_for_micropython
    port = await asyncio.to_thread(waiting, known)
    installer = Installer(
        port, pinout=pinout, tokens=tokens, identify=identify, on_progress=on_progress
    )
    return await installer.run()
