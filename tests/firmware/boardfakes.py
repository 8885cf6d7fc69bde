"""Fakes of a board's `machine`, `neopixel` and `micropython` for the firmware under CPython.

They model the port the test names (ports.profile, shared with the VM board): exactly
the names the port has in `machine`, `machine.Pin` and `esp32` (a name it lacks is an
AttributeError), which `machine.Timer` ids exist, that a started watchdog cannot be
stopped, what `reset_cause()` says, and how each chip wakes from sleep. A reset or a deep
sleep is an exception the test catches, as the chip would stop there.
"""

from __future__ import annotations

import os
import sys
import time
import types

import pytest
from ports import DEFAULT_RELEASE, profile

PWRON_RESET, HARD_RESET, WDT_RESET, DEEPSLEEP_RESET, SOFT_RESET = 1, 2, 3, 4, 5
SLEEP, DEEPSLEEP = 2, 4
EXT0_PINS = {"ESP32-S3": range(22)}  # RTC GPIOs; the C3 has no ext0
C3_SILENT_WAKE_PINS = (0, 2, 4, 12, 13, 14, 15)  # Pin.irq(wake=) there: no error, no wake


class Reset(SystemExit):
    """The chip reset (machine.reset) or went to deep sleep; ``deep`` tells which.

    ``wake`` holds the pins that wake it from that deep sleep (pin -> level), none for
    a chip that sleeps until the reset button or the power switch.
    """

    def __init__(self, reason: str, deep: bool = False, wake: dict | None = None) -> None:
        super().__init__(reason)
        self.deep = deep
        self.wake = dict(wake or {})


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
        # Wake sources, pin -> the level that wakes: ext0 (esp32, deep and light sleep),
        # esp32.wake_on_gpio's pins, and rp2's enabled pin IRQs (which end a timed light sleep).
        self.ext0: dict[int, int] = {}
        self.gpio_wake: dict[int, int] = {}
        self.irq_wake: dict[int, int] = {}
        self.light_sleeps: list[dict[int, int]] = []  # the pins that could end each light sleep
        self.on_lightsleep = None  # what happens while the chip sleeps light (a press)


def fake_machine(wires: Wires) -> types.ModuleType:
    """The `machine` of the wires' port, with exactly that port's names (ports.names)."""
    port = wires.port
    esp32 = port["port"] == "esp32"

    class Pin:
        def __init__(self, n: int, mode: int = 0, pull: int | None = None, value=None) -> None:
            self.n = n
            if value is not None:
                wires.levels[n] = 1 if value else 0
            elif n not in wires.levels:
                wires.levels[n] = 1 if pull == Pin.PULL_UP else 0

        def init(self, mode: int = 0, pull: int | None = None, value=None) -> None:
            if value is not None:
                wires.levels[self.n] = 1 if value else 0

        def value(self, v=None):
            if v is None:
                return wires.levels[self.n]
            wires.levels[self.n] = 1 if v else 0
            wires.log.append((self.n, wires.levels[self.n]))
            return None

        __call__ = value

        def on(self) -> None:
            self.value(1)

        def off(self) -> None:
            self.value(0)

        def toggle(self) -> None:
            self.value(1 - wires.levels[self.n])

    def esp32_irq(self, handler=None, trigger=3, wake=None) -> None:
        if wake is None:
            return
        if not isinstance(wake, int) or not 2 <= wake <= 7:
            raise ValueError("bad wake value")
        if trigger not in (Pin.WAKE_LOW, Pin.WAKE_HIGH):
            return  # an edge trigger: the port ignores wake without a word
        pins = EXT0_PINS.get(port["mcu"])
        if pins is None:
            if self.n in C3_SILENT_WAKE_PINS:
                return
            raise ValueError("invalid pin for wake")
        if self.n not in pins:
            raise ValueError("invalid pin for wake")
        wires.ext0.clear()
        wires.ext0[self.n] = 0 if trigger == Pin.WAKE_LOW else 1

    def rp2_irq(self, handler=None, trigger=12, hard=False) -> None:
        if handler is None:
            wires.irq_wake.pop(self.n, None)
        else:
            wires.irq_wake[self.n] = 0 if trigger & Pin.IRQ_FALLING else 1

    if esp32:
        Pin.IN, Pin.OUT, Pin.OPEN_DRAIN, Pin.PULL_UP, Pin.PULL_DOWN = 1, 3, 7, 2, 1
        Pin.IRQ_RISING, Pin.IRQ_FALLING, Pin.WAKE_LOW, Pin.WAKE_HIGH = 1, 2, 4, 5
        Pin.DRIVE_0, Pin.DRIVE_1, Pin.DRIVE_2, Pin.DRIVE_3 = 0, 1, 2, 3
        Pin.irq = esp32_irq
    else:
        Pin.IN, Pin.OUT, Pin.OPEN_DRAIN, Pin.ALT, Pin.PULL_UP, Pin.PULL_DOWN = 0, 1, 2, 3, 1, 2
        Pin.IRQ_FALLING, Pin.IRQ_RISING = 4, 8
        Pin.irq = rp2_irq
        Pin.low = lambda self: self.value(0)
        Pin.high = lambda self: self.value(1)

    class ADC:
        def __init__(self, pin: Pin) -> None:
            self.pin = pin

        def read_u16(self) -> int:
            return wires.cell_mv * 65535 // 2 // 3300  # behind the divider of 2

    if esp32:
        ADC.ATTN_0DB, ADC.ATTN_2_5DB, ADC.ATTN_6DB, ADC.ATTN_11DB = 0, 1, 2, 3
        ADC.atten = lambda self, value: setattr(self, "attenuation", value)
        ADC.read_uv = lambda self: wires.cell_mv * 500

    class WDT:
        def __init__(self, id: int = 0, timeout: int = 5000) -> None:
            if id != 0:
                raise ValueError(f"WDT({id}) doesn't exist")
            if esp32 and timeout <= 0:
                raise ValueError("WDT timeout too short")
            if not esp32 and not 0 <= timeout <= 8388:
                raise ValueError("timeout exceeds 8388")
            wires.watchdog_ms = timeout
            wires.feeds = 0

        def feed(self) -> None:
            wires.feeds += 1

    class Timer:
        PERIODIC, ONE_SHOT = 1, 0

        def __init__(self, *args, **kwargs) -> None:
            n = args[0] if args else (-1 if -1 in port["timers"] else None)
            if n is None:
                raise TypeError("function missing 1 required positional arguments")
            if n not in port["timers"]:
                raise ValueError(port["timer_error"])
            wires.timers.append(self)

        def init(self, period: int = 1000, mode: int = 1, callback=None) -> None:
            self.period = period
            self.callback = callback

    class RTC:
        def datetime(self, value=None):
            return (2000, 1, 1, 5, 0, 0, 0, 0)

    if esp32:
        RTC.memory = lambda self, data=None: b""

    def reset() -> None:
        raise Reset("machine.reset")

    def deepsleep(ms=None) -> None:
        wake = dict(wires.ext0)
        if esp32 and wires.gpio_wake:
            if port["mcu"] != "ESP32-C3":
                raise ValueError("DEEPSLEEP with gpio pins not supported on this chip")
            if any(pin not in port["deepsleep_wake_pins"] for pin in wires.gpio_wake):
                raise ValueError("wake-up pin not supported")
            wake.update(wires.gpio_wake)
        raise Reset("deepsleep", deep=True, wake=wake)

    def lightsleep(ms=None) -> None:
        if esp32:
            pins = {**wires.ext0, **wires.gpio_wake}
        else:
            pins = dict(wires.irq_wake) if ms is not None else {}  # DORMANT: no pin
        wires.light_sleeps.append(pins)
        if wires.on_lightsleep is not None:
            wires.on_lightsleep()

    def soft_reset() -> None:
        raise SystemExit

    machine = types.ModuleType("machine")
    every = {
        "Pin": Pin,
        "ADC": ADC,
        "WDT": WDT,
        "Timer": Timer,
        "RTC": RTC,
        "unique_id": lambda: b"\x10\x20\x30\x40\x50\x60" + (b"" if esp32 else b"\x70\x80"),
        "reset": reset,
        "soft_reset": soft_reset,
        "deepsleep": deepsleep,
        "lightsleep": lightsleep,
        "sleep": lightsleep,
        "reset_cause": lambda: wires.cause,
        "wake_reason": lambda: 0,
        "wake_pins": lambda: (),
        "mem_backup": lambda: bytearray(2048 if esp32 else 28),
        "freq": lambda hz=None: 160_000_000 if hz is None else None,
        "PWRON_RESET": PWRON_RESET,
        "HARD_RESET": HARD_RESET,
        "WDT_RESET": WDT_RESET,
        "DEEPSLEEP_RESET": DEEPSLEEP_RESET,
        "SOFT_RESET": SOFT_RESET,
        "SLEEP": SLEEP,
        "DEEPSLEEP": DEEPSLEEP,
        "PIN_WAKE": 2,
        "EXT0_WAKE": 2,
        "EXT1_WAKE": 3,
        "TIMER_WAKE": 4,
        "TOUCHPAD_WAKE": 5,
        "ULP_WAKE": 6,
    }
    for name in port["names"]["machine"]:  # exactly the port's: the rest is AttributeError
        setattr(machine, name, every[name])
    return machine


def fake_esp32(wires: Wires) -> types.ModuleType | None:
    """The esp32 port's `esp32` module, its wake part, with the chip's names (None on rp2)."""
    port = wires.port
    if port["port"] != "esp32":
        return None

    def wake_on_gpio(pins, level) -> None:
        wires.gpio_wake = {pin.n: 1 if level else 0 for pin in pins}

    def wake_on_ext0(pin, level) -> None:
        wires.ext0.clear()
        if pin is None:
            return
        if pin.n not in range(22):
            raise ValueError("invalid pin")
        wires.ext0[pin.n] = 1 if level else 0

    every = {
        "WAKEUP_ALL_LOW": False,
        "WAKEUP_ANY_HIGH": True,
        "wake_on_gpio": wake_on_gpio,
        "wake_on_ext0": wake_on_ext0,
        "wake_on_ext1": lambda pins, level: None,
        "wake_on_touch": lambda wake: None,
        "wake_on_ulp": lambda wake: None,
    }
    module = types.ModuleType("esp32")
    for name in port["names"]["esp32"]:
        setattr(module, name, every[name])
    return module


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


def install(
    monkeypatch: pytest.MonkeyPatch, mcu: str = "ESP32-C3", release: str = DEFAULT_RELEASE
) -> types.SimpleNamespace:
    """Put the fakes in place and import fresh `counter.app` and `counter.start` bound to them."""
    wires = Wires(profile(mcu, release))
    strips: list = []
    kbd = []
    mp = types.ModuleType("micropython")
    mp.const = lambda x: x
    mp.kbd_intr = kbd.append
    mp.alloc_emergency_exception_buf = lambda n: None
    monkeypatch.setitem(sys.modules, "machine", fake_machine(wires))
    monkeypatch.setitem(sys.modules, "esp32", fake_esp32(wires))  # None: ImportError
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

    # Safe mode serves the serial line until the REPL escape: on a line that holds just
    # the escape, so that a start in safe mode returns to the test at once.
    boot = start.boot

    def boot_on_a_line(board_path="board.json", data_dir="/data", stdin=None, stdout=None):
        if stdin is not None:
            return boot(board_path, data_dir, stdin, stdout)
        from counter.serial_link import REPL_ESCAPE

        r_in, w_in = os.pipe()
        r_out, w_out = os.pipe()
        os.write(w_in, REPL_ESCAPE)
        with open(r_in, "rb", buffering=0) as line_in, open(w_out, "wb", buffering=0) as out:
            try:
                return boot(board_path, data_dir, line_in, out)
            finally:
                os.close(w_in)
                os.close(r_out)

    monkeypatch.setattr(start, "boot", boot_on_a_line)
    return types.SimpleNamespace(app=app, start=start, wires=wires, strips=strips, kbd=kbd)
