# Runs inside MicroPython's WebAssembly VM: the `machine` module of the port and release
# that /fakes/profile.json names (tests/firmware/ports.py: the ESP32-C3 and ESP32-S3
# ports, or the RP2040 port, of MicroPython 1.27.0, 1.28.0 or the 1.29 line), for the
# firmware in the loop. It has exactly the names the port has (ports.names; a test
# compares them), so a name the port lacks raises AttributeError here as on the board:
# rp2 has no SOFT_RESET, DEEPSLEEP_RESET, SLEEP, DEEPSLEEP or wake_reason, say.
#
# What it keeps from the real ports, because the firmware's start-up depends on it:
# - machine.Timer takes only the ids the port has: -1 (a soft timer) on rp2, the
#   hardware timers 0..n-1 on esp32, where Timer(-1) raises ValueError until the 1.29 line;
# - a soft reset stops every Timer, a started WDT keeps counting and only a hard
#   reset stops it; it fires from the board's housekeeping, whoever is running;
# - reset_cause() as each port reports it (a brown-out is PWRON_RESET on both; rp2 says
#   WDT_RESET after machine.reset() and never reports a soft reset);
# - waking: on esp32 Pin.irq(wake=) acts only with a WAKE_LOW/WAKE_HIGH trigger (ext0, on
#   the S3's RTC pins; a silent no-op on some C3 pins) and is ignored with an edge; the
#   esp32 module's wake_on_gpio and wake_on_ext0 (S3 only) as the chips take them, with
#   deepsleep() refusing what the chip cannot wake from; rp2 has no wake= at all, and
#   only an enabled pin IRQ ends its timed light sleep early.
# Resets are SystemExits the board runner (runboard.py) catches: boardstate.Reset.
import time as _time

import boardstate as _bs

_PORT = _bs.PROFILE["port"]
_ESP32 = _PORT == "esp32"

PWRON_RESET = _bs.PWRON_RESET
HARD_RESET = _bs.HARD_RESET
WDT_RESET = _bs.WDT_RESET
DEEPSLEEP_RESET = _bs.DEEPSLEEP_RESET
SOFT_RESET = _bs.SOFT_RESET
SLEEP = _bs.SLEEP
DEEPSLEEP = _bs.DEEPSLEEP
PIN_WAKE = EXT0_WAKE = 2
EXT1_WAKE = 3
TIMER_WAKE = 4
TOUCHPAD_WAKE = 5
ULP_WAKE = 6
_GPIO_WAKE = 7  # what wake_reason() says after a C3 GPIO wake; no constant names it


class Pin:
    def __init__(self, n, mode=None, pull=None, value=None):
        self.n = n
        if value is not None:
            _bs.LEVELS[n] = 1 if value else 0
        elif n not in _bs.LEVELS:
            _bs.LEVELS[n] = 1 if pull == Pin.PULL_UP else 0

    def init(self, mode=None, pull=None, value=None):
        if value is not None:
            _bs.LEVELS[self.n] = 1 if value else 0

    def value(self, v=None):
        if v is None:
            return _bs.LEVELS[self.n]
        _bs.LEVELS[self.n] = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        _bs.LEVELS[self.n] = 1

    def off(self):
        _bs.LEVELS[self.n] = 0

    def toggle(self):
        _bs.LEVELS[self.n] = 1 - _bs.LEVELS[self.n]


_EXT0_PINS = {"ESP32-S3": list(range(22))}  # RTC GPIOs; the C3 has no ext0
_C3_SILENT = (0, 2, 4, 12, 13, 14, 15)  # the classic ESP32's ext0 pins: no error, no wake


def _esp32_irq(self, handler=None, trigger=3, wake=None):
    """ports/esp32/machine_pin.c: wake acts only with a level trigger; then no handler."""
    if wake is None:
        return None
    if not isinstance(wake, int) or not 2 <= wake <= 7:
        raise ValueError("bad wake value")
    if trigger not in (Pin.WAKE_LOW, Pin.WAKE_HIGH):
        return None  # an edge trigger: wake is ignored, not refused
    pins = _EXT0_PINS.get(_bs.PROFILE["mcu"])
    if pins is None:
        if self.n in _C3_SILENT:
            return None  # the ext0 code is not built for the C3: nothing happens
        raise ValueError("invalid pin for wake")
    if self.n not in pins:
        raise ValueError("invalid pin for wake")
    _bs.EXT0[:] = [self.n]
    _bs.WAKE_DEEP[self.n] = 0 if trigger == Pin.WAKE_LOW else 1
    return None


def _rp2_irq(self, handler=None, trigger=12, hard=False):
    """ports/rp2/machine_pin.c: no wake= (TypeError); an enabled IRQ ends a light sleep."""
    if handler is not None:
        _bs.WAKE_LIGHT[self.n] = 0 if trigger & Pin.IRQ_FALLING else 1
    else:
        _bs.WAKE_LIGHT.pop(self.n, None)
    return None


def _low(self):
    _bs.LEVELS[self.n] = 0


def _high(self):
    _bs.LEVELS[self.n] = 1


if _ESP32:
    Pin.IN, Pin.OUT, Pin.OPEN_DRAIN = 1, 3, 7
    Pin.PULL_UP, Pin.PULL_DOWN = 2, 1
    Pin.IRQ_RISING, Pin.IRQ_FALLING = 1, 2
    Pin.WAKE_LOW, Pin.WAKE_HIGH = 4, 5
    Pin.DRIVE_0, Pin.DRIVE_1, Pin.DRIVE_2, Pin.DRIVE_3 = 0, 1, 2, 3
    Pin.irq = _esp32_irq
else:
    Pin.IN, Pin.OUT, Pin.OPEN_DRAIN, Pin.ALT = 0, 1, 2, 3
    Pin.PULL_UP, Pin.PULL_DOWN = 1, 2
    Pin.IRQ_FALLING, Pin.IRQ_RISING = 4, 8
    Pin.irq = _rp2_irq
    Pin.low = _low
    Pin.high = _high


class ADC:
    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        return _bs.STATE["cell_mv"] * 65535 // 2 // 3300  # behind the divider of 2


def _read_uv(self):
    return _bs.STATE["cell_mv"] * 500


def _atten(self, value):
    pass  # the real ADC changes its range; this one reads the cell as it is


if _ESP32:
    ADC.read_uv = _read_uv
    ADC.atten = _atten
    ADC.ATTN_0DB, ADC.ATTN_2_5DB, ADC.ATTN_6DB, ADC.ATTN_11DB = 0, 1, 2, 3
else:
    ADC.CORE_TEMP = 4


class WDT:
    """Once made it runs until a hard reset: a soft reset leaves it counting."""

    def __init__(self, id=0, timeout=5000):
        if id != 0:
            raise ValueError("WDT(%d) doesn't exist" % id if not _ESP32 else "")
        if _ESP32 and timeout <= 0:
            raise ValueError("WDT timeout too short")
        if not _ESP32 and not 0 <= timeout <= 8388:
            raise ValueError("timeout exceeds 8388")
        self.timeout = timeout
        self.last = _time.ticks_ms()
        _bs.STATE["wdt"] = self

    def feed(self):
        now = _time.ticks_ms()
        late = _time.ticks_diff(now, self.last)
        self.last = now
        _bs.FEEDS.append(now)
        if late > self.timeout:
            # The chip would have reset at the timeout; a loop that hung notices here.
            _bs.FIRED.append(late)
            raise _bs.Reset("watchdog", WDT_RESET)


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, *args, **kwargs):
        if args:
            n = args[0]
        elif -1 in _bs.PROFILE["timers"]:
            n = -1  # rp2, and esp32 from the 1.29 line on: the id is optional
        else:
            raise TypeError("function missing 1 required positional arguments")
        if n not in _bs.PROFILE["timers"]:
            error = _bs.PROFILE["timer_error"]
            if "%d" in error:
                error = error % (n, len([t for t in _bs.PROFILE["timers"] if t >= 0]))
            raise ValueError(error)
        self.callback = None
        self.period = 0
        self.mode = Timer.PERIODIC
        if kwargs:
            self.init(**kwargs)

    def init(self, mode=1, period=1000, callback=None, freq=None, tick_hz=1000, hard=False):
        if hard and _ESP32:
            raise ValueError("hard Timers are not implemented")
        if freq is not None:
            period = 1000 // freq
        self.mode = mode
        self.period = period
        self.callback = callback
        self.due = _time.ticks_add(_time.ticks_ms(), period)
        if self not in _bs.TIMERS:
            _bs.TIMERS.append(self)

    def deinit(self):
        if self in _bs.TIMERS:
            _bs.TIMERS.remove(self)

    def tick(self, now):
        if self.callback is not None and _time.ticks_diff(now, self.due) >= 0:
            self.due = _time.ticks_add(now, self.period)
            if self.mode == Timer.ONE_SHOT:
                self.deinit()
            self.callback(self)


class RTC:
    def datetime(self, value=None):
        return (2000, 1, 1, 5, 0, 0, 0, 0) if _ESP32 else (2021, 1, 1, 4, 0, 0, 0, 0)


if _ESP32:
    _MEMORY = bytearray()

    def _memory(self, data=None):
        if data is None:
            return bytes(_MEMORY)
        _MEMORY[:] = data

    RTC.memory = _memory


def unique_id():
    return b"\x10\x20\x30\x40\x50\x60" if _ESP32 else b"\x10\x20\x30\x40\x50\x60\x70\x80"


def reset():
    # esp32 reports a software restart as HARD_RESET; rp2 resets through its watchdog.
    raise _bs.Reset("machine.reset", HARD_RESET if _ESP32 else WDT_RESET)


def soft_reset():
    raise _bs.SoftReset()


def reset_cause():
    return _bs.STATE["cause"]


def wake_reason():
    return _bs.STATE.get("wake_reason", 0)


def wake_pins():
    return tuple(_bs.STATE.get("wake_pins", ()))


def deepsleep(ms=None):
    """Never returns: the chip sleeps until a wake source (the runner's reset button too).

    esp32 refuses here, not when the source was set, what the chip cannot wake from.
    """
    if _ESP32:
        gpio = _bs.GPIO_WAKE
        if gpio:
            if _bs.PROFILE["mcu"] != "ESP32-C3":
                raise ValueError("DEEPSLEEP with gpio pins not supported on this chip")
            for pin in gpio:
                if pin not in _bs.PROFILE["deepsleep_wake_pins"]:
                    raise ValueError("wake-up pin not supported")
            for pin in gpio:
                _bs.WAKE_DEEP[pin] = gpio[pin]
        raise _bs.Reset("deepsleep", DEEPSLEEP_RESET, deep=True)
    # rp2: a light sleep (DORMANT without ms: only the radio chip wakes it), then reset().
    raise _bs.Reset("deepsleep", WDT_RESET, deep=True)


def lightsleep(ms=None):
    """Sleeps until a wake source is at its level (or ``ms`` pass); the board's timers go on."""
    if _ESP32:
        pins = dict(_bs.WAKE_DEEP)  # ext0 wakes light sleep too
        pins.update(_bs.GPIO_WAKE)
    else:
        # DORMANT without ms: only the radio chip's host-wake ends it, no pin.
        pins = dict(_bs.WAKE_LIGHT) if ms is not None else {}
    _bs.STATE["hooks"]["lightsleep"](ms, pins)


def freq(hz=None):
    if hz is None:
        return 160_000_000 if _ESP32 else 125_000_000
    if _ESP32:
        allowed = [20, 40, 80, 160] + ([240] if _bs.PROFILE["mcu"] == "ESP32-S3" else [])
        if hz // 1_000_000 not in allowed or hz % 1_000_000:
            raise ValueError("frequency must be 20MHz, 40MHz, 80Mhz, 160MHz or 240MHz")
    return None


def mem_backup():
    return _bs.STATE.setdefault("mem_backup", bytearray(2048 if _ESP32 else 28))


sleep = lightsleep

# Exactly the port's names: what the port lacks is gone, and asking for it is an
# AttributeError, as on the board.
_HAS = _bs.PROFILE["names"]["machine"]
for _name in list(globals()):
    if not _name.startswith("_") and _name not in _HAS:
        del globals()[_name]
