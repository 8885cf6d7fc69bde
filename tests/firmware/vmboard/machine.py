# Runs inside MicroPython's WebAssembly VM: the `machine` module of the port that
# /fakes/profile.json names (boardvm.PORTS: the ESP32-C3 and ESP32-S3 ports of
# MicroPython 1.25-1.28, or the RP2040 port), for the firmware in the loop.
#
# What it keeps from the real ports, because the firmware's start-up depends on it:
# - machine.Timer takes only the ids the port has: -1 (a soft timer) on rp2, the
#   hardware timers 0..n-1 on esp32, where Timer(-1) raises ValueError;
# - a soft reset stops every Timer, a started WDT keeps counting and only a hard
#   reset stops it; it fires from the board's housekeeping, whoever is running;
# - reset_cause() as each port reports it (a brown-out is PWRON_RESET on both);
# - Pin.irq(wake=DEEPSLEEP) only on pins that can wake the chip from deep sleep.
# A reset is a SystemExit the board runner (runboard.py) catches.
import json
import time

with open("/fakes/profile.json") as _f:
    PROFILE = json.load(_f)

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5
SLEEP = 2  # wake flags of Pin.irq, as the esp32 port numbers them
DEEPSLEEP = 4

LEVELS = {}  # pin number -> level
FEEDS = []  # ticks of every watchdog feed
TIMERS = []  # running timers; a soft reset empties it
FIRED = []  # ms the board went unfed, each time the watchdog fired
WAKE = {}  # pin number -> (trigger, wake flags) of Pin.irq
STATE = {"cause": PWRON_RESET, "wdt": None, "cell_mv": 3900, "hooks": {}, "alloc_at_start": 0}


class Reset(SystemExit):
    """The chip resets; ``cause`` is what reset_cause() says at the next boot."""

    def __init__(self, reason, cause=HARD_RESET, deep=False):
        super().__init__(reason)
        self.reason = reason
        self.cause = cause
        self.deep = deep  # asleep until a wake pin: the next boot is a DEEPSLEEP_RESET


class SoftReset(SystemExit):
    """machine.soft_reset(): the interpreter restarts, the hardware keeps going."""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 2
    PULL_DOWN = 3
    IRQ_RISING = 1
    IRQ_FALLING = 2

    def __init__(self, n, mode=0, pull=None, value=None):
        self.n = n
        if value is not None:
            LEVELS[n] = value
        elif n not in LEVELS:
            LEVELS[n] = 1 if pull == Pin.PULL_UP else 0

    def value(self, v=None):
        if v is None:
            return LEVELS[self.n]
        LEVELS[self.n] = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=IRQ_FALLING, wake=None):
        if wake is not None and wake & DEEPSLEEP and self.n not in PROFILE["deepsleep_wake_pins"]:
            raise ValueError("invalid pin for wake")
        WAKE[self.n] = (trigger, wake or 0)


class ADC:
    def __init__(self, pin):
        self.pin = pin

    def read_uv(self):
        return STATE["cell_mv"] * 500  # behind the divider of 2

    def read_u16(self):
        return STATE["cell_mv"] * 65535 // 2 // 3300


if PROFILE["port"] == "esp32":

    def _atten(self, value):
        pass  # the real ADC changes its range; this one reads the cell as it is

    ADC.atten = _atten
    ADC.ATTN_11DB = 3


class WDT:
    """Once made it runs until a hard reset: a soft reset leaves it counting."""

    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.last = time.ticks_ms()
        STATE["wdt"] = self

    def feed(self):
        now = time.ticks_ms()
        late = time.ticks_diff(now, self.last)
        self.last = now
        FEEDS.append(now)
        if late > self.timeout:
            # The chip would have reset at the timeout; a loop that hung notices here.
            FIRED.append(late)
            raise Reset("watchdog", WDT_RESET)


def check_watchdog(now):
    """Called by the board's housekeeping: a watchdog nobody fed resets the chip."""
    wdt = STATE["wdt"]
    if wdt is not None:
        late = time.ticks_diff(now, wdt.last)
        if late > wdt.timeout:
            FIRED.append(late)
            raise Reset("watchdog", WDT_RESET)


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, *args, **kwargs):
        if args:
            n = args[0]
        elif PROFILE["port"] == "rp2":
            n = -1
        else:
            raise TypeError("function missing 1 required positional arguments")
        if n not in PROFILE["timers"]:
            raise ValueError(PROFILE["timer_error"])
        self.callback = None
        self.period = 0
        self.mode = Timer.PERIODIC
        if kwargs:
            self.init(**kwargs)

    def init(self, mode=1, period=1000, callback=None, freq=None, tick_hz=1000, hard=False):
        if freq is not None:
            period = 1000 // freq
        self.mode = mode
        self.period = period
        self.callback = callback
        self.due = time.ticks_add(time.ticks_ms(), period)
        if self not in TIMERS:
            TIMERS.append(self)

    def deinit(self):
        if self in TIMERS:
            TIMERS.remove(self)

    def tick(self, now):
        if self.callback is not None and time.ticks_diff(now, self.due) >= 0:
            self.due = time.ticks_add(now, self.period)
            if self.mode == Timer.ONE_SHOT:
                self.deinit()
            self.callback(self)


def unique_id():
    return b"\x10\x20\x30\x40\x50\x60"


def reset():
    # esp32 reports a software restart as HARD_RESET; rp2 resets through its watchdog.
    raise Reset("machine.reset", HARD_RESET if PROFILE["port"] == "esp32" else WDT_RESET)


def soft_reset():
    raise SoftReset()


def reset_cause():
    return STATE["cause"]


def deepsleep(ms=None):
    raise Reset("deepsleep", DEEPSLEEP_RESET, deep=True)


def lightsleep(ms=None):
    """Sleeps until a wake pin is at its level (or ``ms`` pass); the board's timers go on."""
    STATE["hooks"]["lightsleep"](ms)


def idle():
    pass


def freq(hz=None):
    return 160_000_000
