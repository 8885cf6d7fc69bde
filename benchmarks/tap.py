"""Tap to screen: a real Kivy tap to the next frame that shows it, in a short and a long game.

    .venv/bin/python benchmarks/tap.py [--long 3000] [--rounds 8] [--taps 5]

The real app runs in this process (offscreen window, 360x640, frame cap lifted). Two
saved games are opened in turn: SHORT actions and --long actions, each a legal random
game. In each game, per round:

  * tap      - the + then the - of a player's Level on the Table screen: from lifting
               the finger to the first frame whose tile shows the new Level (the action
               is applied, the screen refreshed, the save queued);
  * undo     - the Undo button on the History screen: to the first frame whose list
               starts at the action before (then Redo puts it back, also timed).

Each round starts from the saved game as it was (so the short game stays short), and
the two games alternate round by round, so a busy moment on the machine hits both.
Targets (medians, same run): the long game <= TARGET_RATIO x the short one, for the
tap and for the History undo.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from kivy_driver import percentile, pump, start_app, tap

TARGET_RATIO = 1.2
SHORT = 10


def legal_game(actions: int, seed: int) -> Any:
    """A random legal game of `actions` actions where some player's Level can go up and down.

    Both games share one setup (the same names and colours), so their screens show the
    same kind of text and only the length of the game differs.
    """
    import random

    from companion.core import GoUpLevel, LoseLevel
    from companion.core.randomplay import random_game, random_setup

    setup = random_setup(random.Random(7))
    for attempt in range(200):
        game = random_game(actions, seed=seed * 1000 + attempt, setup=setup, allow_win=False)
        if game.revision != actions:
            continue
        for seat, player in enumerate(game.state.players):
            if (
                player.level >= 2
                and game.check(GoUpLevel(player=seat)) is None
                and game.check(LoseLevel(player=seat)) is None
            ):
                return game, seat
    raise RuntimeError(f"no random game of {actions} actions lets a Level go up and down")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", type=int, default=3000, help="actions in the long game")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--taps", type=int, default=5, help="+/- pairs and undo/redo pairs")
    args = parser.parse_args(argv)

    from companion.core import Game
    from companion.store import GameStore

    games = {"short": legal_game(SHORT, 1), "long": legal_game(args.long, 2)}
    samples: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="companion-tap-") as folder:
        data = Path(folder)
        store = GameStore(data)
        for name, (game, _seat) in games.items():
            store.save(name, game)
        store.close()
        app = start_app(data)
        for _round in range(args.rounds):
            for name, (original, seat) in games.items():
                # Back to the saved game as it was, written whole under its id.
                app.session.close()
                app.session.games.save(name, Game.from_actions(original.setup, original.log))
                app.session.open(name)
                pump(3)
                measure_round(app, name, seat, args.taps, samples)
        app.stop()

    print(
        f"window 360x640, {args.rounds} rounds; games of {SHORT} and {args.long} actions "
        "(each grows by the taps within a round)"
    )
    misses = []
    for kind, label in (("tap", "tap Level +/- to frame"), ("undo", "History undo to frame")):
        short, long = samples[("short", kind)], samples[("long", kind)]
        ratio = statistics.median(long) / statistics.median(short)
        for name, values in (("short", short), ("long", long)):
            print(
                f"  {label:<24} {name:<6} median {statistics.median(values) * 1e3:6.1f} ms"
                f"  p90 {percentile(values, 0.9) * 1e3:6.1f} ms  ({len(values)} taps)"
            )
        verdict = "ok" if ratio <= TARGET_RATIO else "OVER TARGET"
        print(f"  {label:<24} long / short = {ratio:.2f} x (target <= {TARGET_RATIO} x: {verdict})")
        if ratio > TARGET_RATIO:
            misses.append(kind)
    redo_short = statistics.median(samples[("short", "redo")])
    redo_long = statistics.median(samples[("long", "redo")])
    print(
        f"  {'History redo to frame':<24} short {redo_short * 1e3:.1f} ms, "
        f"long {redo_long * 1e3:.1f} ms (no target)"
    )
    return 1 if misses else 0


def measure_round(
    app: Any, name: str, seat: int, taps: int, samples: dict[tuple[str, str], list[float]]
) -> None:
    table = app.show("table")
    pump(3)
    tile = table.tiles[seat]
    for _ in range(taps):
        for button, delta in (("plus", 1), ("minus", -1)):
            want = app.session.game.state.players[seat].level + delta
            seconds = tap(tile.ids.level.ids[button], lambda w=want: tile.level == w)
            samples.setdefault((name, "tap"), []).append(seconds)
            if app.session.game.state.players[seat].level != want:
                raise RuntimeError(f"the tap on {button} did not change the Level")
    history = app.show("history")
    pump(3)
    for _ in range(taps):
        for button, kind in (("undo", "undo"), ("redo", "redo")):
            newest = app.session.game.revision - 1 + (-1 if kind == "undo" else 1)

            def shows(newest: int = newest) -> bool:
                return history.line_of(newest) is not None and (history.line_of(newest + 1) is None)

            seconds = tap(history.ids[button], shows)
            samples.setdefault((name, kind), []).append(seconds)


if __name__ == "__main__":
    sys.exit(main())
