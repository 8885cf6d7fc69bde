"""`companion install`: put the counter firmware this app ships on a counter plugged in by USB."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any, TextIO

HELP = "install the counter firmware on a counter plugged in by USB (its old one stays if cut)"

BAR_WIDTH = 30  # characters of the progress bar in a terminal


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "port", nargs="?", help="the counter's serial port (default: the one board on USB)"
    )
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask before installing")
    parser.add_argument(
        "--force", action="store_true", help="install even if the counter runs this version"
    )
    parser.add_argument(
        "--board",
        metavar="NAME",
        help="pin map for a board with no counter firmware yet (a hardware/pinouts name)",
    )
    parser.add_argument(
        "--image",
        metavar="FILE",
        help="MicroPython for a board that has none yet (.bin for an ESP32, .uf2 for a Pico): "
        "written first, then the counter firmware",
    )
    parser.add_argument(
        "--erase",
        action="store_true",
        help="with --image on an ESP32: erase the whole flash before writing",
    )


def run(args: argparse.Namespace) -> int:
    from companion.devices.install import CableOutError, InstallError

    try:
        if args.image:
            return asyncio.run(_bare_install(args))
        return asyncio.run(_install(args))
    except CableOutError:
        print(
            "companion install: the counter's cable came out during the install. Plug it "
            "back in and run companion install again: the counter keeps its old firmware "
            "or the whole new one.",
            file=sys.stderr,
        )
        return 1
    except InstallError as exc:
        print(f"companion install: {exc}", file=sys.stderr)
        return 1


def _find_port() -> str:
    from companion.core.phrase import Phrase
    from companion.devices.discovery import serial_candidates
    from companion.devices.install import NoSuchPortError

    ports = [c.port for c in serial_candidates()]
    if not ports:
        from companion.devices.bare import BareBoard, Kind, bootsel_drives, guide

        drives = bootsel_drives()
        if drives:
            board = BareBoard(Kind.BOOTSEL, "RP2040", drive=drives[0])
            raise NoSuchPortError(" ".join(guide(board, command_line=True)))
        raise NoSuchPortError(
            Phrase(
                "No board found on USB. Plug the counter in (or name its port, "
                "e.g. companion install /dev/ttyACM0)."
            )
        )
    if len(ports) > 1:
        raise NoSuchPortError(
            Phrase(
                "Several boards are plugged in ({ports}): name the one to install, "
                "e.g. companion install {port}",
                ports=", ".join(ports),
                port=ports[0],
            )
        )
    return ports[0]


async def _install(args: argparse.Namespace) -> int:
    from companion.devices.install import Installer
    from companion.devices.tokens import TokenStore

    port = args.port or _find_port()
    bar = ProgressPrinter(sys.stdout)
    installer = Installer(
        port, force=args.force, pinout=args.board, tokens=TokenStore(), on_progress=bar
    )
    before = await installer.ask()
    if before is None and not await asyncio.to_thread(_micropython_or_counter, port):
        return _no_micropython(port)
    print(f"Counter on {port}: " + (f"firmware {before}" if before else "no counter firmware"))
    if installer.current and not args.force:
        print(
            f"It already runs firmware {before}, the one this app ships: nothing to do "
            "(--force installs it again)."
        )
        return 0
    print(f"To install: firmware {installer.target}")
    if not args.yes and not _confirm("Install it now? [y/N] "):
        print("Nothing was installed.")
        return 1
    result = await installer.run()
    bar.finish()
    print(f"Done: the counter runs firmware {result.after} (it ran {result.before or 'none'}).")
    if result.identified:
        print("It blinks now, so you can see which one it is.")
    else:
        print(
            "It is not claimed by this app, so it cannot be told to blink: "
            "claim it on the Devices screen."
        )
    return 0


def _micropython_or_counter(port: str) -> bool:
    from companion.devices.bare import answers_micropython

    return answers_micropython(port)


def _no_micropython(port: str) -> int:
    """Nothing answered as a counter or MicroPython: say what the board is and what to do."""
    from companion.devices.bare import find_bare, guide

    found = [b for b in _bare_on(port, find_bare) if b.port == port]
    if not found:
        print(f"companion install: no MicroPython answered on {port}.", file=sys.stderr)
        return 1
    for line in guide(found[0], command_line=True):
        print(line, file=sys.stderr)
    return 1


def _bare_on(port: str | None, find: Any) -> list[Any]:
    """Bare boards on `port` (every one plugged in when None), MicroPython not asked again."""
    if port is None:
        return list(find())
    from serial.tools import list_ports

    ports = [p for p in list_ports.comports() if p.device == port]
    return list(find(ports=ports, answers=lambda _name: False))


async def _bare_install(args: argparse.Namespace) -> int:
    """MicroPython from --image on a board that has none, then the counter firmware."""
    from pathlib import Path

    from companion.core.phrase import Phrase
    from companion.devices.bare import (
        Kind,
        check_image,
        find_bare,
        guide,
        make_counter,
        pick_pinout,
    )
    from companion.devices.install import NoSuchPortError
    from companion.devices.tokens import TokenStore

    image_path = Path(args.image)
    if args.port:
        found = await asyncio.to_thread(_bare_on, args.port, find_bare)
        found = [b for b in found if b.port == args.port]
    else:
        found = await asyncio.to_thread(find_bare)
    ready = [b for b in found if b.kind is not Kind.SILENT]
    if not ready:
        for board in found:
            for line in guide(board, command_line=True):
                print(line, file=sys.stderr)
        if not found:
            print(
                "companion install: no board in its bootloader or BOOTSEL mode was found. "
                "Hold BOOT and tap RESET (an ESP32), or hold BOOTSEL while plugging it in "
                "(a Pico), then try again.",
                file=sys.stderr,
            )
        return 1
    if len(ready) > 1:
        where = ", ".join(b.where for b in ready)
        raise NoSuchPortError(
            Phrase("Several boards wait for MicroPython ({where}): name the port.", where=where)
        )
    board = ready[0]
    assert board.chip is not None
    image = check_image(image_path, board.chip)
    pinout = pick_pinout(board.chip, args.board)
    print(guide(board, command_line=True)[0])
    print(f"To write: {image_path.name}, then the counter firmware for {pinout}")
    if not args.yes and not _confirm("Write them now? [y/N] "):
        print("Nothing was written.")
        return 1
    bar = ProgressPrinter(sys.stdout)
    result = await make_counter(
        board,
        image,
        pinout=pinout,
        erase=args.erase,
        on_progress=bar,
        tokens=TokenStore(),
    )
    bar.finish()
    print(f"Done: MicroPython and counter firmware {result.after} are on the board.")
    return 0


def _confirm(question: str) -> bool:
    try:
        return input(question).strip().lower() in ("y", "yes")
    except EOFError:
        return False


class ProgressPrinter:
    """Prints an install's progress: a bar redrawn in a terminal, a line a step elsewhere."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self._last: Any = None
        self._drawn = False

    def __call__(self, progress: Any) -> None:
        from companion.devices.install import Step

        text = _step_text(progress)
        if progress.step in (Step.COPYING, Step.FLASHING) and self.tty:
            filled = round(BAR_WIDTH * progress.fraction)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.out.write(f"\r[{bar}] {text}   ")
            self.out.flush()
            self._drawn = True
            return
        # While copying, a line per file; while writing MicroPython, a line a quarter.
        quarter = 4 * progress.bytes_done // max(1, progress.bytes_total)
        key = (progress.step, progress.files_done, quarter if progress.step is Step.FLASHING else 0)
        if key == self._last:
            return
        self._last = key
        self.finish()
        print(text, file=self.out, flush=True)

    def finish(self) -> None:
        if self._drawn:
            self.out.write("\n")
            self._drawn = False


def _step_text(progress: Any) -> str:
    from companion.devices.install import Step

    if progress.step is Step.FLASHING:
        return (
            f"Writing MicroPython: {progress.bytes_done / 1024:.0f} of "
            f"{progress.bytes_total / 1024:.0f} KB"
        )
    if progress.step is Step.COPYING:
        return (
            f"Copying files: {progress.files_done} of {progress.files_total}, "
            f"{progress.bytes_done / 1024:.1f} of {progress.bytes_total / 1024:.1f} KB"
        )
    return {
        Step.ERASING: "Erasing the flash...",
        Step.REBOOTING: "Waiting for the board to start MicroPython...",
        Step.ASKING: "Asking the counter which firmware it runs...",
        Step.STOPPING: "Stopping the counter (it keeps its table)...",
        Step.CHECKING: "Checking the copied files...",
        Step.SWAPPING: "Putting the new firmware in place...",
        Step.STARTING: "Starting the counter with its new firmware...",
        Step.DONE: "Finished.",
    }[progress.step]
