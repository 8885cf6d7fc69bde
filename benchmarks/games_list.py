"""Open Saved games: a tap on Games to the first frame showing the list, 10 games vs 1,000.

    .venv/bin/python benchmarks/games_list.py [--many 1000] [--few 10] [--runs 15]

The real app runs in this process (offscreen window, 360x640, frame cap lifted). Two
data folders are filled, one with --few saved games and one with --many (legal random
games of 5 to 60 actions, as after many evenings); the app's store is pointed at each
in turn, and each time the Games button in the navigation bar is tapped from the Dice
screen. The time runs from lifting the finger to the first frame whose list shows the
rows (the newest games' summaries read in one query, only the rows on screen built,
older games one tap on "Show older games" away). The two
folders alternate, so a busy moment on the machine hits both.
Target (medians, same run): many <= TARGET_RATIO x few.
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


def nav_button(app: Any, name: str) -> Any:
    for button in app.root.ids.nav.children:
        if getattr(button, "screen_name", None) == name:
            return button
    raise RuntimeError(f"no navigation button for {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--many", type=int, default=1000)
    parser.add_argument("--few", type=int, default=10)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)

    from companion.store import GameStore

    samples: dict[int, list[float]] = {args.few: [], args.many: []}
    with tempfile.TemporaryDirectory(prefix="companion-games-") as folder:
        folders = {}
        for count in (args.few, args.many):
            folders[count] = Path(folder) / f"games-{count}"
            folders[count].mkdir()
            fill(folders[count], count)
        app = start_app(Path(folder) / "app")
        stores = {count: GameStore(path) for count, path in folders.items()}
        # On a phone Saved games sits behind More: leave through More, open it from there.
        more_button = nav_button(app, "more")
        for _ in range(args.runs):
            for count, store in stores.items():
                app.session.games = store
                tap(more_button, lambda: app.manager.current == "more")
                pump(3)
                games_button = app.screen("more").buttons["games"]
                screen = app.screen("games")

                newest = store.list(limit=1)[0].id

                def listed(newest: str = newest, screen: Any = screen) -> bool:
                    data = screen.ids.saved.data
                    return (
                        app.manager.current == "games"
                        and bool(data)
                        and data[0].get("game_id") == newest
                        and bool(screen.rows())
                    )

                samples[count].append(tap(games_button, listed))
        app.stop()
        for store in stores.values():
            store.close()

    few, many = (statistics.median(samples[n]) for n in (args.few, args.many))
    print(f"window 360x640, {args.runs} openings each:")
    for count in (args.few, args.many):
        values = samples[count]
        median = statistics.median(values)
        print(
            f"  open Saved games, {count:>5} saved   median {median * 1e3:6.1f} ms"
            f"  p90 {percentile(values, 0.9) * 1e3:6.1f} ms"
        )
    ratio = many / few
    verdict = "ok" if ratio <= TARGET_RATIO else "OVER TARGET"
    print(f"  {args.many} / {args.few} = {ratio:.2f} x (target <= {TARGET_RATIO} x: {verdict})")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
