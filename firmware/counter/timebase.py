"""Millisecond ticks and sleeps: MicroPython's on a board, a plain clock under CPython.

``use`` swaps the clock for one a test steps by hand, so that a backoff of 1.5 s is
checked at 1499 and 1500 ms of that clock rather than by waiting for real seconds.
Modules read ``timebase.ticks_ms`` and ``timebase.sleep_ms`` when they run, so the
swap reaches them.
"""

try:
    from time import ticks_add, ticks_diff, ticks_ms
except ImportError:
    import time as _time

    _T0 = _time.monotonic()

    def ticks_ms():
        return int((_time.monotonic() - _T0) * 1000) & 0x3FFFFFFF

    def ticks_diff(a, b):
        d = (a - b) & 0x3FFFFFFF
        if d >= 0x20000000:
            d -= 0x40000000
        return d

    def ticks_add(a, delta):
        return (a + delta) & 0x3FFFFFFF


import asyncio

try:
    sleep_ms = asyncio.sleep_ms
except AttributeError:  # CPython's asyncio has only seconds

    async def sleep_ms(ms):
        await asyncio.sleep(ms / 1000)


_REAL = (ticks_ms, sleep_ms)


def use(ticks=None, sleep=None):
    """Ticks from ``ticks()``, sleeps from ``await sleep(ms)``; no arguments: the real ones."""
    global ticks_ms, sleep_ms
    ticks_ms = ticks if ticks is not None else _REAL[0]
    sleep_ms = sleep if sleep is not None else _REAL[1]


__all__ = ["sleep_ms", "ticks_add", "ticks_diff", "ticks_ms", "use"]
