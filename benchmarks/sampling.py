"""Round trips measured by taking turns: one sample of every trip per round, as p50 and p99.

The latency benchmarks (`latency.py` for the counters, `dice_latency.py` for the
dice) measure a figure and its baseline in the same run with this one sampler,
so load from other work on the machine falls on both alike.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

WAIT_S = 10.0  # s: one sample never takes this long unless something is broken

RoundTrip = Callable[[], Awaitable[None]]
Figures = dict[str, list[float]]


class Trip:
    """One measured round trip, and what must happen before it, outside the measured time.

    `marks` names figures taken inside the same trip (the frame, within the action):
    the trip calls `mark(name)` when each is reached.
    """

    def __init__(
        self, round_trip: RoundTrip, prepare: RoundTrip | None = None, marks: tuple[str, ...] = ()
    ) -> None:
        self.round_trip = round_trip
        self.prepare = prepare
        self.marks = marks
        self.marked: dict[str, float] = {}

    def mark(self, name: str) -> None:
        self.marked.setdefault(name, time.perf_counter())


async def sample(trips: dict[str, Trip], samples: int, warmup: int) -> Figures:
    """Durations in seconds of `samples` rounds of every trip, after `warmup` unmeasured rounds.

    The trips take turns, one sample each per round, so a busy spell of the
    machine lands on all of them alike instead of spoiling one figure.
    """
    out: Figures = {name: [] for name in trips}
    for trip in trips.values():
        out.update({mark: [] for mark in trip.marks})
    for i in range(warmup + samples):
        for name, trip in trips.items():
            async with asyncio.timeout(WAIT_S):
                if trip.prepare is not None:
                    await trip.prepare()
                trip.marked.clear()
                start = time.perf_counter()
                await trip.round_trip()
                took = time.perf_counter() - start
            if i >= warmup:
                out[name].append(took)
                for mark in trip.marks:
                    out[mark].append(trip.marked[mark] - start)
    return out


def percentiles(samples_s: list[float]) -> tuple[float, float]:
    """(p50, p99) in milliseconds."""
    if len(samples_s) < 2:
        value = samples_s[0] * 1e3
        return value, value
    cuts = statistics.quantiles(samples_s, n=100, method="inclusive")
    return cuts[49] * 1e3, cuts[98] * 1e3
