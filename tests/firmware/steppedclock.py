"""A millisecond clock the test moves by hand, for the firmware's timebase (timebase.use)."""

from __future__ import annotations

import asyncio
import heapq
import itertools


class SteppedClock:
    """ticks_ms and sleep_ms that only move when the test calls ``advance``."""

    SETTLE_TURNS = 20  # event-loop turns that let woken tasks run to their next sleep

    def __init__(self) -> None:
        self.now = 0
        self._sleepers: list[tuple[int, int, asyncio.Future]] = []
        self._order = itertools.count()

    def ticks_ms(self) -> int:
        return self.now & 0x3FFFFFFF

    async def sleep_ms(self, ms: int) -> None:
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(0, int(ms)), next(self._order), future))
        await future

    async def settle(self) -> None:
        """Let every task that can run, run (nothing here waits on anything but this clock)."""
        for _ in range(self.SETTLE_TURNS):
            await asyncio.sleep(0)

    async def advance(self, ms: int) -> None:
        """Move the clock ``ms`` on, waking each sleeper at its own moment, in order."""
        target = self.now + ms
        await self.settle()
        while self._sleepers and self._sleepers[0][0] <= target:
            due, _, future = heapq.heappop(self._sleepers)
            self.now = max(self.now, due)
            if not future.done():
                future.set_result(None)
            await self.settle()
        self.now = target
