# Runs inside MicroPython's WebAssembly VM: the state of the VM board behind its `machine`,
# `esp32` and `bluetooth` modules (pin levels, the watchdog, timers, wake sources, the
# cell), which the board runner (runboard.py) and the test drive. It lives here, not in
# `machine`, so that `machine` has exactly the names of the port it models.
import json
import time

with open("/fakes/profile.json") as _f:
    PROFILE = json.load(_f)

# Reset causes, as both ports number them (rp2 names only PWRON_RESET and WDT_RESET).
PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5
SLEEP = 2  # wake flags of the esp32 port's Pin.irq
DEEPSLEEP = 4

LEVELS = {}  # pin number -> level
FEEDS = []  # ticks of every watchdog feed
TIMERS = []  # running timers; a soft reset empties it
FIRED = []  # ms the board went unfed, each time the watchdog fired
# Wake sources: pin number -> the level that wakes the chip. esp32: WAKE_DEEP holds ext0
# (which wakes light sleep too), GPIO_WAKE esp32.wake_on_gpio's pins (deepsleep() checks
# them against the chip); both stay across a soft reset (a C global in the port). rp2:
# WAKE_LIGHT holds the pins with an enabled IRQ, which a soft reset disables.
WAKE_DEEP = {}
GPIO_WAKE = {}
EXT0 = []  # the one ext0 pin, if any
WAKE_LIGHT = {}
STATE = {"cause": PWRON_RESET, "wdt": None, "cell_mv": 3900, "hooks": {}, "alloc_at_start": 0}


class Reset(SystemExit):
    """The chip resets; ``cause`` is what reset_cause() says at the next boot."""

    def __init__(self, reason, cause=HARD_RESET, deep=False):
        super().__init__(reason)
        self.reason = reason
        self.cause = cause
        self.deep = deep  # asleep until a wake pin (or the reset button)


class SoftReset(SystemExit):
    """machine.soft_reset(): the interpreter restarts, the hardware keeps going."""


def check_watchdog(now):
    """Called by the board's housekeeping: a watchdog nobody fed resets the chip."""
    wdt = STATE["wdt"]
    if wdt is not None:
        late = time.ticks_diff(now, wdt.last)
        if late > wdt.timeout:
            FIRED.append(late)
            raise Reset("watchdog", WDT_RESET)
