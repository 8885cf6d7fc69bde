"""How a counter starts on boards that behave like the real ports (the VM board of boardvm.py).

Each defect here was found against the real MicroPython ports, and the VM board now
models what hid it: the timer ids a port has, a soft reset that stops timers and
not the watchdog, the soft-reboot banner, where Bluetooth takes its memory from, the
reset cause a brown-out reports, Ctrl-C switched on at the start of every script.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tty
from pathlib import Path

import pytest
from boardvm import BoardVM
from counter.serial_link import REPL_ESCAPE

from companion.devices import framing, wire

pytestmark = pytest.mark.slow

WAIT_S = 40.0  # s: generous, the VM shares two busy cores with the whole suite
WATCHDOG_MS = 8000
PLUS = 6


class Line:
    """The board's USB serial line as a terminal program sees it."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        self.seen = b""

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    async def until(self, marker: bytes, timeout_s: float = WAIT_S) -> bytes:
        """Everything read up to and including ``marker``."""
        async with asyncio.timeout(timeout_s):
            while marker not in self.seen:
                with contextlib.suppress(BlockingIOError):
                    self.seen += os.read(self.fd, 4096)
                await asyncio.sleep(0.01)
        cut = self.seen.index(marker) + len(marker)
        out, self.seen = self.seen[:cut], self.seen[cut:]
        return out

    def close(self) -> None:
        os.close(self.fd)


async def until_state(vm: BoardVM, check, timeout_s: float = WAIT_S) -> dict:
    async with asyncio.timeout(timeout_s):
        while True:
            state = await vm.state()
            if check(state):
                return state
            await asyncio.sleep(0.2)


async def running(vm: BoardVM) -> dict:
    """The counter runs: its watchdog task has fed the watchdog."""
    return await until_state(vm, lambda s: s["feeds"] > 0 and s["wdt"])


def resets(vm: BoardVM) -> list[str]:
    return [e["how"] for e in vm.seen if e.get("event") == "ended" and "reset" in e["how"]]


@pytest.fixture
async def board(tmp_path: Path, request: pytest.FixtureRequest):
    """A VM board started for ``request.param``: (pin map, sources?, port overrides)."""
    pinout, mpy, port = request.param
    vm = BoardVM(tmp_path, pinout, mpy=mpy, port=port)
    vm.start()
    yield vm
    vm.close()


@pytest.mark.parametrize("board", [("tracker-esp32c3-bar", True, {})], indirect=True)
async def test_after_the_repl_escape_an_esp32_stays_at_its_repl(board: BoardVM) -> None:
    """The released esp32 port has no Timer(-1): nothing fed the watchdog at the REPL."""
    await running(board)
    line = Line(board.path)
    try:
        line.write(b"\x00" + REPL_ESCAPE)
        await line.until(b"counter: maintenance start, no watchdog; the REPL is yours")
        escaped = await board.state()
        assert not escaped["wdt"]
        # Positive sign that the watchdog's moment has passed: the board's own clock.
        later = await until_state(
            board, lambda s: s["ticks"] - escaped["ticks"] > WATCHDOG_MS + 1000, timeout_s=60
        )
        assert resets(board) == ["reset:machine.reset"]  # the escape's own, none since
        assert later["mode"] == "friendly" and not later["wdt"]
    finally:
        line.close()


@pytest.mark.parametrize("board", [("tracker-esp32c3", False, {})], indirect=True)
async def test_bluetooth_starts_on_an_esp32_c3_tracker_from_sources(board: BoardVM) -> None:
    """Bluetooth first: the heap has not grown into what NimBLE needs (no panic)."""
    state = await running(board)
    assert state["ble"] and state["ble_heap"]["ok"]
    assert state["ble_heap"]["heap"] == 64_000  # no growth before Bluetooth took its share
    assert resets(board) == []


@pytest.mark.parametrize("board", [("tracker-esp32c3-bar", True, {})], indirect=True)
async def test_a_radio_that_will_not_start_leaves_serial_working(board: BoardVM) -> None:
    await running(board)
    board.send(cmd="ble_fail", errno=19)
    board.send(cmd="reset")
    await board.expect("boot", number=2)
    state = await until_state(board, lambda s: s["feeds"] > 0 and s["log"])
    assert "bluetooth: [Errno 19]" in state["log"][-1] and not state["ble"]
    line = Line(board.path)
    try:
        line.write(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
        # Read as a client does: what the start-up left on the line (the ROM's text, the
        # log) and the delimiter before the frame are not frames.
        deframer, frames = framing.Deframer(), []
        while not frames:
            frames = deframer.feed(await line.until(b"\x00", timeout_s=WAIT_S))
        (hello,) = frames
        assert not wire.decode(hello).caps & wire.CAP_BLE
    finally:
        line.close()


@pytest.mark.parametrize("board", [("levelboard-picow", True, {})], indirect=True)
async def test_after_a_soft_reboot_the_first_reply_reaches_the_app(board: BoardVM) -> None:
    """MPY: soft reboot goes out with no 0x00 after it; the counter's frames start with one."""
    await running(board)
    line = Line(board.path)
    try:
        line.write(b"\x00" + REPL_ESCAPE)
        await line.until(b"the REPL is yours")
        await line.until(b">>> ")
        line.write(b"\x04")  # Ctrl-D at the REPL: a soft reset, which runs main.py again
        await line.until(b"MPY: soft reboot\r\n")
        await board.expect("soft-reboot")
        await running(board)
        line.write(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
        # Right after the banner comes the delimiter the reply starts with: the banner is
        # a frame of its own, which any deframer drops, and the reply arrives whole.
        assert await line.until(b"\x00") == b"\x00"
        (reply,) = framing.Deframer().feed(await line.until(b"\x00"))
        assert wire.decode(reply).TYPE == wire.MSG_HELLO
    finally:
        line.close()


@pytest.mark.parametrize("board", [("levelboard-picow", True, {})], indirect=True)
async def test_a_ctrl_c_at_the_moment_main_py_starts_is_caught(board: BoardVM) -> None:
    await running(board)
    board.send(cmd="ctrl_c_at_main")
    board.send(cmd="reset")
    await board.expect("boot", number=2)
    state = await until_state(board, lambda s: s["feeds"] > 0 and s["wdt"] and s["levels"])
    assert state["mode"] == "friendly"
    assert not [e for e in board.seen if e.get("how") == "ctrl-c"]


def dark(state: dict) -> bool:
    return bool(state["strips"]) and all(not any(strip["buf"]) for strip in state["strips"])


@pytest.mark.parametrize("board", [("tracker-esp32c3-bar", True, {})], indirect=True)
async def test_a_sagging_cell_is_no_boot_loop_and_a_flat_one_sleeps_until_a_button(
    board: BoardVM,
) -> None:
    await running(board)
    for number in (2, 3):  # brown-outs: power-on resets with the cell under 3.5 V
        board.send(cmd="brownout", mv=3450)
        await board.expect("boot", number=number)
    # The second one in a row: cut off, lights dark, no radio, asleep until + is pressed.
    asleep = await until_state(board, lambda s: s["start"] == "cut-off" and dark(s))
    assert not asleep["ble"] and not asleep["wdt"]
    # Pressed while still flat: it shows "Lo" and sleeps again.
    board.send(cmd="press", pins=[PLUS], ms=300)
    await board.expect("boot", number=4)
    await until_state(board, lambda s: s["start"] == "cut-off" and dark(s))
    # Charged, then pressed: the counter starts again.
    board.send(cmd="cell", mv=3950)
    board.send(cmd="press", pins=[PLUS], ms=300)
    await board.expect("boot", number=5)
    state = await running(board)
    assert state["ble"] and state["start"] == "run"
    assert not [e for e in board.seen if e.get("event") == "text" and "safe" in e["text"]]
    # A crash is still a crash: three short starts in a row end in safe mode.
    await until_state(board, lambda s: s["boots"] == "0")  # this start lasted
    for number in (6, 7, 8):
        board.send(cmd="reset")
        await board.expect("boot", number=number)
    safe = await until_state(board, lambda s: s["start"] == "safe")
    assert not safe["wdt"]


@pytest.mark.parametrize("board", [("levelboard-picow", True, {})], indirect=True)
async def test_the_vm_board_behaves_like_the_port(board: BoardVM) -> None:
    """The model itself: timer ids, a soft reset that stops timers and not the watchdog."""
    await running(board)
    line = Line(board.path)
    try:
        line.write(b"\x00" + REPL_ESCAPE)
        await line.until(b"the REPL is yours")
        await line.until(b">>> ")
        line.write(b"import machine\r")
        await line.until(b">>> ")
        line.write(b"machine.Timer(0)\r")
        await line.until(b"ValueError: Timer doesn't exist")
        line.write(b"w = machine.WDT(timeout=3000)\r")
        await line.until(b">>> ")
        line.write(b"t = machine.Timer(-1, period=500, callback=lambda t: w.feed())\r")
        await line.until(b">>> ")
        await until_state(board, lambda s: s["feeds"] >= 3)  # the timer feeds it
        # A soft reset from the raw REPL (as mpremote makes one): main.py does not run,
        # the timer stops, the watchdog goes on counting and resets the board.
        line.write(b"\x01")
        await line.until(b"raw REPL; CTRL-B to exit\r\n>")
        line.write(b"\x04")
        await line.until(b"MPY: soft reboot\r\n")
        after = await board.state()
        assert after["timers"] == 0 and after["wdt"]
        await board.expect("ended", how="reset:watchdog", timeout_s=WAIT_S)
    finally:
        line.close()
