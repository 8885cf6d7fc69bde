"""Keeps a counter running: restarts failed tasks, keeps a short fault log, guards boot loops.

The USB serial line carries the protocol, so nothing is printed while the counter
runs; faults go to a small log file in flash (``log.txt``, newest last), which
a person reads at the REPL. The boot-loop guard counts boots that did not last
STABLE_MS; after BOOT_LIMIT of them in a row the next boot starts in safe mode
(serial REPL only). The same count is the safe-mode gesture on every board:
press reset BOOT_LIMIT times, each within STABLE_MS of the last.
"""

import asyncio
import io
import sys

from micropython import const

from counter import timebase

BOOT_LIMIT = const(3)  # boots in a row that end early before safe mode
STABLE_MS = const(10000)  # a boot that ran this long was a good one
_RESTART_MS = const(500)  # a failed task waits this long before it runs again ...
_RESTART_MAX_MS = const(30000)  # ... doubling on each failure in a row up to this
_LOG_FILE = "log.txt"
_LOG_KEEP = const(1024)  # bytes of log kept in flash
_BOOTS_FILE = "boots"


class FaultLog:
    """Short text lines in a flash file, trimmed to the newest _LOG_KEEP bytes."""

    def __init__(self, store, clock=None):
        self.store = store
        self.clock = clock if clock is not None else timebase.ticks_ms
        self.count = 0

    def add(self, text):
        self.count += 1
        old = self.store.read(_LOG_FILE) or b""
        line = ("%d %s\n" % (self.clock(), text)).encode()
        data = old + line
        if len(data) > _LOG_KEEP:
            data = data[len(data) - _LOG_KEEP :]
        try:
            self.store.write(_LOG_FILE, data)
        except OSError:
            pass  # a full or failing flash must not take the counter down with it

    def lines(self):
        data = self.store.read(_LOG_FILE) or b""
        return [line for line in data.decode().split("\n") if line]


def describe(exc):
    """``Type: message`` of an exception, on one line."""
    return "%s: %s" % (type(exc).__name__, exc)


def where(exc):
    """ " (at file, line N)" of the innermost frame, where the port can tell."""
    if not hasattr(sys, "print_exception"):
        return ""  # CPython: the host's own logging has the traceback
    out = io.StringIO()
    sys.print_exception(exc, out)
    lines = [line.strip() for line in out.getvalue().split("\n") if line.strip()]
    return " (at %s)" % lines[-2] if len(lines) >= 2 else ""


async def supervise(name, make, log, fatal=()):
    """Run the coroutine ``make()`` for ever; when it raises, log it and start it again.

    Exceptions in ``fatal`` (e.g. the REPL request) end the counter and pass through.
    A task that keeps failing waits longer each time, so it cannot spin the CPU or
    wear the flash with log lines.
    """
    delay = _RESTART_MS
    while True:
        started = timebase.ticks_ms()
        try:
            await make()
            log.add("%s ended" % name)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, fatal):
                raise
            log.add("%s failed: %s%s" % (name, describe(exc), where(exc)))
        if timebase.ticks_diff(timebase.ticks_ms(), started) > _RESTART_MAX_MS:
            delay = _RESTART_MS  # it ran well for a while: this is a new failure
        await timebase.sleep_ms(delay)
        delay = delay * 2 if delay < _RESTART_MAX_MS // 2 else _RESTART_MAX_MS


class BootGuard:
    """Counts boots in a row that ended before STABLE_MS, in a flash file."""

    def __init__(self, store):
        self.store = store

    def boots(self):
        data = self.store.read(_BOOTS_FILE)
        if not data:
            return 0
        try:
            return int(data)
        except ValueError:
            return 0

    def starting(self):
        """Count this boot; True when it must be a safe-mode boot (and the count restarts)."""
        boots = self.boots() + 1
        if boots >= BOOT_LIMIT:
            self.store.write(_BOOTS_FILE, b"0")
            return True
        self.store.write(_BOOTS_FILE, str(boots).encode())
        return False

    def stable(self):
        """This boot has lasted: the next reset starts the count from zero."""
        self.store.write(_BOOTS_FILE, b"0")


async def mark_stable(guard, log):
    """After STABLE_MS of running, tell the guard this boot was a good one."""
    await timebase.sleep_ms(STABLE_MS)
    try:
        guard.stable()
    except OSError as exc:
        log.add("boot guard: " + describe(exc))
