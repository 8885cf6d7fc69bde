"""Game-log replay speed: a generated 10,000-action game folded with every rule checked.

    .venv/bin/python benchmarks/replay.py [--actions 10000] [--seed 1] [--repeat 7]

Figures printed, all measured in this same run over the same log:
  * checked replay - `replay(state, log)`: every rule checked, the live combat
    verdict kept up to date (what loading a saved game does after parsing);
  * baseline       - the same fold with no validation (`apply_unchecked`);
  * plain dicts    - a loop that only copies a dict per action and bumps a
    counter: the floor cost of any immutable per-action snapshot in Python;
  * from JSON      - `Game.from_json` end to end: parsing, model validation and
    the checked replay together.
The best of --repeat runs is reported (the usual timeit practice: slower runs
measure other load on the machine, not this code).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from companion.core import Game, GameState, replay
from companion.core.randomplay import random_game

TARGET_PER_S = 100_000


def best_time(run: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    # allow_win=False keeps the game going to the full length: a win ends a game.
    game = random_game(args.actions, seed=args.seed, allow_win=False)
    log = game.log
    text = game.to_json()
    built = time.perf_counter() - started
    initial = GameState.initial(game.setup)
    count = len(log)
    kinds = len({a.type for a in log})
    combat = sum(1 for a in log if a.type in {"start_combat", "run_away", "resolve_combat"})
    print(
        f"log: {count} actions of {kinds} kinds ({combat} combat starts, rolls and ends), "
        f"{len(game.setup.players)} players, {len(text) / 1e6:.1f} MB of JSON; "
        f"generated in {built:.1f} s"
    )

    assert replay(initial, log) == game.state  # the figure is for a correct replay
    assert replay(initial, log, checked=False) == game.state

    def plain_dicts() -> None:
        state: dict[str, object] = {"revision": 0, "level": 1}
        for action in log:
            state = {**state, "revision": state["revision"] + 1, "last": action.type}  # type: ignore[operator]

    rows = [
        ("checked replay", best_time(lambda: replay(initial, log), args.repeat)),
        (
            "baseline: fold without checks",
            best_time(lambda: replay(initial, log, False), args.repeat),
        ),
        ("baseline: plain dict copy per action", best_time(plain_dicts, args.repeat)),
        ("from JSON (parse + checked replay)", best_time(lambda: Game.from_json(text), 3)),
    ]
    for name, seconds in rows:
        print(f"{name:<40} {count / seconds:>12,.0f} actions/s  ({seconds * 1e3:7.1f} ms)")
    checked = count / rows[0][1]
    verdict = "meets" if checked >= TARGET_PER_S else "MISSES"
    print(f"checked replay {verdict} the target of {TARGET_PER_S:,} actions/s")
    return 0 if checked >= TARGET_PER_S else 1


if __name__ == "__main__":
    sys.exit(main())
