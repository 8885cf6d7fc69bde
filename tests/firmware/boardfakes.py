"""Fakes of a board's `machine`, `neopixel` and `micropython` for the firmware under CPython.

They model the port the test names (ports.PORTS, shared with the VM board): which
`machine.Timer` ids exist, that a started watchdog cannot be stopped, what
`reset_cause()` says, which pins can wake the chip from deep sleep. A reset or a deep
sleep is an exception the test catches, as the chip would stop there.
"""

from __future__ import annotations

import sys
import time
import types

import pytest
from ports import PORTS

PWRON_RESET, HARD_RESET, WDT_RESET, DEEPSLEEP_RESET, SOFT_RESET = 1, 2, 3, 4, 5
SLEEP, DEEPSLEEP = 2, 4


class Reset(SystemExit):
    """The chip reset (machine.reset) or went to deep sleep; ``deep`` tells which."""

    def __init__(self, reason: str, deep: bool = False) -> None:
        super().__init__(reason)
        self.deep = deep


class Wires:
    """Shared state of the fake board: pin levels, the TM1637 bus log, watchdog, cell."""

    def __init__(self, port: dict) -> None:
        self.port = port
        self.levels: dict[int, int] = {}
        self.log: list[tuple[int, int]] = []
        self.watchdog_ms = 0
        self.feeds = 0
        self.timers: list = []
        self.cause = PWRON_RESET
        self.cell_mv = 3900
        self.wake: dict[int, tuple[int, int]] = {}  # pin -> (trigger, wake flags)
        self.light_sleeps = 0
        self.on_lightsleep = None  # what happens while the chip sleeps light (a press)


def fake_machine(wires: Wires) -> types.ModuleType:
    port = wires.port

    class Pin:
        IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 2, 3
        IRQ_RISING, IRQ_FALLING = 1, 2

        def __init__(self, n: int, mode: int = 0, pull: int | None = None, value=None) -> None:
            self.n = n
            if value is not None:
                wires.levels[n] = value
            elif n not in wires.levels:
                wires.levels[n] = 1 if pull == Pin.PULL_UP else 0

        def value(self, v=None):
            if v is None:
                return wires.levels[self.n]
            wires.levels[self.n] = 1 if v else 0
            wires.log.append((self.n, wires.levels[self.n]))
            return None

        __call__ = value

        def irq(self, handler=None, trigger=2, wake=None) -> None:
            if wake and wake & DEEPSLEEP and self.n not in port["deepsleep_wake_pins"]:
                raise ValueError("invalid pin for wake")
            wires.wake[self.n] = (trigger, wake or 0)

    class ADC:
        ATTN_11DB = 3

        def __init__(self, pin: Pin) -> None:
            self.pin = pin

        def atten(self, value: int) -> None:
            self.attenuation = value

        def read_uv(self) -> int:
            return wires.cell_mv * 500  # behind the divider of 2

    class WDT:
        def __init__(self, id: int = 0, timeout: int = 5000) -> None:
            wires.watchdog_ms = timeout
            wires.feeds = 0

        def feed(self) -> None:
            wires.feeds += 1

    class Timer:
        PERIODIC, ONE_SHOT = 1, 0

        def __init__(self, *args, **kwargs) -> None:
            n = args[0] if args else (-1 if port["port"] == "rp2" else None)
            if n is None:
                raise TypeError("function missing 1 required positional arguments")
            if n not in port["timers"]:
                raise ValueError(port["timer_error"])
            wires.timers.append(self)

        def init(self, period: int = 1000, mode: int = 1, callback=None) -> None:
            self.period = period
            self.callback = callback

    def reset() -> None:
        raise Reset("machine.reset")

    def deepsleep(ms=None) -> None:
        raise Reset("deepsleep", deep=True)

    def lightsleep(ms=None) -> None:
        wires.light_sleeps += 1
        if wires.on_lightsleep is not None:
            wires.on_lightsleep()

    machine = types.ModuleType("machine")
    for name, value in {
        "Pin": Pin,
        "ADC": ADC,
        "WDT": WDT,
        "Timer": Timer,
        "unique_id": lambda: b"\x10\x20\x30\x40\x50\x60",
        "reset": reset,
        "deepsleep": deepsleep,
        "lightsleep": lightsleep,
        "reset_cause": lambda: wires.cause,
        "PWRON_RESET": PWRON_RESET,
        "HARD_RESET": HARD_RESET,
        "WDT_RESET": WDT_RESET,
        "DEEPSLEEP_RESET": DEEPSLEEP_RESET,
        "SOFT_RESET": SOFT_RESET,
        "SLEEP": SLEEP,
        "DEEPSLEEP": DEEPSLEEP,
    }.items():
        setattr(machine, name, value)
    return machine


def fake_neopixel(strips: list) -> types.ModuleType:
    class NeoPixel:
        def __init__(self, pin, n: int) -> None:
            self.buf = bytearray(3 * n)
            self.writes = 0
            strips.append(self)

        def write(self) -> None:
            self.writes += 1

    module = types.ModuleType("neopixel")
    module.NeoPixel = NeoPixel
    return module


def install(monkeypatch: pytest.MonkeyPatch, mcu: str = "ESP32-C3") -> types.SimpleNamespace:
    """Put the fakes in place and import fresh `counter.app` and `counter.start` bound to them."""
    wires = Wires(PORTS[mcu])
    strips: list = []
    kbd = []
    mp = types.ModuleType("micropython")
    mp.const = lambda x: x
    mp.kbd_intr = kbd.append
    mp.alloc_emergency_exception_buf = lambda n: None
    monkeypatch.setitem(sys.modules, "machine", fake_machine(wires))
    monkeypatch.setitem(sys.modules, "neopixel", fake_neopixel(strips))
    monkeypatch.setitem(sys.modules, "micropython", mp)
    monkeypatch.setattr(time, "sleep_us", lambda us: None, raising=False)  # MicroPython's
    monkeypatch.setattr(time, "sleep_ms", lambda ms: None, raising=False)
    import counter

    # Fresh copies bound to this test's fakes (the package keeps submodules as attributes).
    for name in ("hw", "app", "start"):
        monkeypatch.delitem(sys.modules, f"counter.{name}", raising=False)
        monkeypatch.delattr(counter, name, raising=False)
    from counter import app, start

    return types.SimpleNamespace(app=app, start=start, wires=wires, strips=strips, kbd=kbd)
