"""Saved games exports an older finished game for BG Stats and a spreadsheet, as Game over
does: Export… on its row asks which file (its game log, or its play), and the play goes
into the data folder's exports folder, the banner saying where. A game going on has no
play to export: its Export… picks a folder for its log at once."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

import pytest

from companion.ui import i18n
from tests.ui.conftest import Harness
from tests.ui.test_contrast import poor_contrast
from tests.ui.test_layout_states import problems_on_show, small_targets
from tests.ui.test_play import NAMES, tap_level, win_by_a_kill

pytestmark = pytest.mark.slow


DELETE = ("Delete", "Tap again to delete")


def saved_games_with_a_won_game(ui: Harness) -> tuple[Any, str]:
    """Saved games on show, listing a won game (Anna's) and, on top, one going on."""
    win_by_a_kill(ui, NAMES[:2])
    won = ui.app.session.game_id
    ui.start_game(NAMES[:3])
    tap_level(ui, 0)
    ui.nav("games")
    ui.pump(frames=2)
    return ui.screen("games"), won


def row_of(games: Any, game_id: str) -> Any:
    return next(row for row in games.rows() if row.game_id == game_id)


def export_button(row: Any) -> Any:
    """The row's Export… button, in the language on show."""
    words = i18n._("Export\u2026")
    return next(w for w in row.walk() if getattr(w, "text", None) == words)


def test_an_older_finished_game_is_exported_for_bg_stats_and_says_where(ui: Harness) -> None:
    games, won = saved_games_with_a_won_game(ui)
    going_on = ui.app.session.game_id
    ui.tap(export_button(row_of(games, won)))
    ui.pump(frames=2)
    sheet = games.sheet
    assert sheet is not None and sheet.parent is not None
    ui.tap(sheet.buttons["plays"])
    ui.wait_until(lambda: sheet.parent is None)
    exports = ui.data_dir / "exports"
    play = json.loads((exports / f"{won}-bgstats.json").read_text(encoding="utf-8"))
    assert [(p["name"], p["score"], p["winner"]) for p in play["players"]] == [
        ("Anna", 10, True),
        ("Bram", 1, False),
    ]
    with (exports / f"{won}.csv").open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["player"], row["won"]) for row in rows] == [("Anna", "1"), ("Bram", "0")]
    assert str(exports / f"{won}.csv") in ui.banner()
    # The game going on stays open, and its Export… picks a folder for its log at once.
    assert ui.app.session.game_id == going_on
    games.sheet = None
    ui.tap(export_button(row_of(games, going_on)))
    ui.pump()
    assert games.sheet is None and games.chooser is not None
    games.chooser.dismiss()
    ui.wait_until(lambda: games.chooser.parent is None)


def test_the_game_log_is_still_exported_from_the_same_question(ui: Harness, tmp_path: Path) -> None:
    from tests.ui.test_screens import choose

    games, won = saved_games_with_a_won_game(ui)
    ui.tap(export_button(row_of(games, won)))
    ui.pump(frames=2)
    ui.tap(games.sheet.buttons["log"])
    ui.pump(frames=2)
    choose(ui, games.chooser, tmp_path)
    (exported,) = tmp_path.glob("Anna-Bram *.json")
    assert json.loads(exported.read_text())


@pytest.mark.parametrize(("language", "theme"), [("en", "dark"), ("de", "light"), ("de", "dark")])
def test_the_question_fits_a_phone(ui: Harness, language: str, theme: str) -> None:
    from kivy.core.window import Window

    try:
        i18n.set_language(language)
        ui.app.theme.apply(theme)
        games, won = saved_games_with_a_won_game(ui)
        problems = problems_on_show(ui, f"saved games ({language}, {theme})")
        shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
        if shot:
            Window.screenshot(f"{shot}/saved-games-{language}-{theme}.png")
        ui.tap(export_button(row_of(games, won)))
        ui.pump(frames=8)
        sheet = games.sheet
        problems += problems_on_show(ui, f"export question ({language}, {theme})")
        problems += [f"small {target}" for target in small_targets(sheet)]
        problems += [f"contrast: {found}" for found in poor_contrast(ui)]
        if shot:
            Window.screenshot(f"{shot}/saved-games-export-{language}-{theme}.png")
        sheet.dismiss()
        ui.wait_until(lambda: sheet.parent is None)
    finally:
        i18n.set_language("en")
        ui.app.theme.apply("dark")
        ui.pump()
    assert not problems, "\n".join(problems)


def test_its_rows_follow_a_language_switch(ui: Harness) -> None:
    games, won = saved_games_with_a_won_game(ui)
    going_on = ui.app.session.game_id
    for _tap in range(2):  # deleted: its row is kept aside by Kivy for the next list
        ui.tap(next(w for w in row_of(games, won).walk() if getattr(w, "text", "") in DELETE))
        ui.pump()
    assert [row.game_id for row in games.rows()] == [going_on]
    ui.nav("table")
    try:
        i18n.set_language("de")
        ui.nav("games")
        ui.pump(frames=2)
        games = ui.screen("games")
        texts = {getattr(w, "text", "") for w in row_of(games, going_on).walk()}
        assert {i18n._("Resume"), i18n._("Export\u2026"), i18n._("Delete")} <= texts
        assert "Resume" not in texts
    finally:
        i18n.set_language("en")
        ui.pump()
