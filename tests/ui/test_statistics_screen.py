"""The Statistics screen, reached from More: wins per player as bars and everyone's
figures, from the saved games' summaries; older games summarised while it shows."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing

import pytest

from companion.core import Game, GameSetup, PlayerSetup, Sex
from companion.core.statistics import STATS_ENGINE
from tests.core.test_statistics import first_game, second_game, unfinished_game
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
    bars = list(reversed(screen.ids.bars.children))
    assert [(bar.name, bar.count) for bar in bars][:2] == [
        ("Josephine-Charlotte", "1"),
        ("Maximiliane Hohenberg", "1"),
    ]
    assert bars[0].share == 1.0 and bars[2].share == 0.0
    blocks = list(reversed(screen.ids.blocks.children))
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


@pytest.mark.parametrize("language", ["de", "ru"])
@pytest.mark.parametrize("theme", ["dark", "light"])
def test_it_fits_a_phone(ui: Harness, language: str, theme: str) -> None:
    from kivy.core.window import Window

    from companion.ui import i18n

    save_games(ui)
    try:
        i18n.set_language(language)
        ui.app.theme.apply(theme)
        open_statistics(ui)
        problems = problems_on_show(ui, "statistics")
        problems += [f"contrast: {found}" for found in poor_contrast(ui)]
        shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
        if shot:
            Window.screenshot(f"{shot}/statistics-{language}-{theme}.png")
    finally:
        i18n.set_language("en")
        ui.app.theme.apply("dark")
        ui.pump()
    assert not problems, "\n".join(problems)
