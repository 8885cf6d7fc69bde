"""Statistics: opening them with many saved games vs opening Saved games, and what
keeping a game's summary adds to each save.

    .venv/bin/python benchmarks/stats.py [--games 1000] [--runs 15] [--actions 200]

One data folder is filled with --games saved games (legal random games of 5 to 60
actions). Then a game of --actions actions is played with a recorder following it,
and after each action, interleaved so a busy moment on the machine hits all of them:

* the game is saved (waiting for the disk, as the app's saves do), the time spent
  making its summary being measured inside that same save;
* Saved games is opened: the summaries the list shows at first, read as its screen
  reads them (`GameStore.list(limit=...)`);
* statistics are opened just after that save, then again with nothing changed, as the
  Statistics screen and `companion stats` do: the stored summaries read
  (`GameStore.statistics`) and the figures of the table and each player worked out.

Targets (same run): each opening of statistics <= TARGET_OPEN_RATIO x opening Saved
games (medians), and the summary <= TARGET_SAVE_SHARE of a save (totals). Exit status 1
on a miss; no run is retried.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from games_list import fill

TARGET_OPEN_RATIO = 1.5
TARGET_SAVE_SHARE = 0.10
# The games the Saved games screen lists at first (its SHOWN_STEP; not imported, so
# this benchmark needs no window).
LISTED_AT_FIRST = 50


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=200)
    args = parser.parse_args(argv)

    from companion.core import Game
    from companion.core.randomplay import random_game
    from companion.store import GameStore
    from companion.store import stats as kept

    with tempfile.TemporaryDirectory(prefix="companion-stats-") as folder:
        fill(Path(folder), args.games)
        store = GameStore(Path(folder))

        def open_games() -> None:
            store.list(limit=LISTED_AT_FIRST + 1)

        def open_statistics() -> None:
            store.statistics().figures()

        source = random_game(args.actions, seed=11)
        game = Game(source.setup)
        recorder = store.recorder()
        recorder.follow("game-played", game)
        open_games()
        open_statistics()

        folding = [0.0]
        summary = kept.SummaryKeeper.summary_text

        def measured(keeper: kept.SummaryKeeper) -> str:
            start = time.perf_counter()
            try:
                return summary(keeper)
            finally:
                folding[0] += time.perf_counter() - start

        times: dict[str, list[float]] = {"games": [], "stats after a save": [], "stats": []}
        saving = 0.0
        kept.SummaryKeeper.summary_text = measured  # type: ignore[method-assign,assignment]
        try:
            for action in source.log:
                game.apply(action)
                saving += timed(recorder.save)
                times["games"].append(timed(open_games))
                times["stats after a save"].append(timed(open_statistics))
                times["stats"].append(timed(open_statistics))
        finally:
            kept.SummaryKeeper.summary_text = summary  # type: ignore[method-assign]
        store.close()
    saves = len(source.log)
    medians = {name: statistics.median(found) for name, found in times.items()}
    print(f"{args.games} saved games, medians of {saves} openings, each just after a save")
    print(f"  opening Saved games:              {medians['games'] * 1000:7.2f} ms")
    missed = False
    for name in ("stats", "stats after a save"):
        ratio = medians[name] / medians["games"]
        verdict = "ok" if ratio <= TARGET_OPEN_RATIO else "MISS"
        missed = missed or ratio > TARGET_OPEN_RATIO
        label = f"opening statistics{name[5:] or ' again'}:"
        print(
            f"  {label:<34}{medians[name] * 1000:7.2f} ms  "
            f"{ratio:5.2f}x (target <= {TARGET_OPEN_RATIO}x) {verdict}"
        )
    share = folding[0] / saving
    verdict = "ok" if share <= TARGET_SAVE_SHARE else "MISS"
    missed = missed or share > TARGET_SAVE_SHARE
    print(
        f"  a save ({saves} saves):              {saving / saves * 1000:7.2f} ms, of which the "
        f"summary {folding[0] / saves * 1000:.3f} ms = {share:.1%} "
        f"(target <= {TARGET_SAVE_SHARE:.0%}) {verdict}"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
