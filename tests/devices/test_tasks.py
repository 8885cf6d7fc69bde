"""Stopping background tasks absorbs their cancellation but never the caller's."""

from __future__ import annotations

import asyncio

import pytest

from companion.devices.tasks import cancel_and_wait


async def test_the_tasks_are_cancelled_and_waited_for():
    finished: list[str] = []

    async def worker(name: str) -> None:
        try:
            await asyncio.sleep(30)
        finally:
            finished.append(name)

    tasks = [asyncio.ensure_future(worker(name)) for name in ("leds", "link")]
    await asyncio.sleep(0)

    await cancel_and_wait(*tasks)

    assert sorted(finished) == ["leds", "link"]
    assert all(task.cancelled() for task in tasks)


async def test_a_cancellation_of_the_caller_is_passed_on():
    release = asyncio.Event()

    async def slow_to_stop() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            await release.wait()  # cleanup that takes a while

    task = asyncio.ensure_future(slow_to_stop())
    await asyncio.sleep(0)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):  # the caller gives up on the shutdown
            await cancel_and_wait(task)
    release.set()
    await asyncio.wait({task}, timeout=1)
    assert task.done()
