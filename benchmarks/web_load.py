"""The table link under load for two minutes: 8 seats pressing 5 times a second with
random dropped connections, 2 boards watching (the test suite runs the same for 20 s).

Prints the presses, what was applied and refused, the drops, memory and open sockets
through the run; exits non-zero if any press was lost or applied twice, a page did not
come back to the host's state, or memory or sockets grew. Never retries.

    .venv/bin/python benchmarks/web_load.py [--seconds 120]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.web.load import run_load

MAX_GROWTH_KIB = 20 * 1024  # the game's own log grows ~1 KiB an action; the link must not add


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    result = asyncio.run(run_load(args.seconds))
    print(
        f"{args.seconds:.0f} s, 8 seats x 5 presses/s, 2 boards: {result.presses} presses, "
        f"{result.applied} applied, {result.refused} refused by the rules, "
        f"{result.drops} dropped connections, {result.actions} actions in the log"
    )
    print(f"open sockets through the run: {result.sockets}")
    print(f"memory (RSS, KiB) through the run: {result.rss_kib}")
    growth = result.rss_kib[-1] - result.rss_kib[1]
    settled = result.sockets[2:]
    misses = list(result.problems)
    # Growth is a leak; a dip is seats between a drop and their return.
    if max(settled) > max(result.sockets[:2]) + 4 or result.sockets[-1] > result.sockets[1] + 2:
        misses.append("open sockets grew")
    if growth > MAX_GROWTH_KIB:
        misses.append(f"memory grew {growth} KiB (limit {MAX_GROWTH_KIB})")
    for miss in misses:
        print(f"MISS: {miss}")
    print("OK" if not misses else "FAILED")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
