"""`companion app`: open the companion app (the default command)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

HELP = "open the companion app (the default when no command is given)"

_SIZE = re.compile(r"^(\d{3,5})x(\d{3,5})$")
# One log file per run, named by its date and a number (Kivy's pattern, in its own words).
LOG_NAME = "companion_%y-%m-%d_%_.txt"
# Runs whose log is kept: the oldest file goes when a run starts past this. An evening is
# one run or a few, and a run's log stays far below a megabyte an hour (`ui.app_log`).
LOG_FILES_KEPT = 10


def window_size(text: str) -> tuple[int, int]:
    """Parse a window size such as 360x640 (an argparse type)."""
    match = _SIZE.match(text.strip().lower())
    if not match:
        raise argparse.ArgumentTypeError(f"size must look like 360x640, not {text!r}")
    return int(match.group(1)), int(match.group(2))


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="folder for saved games, settings and the log (default: the user's data folder)",
    )
    parser.add_argument(
        "--size",
        type=window_size,
        default=None,
        metavar="WxH",
        help="window size in pixels, e.g. 360x640 (phone) or 1280x800 (desktop)",
    )
    parser.add_argument(
        "--no-virtual",
        action="store_true",
        help="do not start virtual counters when no real counter answers",
    )


# Where a Linux desktop's graphics cards show up; with none of them, Mesa draws on the CPU.
GPU_DEVICES = ("/dev/dri", "/dev/nvidiactl")
# The environment settings that make Mesa draw on the CPU even with a graphics card.
SOFTWARE_DRIVERS = ("llvmpipe", "softpipe", "swrast")


def software_rendering(
    environ: Mapping[str, str] = os.environ,
    exists: Callable[[str], bool] = os.path.exists,
    platform: str = sys.platform,
) -> bool:
    """True when the window will be drawn by the CPU (Mesa's software renderer): a Linux
    desktop with no graphics device, or one told to draw in software."""
    if platform != "linux" or "ANDROID_ARGUMENT" in environ or "ANDROID_PRIVATE" in environ:
        return False  # Android, macOS and Windows always draw on a graphics processor
    if environ.get("LIBGL_ALWAYS_SOFTWARE", "").strip() not in ("", "0", "false"):
        return True
    if environ.get("GALLIUM_DRIVER", "").strip().lower() in SOFTWARE_DRIVERS:
        return True
    return not any(exists(path) for path in GPU_DEVICES)


def prepare_kivy(
    size: tuple[int, int] | None, *, smooth_edges: bool = False, log_dir: Path | None = None
) -> None:
    """Kivy reads its configuration once, at import: set it before anything imports Kivy.

    With software rendering the window is drawn without multisampling unless
    `smooth_edges` (pictures for the documentation): multisampled, every frame of
    the 8-player Table took 2 to 2.5 times the CPU, and the frame being drawn
    holds back everything else the app does, the counters' acknowledgements too.

    With `log_dir`, the log is written there (the last `LOG_FILES_KEPT` runs' files, and
    nothing else: Kivy deletes the oldest files of that folder) instead of in Kivy's own
    folder in the home directory.
    """
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    if log_dir is not None:
        # Kivy opens its log file at import, with the first record after it reads its
        # configuration; the environment (KCFG_<section>_<key>) is read within that.
        os.environ["KCFG_KIVY_LOG_DIR"] = str(log_dir)
        os.environ["KCFG_KIVY_LOG_NAME"] = LOG_NAME
        os.environ["KCFG_KIVY_LOG_MAXFILES"] = str(LOG_FILES_KEPT)
    from kivy.config import Config

    if log_dir is not None and Config.get("kivy", "log_dir") != str(log_dir):
        Config.set("kivy", "log_dir", str(log_dir))  # Kivy came first: its log moves here

    # Escape means "back" in the app, not "quit".
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("input", "mouse", "mouse,multitouch_on_demand")
    if size is not None:
        Config.set("graphics", "width", str(size[0]))
        Config.set("graphics", "height", str(size[1]))
    if not smooth_edges and software_rendering():
        Config.set("graphics", "multisamples", "0")


def start_counters_early(data_dir: Path | None, no_virtual: bool) -> None:
    """Start the virtual counters' process first thing, unless they are switched off (on
    the command line or in Settings): it loads the BLE stack and the firmware on another
    core while the app loads Kivy and the game. Unused if real counters answer."""
    if no_virtual:
        return
    from companion.store.files import peek_settings

    if peek_settings(data_dir).get("virtual_counters", True) is False:
        return
    from companion.devices.sim.process import start_early

    start_early()


def run(args: argparse.Namespace) -> int:
    import asyncio

    from companion.plumbing.places import log_dir

    start_counters_early(args.data_dir, args.no_virtual)
    prepare_kivy(args.size, log_dir=log_dir(args.data_dir))
    from companion.ui.app import CompanionApp, run_app

    data_dir = args.data_dir
    if data_dir is not None:
        data_dir.mkdir(parents=True, exist_ok=True)
    app = CompanionApp(data_dir=data_dir, no_virtual=args.no_virtual)
    asyncio.run(run_app(app))
    return 0
