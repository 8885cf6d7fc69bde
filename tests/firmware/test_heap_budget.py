"""The heap a counter needs at start, module by module, against what each board leaves it.

Measured in MicroPython's WebAssembly VM, one step per call so that every figure is
taken after a real collection (within one call this VM frees nothing): the live heap
after each module the firmware imports, in the order a start imports them, from
sources and from .mpy files. Then, per board (ports.PORTS), what start-up must fit:

- on an ESP32 the heap starts at 64 000 bytes and grows into the system heap, where
  Bluetooth takes its share when it starts; so what is imported before
  ble.active(True) must fit in the first 64 000 bytes, and the whole firmware in that
  plus what Bluetooth leaves;
- on a Pico W the heap is fixed and Bluetooth's buffers come out of it.

The stand-in aioble of the VM board is smaller than micropython-lib's; docs/firmware.md
says what only a real board can confirm.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import deploy
import pytest
from mpvm import MicroPythonVM
from ports import PORTS, profile

HERE = Path(__file__).parent
PINOUT = "tracker-esp32c3"
# In the order a start imports them: main.py and counter.start first, then Bluetooth
# starts, then the rest of the firmware.
BEFORE_BLUETOOTH = ("counter.board", "counter.store", "counter.hw", "counter.start")
AFTER_BLUETOOTH = (
    "wire",
    "counter.timebase",
    "counter.segments",
    "counter.limiter",
    "counter.render",
    "counter.session",
    "counter.logic",
    "counter.buttons",
    "counter.outbox",
    "counter.supervisor",
    "counter.app",
    "counter.serial_link",
    "aioble",
    "counter.ble_link",
)
START = """\
from counter import board as _b, start as _s
from counter.store import FileStore
_store = FileStore('/data')
_board = _b.load('/flash/board.json')
_guard = _s.BootGuard(_store)
"""
RADIO = (
    "import boardstate\nboardstate.STATE['alloc_at_start'] = BASE\nassert _s.start_radio() is True"
)
RUN = """\
from counter import app as _a, hw as _hw
from counter.logic import Counter
from counter.outbox import Outbox
from counter.supervisor import FaultLog
from counter.ble_link import BleCarrier
import wire as _w
_links = ['serial', 'ble']
_outbox = Outbox(_links)
_log = FaultLog(_store)
_counter = Counter(_board, store=_store, counter_id=_hw.counter_id(), links=_links)
_chains = [(_hw.LedChain(s), f) for s, f in _board.led_chains()]
_digits = _hw.TM1637(_board.display) if _board.digits else None
_pins = _hw.ButtonPins(_board)
_ble = BleCarrier(_counter, _outbox, _w.counter_name(_counter.counter_id))
_counter.frame()
"""


def measure(tmp_path: Path, mpy: bool) -> dict[str, int]:
    """Live heap (bytes) after each step of a start, cumulative, in order."""
    flash = tmp_path / ("mpy" if mpy else "py")
    flash.mkdir()
    deploy.stage(PINOUT, mpy, flash)
    (tmp_path / "profile.json").write_text(json.dumps(profile("ESP32-C3")))
    vm = MicroPythonVM(
        flash=flash,
        extra=(
            f"/fakes={HERE / 'vmboard'}",
            f"/fakes/profile.json={tmp_path / 'profile.json'}",
            f"/lib={HERE / 'vmboard' / 'lib'}",
        ),
    )
    figures: dict[str, int] = {}
    try:
        # What a board has built in (machine, neopixel, bluetooth): no heap of the firmware's.
        vm.run("import sys\nsys.path.insert(0, '/fakes')\nsys.path.append('/lib')")
        vm.run("import machine, neopixel, bluetooth, micropython, json, struct, asyncio, os")
        vm.run("import gc\ngc.collect()\nBASE = gc.mem_alloc()")
        for name in BEFORE_BLUETOOTH:
            vm.run(f"import {name}")
            figures[name] = vm.call("(gc.collect(), gc.mem_alloc() - BASE)[1]")
        vm.run(START)
        figures["before Bluetooth"] = vm.call("(gc.collect(), gc.mem_alloc() - BASE)[1]")
        vm.run(RADIO)  # the VM board's model of the port: it panics if the heap grew
        for name in AFTER_BLUETOOTH:
            vm.run(f"import {name}")
            figures[name] = vm.call("(gc.collect(), gc.mem_alloc() - BASE)[1]")
        vm.run(RUN)
        figures["after start"] = vm.call("(gc.collect(), gc.mem_alloc() - BASE)[1]")
    finally:
        vm.close()
    return figures


def growth_left(live: int, port: dict) -> int:
    """What an esp32 split heap that grew to hold ``live`` leaves of the system heap."""
    total, system = port["heap_start"], port["system_free"]
    while live > total and system > 0:
        grow = min(system, max(total, live - total))
        total += grow
        system -= grow
    return system


@pytest.mark.slow
def test_the_firmware_fits_beside_bluetooth_on_every_board(
    tmp_path: Path, figure: Callable[[str], None]
) -> None:
    sources, compiled = measure(tmp_path, mpy=False), measure(tmp_path, mpy=True)
    lines = []
    previous = {"py": 0, "mpy": 0}
    for step in sources:
        py, mpy = sources[step], compiled[step]
        lines.append(
            f"  {step:<22} {py:>7} {py - previous['py']:>+7}   {mpy:>7} {mpy - previous['mpy']:>+7}"
        )
        previous = {"py": py, "mpy": mpy}
    figure(
        "[heap, MicroPython VM] live bytes after each step of a start "
        f"({PINOUT}), sources | .mpy (total, this step):\n" + "\n".join(lines)
    )
    for figures in (sources, compiled):
        before, after = figures["before Bluetooth"], figures["after start"]
        for mcu, port in PORTS.items():
            if port["port"] == "esp32":
                # Nothing made the heap grow before Bluetooth took its share ...
                assert before < port["heap_start"], (mcu, before)
                # ... and the rest fits in the heap plus what Bluetooth left.
                room = port["heap_start"] + port["system_free"] - port["ble_needs"]
                assert after < room, (mcu, after, room)
            else:
                assert after + port["ble_needs"] < port["heap_start"], (mcu, after)
    # Imported all before Bluetooth, as the firmware used to start, the C3's heap grows
    # into what NimBLE needs: the panic of ble.active(True).
    assert growth_left(sources["after start"], PORTS["ESP32-C3"]) < PORTS["ESP32-C3"]["ble_needs"]
