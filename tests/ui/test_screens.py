"""The other screens, driven by taps: player details, saved games, dice, window sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


def traits_buttons(ui: Harness) -> dict[str, object]:
    """The class/race/... buttons of the player screen by their text."""
    found = {}
    for group in ui.screen("player").ids.traits.children:
        for button in getattr(group, "children", []):
            found[getattr(button, "text", "")] = button
    return found


def test_player_details(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo"])
    ui.tap(ui.screen("table").tiles[1])
    player = ui.screen("player")
    assert ui.app.manager.current == "player"
    assert ui.app.navigator.screen_title == "Bram"

    ui.tap(player.ids.sex_female)
    ui.tap(traits_buttons(ui)["Wizard"])
    ui.tap(traits_buttons(ui)["Elf"])
    ui.tap(traits_buttons(ui)["Warrior"])  # one class only: refused, shown, nothing changes
    assert "class" in ui.banner().lower()
    bram = ui.app.session.state.players[1]
    assert bram.sex == "female"
    assert bram.classes == ("Wizard",)
    assert bram.races == ("Elf",)

    ui.tap(traits_buttons(ui)["Super Munchkin"])
    ui.tap(traits_buttons(ui)["Warrior"])
    assert ui.app.session.state.players[1].classes == ("Wizard", "Warrior")

    player.ids.ally_name.text = "Pocket Dragon"
    player.ids.ally_bonus.text = "3"
    ui.tap(player.ids.set_ally)
    assert ui.app.session.state.players[1].ally.bonus == 3
    assert player.strength == 4

    ui.tap(player.ids.run_bonus.ids.plus)
    assert ui.app.session.state.players[1].run_away_bonus == 1

    player.ids.gold.text = "1900"
    ui.tap(player.ids.sell)  # not Bram's turn: refused, and the banner says why
    assert ui.app.session.state.players[1].level == 1
    assert "own turn" in ui.banner()

    ui.tap(player.ids.die)
    bram = ui.app.session.state.players[1]
    assert bram.dead and bram.ally is None
    assert player.ids.die.disabled
    ui.tap(player.ids.loot)
    assert ui.app.session.state.loot.dead == 1
    assert player.loot_text.startswith("Looting order:")

    if ui.banner():
        ui.tap(ui.app.root.ids.banner)  # a tap on a message puts it away
    assert not ui.banner()
    ui.tap(ui.app.root.ids.back)
    assert ui.app.manager.current == "table"
    tile = ui.screen("table").tiles[1]
    assert tile.dead
    assert "Wizard" in tile.traits and "Elf" in tile.traits


def test_selling_items_for_levels_on_your_turn(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    ui.tap(ui.screen("table").tiles[0])
    player = ui.screen("player")
    player.ids.gold.text = "1900"  # no change is given: one level
    ui.tap(player.ids.sell)
    assert ui.app.session.state.players[0].level == 2
    assert "1 level" in ui.banner()
    assert player.ids.gold.text == ""


def test_saved_games_export_import_resume_delete(ui: Harness, tmp_path: Path) -> None:
    ui.start_game(["Anna", "Bram"])
    ui.tap(ui.screen("table").tiles[0].ids.level.ids.plus)
    first_id = ui.app.session.game_id
    ui.nav("games")
    games = ui.screen("games")
    rows = games.rows()
    assert len(rows) == 1 and rows[0].current

    ui.tap(_button(rows[0], "Export\u2026"))  # a folder chooser, no typed path
    choose(ui, games.chooser, tmp_path)
    # Named by its players and day, not by a number a player cannot read.
    (exported,) = tmp_path.glob("Anna-Bram *.json")
    assert json.loads(exported.read_text())  # a readable game log
    ui.tap(_button(games.rows()[0], "Export\u2026"))
    choose(ui, games.chooser, tmp_path)
    assert len(list(tmp_path.glob("Anna-Bram * (2).json"))) == 1  # the first is kept

    ui.tap(games.ids.import_button)  # the same game again: already saved, nothing added
    choose(ui, games.chooser, exported)
    assert "already saved" in ui.banner()
    assert len(games.rows()) == 1

    ui.tap(_button(games.rows()[0], "Resume"))  # the game goes on after its export
    ui.tap(ui.screen("table").tiles[0].ids.level.ids.plus)
    ui.nav("games")
    ui.tap(games.ids.import_button)  # the export is now another game than the saved one
    choose(ui, games.chooser, exported)
    rows = games.rows()
    assert len(rows) == 2
    imported = next(r for r in rows if not r.current)
    ui.tap(_button(imported, "Resume"))
    assert ui.app.session.game_id == imported.game_id
    assert ui.app.manager.current == "table"
    assert ui.app.session.state.players[0].level == 2  # as exported

    ui.nav("games")
    rows = games.rows()
    ui.tap(_button(next(r for r in rows if r.current), "Delete"))
    assert len(ui.app.session.games.list()) == 2  # the first tap only asks
    assert "again" in ui.banner()
    rows = games.rows()
    ui.tap(_button(next(r for r in rows if r.current), "Tap again to delete"))
    assert ui.app.session.game is None
    assert [s.id for s in ui.app.session.games.list()] == [first_id]

    games.import_from(tmp_path / "missing.json")  # a file gone since it was picked
    assert "missing.json" in ui.banner()
    assert "file not found" in ui.banner().lower()


def test_delete_asks_first_and_the_question_lapses(ui: Harness) -> None:
    from companion.ui.screens import games as games_module

    ui.start_game(["Anna", "Bram"])
    ui.nav("games")
    games = ui.screen("games")
    row = games.rows()[0]
    ui.tap(_button(row, "Delete"))
    assert len(ui.app.session.games.list()) == 1
    ui.advance(games_module.CONFIRM_DELETE_S)
    row = games.rows()[0]
    ui.tap(_button(row, "Delete"))  # asks again: the first question lapsed
    assert len(ui.app.session.games.list()) == 1
    ui.tap(_button(games.rows()[0], "Tap again to delete"))
    assert ui.app.session.games.list() == []


def choose(ui: Harness, popup: object, path: Path) -> None:
    """Pick `path` in the chooser pop-up (a folder is browsed into) and tap its button."""
    chooser = popup.ids.chooser  # type: ignore[attr-defined]
    chooser.path = str(path if path.is_dir() else path.parent)
    ui.pump()  # the chooser lists the folder (and forgets any selection) on the next frame
    if not path.is_dir():
        chooser.selection = [str(path)]
    ui.pump()
    ui.tap(popup.ids.action)  # type: ignore[attr-defined]
    # The pop-up fades out before the screen takes touches again.
    ui.wait_until(lambda: popup.parent is None)  # type: ignore[attr-defined]


def _button(row: object, text: str) -> object:
    for child in row.walk():  # type: ignore[attr-defined]
        if getattr(child, "text", None) == text:
            return child
    raise AssertionError(f"no {text} button")


def roll_the_die(ui: Harness) -> tuple[Any, int]:
    """Start a game, open Dice and roll: the screen and the value the log recorded."""
    ui.start_game(["Anna", "Bram"])
    ui.nav("dice")
    dice = ui.screen("dice")
    ui.tap(dice.ids.roll)
    rolled = ui.app.session.state.last_roll
    assert rolled is not None and 1 <= rolled.value <= 6
    return dice, rolled.value


def test_dice_roller_records_the_roll(ui: Harness) -> None:
    dice, rolled = roll_the_die(ui)
    assert dice.value == rolled
    ui.wait_until(lambda: not dice.ids.die.rolling)
    assert dice.ids.die.value == rolled  # the tumble ends on the recorded face


def test_the_die_stops_on_time_on_a_slow_phone(ui: Harness) -> None:
    from companion.ui.widgets import DIE_TUMBLE_S

    dice, rolled = roll_the_die(ui)
    with ui.frames_of(0.2):  # five frames a second at best
        ui.advance(DIE_TUMBLE_S + 0.2)
    assert not dice.ids.die.rolling
    assert dice.ids.die.value == rolled


def test_desktop_window_uses_wide_layouts(ui: Harness) -> None:
    from kivy.core.window import Window

    ui.start_game(["Anna", "Bram", "Cleo", "Dev"])
    try:
        Window.size = (1280, 800)
        ui.pump(frames=5)
        assert ui.app.wide
        table = ui.screen("table")
        assert table.columns == 4
        assert all(not tile.compact for tile in table.tiles)
        ui.tap(table.tiles[3].ids.level.ids.plus)
        assert ui.app.session.state.players[3].level == 2
        combat = ui.screen("combat")
        assert combat.ids.block_shots.parent == combat.ids.right  # one-shots get a column
    finally:
        Window.size = (360, 640)
        ui.pump(frames=5)
    assert not ui.app.wide
    assert ui.screen("table").columns == 2
    combat = ui.screen("combat")
    assert combat.ids.block_shots.parent == combat.ids.left  # under the monsters


def test_turned_wide_and_back_new_game_gives_the_players_their_room_again(ui: Harness) -> None:
    """A phone turned sideways and upright again: the players' list is as tall as before,
    not squeezed by the rules box's stretched height."""
    from kivy.core.window import Window

    screen = ui.set_up_game(["Anna", "Bram", "Cleo", "Dev"])
    ui.pump()
    before = (screen.ids.players_scroll.height, screen.ids.right.height)
    try:
        Window.size = (1280, 800)
        ui.pump(frames=5)
        assert ui.app.wide
    finally:
        Window.size = (360, 640)
        ui.pump(frames=5)
    assert (screen.ids.players_scroll.height, screen.ids.right.height) == before


def test_an_unexpected_error_is_shown_not_a_crash(ui: Harness) -> None:
    from kivy.base import ExceptionManager

    from companion.ui.app import KeepPlaying

    guard = KeepPlaying(ui.app)
    assert guard.handle_exception(RuntimeError("the dog ate the dice")) == ExceptionManager.PASS
    ui.pump()
    assert "the dog ate the dice" in ui.banner()
    assert guard.handle_exception(KeyboardInterrupt()) == ExceptionManager.RAISE


def test_the_file_chooser_shows_its_folder_and_thumb_sized_rows(ui: Harness) -> None:
    """Export opens in the app's own exports folder (made when missing, never a silent
    fall-back to the home folder), says which folder it is, and every row is >= 48 dp."""
    import shutil

    from kivy.metrics import dp

    from companion.ui.screens.games import EXPORTS_DIR

    ui.start_game(["Anna", "Bram"])
    exports = ui.app.session.games.root / EXPORTS_DIR
    shutil.rmtree(exports, ignore_errors=True)
    (exports / "older games").mkdir(parents=True)
    shutil.rmtree(exports)  # gone again: the chooser must make it
    ui.nav("games")
    games = ui.screen("games")
    ui.tap(_button(games.rows()[0], "Export\u2026"))
    ui.pump()
    popup = games.chooser
    try:
        assert popup.ids.chooser.path == str(exports)
        assert str(exports) in popup.ids.folder.text
        (exports / "Anna-Bram 2026-01-01.json").write_text("{}")
        popup.ids.chooser._update_files()
        ui.pump(frames=4)
        entries = [w for w in popup.walk() if type(w).__name__ == "FileListEntry"]
        assert entries
        assert all(entry.height >= dp(48) - 1 for entry in entries)
    finally:
        popup.dismiss()
        ui.wait_until(lambda: popup.parent is None)
