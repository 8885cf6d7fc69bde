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
  * loads         - the game read back from the saved-games database
    (`GameStore.load`: rows, validation, the newest verified checkpoint and the
    checked fold of what follows it) beside a game-log file read and loaded, compared
    the same way twice: both from the same checkpoint (the file is handed the
    database's checkpoint state), and both folding the whole log (the database's
    checkpoints hidden; the file as `companion replay` and import load it); plus the
    collector left running during a load (it is held by default);
  * memory        - bytes per action once loaded, measured with tracemalloc: the
    parsed actions alone, a loaded game (the actions and one state every
    `CHECKPOINT_INTERVAL` actions), and the baseline of the actions with one state
    kept per action (what undo cost before).
The best of --repeat runs is reported (the usual timeit practice: slower runs
measure other load on the machine, not this code). The checked replay is also
timed in this process's CPU time, which a busy machine inflates far less than the
wall clock; the target is judged on the wall-clock figure. Targets: checked replay at least
TARGET_PER_S actions/s; the load from the database at least LOAD_TARGET x as fast as
loading the same game from a game-log file, both ways, same run; the states a loaded
game keeps beyond its actions at most MEMORY_TARGET of one state per action (the
totals with the actions are printed beside it).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import companion.core.game as game_module
import companion.store.games as store_module
from companion.core import Game, GameSetup, GameState, replay
from companion.core.log_versions import read_actions
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
        store.flush()
        log_file = Path(folder) / "long.json"
        log_file.write_text(text, encoding="utf-8")
        resumed_from = store.load("long").resumed_from
        # The file format keeps no checkpoint: the file's load from a checkpoint is
        # given the database's very state, in memory (which spares the file its read).
        checkpoint = replay(initial, log[:resumed_from], checked=False)

        def from_store() -> None:
            assert store.load("long").state == game.state

        def from_store_whole() -> None:
            with no_checkpoints():
                loaded = store.load("long")
            assert loaded.resumed_from == 0 and loaded.state == game.state

        def from_file_whole() -> None:
            Game.from_json(log_file.read_text(encoding="utf-8"))

        def from_file() -> None:
            data = json.loads(log_file.read_text(encoding="utf-8"))
            setup = GameSetup.model_validate(data["setup"])
            actions = read_actions(data["version"], data["actions"])
            loaded = Game.resume(setup, actions, None, checkpoint)
            assert loaded.resumed_from == resumed_from

        # The loads take turns, so a busy moment on the machine hits them alike.
        plans = (
            (DB_CHECKPOINT, from_store, True),
            (FILE_CHECKPOINT, from_file, True),
            (DB_WHOLE, from_store_whole, True),
            (FILE_WHOLE, from_file_whole, True),
            ("  collector running: database, checkpoint", from_store, False),
            ("  collector running: file, whole log", from_file_whole, False),
        )
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            for name, run, held in plans:
                with contextlib.nullcontext() if held else collector_running():
                    best[name] = min(best.get(name, float("inf")), best_time(run, 1))
        store.close()
    rows += list(best.items())
    print(f"the database's newest checkpoint is at action {resumed_from} of {count}")
    for name, seconds in rows:
        print(f"{name:<44} {count / seconds:>12,.0f} actions/s  ({seconds * 1e3:7.1f} ms)")

    memory = memory_per_action(game, text)
    print("memory per action, the actions themselves included (tracemalloc, after the load):")
    print(f"  the actions alone, parsed from the log:       {memory.actions:8,.0f} bytes")
    print(
        f"  a loaded game (actions + kept states):        {memory.loaded:8,.0f} bytes "
        f"({memory.loaded * 100_000 / 2**20:.1f} MiB for 100,000 actions)"
    )
    print(
        f"  baseline, actions + one state per action:     {memory.baseline:8,.0f} bytes "
        f"({memory.baseline * 100_000 / 2**20:.1f} MiB)"
    )
    print(
        f"  the loaded game keeps {memory.loaded / memory.baseline:.2f} x the baseline; "
        f"beyond the actions {memory.kept:,.0f} vs {memory.states:,.0f} bytes "
        f"({memory.kept / memory.states:.2f} x)"
    )
    misses = []
    checked = count / rows[0][1]
    if checked < TARGET_PER_S:
        misses.append(f"checked replay {checked:,.0f} actions/s < {TARGET_PER_S:,}")
    for label, database, file in (
        ("both from the same checkpoint", DB_CHECKPOINT, FILE_CHECKPOINT),
        ("both folding the whole log", DB_WHOLE, FILE_WHOLE),
    ):
        speedup = best[file] / best[database]
        print(f"load from the database, {label}: {speedup:.2f} x as fast as from the file")
        if speedup < LOAD_TARGET:
            misses.append(
                f"load from the database, {label}: {speedup:.2f} x the file < {LOAD_TARGET} x"
            )
    print(
        "what a player waits on (the database from its checkpoint) against the file's whole "
        f"fold, as saves were read before: {best[FILE_WHOLE] / best[DB_CHECKPOINT]:.2f} x "
        "(not a like-for-like figure; the two above are)"
    )
    if memory.kept > MEMORY_TARGET * memory.states:
        misses.append(
            f"memory beyond the actions {memory.kept:,.0f} > {MEMORY_TARGET} x "
            f"{memory.states:,.0f} bytes/action"
        )
    for miss in misses:
        print(f"MISSES the target: {miss}")
    if not misses:
        print(
            f"meets the targets: checked replay >= {TARGET_PER_S:,} actions/s, load from the "
            f"database >= {LOAD_TARGET} x the file both ways, kept states <= {MEMORY_TARGET} "
            "x one state per action"
        )
    return 1 if misses else 0


DB_CHECKPOINT = "load from the database, from its checkpoint"
FILE_CHECKPOINT = "load from a file, from the same checkpoint"
DB_WHOLE = "load from the database, whole log folded"
FILE_WHOLE = "load from a file, whole log folded"


@contextlib.contextmanager
def no_checkpoints() -> Iterator[None]:
    """Loads from the database that find no checkpoint, so they fold the whole log."""
    saved = store_module.checkpoints.newest
    store_module.checkpoints.newest = lambda *args: None  # type: ignore[assignment]
    try:
        yield
    finally:
        store_module.checkpoints.newest = saved


@contextlib.contextmanager
def collector_running() -> Iterator[None]:
    """Loads with the cyclic collector left on, as before it was held during a load."""
    saved = game_module.collector_paused, store_module.collector_paused
    game_module.collector_paused = store_module.collector_paused = contextlib.nullcontext
    try:
        yield
    finally:
        game_module.collector_paused, store_module.collector_paused = saved


@dataclass(frozen=True)
class Memory:
    """Bytes per action a game holds once loaded, measured with tracemalloc."""

    actions: float  # the parsed actions alone
    loaded: float  # a game loaded from its log: the actions and all it keeps
    baseline: float  # the actions and one state kept per action (what undo cost before)

    @property
    def kept(self) -> float:
        return self.loaded - self.actions

    @property
    def states(self) -> float:
        return self.baseline - self.actions


def memory_per_action(game: Game, text: str) -> Memory:
    """What a game loaded from `text` (the JSON log of `game`) holds per action, beside
    the parsed actions alone and the actions with every state kept."""
    count = len(game.log)
    data = json.loads(text)

    def retained(build: Callable[[], object]) -> tuple[object, float]:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        built = build()
        gc.collect()
        return built, (tracemalloc.get_traced_memory()[0] - before) / count

    def every_state() -> object:
        actions = read_actions(data["version"], data["actions"])
        states = [GameState.initial(game.setup)]
        for action in actions:
            states.append(replay(states[-1], (action,), checked=False))
        return actions, states

    tracemalloc.start()
    try:
        actions, alone = retained(lambda: read_actions(data["version"], data["actions"]))
        del actions
        rebuilt, loaded = retained(lambda: Game.from_dict(data))
        _every, baseline = retained(every_state)
    finally:
        tracemalloc.stop()
    assert isinstance(rebuilt, Game) and rebuilt.state == game.state
    return Memory(alone, loaded, baseline)


if __name__ == "__main__":
    sys.exit(main())
