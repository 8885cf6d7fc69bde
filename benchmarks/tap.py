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

Before the timed rounds, what a Level tap asks of the rules engine is counted over a few
taps (and the frames after each, until its save is done): the real applies, the rule
checks that dim buttons (and how many different buttons they were for), the trial
applies (actions run on a copy of the game to see whether they would pass) and the
copies of the game state made outside the real apply. Target: one apply, at most one
rule check per button dimmed, no trial apply and no copy.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
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


@dataclass
class RulesWork:
    """What the rules engine did, counted while `counting()` is on."""

    applies: int = 0
    rule_checks: int = 0
    buttons: set[str] = field(default_factory=set)
    trial_applies: int = 0
    state_copies: int = 0
    _applying: int = 0

    @contextlib.contextmanager
    def counting(self) -> Iterator[None]:
        """Count through the engine's own entry points: `Game.apply` (the real change),
        the rule check `Game.check` runs, the trusting step every fold runs, and
        `GameState.evolve` (the one way the engine copies a state)."""
        from companion.core import engine
        from companion.core import game as game_module
        from companion.core.state import GameState

        work = self
        apply, check_action, step_action = (
            game_module.Game.apply,
            game_module.check_action,
            engine.step_action,
        )
        had_evolve = "evolve" in GameState.__dict__
        evolve = GameState.evolve

        def counted_apply(game: Any, action: Any) -> Any:
            work.applies += 1
            work._applying += 1
            try:
                return apply(game, action)
            finally:
                work._applying -= 1

        def counted_check(state: Any, action: Any) -> None:
            work.rule_checks += 1
            work.buttons.add(type(action).__name__)
            check_action(state, action)

        def counted_step(state: Any, action: Any) -> Any:
            if not work._applying:
                work.trial_applies += 1
            return step_action(state, action)

        def counted_evolve(state: Any, **changes: Any) -> Any:
            if not work._applying:
                work.state_copies += 1
            return evolve(state, **changes)

        game_module.Game.apply = counted_apply  # type: ignore[method-assign]
        game_module.check_action = counted_check
        engine.step_action = counted_step
        GameState.evolve = counted_evolve  # type: ignore[method-assign]
        try:
            yield
        finally:
            game_module.Game.apply = apply  # type: ignore[method-assign]
            game_module.check_action = check_action
            engine.step_action = step_action
            if had_evolve:
                GameState.evolve = evolve  # type: ignore[method-assign]
            else:
                del GameState.evolve


def count_rules_work(app: Any, seat: int, taps: int = 3) -> tuple[RulesWork, int]:
    """The rules engine's work for `taps` + and - pairs on a Level, and the taps made."""
    table = app.show("table")
    pump(3)
    tile = table.tiles[seat]
    work = RulesWork()
    made = 0
    with work.counting():
        for _ in range(taps):
            for button, delta in (("plus", 1), ("minus", -1)):
                want = app.session.game.state.players[seat].level + delta
                tap(tile.ids.level.ids[button], lambda w=want: tile.level == w)
                pump(10)  # the frames after the tap, when its save (and cover) is made
                made += 1
    return work, made


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
        app.session.open("short")
        work, counted_taps = count_rules_work(app, games["short"][1])
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
    per_tap = {
        "applies": work.applies / counted_taps,
        "rule checks": work.rule_checks / counted_taps,
        "trial applies": work.trial_applies / counted_taps,
        "state copies": work.state_copies / counted_taps,
    }
    buttons = len(work.buttons)
    print(
        f"  rules work per Level tap ({counted_taps} taps): "
        + ", ".join(f"{value:g} {name}" for name, value in per_tap.items())
        + f" (checks were for {buttons} buttons: {', '.join(sorted(work.buttons)) or 'none'})"
    )
    fine = (
        per_tap["applies"] == 1
        and per_tap["rule checks"] <= buttons
        and per_tap["trial applies"] == 0
        and per_tap["state copies"] == 0
    )
    print(
        "  target: 1 apply, at most 1 rule check per button, no trial apply, no copy: "
        + ("ok" if fine else "MISSED")
    )
    if not fine:
        misses.append("rules work")
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
