"""Several throws in one go from smart dice, headless: the roll for the first player and the
looting ties are thrown on virtual dice, re-thrown on a tie, and logged with the dice named;
a die that goes away never blocks ("Roll the rest here")."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import Harness
from tests.ui.test_dice import connect, ruby_and_a_godice, table

pytestmark = pytest.mark.slow

__all__ = ["table"]  # the fixture, shared with the Run-away dice tests


def popup() -> Any:
    """The throws pop-up on show, or None."""
    # Imported here, not at the top: the Window is made by the first import, and it must
    # wait until the session fixture has set the phone's size.
    from kivy.core.window import Window

    from companion.ui.throws import ThrowsPopup

    shown = [w for w in Window.children if isinstance(w, ThrowsPopup)]
    return shown[0] if shown else None


def awaits(ui: Harness, table: dict[str, Any], name: str) -> Any:
    """Wait until the pop-up waits for `name`'s throw on a die (the die's wait has begun)."""
    hub = table["service"].hub

    def ready() -> bool:
        shown = popup()
        return (
            shown is not None
            and name in shown.waiting_text
            and any(hub.waiting_for(s.die_id) for s in hub.dice)
        )

    return ui.until(ready, f"the pop-up waits for {name}'s throw")


def start_rolling_for_first(ui: Harness, names: list[str]) -> None:
    """A new game through the New game screen, with "roll for the first player" chosen."""
    from companion.ui.screens.new_game import ROLL_FOR_FIRST

    screen = ui.set_up_game(names)
    screen.first = ROLL_FOR_FIRST
    ui.tap(screen.ids.start)
    ui.pump()


def first_rolls(ui: Harness) -> list[Any]:
    from companion.core import RollForFirstPlayer

    return [a for a in ui.app.session.game.log if isinstance(a, RollForFirstPlayer)]


async def test_two_dice_roll_for_the_first_player_and_a_tie_throws_again(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.core.game import action_record

    ruby, cube = await ruby_and_a_godice(ui, table)
    start_rolling_for_first(ui, ["Anna", "Bram"])
    await awaits(ui, table, "Anna")
    assert first_rolls(ui) == []  # nothing is applied before every throw is in
    await cube.roll(6)  # Bram's die, out of turn: not Anna's throw
    await ruby.roll(4)
    await awaits(ui, table, "Bram")
    assert "Anna: 4 on Ruby (d6)" in popup().thrown
    await cube.roll(4)
    await ui.until(lambda: "Tie" in (popup().waiting_text if popup() else ""), "a tie")
    await awaits(ui, table, "Anna")
    await ruby.roll(2)
    await awaits(ui, table, "Bram")
    await cube.roll(5)
    await ui.until(lambda: bool(first_rolls(ui)), "the first-player roll is applied")
    (action,) = first_rolls(ui)
    gd = "GoDice_000001_R_v04 (d6)"
    assert action.rolls == (4, 4, 2, 5)
    assert action.dice == ("Ruby (d6)", gd, "Ruby (d6)", gd)
    state = ui.app.session.game.state
    assert state.current == 1
    # Every throw stays on show with who goes first, until the table taps OK.
    shown = popup()
    assert shown.result == "Bram goes first."
    assert "Anna: 2 on Ruby (d6)" in shown.thrown
    ui.tap(shown.ids.ok)
    await ui.until(lambda: popup() is None, "the pop-up closes")
    record = action_record(action)
    assert record["dice"] == ["Ruby (d6)", gd, "Ruby (d6)", gd]  # the log names each die
    assert '"dice"' in ui.app.session.game.to_json()  # and so does the saved game


async def test_a_whoever_is_rolling_die_breaks_a_looting_tie_in_seat_order(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.core import Die, LootTheBody
    from companion.devices.dice import ANYONE
    from companion.devices.sim.dice import VirtualPixelsDie

    ui.start_game(["Anna", "Bram", "Cara"])
    ruby = VirtualPixelsDie(table["radio"], "Ruby")
    await connect(ui, table, ruby, seat=ANYONE)
    assert ui.app.session.act(Die, player=0)
    ui.app.show("player", seat=0)
    ui.pump()
    screen = ui.screen("player")
    screen.loot()
    await awaits(ui, table, "Bram")
    await ruby.roll(3)
    await awaits(ui, table, "Cara")
    await ruby.roll(3)
    await ui.until(lambda: "Tie: Bram" in popup().waiting_text, "Bram throws again")
    await awaits(ui, table, "Bram")
    await ruby.roll(1)
    await awaits(ui, table, "Cara")
    await ruby.roll(6)
    game = ui.app.session.game
    await ui.until(lambda: any(isinstance(a, LootTheBody) for a in game.log), "looting is applied")
    (action,) = [a for a in ui.app.session.game.log if isinstance(a, LootTheBody)]
    assert action.rolls == (3, 3, 1, 6)
    assert action.dice == ("Ruby (d6)",) * 4
    assert ui.app.session.game.state.loot.order == (2, 1)


async def test_a_die_lost_mid_throws_is_finished_on_screen(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.devices.sim.dice import VirtualPixelsDie

    ruby = VirtualPixelsDie(table["radio"], "Ruby")
    jade = VirtualPixelsDie(table["radio"], "Jade")
    await connect(ui, table, ruby, seat=0)
    await connect(ui, table, jade, seat=1)
    start_rolling_for_first(ui, ["Anna", "Bram"])
    await awaits(ui, table, "Anna")
    await ruby.roll(3)
    await awaits(ui, table, "Bram")
    await jade.tumble()
    await jade.leave()
    await ui.until(lambda: "went away" in popup().waiting_text, "the table is told")
    assert first_rolls(ui) == []
    ui.tap(popup().ids.roll_here)
    await ui.until(lambda: bool(first_rolls(ui)), "the rest is rolled on screen")
    (action,) = first_rolls(ui)
    assert action.rolls[0] == 3
    assert action.dice[0] == "Ruby (d6)"
    assert action.dice[1:] == ("",) * (len(action.rolls) - 1)  # the rest rolled here
    assert len(action.rolls) >= 2
    assert "Bram: " in popup().thrown and "rolled here" in popup().thrown
    ui.tap(popup().ids.ok)
    await ui.until(lambda: popup() is None, "the pop-up closes")


async def test_without_dice_the_first_player_is_rolled_on_screen(
    ui: Harness, table: dict[str, Any]
) -> None:
    start_rolling_for_first(ui, ["Anna", "Bram"])
    (action,) = first_rolls(ui)
    assert action.dice == ()
    assert len(action.rolls) >= 2
    # Each player's roll is shown, not just who won it.
    shown = popup()
    first = ui.app.session.game.state.current_player.name
    assert shown.result == f"{first} goes first."
    assert f"Anna {action.rolls[0]}" in shown.thrown
    assert f"Bram {action.rolls[1]}" in shown.thrown
    ui.tap(shown.ids.ok)
    await ui.until(lambda: popup() is None, "the pop-up closes")
