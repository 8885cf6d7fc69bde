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


def run(args: argparse.Namespace) -> int:
    from companion.devices.install import CableOutError, InstallError

    try:
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
        if progress.step is Step.COPYING and self.tty:
            filled = round(BAR_WIDTH * progress.fraction)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.out.write(f"\r[{bar}] {text}   ")
            self.out.flush()
            self._drawn = True
            return
        key = (progress.step, progress.files_done)
        if key == self._last:
            return  # while copying, a line per file (not per slice of it)
        self._last = key
        self.finish()
        print(text, file=self.out, flush=True)

    def finish(self) -> None:
        if self._drawn:
            self.out.write("\n")
            self._drawn = False


def _step_text(progress: Any) -> str:
    from companion.devices.install import Step

    if progress.step is Step.COPYING:
        return (
            f"Copying files: {progress.files_done} of {progress.files_total}, "
            f"{progress.bytes_done / 1024:.1f} of {progress.bytes_total / 1024:.1f} KB"
        )
    return {
        Step.ASKING: "Asking the counter which firmware it runs...",
        Step.STOPPING: "Stopping the counter (it keeps its table)...",
        Step.CHECKING: "Checking the copied files...",
        Step.SWAPPING: "Putting the new firmware in place...",
        Step.STARTING: "Starting the counter with its new firmware...",
        Step.DONE: "Finished.",
    }[progress.step]
