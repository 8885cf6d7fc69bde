"""Open Saved games: a tap on Games to the first frame showing the list, 10 games vs 1,000.

    .venv/bin/python benchmarks/games_list.py [--many 1000] [--few 10] [--runs 15] [--rounds 7]

The real app runs in this process (offscreen window, 360x640, frame cap lifted). Two
data folders are filled, one with --few saved games and one with --many (legal random
games of 5 to 60 actions, as after many evenings); the app's store is pointed at each
in turn, and each time the Games button in the navigation bar is tapped from the Dice
screen. The time runs from lifting the finger to the first frame whose list shows the
rows (the newest games' summaries read in one query, only the rows on screen built,
older games one tap on "Show older games" away). The two
folders alternate, so a busy moment on the machine hits both.
The many games' folder also holds --old-saves JSON saves of an earlier version (taken
in at its first start and left there, as an upgrade leaves them), so a listing that
looks through that folder each time shows in the figure.
The openings come in --rounds rounds of --runs openings of each folder, the folders
taking turns within a round; each round gives its ratio of medians. The figure is the
median of the rounds' ratios with its spread (lowest to highest round), so one busy
round on a shared machine moves the spread, not the verdict.
Target (same run): the median round's many <= TARGET_RATIO x few; exit status 1 on a miss.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from kivy_driver import percentile, pump, start_app, tap

TARGET_RATIO = 1.5
DISTINCT_GAMES = 12


def fill(folder: Path, count: int) -> None:
    """`count` saved games in `folder` (a dozen distinct logs under many ids)."""
    from companion.core.randomplay import random_game
    from companion.store import GameStore

    logs = [random_game(5 + 5 * i, seed=i) for i in range(DISTINCT_GAMES)]
    store = GameStore(folder)
    for number in range(count):
        store.save(f"game-{number:05d}", logs[number % DISTINCT_GAMES], wait=False)
    store.close()


def leave_old_saves(folder: Path, count: int) -> None:
    """`count` JSON saves of an earlier version beside the database, as an upgrade leaves
    them (taken in by the first start, never deleted)."""
    from companion.core.randomplay import random_game
    from companion.store.imports import GAMES_DIR

    games = folder / GAMES_DIR
    games.mkdir(exist_ok=True)
    logs = [random_game(5 + 5 * i, seed=100 + i).to_json() for i in range(DISTINCT_GAMES)]
    for number in range(count):
        (games / f"old-{number:05d}.json").write_text(logs[number % DISTINCT_GAMES])


def nav_button(app: Any, name: str) -> Any:
    for button in app.root.ids.nav.children:
        if getattr(button, "screen_name", None) == name:
            return button
    raise RuntimeError(f"no navigation button for {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--many", type=int, default=1000)
    parser.add_argument("--few", type=int, default=10)
    parser.add_argument("--runs", type=int, default=15, help="openings of each folder a round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--old-saves",
        type=int,
        default=1000,
        help="JSON saves of an earlier version left beside the many games' database",
    )
    args = parser.parse_args(argv)

    from companion.store import GameStore

    rounds: list[dict[int, list[float]]] = []
    with tempfile.TemporaryDirectory(prefix="companion-games-") as folder:
        folders = {}
        for count in (args.few, args.many):
            folders[count] = Path(folder) / f"games-{count}"
            folders[count].mkdir()
            fill(folders[count], count)
            if count == args.many and args.old_saves:
                leave_old_saves(folders[count], args.old_saves)
        app = start_app(Path(folder) / "app")
        stores = {count: GameStore(path) for count, path in folders.items()}
        # On a phone Saved games sits behind More: leave through More, open it from there.
        more_button = nav_button(app, "more")

        def open_games(store: Any) -> float:
            app.session.games = store
            tap(more_button, lambda: app.manager.current == "more")
            pump(3)
            games_button = app.screen("more").buttons["games"]
            screen = app.screen("games")
            newest = store.list(limit=1)[0].id

            def listed() -> bool:
                data = screen.ids.saved.data
                return (
                    app.manager.current == "games"
                    and bool(data)
                    and data[0].get("game_id") == newest
                    and bool(screen.rows())
                )

            return tap(games_button, listed)

        for store in stores.values():  # the first opening builds the screen: not counted
            open_games(store)
        for number in range(args.rounds):
            samples: dict[int, list[float]] = {args.few: [], args.many: []}
            for run in range(args.runs):
                # Which folder goes first alternates too, so neither always follows the other.
                order = list(stores.items())
                if (number + run) % 2:
                    order.reverse()
                for count, store in order:
                    samples[count].append(open_games(store))
            rounds.append(samples)
        app.stop()
        for store in stores.values():
            store.close()

    print(
        f"window 360x640, {args.rounds} rounds of {args.runs} openings of each folder, "
        f"interleaved; {args.old_saves} old JSON saves beside the {args.many} games' database"
    )
    ratios = []
    for number, samples in enumerate(rounds, 1):
        few, many = (statistics.median(samples[n]) for n in (args.few, args.many))
        ratios.append(many / few)
        print(
            f"  round {number}: {args.few:>5} saved median {few * 1e3:6.1f} ms "
            f"(p90 {percentile(samples[args.few], 0.9) * 1e3:6.1f}), {args.many:>5} saved "
            f"median {many * 1e3:6.1f} ms (p90 {percentile(samples[args.many], 0.9) * 1e3:6.1f})"
            f"  ratio {many / few:.2f} x"
        )
    ratio = statistics.median(ratios)
    every = {
        n: [value for samples in rounds for value in samples[n]] for n in (args.few, args.many)
    }
    print(
        f"  all openings: {args.few} saved median "
        f"{statistics.median(every[args.few]) * 1e3:.1f} ms, {args.many} saved median "
        f"{statistics.median(every[args.many]) * 1e3:.1f} ms"
    )
    met = ratio <= TARGET_RATIO
    print(
        f"  {args.many} / {args.few}: median of the rounds {ratio:.2f} x, spread "
        f"{min(ratios):.2f}-{max(ratios):.2f} x (target <= {TARGET_RATIO} x: "
        f"{'met' if met else 'MISSED'})"
    )
    if (min(ratios) <= TARGET_RATIO) != (max(ratios) <= TARGET_RATIO):
        print("  the rounds fall on both sides of the target: run again on a quieter machine")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
