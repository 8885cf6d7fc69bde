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
    """Wait until `condition()` holds, letting the event loop run `poll_s` (and calling
    `between()`, e.g. one Kivy frame) before each look. `timeout_s` only stops a hang:
    the wait ends as soon as the condition holds, so a generous limit costs nothing."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout_s
    while not condition():
        if loop.time() > give_up:
            raise AssertionError(f"still waiting after {timeout_s} s until {what}")
        if between is not None:
            between()
        await asyncio.sleep(poll_s)
