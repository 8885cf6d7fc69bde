"""Game over: frames from the winning action to the first frame showing the Game over chart.

    .venv/bin/python benchmarks/game_over.py [--long 10000] [--rounds 5]

The real app runs in this process (offscreen window, 360x640, frame cap lifted). Two
saved games, of about SHORT and --long actions, each one action short of a win (a legal
random game played on until someone wins; the winning action is kept aside), are opened
in turn, round by round (interleaved). Each round: the game is opened, frames are run
for a few seconds (as a player looks at the table before the last move; the app builds
its Game over screen ahead in that time),
then the winning action goes through the session as the winning tap sends it, and the
frames are counted until one shows the Game over screen with the whole chart (one point
per revision). Every attempt is reported; the figure is the median with its spread.

Target: the long game's Game over is on screen within TARGET_FRAMES frames of the win at
60 Hz: with the frame cap lifted the work all lands in one frame, so the time it takes is
counted in 16.7 ms frames.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kivy_driver import pump, start_app

SHORT = 10
TARGET_FRAMES = 2
FRAME_S = 1 / 60
MAX_FRAMES = 600
# A freshly opened game settles before the winning move for at least this many frames
# and this many seconds, as a player looks at the table before the last move (the app
# does work of its own in that time, as it would while the player looks).
SETTLE_FRAMES = 400
SETTLE_S = 6.0


def winning_game(actions: int, seed: int) -> tuple[Any, Any]:
    """A game of about `actions` actions, and the action that wins it."""
    from companion.core import Game, RuleError
    from companion.core.randomplay import random_action, random_game, random_setup

    setup = random_setup(random.Random(seed))
    for attempt in range(500):
        game = random_game(actions, seed=seed * 1000 + attempt, setup=setup, allow_win=False)
        rnd = random.Random(attempt)
        for _ in range(actions // 10 + 100):
            try:
                game.apply(random_action(game.state, rnd, True))
            except RuleError:
                continue
            if game.state.winners:
                log = game.log
                return Game.from_actions(setup, log[:-1]), log[-1]
    raise RuntimeError(f"no random game of about {actions} actions reached a win")


def frames_to_game_over(app: Any, action: Any, revision: int) -> tuple[int, float]:
    """Frames (and seconds) from applying the winning action to the Game over frame."""
    from kivy.base import EventLoop
    from kivy.core.window import Window

    counted: list[float] = []
    shown: list[int] = []

    def done() -> bool:
        if app.manager.current != "game_over":
            return False
        screen = app.screen("game_over")
        return bool(screen.series) and len(screen.series[0][1]) == revision + 1

    def flipped(*_args: object) -> None:
        counted.append(time.perf_counter())
        if not shown and done():
            shown.append(len(counted))

    Window.bind(on_flip=flipped)
    try:
        started = time.perf_counter()
        if not app.session.act(action):
            raise RuntimeError("the winning action was refused")
        for _ in range(MAX_FRAMES):
            EventLoop.idle()
            if shown:
                return shown[0], counted[shown[0] - 1] - started
    finally:
        Window.unbind(on_flip=flipped)
    raise RuntimeError("no frame showed the Game over screen")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", type=int, default=10_000, help="actions in the long game")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    from companion.store import GameStore

    games = {"short": winning_game(SHORT, 1), "long": winning_game(args.long, 2)}
    frames: dict[str, list[int]] = {name: [] for name in games}
    seconds: dict[str, list[float]] = {name: [] for name in games}
    with tempfile.TemporaryDirectory(prefix="companion-game-over-") as folder:
        data = Path(folder)
        store = GameStore(data)
        for name, (game, _win) in games.items():
            store.save(name, game)
        store.close()
        app = start_app(data)
        app.settings = app.settings.model_copy(update={"victory_countdown_s": 0.0})
        for _round in range(args.rounds):
            for name, (game, win) in games.items():
                app.session.close()
                app.session.games.save(name, game)
                app.session.open(name)
                app.show("table")
                settle_until = time.perf_counter() + SETTLE_S
                pump(SETTLE_FRAMES)
                while time.perf_counter() < settle_until:
                    pump(1)
                count, took = frames_to_game_over(app, win, game.revision + 1)
                frames[name].append(count)
                seconds[name].append(took)
        app.stop()

    print(f"window 360x640, frame cap lifted, {args.rounds} rounds interleaved")
    misses = []
    for name, (game, _win) in games.items():
        median = statistics.median(frames[name])
        print(
            f"  {name:5} {game.revision + 1:6} actions: frames {frames[name]} "
            f"(median {median:g}, {min(frames[name])}-{max(frames[name])}); "
            f"ms median {statistics.median(seconds[name]) * 1000:.1f} "
            f"({min(seconds[name]) * 1000:.1f}-{max(seconds[name]) * 1000:.1f})"
        )
    # The frame cap is lifted, so all the work lands in the first frame whatever it costs:
    # the verdict counts the 60 Hz frames that work spans (a frame every 16.7 ms).
    worst_s = max(seconds["long"])
    at_60 = math.ceil(worst_s / FRAME_S)
    verdict = "ok" if at_60 <= TARGET_FRAMES else "MISS"
    print(
        f"  long game: worst {worst_s * 1000:.1f} ms = {at_60} frames at 60 Hz after the win, "
        f"target <= {TARGET_FRAMES}: {verdict}"
    )
    if verdict != "ok":
        misses.append("long game over")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
