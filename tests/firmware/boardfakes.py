"""Fakes of a board's `machine`, `neopixel` and `micropython` for the firmware under CPython."""

from __future__ import annotations

import sys
import time
import types

import pytest


class Wires:
    """Shared state of the fake pins: levels and the log of writes (for the TM1637 bus)."""

    def __init__(self) -> None:
        self.levels: dict[int, int] = {}
        self.log: list[tuple[int, int]] = []
        self.watchdog_ms = 0
        self.feeds = 0
        self.timers: list = []


def fake_machine(wires: Wires) -> types.ModuleType:
    class Pin:
        IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 2, 3

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

    class ADC:
        ATTN_11DB = 3

        def __init__(self, pin: Pin) -> None:
            self.pin = pin

        def atten(self, value: int) -> None:
            self.attenuation = value

        def read_uv(self) -> int:
            return 1_950_000

    class WDT:
        def __init__(self, timeout: int) -> None:
            wires.watchdog_ms = timeout
            wires.feeds = 0

        def feed(self) -> None:
            wires.feeds += 1

    class Timer:
        PERIODIC = 1

        def __init__(self, n: int) -> None:
            wires.timers.append(self)

        def init(self, period: int, mode: int, callback) -> None:
            self.period = period
            self.callback = callback

    machine = types.ModuleType("machine")
    machine.Pin = Pin
    machine.ADC = ADC
    machine.WDT = WDT
    machine.Timer = Timer
    machine.unique_id = lambda: b"\x10\x20\x30\x40\x50\x60"
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


def install(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """Put the fakes in place and import a fresh `counter.app` bound to them."""
    wires = Wires()
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
    import counter

    # Fresh copies bound to this test's fakes (the package keeps submodules as attributes).
    for name in ("hw", "app"):
        monkeypatch.delitem(sys.modules, f"counter.{name}", raising=False)
        monkeypatch.delattr(counter, name, raising=False)
    from counter import app

    return types.SimpleNamespace(app=app, wires=wires, strips=strips, kbd=kbd)
