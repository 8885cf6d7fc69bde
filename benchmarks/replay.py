"""Game-log replay speed: a generated 10,000-action game folded with every rule checked.

    .venv/bin/python benchmarks/replay.py [--actions 10000] [--seed 1] [--repeat 7]

Figures printed, all measured in this same run over the same log:
  * checked replay - `replay(state, log)`: every rule checked, the live combat
    verdict kept up to date (what loading a saved game does after parsing);
  * baseline       - the same fold with no validation (`replay(..., checked=False)`);
  * plain dicts    - a loop that only copies a dict per action and bumps a
    counter: the floor cost of any immutable per-action snapshot in Python;
  * from JSON      - `Game.from_json` end to end: parsing, model validation and
    the checked replay together;
  * load from file - what a player waits on: the game read back from the saved-games
    database (`GameStore.load`: rows, validation, the newest verified checkpoint and
    the checked fold of what follows it), and a game-log file read and loaded
    (`companion replay`, import); each also with the garbage collector left running
    during the load (it is held by default), to show what that costs;
  * memory        - what a loaded game keeps beyond its actions (one state every
    `CHECKPOINT_INTERVAL` actions), beside one state kept per action (the baseline:
    what undo cost before), measured with tracemalloc.
The best of --repeat runs is reported (the usual timeit practice: slower runs
measure other load on the machine, not this code). The checked replay is also
timed in this process's CPU time, which a busy machine inflates far less than the
wall clock; the target is judged on the wall-clock figure. Targets: checked replay at least
TARGET_PER_S actions/s; the load from the database at least LOAD_TARGET x as fast as
loading the same game from a game-log file (how saves were read before), same run;
kept states at most MEMORY_TARGET of one state per action.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import companion.core.game as game_module
import companion.store.games as store_module
from companion.core import Game, GameState, replay
from companion.core.randomplay import random_game
from companion.store import GameStore

TARGET_PER_S = 100_000
LOAD_TARGET = 2.0
MEMORY_TARGET = 0.25


def best_time(
    run: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The fastest of `repeat` runs, in seconds of `clock` (wall-clock time by default)."""
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        run()
        best = min(best, clock() - start)
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
            "  the same, CPU time of this process",
            best_time(lambda: replay(initial, log), args.repeat, time.process_time),
        ),
        (
            "baseline: fold without checks",
            best_time(lambda: replay(initial, log, False), args.repeat),
        ),
        ("baseline: plain dict copy per action", best_time(plain_dicts, args.repeat)),
        ("from JSON (parse + checked replay)", best_time(lambda: Game.from_json(text), 3)),
    ]
    with tempfile.TemporaryDirectory(prefix="companion-replay-") as folder:
        store = GameStore(Path(folder))
        store.save("long", game)
        log_file = Path(folder) / "long.json"
        log_file.write_text(text, encoding="utf-8")

        def from_store() -> None:
            assert store.load("long").state == game.state

        def from_file() -> None:
            Game.from_json(log_file.read_text(encoding="utf-8"))

        # The four loads take turns, so a busy moment on the machine hits them alike.
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            for name, run, held in (
                ("load from the database", from_store, True),
                ("load from a game-log file", from_file, True),
                ("  the same, collector running: database", from_store, False),
                ("  the same, collector running: file", from_file, False),
            ):
                with contextlib.nullcontext() if held else collector_running():
                    best[name] = min(best.get(name, float("inf")), best_time(run, 1))
        loads = list(best.items())
        store.close()
    rows += loads
    for name, seconds in rows:
        print(f"{name:<40} {count / seconds:>12,.0f} actions/s  ({seconds * 1e3:7.1f} ms)")

    kept, one_per_action = memory_per_action(game)
    print(
        f"memory a loaded game keeps beyond its actions: {kept:,.0f} bytes/action "
        f"({kept * 100_000 / 2**20:.1f} MiB for 100,000 actions); baseline, one state per "
        f"action: {one_per_action:,.0f} bytes/action ({one_per_action * 100_000 / 2**20:.1f} MiB)"
    )
    misses = []
    checked = count / rows[0][1]
    if checked < TARGET_PER_S:
        misses.append(f"checked replay {checked:,.0f} actions/s < {TARGET_PER_S:,}")
    speedup = loads[1][1] / loads[0][1]
    print(f"load from the database is {speedup:.1f} x as fast as from a game-log file")
    if speedup < LOAD_TARGET:
        misses.append(f"load from the database {speedup:.1f} x the file < {LOAD_TARGET} x")
    if kept > MEMORY_TARGET * one_per_action:
        misses.append(f"memory {kept:,.0f} > {MEMORY_TARGET} x {one_per_action:,.0f} bytes/action")
    for miss in misses:
        print(f"MISSES the target: {miss}")
    if not misses:
        print(
            f"meets the targets: checked replay >= {TARGET_PER_S:,} actions/s, load from the "
            f"database >= {LOAD_TARGET} x the file, memory <= {MEMORY_TARGET} x one state "
            "per action"
        )
    return 1 if misses else 0


@contextlib.contextmanager
def collector_running() -> Iterator[None]:
    """Loads with the cyclic collector left on, as before it was held during a load."""
    saved = game_module.collector_paused, store_module.collector_paused
    game_module.collector_paused = store_module.collector_paused = contextlib.nullcontext
    try:
        yield
    finally:
        game_module.collector_paused, store_module.collector_paused = saved


def memory_per_action(game: Game) -> tuple[float, float]:
    """Bytes per action a game rebuilt from `game`'s log keeps beyond the actions, and the
    bytes per action of keeping every state instead."""
    log = game.log
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rebuilt = Game.from_actions(game.setup, log)
        kept = tracemalloc.get_traced_memory()[0] - before
        before = tracemalloc.get_traced_memory()[0]
        states = [GameState.initial(game.setup)]
        for action in log:
            states.append(replay(states[-1], (action,), checked=False))
        every = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert rebuilt.state == states[-1]
    return kept / len(log), every / len(log)


if __name__ == "__main__":
    sys.exit(main())
