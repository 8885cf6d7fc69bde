"""Start-up time: launch to the first drawn frame, the companion beside a bare Kivy window.

    .venv/bin/python benchmarks/startup.py [--runs 7] [--size 360x640] [--no-virtual]
                                           [--actions 3000] [--players 2..8]

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

Every start is listed; the figure is the median of --runs starts with its range. Each
is named for what the user sees, against the bare window's first frame in the same run:
  * first frame (cover)   - the companion's first frame, the resumed game's Table drawn
                            from the cover its last save left (`companion.store.cover`);
                            without a cover, the app's frame with "Opening your game…";
  * game loaded           - (no target) the first frame once the rules engine and the
                            saved game are loaded;
  * playable              - a finger taps the first player's Level on the cover as soon
                            as it is drawn (a real touch posted to Kivy): the first frame
                            that shows the game with that tap applied (the tap waits for
                            the game to load; none is lost);
  * counters showing      - (with virtual counters) the first frame once every counter,
                            a level board and a tracker per player, acknowledged the game.
Beside them, in the same run, a first start (an empty data folder, no game to resume):
  * first frame           - the app's frame, before anything heavy is loaded;
  * New game on screen    - the first frame that shows New game, ready to be used;
  * usable                - a finger taps Add player on that frame: the first frame that
                            shows the player added (the first start's "playable").
Targets: first frame and playable <= 1.5 x, counters showing <= 3 x; a miss exits 1.
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
# The virtual counters connect, are claimed and show the resumed game within this ratio.
COUNTERS_RATIO = 3.0

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

def first_frame(app, companion=False, counters=0):
    def started(*_args):
        if not companion:
            after_flip("FIRST_FRAME", app.stop)
            return
        waiting = {{"tap": True, "counters": bool(counters)}}

        def done(what):
            # The app closes once the tap is drawn and (with counters) they show the game.
            def end():
                waiting[what] = False
                if not any(waiting.values()):
                    app.stop()
            return end

        # The cover is tapped in the frame it is drawn in. Without a cover (a first start,
        # or the unmeasured start that writes the cover), Add player is tapped on the
        # first frame of New game, if that is the screen the start ends on.
        after_flip(
            "FIRST_FRAME",
            lambda: (
                tap_at_once(app, done("tap"))
                if app.game_shown
                else when_true(app, "ready", "LOADED", lambda: tap_new_game(app, done("tap")))
            ),
        )
        when_true(app, "game_shown", "GAME_FRAME")
        when_true(app, "ready", "READY_FRAME")
        if counters:
            when_counters_show(app, counters, done("counters"))
    app.bind(on_start=started)

def tap_at_once(app, then):
    # A finger taps the first player's Level on the frame the app first drew (the cover):
    # down and up, posted to Kivy as a real touch. Stamps the first frame that shows the
    # game with that tap applied (the Level one up, or down from 5 on, so that the game
    # never ends however often it is started).
    sys.path.insert(0, {here!r})
    from kivy_driver import lift, press

    tile = app.screen("table").tiles[0]
    delta = -1 if tile.level >= 5 else 1
    wanted = tile.level + delta
    button = tile.level_button(delta)
    lift(press(*button.to_window(*button.center), source="bench"))

    def flipped(*_args):
        # Looked at as each frame is shown: the first one drawn with the tap applied.
        game = app.session.game
        if game is None or game.state.players[0].level != wanted or tile.level != wanted:
            return
        Window.unbind(on_flip=flipped)
        stamp("TAP_FRAME")
        then()
    Window.bind(on_flip=flipped)

def tap_new_game(app, then):
    # A finger taps Add player on the first frame New game is drawn in (a first start):
    # stamps the first frame that shows the player added.
    if app.manager.current != "new_game":
        then()
        return
    sys.path.insert(0, {here!r})
    from kivy_driver import lift, press

    from kivy.clock import Clock

    screen = app.manager.get_screen("new_game")
    wanted = len(screen.players) + 1
    button = screen.ids.add
    # Pressed on the next tick, where the button is then: the first frame of New game
    # has drawn its screen where the frame of the app left it (one frame, 60 px lower).
    Clock.schedule_once(
        lambda _dt: lift(press(*button.to_window(*button.center), source="bench")), 0
    )

    def flipped(*_args):
        if len(screen.ids.rows.children) != wanted:
            return
        Window.unbind(on_flip=flipped)
        stamp("TAP_FRAME")
        then()
    Window.bind(on_flip=flipped)

def when_counters_show(app, count, then):
    # Stamps the first frame once `count` counters are ours and acknowledged the game.
    from kivy.clock import Clock
    def check(_dt):
        service = app.devices
        if service is None or service.manager is None or app.session.game is None:
            return True
        statuses = service.statuses
        if len(statuses) < count or not all(s.ours for s in statuses):
            return True
        connections = service.manager.connections.values()
        if not all(c.synced for c in connections if c.status.ours):
            return True
        after_flip("COUNTERS_FRAME", then)
        Window.canvas.ask_update()  # a frame even when nothing on screen changed
        return False
    Clock.schedule_interval(check, 0)
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

# As `companion app` starts: the virtual counters' process first, then Kivy and the app.
_EARLY = """
import sys
from pathlib import Path
from companion.commands.app import start_counters_early
start_counters_early(Path(sys.argv[1]), {no_virtual})
"""

COMPANION = (
    _EARLY
    + _COMMON
    + textwrap.dedent(
        """
    from pathlib import Path
    from companion.ui.app import CompanionApp, run_app

    app = CompanionApp(data_dir=Path(sys.argv[1]), no_virtual={no_virtual})
    first_frame(app, companion=True, counters={counters})
    asyncio.run(run_app(app))
    """
    )
)


def start_once(script: Path, data_dir: Path) -> dict[str, float]:
    """Seconds from spawning a child (the file `script`) to each frame it stamped:
    FIRST_FRAME, and for the companion GAME_FRAME (the resumed game on screen),
    READY_FRAME (the game loaded), TAP_FRAME (a tap made at the first frame, applied and
    drawn) and, with counters, COUNTERS_FRAME."""
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
        if kind in ("FIRST_FRAME", "GAME_FRAME", "READY_FRAME", "TAP_FRAME", "COUNTERS_FRAME"):
            stamps[kind] = json.loads(value) - started
    if "FIRST_FRAME" not in stamps:
        raise RuntimeError(
            f"the child did not draw a frame (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    if done.returncode != 0:
        print(f"  (a child exited with {done.returncode} after its first frame)", file=sys.stderr)
    return stamps


def saved_game(folder: Path, actions: int, players: int | None = None) -> int:
    """A long game in progress to resume, as after a long evening; its number of players
    (`players`, or as the random table came out: 6)."""
    import random

    from companion.core import CLASSIC
    from companion.core.randomplay import random_game, random_setup
    from companion.store import GameStore

    store = GameStore(folder)
    setup = None
    if players is not None:
        seed = 0
        setup = random_setup(random.Random(seed), CLASSIC)
        while len(setup.players) != players:
            seed += 1
            setup = random_setup(random.Random(seed), CLASSIC)
    game = random_game(actions, seed=3, setup=setup, allow_win=False)
    game_id = store.new_id()
    store.save(game_id, game)
    store.last_id = game_id
    store.close()
    return len(game.setup.players)


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
    parser.add_argument(
        "--players", type=int, choices=range(2, 9), help="players at the resumed table"
    )
    args = parser.parse_args(argv)
    width, height = (int(part) for part in args.size.lower().split("x"))
    bare: list[float] = []
    companion: list[float] = []
    game_shown: list[float] = []
    game_ready: list[float] = []
    tapped: list[float] = []
    game_loads: list[float] = []
    counters_shown: list[float] = []
    first_frames: list[float] = []
    first_ready: list[float] = []
    first_usable: list[float] = []
    with tempfile.TemporaryDirectory(prefix="companion-startup-") as folder:
        data = Path(folder) / "data"
        data.mkdir()
        players = saved_game(data, args.actions, args.players)
        # A level board and a tracker per player, when virtual counters start.
        counters = 0 if args.no_virtual else players + 1
        # Scripts run from files: Kivy's App takes its name and folder from sys.argv[0].
        bare_script = Path(folder) / "bare.py"
        here = str(Path(__file__).resolve().parent)
        bare_script.write_text(BARE.format(w=width, h=height, here=here))
        app_script = Path(folder) / "companion_start.py"
        app_script.write_text(
            COMPANION.format(
                w=width, h=height, no_virtual=args.no_virtual, counters=counters, here=here
            )
        )
        # A first start has no game for the counters to show: it ends at the tap.
        first_script = Path(folder) / "companion_first_start.py"
        first_script.write_text(
            COMPANION.format(w=width, h=height, no_virtual=args.no_virtual, counters=0, here=here)
        )
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
            tapped.append(stamps["TAP_FRAME"])
            if "COUNTERS_FRAME" in stamps:
                counters_shown.append(stamps["COUNTERS_FRAME"])
            game_loads.append(load_time(data))
            empty = Path(tempfile.mkdtemp(prefix="first-", dir=folder))
            first = start_once(first_script, empty)
            first_frames.append(first["FIRST_FRAME"])
            first_ready.append(first["READY_FRAME"])
            first_usable.append(first["TAP_FRAME"])
    bare_s = statistics.median(bare)
    print(
        f"window {width}x{height}, {players} players, {args.runs} cold starts each "
        "(every start listed, in ms):"
    )

    def row(label: str, samples: list[float], target: float | None) -> bool:
        value = statistics.median(samples)
        ratio = value / bare_s
        every = ", ".join(f"{sample * 1000:.0f}" for sample in samples)
        verdict = ""
        if target is not None:
            verdict = f"; target <= {target:g} x: " + ("ok" if ratio <= target else "MISS")
        print(
            f"  {label:<44} median {value * 1000:5.0f} ms ({min(samples) * 1000:.0f}-"
            f"{max(samples) * 1000:.0f}) = {ratio:.2f} x bare{verdict}\n      [{every}]"
        )
        return target is None or ratio <= target

    row("bare Kivy window, first frame", bare, None)
    met = row("first frame (cover of the resumed game)", companion, TARGET_RATIO)
    met &= row("cover on screen", game_shown, TARGET_RATIO)
    row(f"{args.actions}-action game loaded", game_ready, None)
    met &= row("playable: a tap at the first frame drawn", tapped, TARGET_RATIO)
    if counters_shown:
        met &= row(
            f"counters showing the game ({counters} virtual)", counters_shown, COUNTERS_RATIO
        )
    row("first start (no game): first frame", first_frames, None)
    row("first start: New game on screen", first_ready, None)
    row("first start usable: a tap on Add player drawn", first_usable, None)
    usable, playable = statistics.median(first_usable), statistics.median(tapped)
    print(
        f"  first start usable {usable * 1000:.0f} ms beside a resumed game playable "
        f"{playable * 1000:.0f} ms (x {usable / playable:.2f}), in the same run"
    )
    misses = not met
    ready = statistics.median(game_ready)
    load = statistics.median(game_loads)
    print(
        f"  of which: open store, load game (in this process) {load * 1000:.0f} ms, "
        f"{load / ready:.0%} of playable"
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
