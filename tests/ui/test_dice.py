"""Smart dice on the Run-away screen, headless: virtual dice on the virtual radio, found and
connected by the app's dice service, thrown, and the screen takes and logs their rolls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


@pytest.fixture
async def table(ui: Harness) -> AsyncIterator[dict[str, Any]]:
    """Two players, a fight the fighter cannot win, the dice service on a virtual radio."""
    from companion.core import MonsterSpec, StartCombat
    from companion.devices.dice import DiceHub
    from companion.devices.sim.bumble_backend import VirtualRadio
    from companion.ui.dice_service import dice_service

    ui.start_game(["Anna", "Bram"])
    monsters = (MonsterSpec(name="Slime", level=20), MonsterSpec(name="Bog", level=20))
    assert ui.app.session.act(StartCombat, fighter=0, monsters=monsters)
    service = dice_service(ui.app)
    assert service is not None
    radio = VirtualRadio()
    service.backend = radio.bleak_backend()
    service.attach(DiceHub())  # a fresh hub per test
    on_air: list[Any] = []
    yield {"service": service, "radio": radio, "on_air": on_air}
    ui.app.show("table")
    ui.pump()
    await service.hub.close()
    for die in on_air:
        await die.stop()
    await radio.close()


async def connect(ui: Harness, table: dict[str, Any], die: Any, seat: int) -> None:
    """Switch a virtual die on, find it through the service, connect it, give it to `seat`."""
    service = table["service"]
    await die.start()
    table["on_air"].append(die)
    service.scan()
    await ui.until(lambda: any(f.name == die.name for f in service.found), f"{die.name} is found")
    (found,) = [f for f in service.found if f.name == die.name]
    service.connect(found)
    await ui.until(
        lambda: any(r.label.startswith(die.name) and r.connected for r in service.rows),
        f"{die.name} is connected",
    )
    (row,) = [r for r in service.rows if r.label.startswith(die.name)]
    service.assign(row.die_id, seat)


async def ruby_and_a_godice(ui: Harness, table: dict[str, Any]) -> tuple[Any, Any]:
    """Two dice on the table: Ruby, a Pixels die, rolls for Anna; a GoDice for Bram."""
    from companion.devices.sim.dice import VirtualGoDice, VirtualPixelsDie

    ruby = VirtualPixelsDie(table["radio"], "Ruby")
    godice = VirtualGoDice(table["radio"])
    await connect(ui, table, ruby, seat=0)
    await connect(ui, table, godice, seat=1)
    return ruby, godice


def waiting(table: dict[str, Any]) -> bool:
    """True once a screen waits for a die's roll (the screen may still be sliding in)."""
    hub = table["service"].hub
    return any(hub.waiting_for(source.die_id) for source in hub.dice)


def run_away_rolls(ui: Harness) -> list[tuple[int, int]]:
    from companion.core import RunAway

    return [(a.monster, a.roll) for a in ui.app.session.game.log if isinstance(a, RunAway)]


def logged_dice(ui: Harness) -> list[str]:
    from companion.core import RunAway

    return [a.die for a in ui.app.session.game.log if isinstance(a, RunAway)]


async def test_a_pixels_die_rolls_for_the_fighter_and_the_screen_logs_it(
    ui: Harness, table: dict[str, Any]
) -> None:
    ruby, bram_die = await ruby_and_a_godice(ui, table)
    ui.app.show("run_away")
    screen = ui.screen("run_away")
    await ui.until(lambda: waiting(table), "the screen waits for the die")
    assert "Throw your die" in screen.die_text
    await ui.until(lambda: len(ruby.blinks) == 1, "the awaited die lights up")
    assert bram_die.blinks == []  # Bram's die is not the one the screen waits for
    await bram_die.roll(6)  # Bram is not running away: his die changes nothing
    await ruby.roll(5)
    await ui.until(lambda: run_away_rolls(ui) == [(0, 5)], "Ruby's 5 is logged")
    assert "Ruby (d6) rolled 5" in screen.die_text
    assert logged_dice(ui) == ["Ruby (d6)"]
    assert ui.app.session.game.state.combat.rolls[0].escaped
    await ruby.tumble()  # tumbling ...
    await ruby.settle(2)  # ... then settling: one roll, for the next monster
    await ruby.settle(2)
    await ui.until(lambda: ui.app.session.game.state.combat is None, "the second roll ends")
    assert run_away_rolls(ui) == [(0, 5), (1, 2)]


async def test_a_die_lost_mid_roll_leaves_the_on_screen_roll(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.devices.sim.dice import VirtualPixelsDie

    ruby = VirtualPixelsDie(table["radio"], "Ruby")
    await connect(ui, table, ruby, seat=0)
    ui.app.show("run_away")
    screen = ui.screen("run_away")
    await ui.until(lambda: waiting(table), "the screen waits for the die")
    assert "Throw your die" in screen.die_text
    await ruby.tumble()
    await ruby.leave()
    await ui.until(lambda: "went away" in ui.banner(), "the table is told the die went away")
    assert "Throw your die" not in screen.die_text
    ui.tap(screen.ids.physical.children[2])  # the "4" button: typed from any die
    assert run_away_rolls(ui) == [(0, 4)]
    assert logged_dice(ui) == [""]  # typed: no die named


async def test_a_d20_is_refused_and_the_screen_keeps_waiting(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.devices.dice import DieType
    from companion.devices.sim.dice import VirtualPixelsDie

    big = VirtualPixelsDie(table["radio"], "Big", die_type=DieType.D20)
    await connect(ui, table, big, seat=0)
    ui.app.show("run_away")
    await ui.until(lambda: waiting(table), "the screen waits for the die")
    await big.roll(17)
    await ui.until(lambda: "Big is a d20, not a d6" in ui.banner(), "the d20 is refused")
    assert run_away_rolls(ui) == []
    assert ui.app.session.game.state.combat is not None


async def test_the_devices_screen_finds_connects_and_assigns_a_die(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.devices.sim.dice import VirtualPixelsDie

    ruby = VirtualPixelsDie(table["radio"], "Ruby", battery_percent=64)
    await ruby.start()
    table["on_air"].append(ruby)
    ui.app.show("devices")
    screen = ui.screen("devices")
    ui.tap(screen.ids.find_dice)
    await ui.until(lambda: bool(screen._found_dice), "the die is found")
    found_row = screen.ids.dice.children[0]
    assert found_row.title == "Ruby"
    ui.tap(found_row.ids.connect)
    await ui.until(
        lambda: any(c.title.startswith("Ruby (d6)") for c in screen.ids.dice.children),
        "the die is connected and has said what it is",
    )
    card = _card(screen)
    assert card.connected and "battery 64 %" in card.detail
    assert card.assign_text == "Rolls for: whoever is rolling"
    ui.advance(0.2)  # the new card takes a few frames to find its place in the list
    ui.tap(card.ids.assign)
    await ui.until(lambda: "Rolls for: Anna" in _card(screen).assign_text, "Anna has the die")
    await ui.until(lambda: len(ruby.blinks) == 1, "the die blinks to show which it is")
    await ruby.roll(4)
    await ui.until(lambda: "shows 4" in _card(screen).detail, "the last face is shown")
    ui.tap(_card(screen).ids.blink)
    await ui.until(lambda: len(ruby.blinks) == 2, "Blink lights the die")


def _card(screen: Any) -> Any:
    (card,) = screen.die_cards.values()
    return card


async def test_the_dice_screen_takes_the_current_players_die(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.core import RollDie
    from companion.devices.sim.dice import VirtualGoDice

    die = VirtualGoDice(table["radio"])
    await connect(ui, table, die, seat=0)  # Anna's turn: her die
    ui.app.show("dice")
    screen = ui.screen("dice")
    await ui.until(lambda: table["service"].hub.waiting_for(_die_id(table)), "the screen waits")
    await die.roll(3)
    await ui.until(lambda: screen.value == 3, "the die's 3 is shown")
    assert screen.die_text == "Rolled on GoDice_000001_R_v04 (d6)"
    logged = [a for a in ui.app.session.game.log if isinstance(a, RollDie)]
    assert [(a.player, a.roll, a.die) for a in logged] == [(0, 3, "GoDice_000001_R_v04 (d6)")]
    await die.roll(6)  # the screen keeps listening: every throw is a roll
    await ui.until(lambda: screen.recent[:2] == [6, 3], "the next throw is taken too")
    ui.tap(screen.ids.roll)  # and the on-screen roll still works
    assert len([a for a in ui.app.session.game.log if isinstance(a, RollDie)]) == 3


def _die_id(table: dict[str, Any]) -> str:
    (source,) = table["service"].hub.dice
    return source.die_id


async def test_a_godice_shell_is_set_on_the_devices_screen(
    ui: Harness, table: dict[str, Any]
) -> None:
    from companion.devices.dice import DieType
    from companion.devices.sim.dice import VirtualGoDice

    die = VirtualGoDice(table["radio"])
    await connect(ui, table, die, seat=0)
    ui.app.show("devices")
    screen = ui.screen("devices")
    await ui.until(lambda: _card(screen).shell_text == "d6 shell", "a GoDice starts bare")
    ui.tap(_card(screen).ids.shell)
    await ui.until(lambda: "(d4)" in _card(screen).title, "the die now wears a d4 shell")
    (source,) = table["service"].hub.dice
    assert source.die_type is DieType.D4
    ui.app.show("run_away")
    await ui.until(lambda: waiting(table), "the screen waits for the die")
    await die.roll(2)
    await ui.until(lambda: "is a d4, not a d6" in ui.banner(), "a d4 is refused for a d6 roll")
    assert run_away_rolls(ui) == []


async def test_a_godice_in_a_d20_shell_shows_the_face_it_rolled(
    ui: Harness, table: dict[str, Any]
) -> None:
    """Its owner steps the shell button to the d20; the die's face is read through it."""
    from companion.devices.dice import DieType
    from companion.devices.sim.dice import VirtualGoDice

    die = VirtualGoDice(table["radio"], shell=DieType.D20, seed=3)
    await connect(ui, table, die, seat=0)
    ui.app.show("devices")
    screen = ui.screen("devices")
    await ui.until(lambda: _card(screen).shell_text == "d6 shell", "a GoDice starts bare")
    for _step in range(6):  # d4, d8, d10, d00, d12, d20
        ui.tap(_card(screen).ids.shell)
        ui.pump()
    await ui.until(lambda: "(d20)" in _card(screen).title, "the die now wears a d20 shell")
    await die.roll(17)
    await ui.until(lambda: "shows 17" in _card(screen).detail, "the d20's face is shown")
