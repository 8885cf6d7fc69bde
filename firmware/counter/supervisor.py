"""Keeps a counter running: restarts failed tasks, keeps a short fault log, marks good starts.

The USB serial line carries the protocol, so nothing is printed while the counter
runs; faults go to a small log file in flash (``log.txt``, newest last), which
a person reads at the REPL. A start that lasted QUICK_MS, and then STABLE_MS (its
working state), tells the boot-loop guard (counter/start.py) so; starts in a row
that end sooner lead to safe mode.
"""

import asyncio
import io
import sys

from micropython import const

from counter import timebase

STABLE_MS = const(10000)  # a start that ran this long reached its working state
QUICK_MS = const(3000)  # a start that ended sooner was a quick reset (a person's, or a crash)
_RESTART_MS = const(500)  # a failed task waits this long before it runs again ...
_RESTART_MAX_MS = const(30000)  # ... doubling on each failure in a row up to this
_LOG_FILE = "log.txt"
_LOG_KEEP = const(1024)  # bytes of log kept in flash


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


async def mark_stable(guard, log):
    """After QUICK_MS, tell the guard this start was no quick reset; after STABLE_MS, that
    it reached its working state."""
    quick = QUICK_MS if QUICK_MS < STABLE_MS else STABLE_MS
    await timebase.sleep_ms(quick)
    try:
        guard.lasted()
    except OSError as exc:
        log.add("boot guard: " + describe(exc))
    await timebase.sleep_ms(STABLE_MS - quick)
    try:
        guard.stable()
    except OSError as exc:
        log.add("boot guard: " + describe(exc))
