"""Kivy's frames let the work already queued on the app's loop finish first, for a few ms.

The window and the counters share one asyncio loop, and a frame, once started, runs
to its end without letting anything else in: layout, then drawing, which with
software rendering takes a good part of a frame's time. A counter's round trip is a
chain of many short steps on that loop (the link, the virtual radio, the counter's
answer); a frame that starts in the middle of such a chain makes the rest wait for
the whole of it, and the release of a button a frame later makes it wait again. So
before each frame the touches are handled, and while steps are ready to run, they run
first, for at most
`FRAME_WAIT_S`: a chain of a few milliseconds ends before the frame, and a loop that
never goes quiet delays a frame by that much at most. A frame is never skipped, only
started a little later; nothing waits for a counter that is not answering (nothing
is ready then), so a real counter's radio round trip costs the window nothing.

A counter in another process (the virtual ones) or on a cable answers in a few
milliseconds, but its answer is not "ready work" until it arrives: the frame that
shows a tap used to start in the gap, and the acknowledgements waited the whole frame
(10-15 ms with software rendering; every sample of the slowest percent of
`benchmarks/app_latency.py` was one of these). So the frame may also `hold` for
answers due within what is left of the same budget, judged by each counter's recent
round trips: a radio's tens of milliseconds are never waited for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

# s: the longest a frame waits for queued work; half a 60 Hz frame.
FRAME_WAIT_S = 0.008


async def ready_work_done(budget_s: float = FRAME_WAIT_S) -> None:
    """Let every callback ready on the running loop run, and those they make ready, until
    none is left or `budget_s` has passed."""
    loop = asyncio.get_running_loop()
    # CPython's loops keep their ready callbacks in `_ready`; a loop without it (another
    # implementation) is not waited for at all.
    ready = getattr(loop, "_ready", None)
    if ready is None:
        return
    deadline = loop.time() + budget_s
    while ready and loop.time() < deadline:
        await asyncio.sleep(0)  # behind what is queued now; it may queue more


# Waits, at most the time it is given, for answers due within it; False when none is.
Hold = Callable[[float], Awaitable[bool]]


@contextmanager
def frames_after_ready_work(
    clock: Any, events: Any = None, budget_s: float = FRAME_WAIT_S, hold: Hold | None = None
) -> Iterator[None]:
    """While in the block, every tick of Kivy's `clock` (the start of a frame) first lets
    ready work on the loop finish (`ready_work_done`), and with `hold`, waits for the
    answers it says are due, all within `budget_s`.

    With Kivy's `events` loop given, the touches that came since the last frame are
    handled first: a tap's messages to the counters then go out, and their round
    trips run, before the frame that shows the tap is drawn, not after it (Kivy
    would handle them at the start of the frame and draw at once; it finds none
    left to handle then)."""
    tick: Callable[[], Awaitable[None]] = clock.async_tick

    async def tick_after_ready_work() -> None:
        await tick()
        if events is not None and not events.quit:
            events.dispatch_input()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget_s
        await ready_work_done(budget_s)
        while hold is not None and (left := deadline - loop.time()) > 0:
            if not await hold(left):
                break
            await ready_work_done(deadline - loop.time())  # what the answers set going

    clock.async_tick = tick_after_ready_work
    try:
        yield
    finally:
        clock.async_tick = tick
