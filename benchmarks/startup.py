"""Start-up time: launch to the first drawn frame, the companion beside a bare Kivy window.

    .venv/bin/python benchmarks/startup.py [--runs 7] [--size 360x640] [--no-virtual]
                                           [--actions 3000]

Each start is a fresh Python process (a cold start as far as Python and Kivy are
concerned; the OS file cache is warm for both, as it is for a user who opened the
app before). The clock starts in this process just before the child is spawned and
stops when the child's window has drawn its first frame after `on_start`. Compiled
bytecode is cached as on a user's machine (the first, unmeasured start of each
writes it), even if this shell sets PYTHONDONTWRITEBYTECODE. The two
kinds of start alternate, so a busy moment on the machine hits both alike.

  * bare      - a Kivy App whose root is one Label, run with `async_run` on asyncio;
  * companion - the real app as `companion app` starts it (`run_app`): settings,
                saved games, the screen registry, resuming the last game (a legal
                game of --actions actions, from the saved-games database) onto the
                Table screen, and the device service starting virtual counters.

The median of --runs starts is reported for each. Targets, both against the bare
window's first frame in the same run: the companion's first frame <= 1.5 x, and the
resumed game on screen <= 1.5 x. The companion's first frame is the resumed game's
Table, drawn from the cover its last save left (`companion.store.cover`); the rules
engine and the saved game load right after it ("game loaded, a tap plays", reported
beside: a tap in between is answered once they are loaded). Without a cover (a first
start, say) the first frame is the app's frame with "Opening your game…".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

TARGET_RATIO = 1.5

# Both children stop the clock the same way: the first Window flip after on_start.
_COMMON = """
import asyncio, json, sys, time
from companion.commands.app import prepare_kivy
prepare_kivy(({w}, {h}))
from kivy.core.window import Window

def stamp(kind):
    print(kind + " " + json.dumps(time.time()), flush=True)

def after_flip(kind, then=None):
    # Stamps the next frame drawn; `then` runs after the stamp.
    def flipped(*_args):
        Window.unbind(on_flip=flipped)
        stamp(kind)
        if then is not None:
            then()
    Window.bind(on_flip=flipped)

def when_true(app, prop, kind, then=None):
    # Stamps the first frame drawn once app.<prop> is True (the frame that shows it).
    if getattr(app, prop):
        after_flip(kind, then)
    else:
        def changed(_app, value):
            if value:
                app.unbind(**{{prop: changed}})
                after_flip(kind, then)
        app.bind(**{{prop: changed}})

def first_frame(app, companion=False):
    def started(*_args):
        if not companion:
            after_flip("FIRST_FRAME", app.stop)
            return
        after_flip("FIRST_FRAME")
        when_true(app, "game_shown", "GAME_FRAME")
        when_true(app, "ready", "READY_FRAME", app.stop)
    app.bind(on_start=started)
"""

BARE = _COMMON + textwrap.dedent(
    """
    from kivy.app import App
    from kivy.uix.label import Label

    class Bare(App):
        def build(self):
            return Label(text="Munchkin Companion")

    app = Bare()
    first_frame(app)
    asyncio.run(app.async_run(async_lib="asyncio"))
    """
)

COMPANION = _COMMON + textwrap.dedent(
    """
    from pathlib import Path
    from companion.ui.app import CompanionApp, run_app

    app = CompanionApp(data_dir=Path(sys.argv[1]), no_virtual={no_virtual})
    first_frame(app, companion=True)
    asyncio.run(run_app(app))
    """
)


def start_once(script: Path, data_dir: Path) -> dict[str, float]:
    """Seconds from spawning a child (the file `script`) to each frame it stamped:
    FIRST_FRAME, and for the companion GAME_FRAME (the resumed game on screen) and
    READY_FRAME (the game loaded: a tap plays)."""
    env = {**os.environ, "KIVY_NO_ARGS": "1"}
    env.setdefault("SDL_VIDEODRIVER", "offscreen")
    # A user's Python caches compiled modules after the first start; a shell that
    # forbids it would make every start recompile the app's sources, which no user sees.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.time()
    done = subprocess.run(
        [sys.executable, str(script), str(data_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    stamps: dict[str, float] = {}
    for line in done.stdout.splitlines():
        kind, _, value = line.partition(" ")
        if kind in ("FIRST_FRAME", "GAME_FRAME", "READY_FRAME"):
            stamps[kind] = json.loads(value) - started
    if "FIRST_FRAME" not in stamps:
        raise RuntimeError(
            f"the child did not draw a frame (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    if done.returncode != 0:
        print(f"  (a child exited with {done.returncode} after its first frame)", file=sys.stderr)
    return stamps


def saved_game(folder: Path, actions: int) -> None:
    """A long game in progress to resume, as after a long evening."""
    from companion.core.randomplay import random_game
    from companion.store import GameStore

    store = GameStore(folder)
    game = random_game(actions, seed=3, allow_win=False)
    game_id = store.new_id()
    store.save(game_id, game)
    store.last_id = game_id
    store.close()


def check_cover(folder: Path) -> None:
    """The app saves the game it closes with the cover its next start draws first; the
    unmeasured first start must have left one (else the figures would not be a user's)."""
    from companion.store.cover import read_cover

    if read_cover(folder) is None:
        raise RuntimeError("the companion's first start left no cover of the game to resume")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="starts of each kind (default 7)")
    parser.add_argument("--size", default="360x640", help="window size WxH (default 360x640)")
    parser.add_argument(
        "--no-virtual", action="store_true", help="start the companion without virtual counters"
    )
    parser.add_argument(
        "--actions", type=int, default=3000, help="actions in the resumed game (default 3000)"
    )
    args = parser.parse_args(argv)
    width, height = (int(part) for part in args.size.lower().split("x"))
    bare: list[float] = []
    companion: list[float] = []
    game_shown: list[float] = []
    game_ready: list[float] = []
    game_loads: list[float] = []
    with tempfile.TemporaryDirectory(prefix="companion-startup-") as folder:
        data = Path(folder) / "data"
        data.mkdir()
        saved_game(data, args.actions)
        # Scripts run from files: Kivy's App takes its name and folder from sys.argv[0].
        bare_script = Path(folder) / "bare.py"
        bare_script.write_text(BARE.format(w=width, h=height))
        app_script = Path(folder) / "companion_start.py"
        app_script.write_text(COMPANION.format(w=width, h=height, no_virtual=args.no_virtual))
        # One unmeasured start of each warms the file cache; the companion's also saves
        # the game as the app does when it closes (with its cover).
        start_once(bare_script, data)
        start_once(app_script, data)
        check_cover(data)
        for _ in range(args.runs):
            bare.append(start_once(bare_script, data)["FIRST_FRAME"])
            stamps = start_once(app_script, data)
            companion.append(stamps["FIRST_FRAME"])
            game_shown.append(stamps["GAME_FRAME"])
            game_ready.append(stamps["READY_FRAME"])
            game_loads.append(load_time(data))
    bare_s, app_s = statistics.median(bare), statistics.median(companion)
    ratio = app_s / bare_s
    print(f"window {width}x{height}, {args.runs} cold starts each, median:")

    def row(label: str, value: str, note: str) -> None:
        print(f"  {label:<34}{value:>9}  ({note})")

    row("bare Kivy window, first frame", f"{bare_s * 1000:.0f} ms", f"min {min(bare) * 1000:.0f}")
    row("companion, first frame", f"{app_s * 1000:.0f} ms", f"min {min(companion) * 1000:.0f}")
    verdict = "ok" if ratio <= TARGET_RATIO else "OVER TARGET"
    row("ratio", f"{ratio:.2f} x", f"target <= {TARGET_RATIO} x: {verdict}")
    misses = ratio > TARGET_RATIO
    shown = statistics.median(game_shown)
    shown_ratio = shown / bare_s
    row(
        f"resumed game on screen ({args.actions} act.)",
        f"{shown * 1000:.0f} ms",
        f"min {min(game_shown) * 1000:.0f}",
    )
    verdict = "ok" if shown_ratio <= TARGET_RATIO else "OVER TARGET"
    row("ratio", f"{shown_ratio:.2f} x", f"target <= {TARGET_RATIO} x: {verdict}")
    misses = misses or shown_ratio > TARGET_RATIO
    ready = statistics.median(game_ready)
    row(
        "game loaded, a tap plays",
        f"{ready * 1000:.0f} ms",
        f"{ready / bare_s:.2f} x the bare window; a tap before it waits for it",
    )
    load = statistics.median(game_loads)
    row(
        "  of which: open store, load game",
        f"{load * 1000:.0f} ms",
        f"measured in this process; {load / ready:.0%} of the game loaded",
    )
    return 1 if misses else 0


def load_time(data_dir: Path) -> float:
    """Seconds to open the saved-games store and load the game to resume."""
    from companion.store import GameStore

    started = time.perf_counter()
    store = GameStore(data_dir)
    try:
        if store.load_last() is None:
            raise RuntimeError("no game to resume")
        return time.perf_counter() - started
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
