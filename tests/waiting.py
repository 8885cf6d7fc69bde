"""Waiting in tests for something to happen, never for a guessed time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

# How often a condition is looked at: often enough to add no noticeable time to a test.
POLL_S = 0.005


async def until(
    condition: Callable[[], bool],
    what: str = "the condition holds",
    timeout_s: float = 10.0,
    between: Callable[[], None] | None = None,
    poll_s: float = POLL_S,
) -> None:
    """Wait until `condition()` holds, calling `between()` (e.g. one Kivy frame) before each
    look and letting the event loop run for `poll_s`, or for as long as `between()` took
    if that is longer: work done between looks never starves the tasks on the loop.

    `timeout_s` only stops a hang: the wait ends as soon as the condition holds, so a
    generous limit costs nothing."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout_s
    while not condition():
        if loop.time() > give_up:
            raise AssertionError(f"still waiting after {timeout_s} s until {what}")
        took = 0.0
        if between is not None:
            started = loop.time()
            between()
            took = loop.time() - started
        await asyncio.sleep(max(poll_s, took))
