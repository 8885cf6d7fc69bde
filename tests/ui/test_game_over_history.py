"""Game over says what the game meant at this table, under the winner, and exports the game
for BG Stats and a spreadsheet into the data folder; in a long language and both themes
nothing is cut or overlapped (pictures kept in docs/screenshots)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from companion.commands.screenshots import recompress_png
from companion.core import (
    CLASSIC,
    EndTurn,
    Game,
    GameSetup,
    MonsterSpec,
    PlayerSetup,
    ResolveCombat,
    SetGearBonus,
    SetLevel,
    Sex,
    StartCombat,
)
from companion.ui import i18n
from tests.ui.conftest import Harness
from tests.ui.test_layout_states import problems_on_show
from tests.ui.test_play import NAMES, win_by_a_kill

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def won_before(winner: int, turns: int, monster: str) -> Game:
    """Anna and Bram's game that `winner` won in turn `turns`, killing `monster`."""
    players = tuple(PlayerSetup(name=name, colour="#e5484d", sex=Sex.FEMALE) for name in NAMES[:2])
    game = Game(GameSetup(players=players, edition=CLASSIC))
    for _ in range(turns - 1):
        game.apply(EndTurn())
    game.apply(SetLevel(player=winner, level=9))
    game.apply(SetGearBonus(player=winner, bonus=5))
    game.apply(StartCombat(fighter=winner, monsters=(MonsterSpec(name=monster, level=1),)))
    game.apply(ResolveCombat(outcome="kill"))
    return game


def shown_lines(over: Any) -> list[str]:
    return over.meaning_text.splitlines()


def test_a_first_game_says_nothing_and_the_next_one_what_it_meant(ui: Harness) -> None:
    over = win_by_a_kill(ui, NAMES[:2])
    ui.pump(frames=2)
    assert over.meaning_text == ""
    assert over.ids.meaning.height == 0
    over = win_by_a_kill(ui, NAMES[:2])
    ui.pump(frames=2)
    # Anna won the first game in turn 1 too: no personal best, no record.
    assert shown_lines(over) == ["Anna has now won 2 games"]


def test_records_of_the_table_are_said_with_the_monster_in_the_language_on_show(
    ui: Harness,
) -> None:
    games = ui.app.session.games
    games.save("20261120-200000-0001", won_before(0, 3, "Troll"))
    games.save("20261121-200000-0002", won_before(1, 4, "Troll"))
    over = win_by_a_kill(ui, NAMES[:2])
    ui.pump(frames=2)
    assert shown_lines(over) == [
        "Anna has now won 2 games",
        "Anna's fastest win yet (1 turn)",
        "A new record: the shortest game at this table (1 turn)",
    ]


def test_export_writes_the_game_into_the_data_folder_and_says_where(ui: Harness) -> None:
    over = win_by_a_kill(ui, NAMES[:2])
    ui.tap(over.ids.export)
    exports = ui.data_dir / "exports"
    game_id = ui.app.session.game_id
    play = json.loads((exports / f"{game_id}-bgstats.json").read_text(encoding="utf-8"))
    assert [(p["name"], p["score"], p["winner"]) for p in play["players"]] == [
        ("Anna", 10, True),
        ("Bram", 1, False),
    ]
    with (exports / f"{game_id}.csv").open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["player"], row["level"], row["won"]) for row in rows] == [
        ("Anna", "10", "1"),
        ("Bram", "1", "0"),
    ]
    banner = ui.app.root.ids.banner
    assert str(exports / f"{game_id}.csv") in banner.text


@pytest.mark.parametrize(
    ("language", "theme"), [("en", "dark"), ("en", "light"), ("de", "light"), ("de", "dark")]
)
def test_the_lines_fit_the_phone(ui: Harness, tmp_path: Path, language: str, theme: str) -> None:
    from kivy.core.window import Window

    games = ui.app.session.games
    games.save("20261120-200000-0001", won_before(0, 3, "Troll"))
    games.save("20261121-200000-0002", won_before(1, 4, "Troll"))
    try:
        i18n.set_language(language)
        ui.app.theme.apply(theme)
        over = win_by_a_kill(ui, NAMES[:2])
        ui.pump(frames=3)
        assert len(shown_lines(over)) == 3
        assert problems_on_show(ui, f"game over ({language}, {theme})") == []
        path = tmp_path / "shot.png"
        Path(Window.screenshot(str(path))).replace(path)  # Kivy numbers the file it writes
        name = f"game_over-360x640{'' if language == 'en' else '-' + language}"
        name += "-light" if theme == "light" else ""
        (DOCS_SCREENSHOTS / f"{name}.png").write_bytes(recompress_png(path.read_bytes()))
    finally:
        i18n.set_language("en")
        ui.app.theme.apply("dark")
        ui.pump()
