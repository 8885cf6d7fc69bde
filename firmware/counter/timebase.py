"""Millisecond ticks: MicroPython's wrapping ticks on a board, a plain clock under CPython."""

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


__all__ = ["sleep_ms", "ticks_add", "ticks_diff", "ticks_ms"]
