"""The Statistics screen, reached from More: wins per player as bars and everyone's
figures, from the saved games' summaries; older games summarised while it shows."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from types import SimpleNamespace
from typing import Any

import pytest

from companion.core import EDITIONS, Game, GameSetup, PlayerSetup, SetLevel, Sex
from companion.core.statistics import STATS_ENGINE
from companion.ui.charts import LevelStrip, MonthChart
from tests.core.conftest import monster
from tests.core.test_statistics import first_game, kill, second_game, unfinished_game
from tests.ui.conftest import Harness
from tests.ui.test_contrast import poor_contrast
from tests.ui.test_layout_states import problems_on_show

pytestmark = pytest.mark.slow

LONG_NAMES = {"Ann": "Maximiliane Hohenberg", "Bo": "Josephine-Charlotte", "Cy": "Konstantinos"}


def renamed(game: Game) -> Game:
    """The same game with long names (as a table of long names plays it)."""
    players = tuple(
        PlayerSetup(name=LONG_NAMES[p.name], colour=p.colour, sex=p.sex or Sex.NONE)
        for p in game.setup.players
    )
    setup = GameSetup(
        players=players,
        edition=game.setup.edition,
        variants=game.setup.variants,
        first_player=game.setup.first_player,
        rules=game.setup.rules,
    )
    return Game.from_actions(setup, game.log)


def save_games(ui: Harness) -> None:
    store = ui.app.session.games
    for number, game in enumerate((first_game(), second_game(), unfinished_game())):
        store.save(f"20261129-04000{number}-000{number}", renamed(game))


def open_statistics(ui: Harness) -> None:
    ui.nav("statistics")
    ui.pump(frames=4)
    assert ui.app.manager.current == "statistics"


def test_wins_and_figures_for_the_table_and_each_player(ui: Harness) -> None:
    save_games(ui)
    open_statistics(ui)
    screen = ui.screen("statistics")
    bars = [SimpleNamespace(**row) for row in screen.rows_of("WinBar")]
    assert [(bar.name, bar.count) for bar in bars][:2] == [
        ("Josephine-Charlotte", "1"),
        ("Maximiliane Hohenberg", "1"),
    ]
    assert bars[0].share == 1.0 and bars[2].share == 0.0
    blocks = [SimpleNamespace(**row) for row in screen.rows_of("FiguresBlock")]
    assert [block.name for block in blocks] == ["The table", *(bar.name for bar in bars)]
    assert "3 games · 2 wins (67%)" in blocks[0].detail
    assert "Kills 5 · deaths 2 · helped kills 1 · levels from kills 5" in blocks[0].detail
    assert "Monsters that killed most: Nasty 12 (2)" in blocks[0].detail
    assert screen.summary_text == "3 games saved"


def test_older_games_are_summarised_while_it_shows(ui: Harness) -> None:
    """Summaries made by an older engine are made again; a game today's engine could not
    read stays counted as such (it is not read again at each visit)."""
    save_games(ui)
    store = ui.app.session.games
    with closing(sqlite3.connect(store.database)) as conn, conn:
        conn.execute("UPDATE stats SET engine = 'older'")
        conn.execute(
            "UPDATE stats SET summary = NULL, engine = ? WHERE game_id LIKE '%0002'",
            (STATS_ENGINE,),
        )
        conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'stats_written'")
    open_statistics(ui)
    screen = ui.screen("statistics")
    ui.wait_until(lambda: screen._summarising is None and "could not" in screen.summary_text)
    assert screen.summary_text == "2 games saved · 1 game could not be read"


@pytest.mark.parametrize(
    ("language", "theme", "players"),
    [("de", "dark", 8), ("de", "light", 2), ("ru", "light", 8), ("ru", "dark", 2)],
)
def test_it_fits_a_phone(ui: Harness, language: str, theme: str, players: int) -> None:
    """Everyone's figures and pictures, then one player's, looked at from the top of the
    page to its end: no words cut or over others, no small targets, contrast kept, and
    every number and month in a picture inside it and clear of the others."""
    from kivy.core.window import Window

    from companion.ui import i18n

    save_dated(ui, a_year_of_games(players))
    shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
    problems: list[str] = []
    try:
        i18n.set_language(language)
        ui.app.theme.apply(theme)
        screen = in_november_2026(ui)  # the screens are made again in a new language
        open_statistics(ui)
        for chosen in ("", "Bo"):
            screen.use_player(chosen)
            for at in (1.0, 0.66, 0.33, 0.0):
                screen.ids.page.scroll_y = at
                ui.pump(frames=4)
                where = f"{chosen or 'everyone'} at {at}"
                problems += problems_on_show(ui, where)
                problems += [f"{where} contrast: {found}" for found in poor_contrast(ui)]
                if shot:
                    Window.screenshot(f"{shot}/statistics-{language}-{theme}-{players}.png")
                problems += [f"{where}: {found}" for found in picture_problems(screen)]
    finally:
        i18n.set_language("en")
        ui.app.theme.apply("dark")
        ui.pump()
    assert not problems, "\n".join(problems)


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two boxes (x, y, width, height) share any area."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def picture_problems(screen: Any) -> list[str]:
    """Texts a picture drew outside itself or over one another."""
    pictures = [
        widget
        for view in views(screen)
        for widget in view.walk(restrict=True)
        if isinstance(widget, LevelStrip | MonthChart) and widget.bars()
    ]
    found: list[str] = []
    for picture in pictures:
        placed = picture.placed
        if not placed:
            found.append(f"{type(picture).__name__}: nothing drawn")
        found += [
            f"{type(picture).__name__}: {a[0]!r} over {b[0]!r}"
            for i, a in enumerate(placed)
            for b in placed[i + 1 :]
            if a[1] < b[1] + b[3]
            and b[1] < a[1] + a[3]
            and a[2] < b[2] + b[4]
            and b[2] < a[2] + a[4]
        ]
        found += [
            f"{type(picture).__name__}: {text!r} outside"
            for text, x, y, w, h in placed
            if not (picture.x <= x and x + w <= picture.right)
            or not (picture.y <= y and y + h <= picture.top)
        ]
    return found


# -- the pictures, and which games ---------------------------------------------------------
EIGHT = ("Ann", "Bo", "Cy", "Dee", "Eli", "Flo", "Gus", "Hal")


def players_game(winner: int | None, levels: tuple[int, ...], edition: str = "classic") -> Game:
    """A player at each Level given; `winner` (if any) goes up to 10 by a kill."""
    setup = GameSetup(
        players=tuple(
            PlayerSetup(name=name, colour=colour, sex=Sex.NONE)
            for name, colour in zip(EIGHT[: len(levels)], PALETTE, strict=False)
        ),
        edition=EDITIONS[edition],
        first_player=winner or 0,
    )
    game = Game(setup)
    for seat, level in enumerate(levels):
        game.apply(SetLevel(player=seat, level=level))
    if winner is not None:
        game.apply(SetLevel(player=winner, level=9))
        kill(game, winner, monster(1, "Slime"))
    return game


PALETTE = ("#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00", "#00acc1", "#6d4c41")


def save_dated(ui: Harness, games: list[tuple[str, Game]]) -> None:
    """Save each game and give it the date it was first saved ("2026-03-15")."""
    import calendar
    import time as clock

    store = ui.app.session.games
    for number, (day, game) in enumerate(games):
        game_id = f"20260101-0000{number:02d}-{number:04d}"
        store.save(game_id, game)
        store.flush()
        at = calendar.timegm(clock.strptime(day + " 12", "%Y-%m-%d %H"))
        with closing(sqlite3.connect(store.database)) as conn, conn:
            conn.execute("UPDATE games SET created = ? WHERE id = ?", (at, game_id))
            conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'stats_written'")


def a_year_of_games(players: int = 8) -> list[tuple[str, Game]]:
    """Twelve games over a year: Ann wins the last three, Bo one in the martial-arts
    edition; Cy finishes each game one Level higher than the one before."""
    games: list[tuple[str, Game]] = []
    months = [
        "2025-12",
        "2026-01",
        "2026-01",
        "2026-03",
        "2026-05",
        "2026-05",
        "2026-05",
        "2026-07",
        "2026-08",
        "2026-10",
        "2026-11",
        "2026-11",
    ]
    for number, month in enumerate(months):
        levels = (3, 2, 1 + number % 9, 4, 5, 2, 3, 6)[:players]
        winner = 0 if number >= 9 else (1 if number == 4 else None)
        edition = "fu" if number == 4 else "classic"
        games.append((f"{month}-1{number % 9}", players_game(winner, levels, edition)))
    return games


def in_november_2026(ui: Harness) -> Any:
    import calendar

    screen = ui.screen("statistics")
    screen.wall_clock = lambda: float(calendar.timegm((2026, 11, 29, 12, 0, 0)))
    return screen


def blocks_of(screen: Any) -> dict[str, Any]:
    return {row["name"]: SimpleNamespace(**row) for row in screen.rows_of("FiguresBlock")}


def views(screen: Any) -> list[Any]:
    """The rows of the page built now (those in view)."""
    page = screen.ids.page
    return list(page.children[0].children) if page.children else []


def test_games_per_month_and_each_players_last_games(ui: Harness) -> None:
    save_dated(ui, a_year_of_games())
    screen = in_november_2026(ui)
    open_statistics(ui)
    chart = SimpleNamespace(**screen.rows_of("StatsMonths")[0])
    # The twelve months up to this one, oldest first, each with its games.
    assert chart.months == [
        ("Dec", 1), ("Jan", 2), ("Feb", 0), ("Mar", 1), ("Apr", 0), ("May", 3),
        ("Jun", 0), ("Jul", 1), ("Aug", 1), ("Sep", 0), ("Oct", 1), ("Nov", 2),
    ]  # fmt: skip
    assert screen.months_text == "Dec 2025 – Nov 2026"
    blocks = blocks_of(screen)
    assert "Ann" in blocks and not blocks["The table"].finishes
    # Each player's last ten games, oldest first; a won game is marked.
    assert blocks["Ann"].finishes == [(3, False)] * 7 + [(10, True)] * 3
    assert blocks["Cy"].finishes == [(1 + n % 9, False) for n in range(2, 12)]
    assert blocks["Bo"].finishes[2] == (10, True)
    assert blocks["Ann"].strip_text.startswith("Level at the end of the last 10 games")
    # Every number and month drawn inside its picture, none over another, from the top
    # of the page to its end; the months are written under their bars.
    drawn: set[str] = set()
    for at in (1.0, 0.75, 0.5, 0.25, 0.0):
        screen.ids.page.scroll_y = at
        ui.pump(frames=4)
        assert not picture_problems(screen), at
        drawn |= {
            text
            for view in views(screen)
            if isinstance(view, MonthChart)
            for text, *_place in view.placed
        }
    assert {"Dec", "Nov", "3"} <= drawn


def test_one_edition_or_one_player(ui: Harness) -> None:
    save_dated(ui, a_year_of_games())
    screen = in_november_2026(ui)
    try:
        one_edition_or_one_player(ui, screen)
    finally:  # the screen stays for the next test: all games again
        screen.edition = screen.player = None


def one_edition_or_one_player(ui: Harness, screen: Any) -> None:
    open_statistics(ui)
    assert (screen.edition_text, screen.player_text) == ("All editions", "Everyone")
    picker = screen.choose_edition()
    rows = [row["text"] for row in picker.ids.rows.data]
    assert rows[0] == "All editions" and len(rows) == 3
    picker.pick(2)  # the martial-arts game: editions come with the most games first
    ui.pump()
    assert screen.edition == "fu"
    assert screen.summary_text.startswith("1 game")
    months = screen.rows_of("StatsMonths")[0]["months"]
    assert [count for _m, count in months] == [0] * 5 + [1] + [0] * 6
    assert blocks_of(screen)["Bo"].finishes == [(10, True)]
    screen.choose_edition().pick(0)
    ui.pump()
    picker = screen.choose_player()
    names = [row["text"] for row in picker.ids.rows.data]
    assert names[:2] == ["Everyone", "Ann"]
    picker.pick(names.index("Cy"))
    ui.pump()
    assert screen.player == "Cy" and screen.player_text == "Cy"
    # Their figures and their last games only: no wins bars, no table block.
    assert not screen.has_wins
    assert list(blocks_of(screen)) == ["Cy"]
    assert len(blocks_of(screen)["Cy"].finishes) == 10
