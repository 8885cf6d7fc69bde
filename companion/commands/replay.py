"""`companion replay GAME.json`: check a saved game by replaying it, print its final state."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# A game log takes about 100 bytes per action: 32 MiB is some 300,000 actions, far
# beyond any evening's game, and small enough to read and check in memory.
MAX_LOG_BYTES = 32 * 2**20

HELP = "replay a saved game log with every rule checked and print the final state as JSON"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", type=Path, metavar="GAME.json", help="a saved game log")
    parser.add_argument(
        "--compact", action="store_true", help="print the state on one line instead of indented"
    )


def run(args: argparse.Namespace) -> int:
    # Imported here so `companion --help` does not pay for pydantic.
    from companion.core import Game

    path: Path = args.game
    try:
        # Read at most one byte past the limit: /dev/zero or a pipe has no size to ask for.
        with path.open("rb") as handle:
            text = handle.read(MAX_LOG_BYTES + 1)
    except OSError as err:
        print(f"companion replay: {path}: cannot read: {err.strerror or err}", file=sys.stderr)
        return 1
    if len(text) > MAX_LOG_BYTES:
        print(
            f"companion replay: {path}: larger than {MAX_LOG_BYTES // 2**20} MiB, "
            "the most a game log may hold",
            file=sys.stderr,
        )
        return 1
    try:
        game = Game.from_json(text)
    except ValueError as err:  # GameLogError, and anything else the log's contents provoke
        print(f"companion replay: {path}: {err}", file=sys.stderr)
        return 1
    state = game.state.model_dump(mode="json")
    try:
        print(json.dumps(state, indent=None if args.compact else 2, ensure_ascii=False))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (e.g. `| head`) stopped early: that is not an error of the log.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
