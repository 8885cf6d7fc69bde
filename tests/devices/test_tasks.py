"""Stopping background tasks absorbs their cancellation but never the caller's."""

from __future__ import annotations

import asyncio

import pytest

from companion.plumbing.tasks import TaskSet, cancel_and_wait

from .helpers import until


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


async def test_a_task_set_reports_a_failed_task_and_stops_the_rest(caplog) -> None:
    failures: list[tuple[str, str]] = []
    tasks = TaskSet("counter 1", on_error=lambda name, exc: failures.append((name, str(exc))))

    async def fail() -> None:
        raise OSError("notify on a dropped link")

    forever = tasks.spawn(asyncio.sleep(3600), "ping")
    tasks.spawn(fail(), "push")
    await until(lambda: bool(failures))
    assert failures == [("counter 1: push", "notify on a dropped link")]
    assert "counter 1: push failed" in caplog.text
    assert len(tasks) == 1
    await tasks.cancel_all()
    assert forever.cancelled() and len(tasks) == 0
