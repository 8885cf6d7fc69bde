"""Runs the whole test suite several times in a row while busy processes hold the cores,
and prints each run's result and duration: the suite must pass on a loaded machine as it
does on a quiet one.

    .venv/bin/python benchmarks/loaded_suite.py            # 3 runs beside 3 `yes > /dev/null`
    .venv/bin/python benchmarks/loaded_suite.py --quiet-first --runs 1 -- tests/ui

Each run is `./tasks test -q` (ruff, mypy, then pytest); anything after `--` goes to pytest. A
run's full output is kept in a log file, named when the run fails. Exits 1 when any run
failed, so the figure is never taken from a retry.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# pytest's closing line, e.g. "1210 passed, 4 skipped in 431.20s (0:07:11)".
SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed|error).*) in [\d.]+s")


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """`processes` copies of `yes > /dev/null`, each keeping a core busy, stopped on leaving."""
    hogs = [
        subprocess.Popen(["yes"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(processes)
    ]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def run_suite(pytest_args: list[str], log: Path) -> tuple[bool, str, float]:
    """One run of the suite: passed or not, pytest's summary, seconds taken."""
    started = time.monotonic()
    with log.open("w") as out:
        done = subprocess.run(
            [str(ROOT / "tasks"), "test", "-q", "-p", "no:cacheprovider", *pytest_args],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    seconds = time.monotonic() - started
    summary = "no summary (ruff failed, or pytest did not finish)"
    for line in log.read_text(errors="replace").splitlines():
        found = SUMMARY.match(line.strip())
        if found:
            summary = found.group(1)
    return done.returncode == 0, summary, seconds


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="loaded runs in a row (3)")
    parser.add_argument("--busy", type=int, default=3, help="busy processes during a run (3)")
    parser.add_argument(
        "--quiet-first", action="store_true", help="first one run with no busy process, to compare"
    )
    parser.add_argument("pytest_args", nargs="*", help="after --: passed on to pytest")
    options = parser.parse_args()

    logs = Path(tempfile.mkdtemp(prefix="loaded-suite-"))
    plan = [0] * options.quiet_first + [options.busy] * options.runs
    print(f"{os.cpu_count()} cores; logs in {logs}", flush=True)
    failures = 0
    for number, hogs in enumerate(plan, start=1):
        log = logs / f"run-{number}.log"
        with busy(hogs):
            passed, summary, seconds = run_suite(options.pytest_args, log)
            load = os.getloadavg()[0]  # the last minute's, so the run's own
        failures += not passed
        verdict = "passed" if passed else f"FAILED (see {log})"
        print(
            f"run {number}/{len(plan)}, {hogs} busy, load {load:.1f} at the end: "
            f"{verdict}, {summary}, {minutes(seconds)}",
            flush=True,
        )
    loaded = len(plan) - options.quiet_first
    print(f"{len(plan) - failures} of {len(plan)} runs passed ({loaded} loaded)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
