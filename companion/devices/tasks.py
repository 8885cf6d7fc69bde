"""Stopping background tasks without swallowing a cancellation meant for the caller."""

from __future__ import annotations

import asyncio


async def cancel_and_wait(*tasks: asyncio.Future[object]) -> None:
    """Cancel `tasks` and wait until each has finished.

    The tasks' own CancelledError is expected and absorbed; if the caller itself is
    cancelled while waiting (a timeout around a shutdown, say), that cancellation is
    passed on instead of being mistaken for one of the tasks'.
    """
    for task in tasks:
        task.cancel()
    for task in tasks:
        try:
            await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
