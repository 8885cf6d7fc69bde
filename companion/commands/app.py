"""`companion app`: open the companion app (the default command)."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

HELP = "open the companion app (the default when no command is given)"

_SIZE = re.compile(r"^(\d{3,5})x(\d{3,5})$")


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
        help="folder for saved games and settings (default: the user's data folder)",
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


def prepare_kivy(size: tuple[int, int] | None) -> None:
    """Kivy reads its configuration once, at import: set it before anything imports Kivy."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    from kivy.config import Config

    # Escape means "back" in the app, not "quit".
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("input", "mouse", "mouse,multitouch_on_demand")
    if size is not None:
        Config.set("graphics", "width", str(size[0]))
        Config.set("graphics", "height", str(size[1]))


def run(args: argparse.Namespace) -> int:
    import asyncio

    prepare_kivy(args.size)
    from companion.ui.app import CompanionApp, run_app

    data_dir = args.data_dir
    if data_dir is not None:
        data_dir.mkdir(parents=True, exist_ok=True)
    app = CompanionApp(data_dir=data_dir, no_virtual=args.no_virtual)
    asyncio.run(run_app(app))
    return 0
