"""Statistics: opening them in the running app with many long saved games, beside opening
Saved games in the same app; and what keeping a game's summary adds to each save.

    .venv/bin/python benchmarks/stats.py [--games 1000] [--long 3000] [--runs 9] [--rounds 5]
                                         [--actions 200]

In the app (offscreen window, 360x640, frame cap lifted, as benchmarks/games_list.py):
the data folder holds --games saved games of --long actions each (a dozen distinct
legal random games under many ids, most of them won), and a new eight-player game is
open and being played. Each opening follows one action on that game, saved to disk
(so the statistics really have a game to read again, as after a turn at the table):
Statistics is tapped in More, and timed from lifting the finger to the first frame
showing every player's figures and pictures; Saved games is tapped in More, and timed
to the first frame showing the newest game on top. The two take turns within a round
(which goes first alternating), --runs openings of each per round; each round gives its
ratio of medians, and the figure is the median of the rounds' ratios with its spread.

In the store alone: a game of --actions actions is played with a recorder following it,
and the time spent making its summary is measured inside each save.

Targets (same run): opening Statistics <= TARGET_OPEN_RATIO x opening Saved games
(median of the rounds), and the summary <= TARGET_SAVE_SHARE of a save (totals). Exit
status 1 on a miss; no run is retried.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from games_list import fill, nav_button
from kivy_driver import percentile, pump, start_app, tap

TARGET_OPEN_RATIO = 1.5
TARGET_SAVE_SHARE = 0.10


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


# Distinct long games the saved ones are copies of, and how many of them are won.
DISTINCT_LONG = 12
# The months the saved games were first saved in, back from today (for the pictures).
SPREAD_DAYS = 730


def long_games(actions: int) -> list[object]:
    """A dozen legal random games of `actions` actions; all but every fourth then played
    on until someone wins (a win comes within a few hundred more)."""
    from companion.core import RuleError
    from companion.core.randomplay import random_action, random_game

    games = []
    for seed in range(DISTINCT_LONG):
        game = random_game(actions, seed=1000 + seed, allow_win=False)
        if seed % 4:
            import random

            rnd = random.Random(seed)
            for _ in range(20 * actions):
                if game.state.winners:
                    break
                try:
                    game.apply(random_action(game.state, rnd, True))
                except RuleError:
                    continue
        games.append(game)
    return games


def fill_long(folder: Path, count: int, actions: int) -> None:
    """`count` saved games of at least `actions` actions each in `folder`: the distinct
    ones saved through the store, the rest copied row for row under their own ids, each
    first saved on its own day over the last two years and played in turn."""
    import sqlite3
    from contextlib import closing

    from companion.store import GameStore

    store = GameStore(folder)
    sources = [f"long-{n:02d}" for n in range(DISTINCT_LONG)]
    for game_id, game in zip(sources, long_games(actions), strict=True):
        store.save(game_id, game)  # type: ignore[arg-type]
    store.close()
    now = time.time()
    with closing(sqlite3.connect(folder / "games.sqlite3")) as conn, conn:
        for number in range(count):
            source = sources[number % DISTINCT_LONG]
            game_id = f"game-{number:05d}"
            created = now - (count - number) * SPREAD_DAYS * 86400 / count
            conn.execute(
                "INSERT INTO games SELECT ?, setup, log_version, revision, recorded, players, "
                "levels, winners, ?, ?, ? FROM games WHERE id = ?",
                (game_id, created, created + 7200, number + 1, source),
            )
            for table, columns in (
                ("actions", "number, body, chain"),
                ("checkpoints", "revision, digest, engine, state"),
                ("stats", "engine, summary"),
                ("seats", "seat, person"),
            ):
                conn.execute(
                    f"INSERT INTO {table} SELECT ?, {columns} FROM {table} WHERE game_id = ?",
                    (game_id, source),
                )
        conn.execute("DELETE FROM games WHERE id LIKE 'long-%'")
        for table in ("actions", "checkpoints", "stats", "seats"):
            conn.execute(f"DELETE FROM {table} WHERE game_id LIKE 'long-%'")


def in_the_app(games: int, actions: int, runs: int, rounds: int) -> tuple[float, list[str]]:
    """Openings of Statistics and of Saved games in the running app: the median of the
    rounds' ratios, and the lines that say it."""
    from companion.core import CLASSIC, GameSetup, GoUpLevel, LoseLevel, PlayerSetup, Sex
    from companion.store import GameStore

    samples: list[dict[str, list[float]]] = []
    with tempfile.TemporaryDirectory(prefix="companion-stats-app-") as folder:
        data = Path(folder)
        started = time.perf_counter()
        fill_long(data, games, actions)
        filled_s = time.perf_counter() - started
        names = ("Anna", "Bram", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hana")
        colours = ("#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00")
        colours += ("#00acc1", "#6d4c41")
        tonight = GameSetup(
            players=tuple(
                PlayerSetup(name=name, colour=colour, sex=Sex.NONE)
                for name, colour in zip(names, colours, strict=True)
            ),
            edition=CLASSIC,
        )
        from companion.core import Game

        store = GameStore(data)
        store.save("tonight", Game(tonight))
        total = len(store.list())
        store.close()
        app = start_app(data)
        app.session.open("tonight")
        pump(3)
        # As a player opens Statistics: not in the first seconds after the start, by when
        # the app has read the summaries ahead (`SUMMARIES_AHEAD_S`).
        from companion.ui.app import SUMMARIES_AHEAD_S

        ahead_until = time.monotonic() + SUMMARIES_AHEAD_S + 30
        started_at = time.monotonic()
        while time.monotonic() < ahead_until and (
            time.monotonic() - started_at < SUMMARIES_AHEAD_S + 0.5
            or any(t.name == "companion-store-read-ahead" for t in threading.enumerate())
        ):
            pump(1)
            time.sleep(0.01)
        more_button = nav_button(app, "more")
        turn = [0]

        def play_one() -> None:
            seat = turn[0] % len(names)
            level = app.session.game.state.players[seat].level
            act = GoUpLevel(player=seat) if level < 5 else LoseLevel(player=seat)
            turn[0] += 1
            assert app.session.act(act), act
            pump(2)  # the frame that shows it, after which the app saves it
            app.session.save()  # on disk before the next opening
            app.session.games.flush()

        def through_more(name: str, shown: Callable[[], bool]) -> float:
            play_one()
            tap(more_button, lambda: app.manager.current == "more")
            pump(3)
            return tap(app.screen("more").buttons[name], shown)

        statistics_screen = app.screen("statistics")
        games_screen = app.screen("games")

        def statistics_shown() -> bool:
            # The rows in view are built and drawn, their pictures too (the rest of the
            # page is built as it scrolls into view, as Saved games' older rows are).
            from companion.ui.charts import LevelStrip, MonthChart

            page = statistics_screen.ids.page
            data = page.data
            if app.manager.current != "statistics" or len(data) < 4:
                return False
            if not data[0]["text"].startswith(f"{total} games saved"):
                return False
            views = list(page.children[0].children) if page.children else []
            pictures = [
                widget
                for view in views
                for widget in view.walk(restrict=True)
                if isinstance(widget, LevelStrip | MonthChart) and widget.bars()
            ]
            return len(views) >= 4 and all(picture.placed for picture in pictures)

        def games_shown() -> bool:
            data_rows = games_screen.ids.saved.data
            return (
                app.manager.current == "games"
                and bool(data_rows)
                and data_rows[0].get("game_id") == "tonight"
                and bool(games_screen.rows())
            )

        openings = {
            "statistics": lambda: through_more("statistics", statistics_shown),
            "games": lambda: through_more("games", games_shown),
        }
        # The first opening builds the screen and reads every summary once: said apart.
        first = {name: open_one() for name, open_one in openings.items()}
        for number in range(rounds):
            found: dict[str, list[float]] = {name: [] for name in openings}
            for run in range(runs):
                order = list(openings.items())
                if (number + run) % 2:
                    order.reverse()
                for name, open_one in order:
                    found[name].append(open_one())
            samples.append(found)
        players = len(statistics_screen.rows_of("WinBar"))
        from kivy.core.window import Window

        window = "x".join(str(int(side)) for side in Window.size)
        app.stop()

    lines = [
        f"In the app: {total} saved games ({games} of {actions}+ actions, filled in "
        f"{filled_s:.0f} s), {players} players with wins, window {window}; "
        f"{rounds} rounds of {runs} openings of each, interleaved, each after a saved action"
    ]
    lines.append(
        f"  first opening, {SUMMARIES_AHEAD_S:.0f} s after the app started (the screen built; "
        f"the summaries read ahead by then): "
        f"Statistics {first['statistics'] * 1e3:.1f} ms, Saved games {first['games'] * 1e3:.1f} ms"
    )
    ratios = []
    for number, found in enumerate(samples, 1):
        stats_s, games_s = (statistics.median(found[n]) for n in ("statistics", "games"))
        ratios.append(stats_s / games_s)
        lines.append(
            f"  round {number}: Statistics median {stats_s * 1e3:6.1f} ms "
            f"(p90 {percentile(found['statistics'], 0.9) * 1e3:6.1f}), Saved games median "
            f"{games_s * 1e3:6.1f} ms (p90 {percentile(found['games'], 0.9) * 1e3:6.1f})  "
            f"ratio {stats_s / games_s:.2f} x"
        )
    ratio = statistics.median(ratios)
    verdict = "ok" if ratio <= TARGET_OPEN_RATIO else "MISS"
    lines.append(
        f"  opening Statistics / opening Saved games: median of the rounds {ratio:.2f} x, "
        f"spread {min(ratios):.2f}-{max(ratios):.2f} x (target <= {TARGET_OPEN_RATIO} x) "
        f"{verdict}"
    )
    return ratio, lines


def save_share(games: int, actions: int) -> tuple[float, list[str]]:
    """What making the summary adds to each save of a game followed by a recorder, with
    `games` other games saved: its share of the saves' time, and the lines saying it."""
    from companion.core import Game
    from companion.core.randomplay import random_game
    from companion.store import GameStore
    from companion.store import stats as kept

    with tempfile.TemporaryDirectory(prefix="companion-stats-") as folder:
        fill(Path(folder), games)
        store = GameStore(Path(folder))
        source = random_game(actions, seed=11)
        game = Game(source.setup)
        recorder = store.recorder()
        recorder.follow("game-played", game)
        folding = [0.0]
        summary = kept.SummaryKeeper.summary_text

        def measured(keeper: kept.SummaryKeeper) -> str:
            start = time.perf_counter()
            try:
                return summary(keeper)
            finally:
                folding[0] += time.perf_counter() - start

        saving = 0.0
        kept.SummaryKeeper.summary_text = measured  # type: ignore[method-assign,assignment]
        try:
            for action in source.log:
                game.apply(action)
                saving += timed(recorder.save)
        finally:
            kept.SummaryKeeper.summary_text = summary  # type: ignore[method-assign]
        store.close()
    saves = len(source.log)
    share = folding[0] / saving
    verdict = "ok" if share <= TARGET_SAVE_SHARE else "MISS"
    return share, [
        f"In the store: {games} saved games, a game of {saves} actions saved after each",
        f"  a save: {saving / saves * 1000:7.2f} ms, of which the summary "
        f"{folding[0] / saves * 1000:.3f} ms = {share:.1%} (target <= {TARGET_SAVE_SHARE:.0%}) "
        f"{verdict}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--long", type=int, default=3000, help="actions of each saved game")
    parser.add_argument("--runs", type=int, default=9, help="openings of each a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--actions", type=int, default=200, help="actions of the game saved")
    args = parser.parse_args(argv)
    share, said = save_share(args.games, args.actions)
    ratio, shown = in_the_app(args.games, args.long, args.runs, args.rounds)
    print("\n".join(shown + said))
    return 0 if ratio <= TARGET_OPEN_RATIO and share <= TARGET_SAVE_SHARE else 1


if __name__ == "__main__":
    sys.exit(main())
