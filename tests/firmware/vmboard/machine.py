# Runs inside MicroPython's WebAssembly VM: the `machine` of a board, for the firmware in
# the loop. Pins hold levels the test sets; the watchdog resets the "board" when it finds
# it was not fed in time; a reset is a SystemExit the VM's board runner catches.
import time

LEVELS = {}  # pin number -> level
FEEDS = []  # ticks of every watchdog feed
TIMERS = []
FIRED = []  # ms the loop went unfed, each time the watchdog fired


class Reset(SystemExit):
    """The board resets (watchdog, machine.reset())."""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 2
    PULL_DOWN = 3

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


class ADC:
    ATTN_11DB = 3

    def __init__(self, pin):
        self.pin = pin

    def atten(self, value):
        pass  # the real ADC changes its range; this one reads a fixed cell voltage

    def read_uv(self):
        return 1950000  # 3.9 V behind the divider of 2


class WDT:
    def __init__(self, timeout=5000):
        self.timeout = timeout
        self.last = time.ticks_ms()

    def feed(self):
        now = time.ticks_ms()
        late = time.ticks_diff(now, self.last)
        self.last = now
        FEEDS.append(now)
        if late > self.timeout:
            # A real watchdog would have reset the chip at the timeout; this one notices
            # at the next feed, which is when the hung loop runs again.
            FIRED.append(late)
            raise Reset("watchdog")


class Timer:
    PERIODIC = 1

    def __init__(self, n=-1):
        self.callback = None
        self.period = 0
        TIMERS.append(self)

    def init(self, period=1000, mode=1, callback=None):
        self.period = period
        self.callback = callback
        self.due = time.ticks_add(time.ticks_ms(), period)

    def tick(self, now):
        if self.callback is not None and time.ticks_diff(now, self.due) >= 0:
            self.due = time.ticks_add(now, self.period)
            self.callback(self)


def unique_id():
    return b"\x10\x20\x30\x40\x50\x60"


def reset():
    raise Reset("machine.reset")
