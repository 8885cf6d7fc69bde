"""Time to report every mistake in a card pack: 8x the mistakes must cost at most ~8x the time.

    .venv/bin/python benchmarks/pack_problems.py [--small 1000] [--large 8000] [--repeat 3]

Two generated packs per size, each card holding one mistake: a bad value (found by
the schema) or an unknown class (found by the cross-check between files). The
figure is the time `companion cards validate` spends loading them and writing
every problem line; the baseline is the same work at the small size, in the same
run. Reporting is linear when the large/small ratio stays near large/small.
Exit status 1 when the ratio passes 1.5x the linear one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from companion.cli import main as companion

SLACK = 1.5  # a shared machine's noise, not a growth rate


def schema_mistakes(count: int) -> str:
    cards = "".join(
        f'\n[[monster]]\nid = "bad-{n}"\nname = "Bad {n}"\nlevel = "x{n}"\n' for n in range(count)
    )
    return '[pack]\nid = "bad-values"\nname = "Bad values"\n' + cards


def cross_mistakes(count: int) -> str:
    cards = "".join(
        f'\n[[monster]]\nid = "odd-{n}"\nname = "Odd {n}"\nlevel = 1\n'
        f'modifiers = [{{ bonus = 1, class = "Nobody {n}" }}]\n'
        for n in range(count)
    )
    return '[pack]\nid = "unknown-classes"\nname = "Unknown classes"\n' + cards


def validate_seconds(folder: Path, repeat: int) -> float:
    """Best of `repeat` runs of `companion cards validate FOLDER`, output discarded."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = companion(["cards", "validate", str(folder)])
        best = min(best, time.perf_counter() - start)
        assert status == 1, "the generated mistakes were not found"
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=8000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        os.environ["COMPANION_DATA_DIR"] = str(Path(temp) / "data")  # no user packs
        seconds: dict[int, float] = {}
        for count in (args.small, args.large):
            folder = Path(temp) / str(count)
            folder.mkdir()
            (folder / "values.toml").write_text(schema_mistakes(count), encoding="utf-8")
            (folder / "classes.toml").write_text(cross_mistakes(count), encoding="utf-8")
            seconds[count] = validate_seconds(folder, args.repeat)
    linear = args.large / args.small
    ratio = seconds[args.large] / seconds[args.small]
    for count, took in seconds.items():
        print(f"{2 * count:>6} mistakes reported in {took:.2f} s")
    print(f"ratio {ratio:.1f}x for {linear:.0f}x the mistakes (linear: {linear:.0f}x)")
    met = ratio <= linear * SLACK
    print(f"target: at most {linear * SLACK:.0f}x: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
