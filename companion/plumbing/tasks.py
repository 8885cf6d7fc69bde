"""Owning background tasks: start them by name, log their failures, stop them all.

Stopping never swallows a cancellation meant for the caller. Callbacks handed to
a listener registry get the same treatment (`guarded`): a failing one is logged,
and neither breaks its caller nor starves the other listeners.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, ParamSpec

log = logging.getLogger(__name__)

P = ParamSpec("P")


def guarded(callback: Callable[P, object], what: str) -> Callable[P, None]:
    """`callback`, with any exception it raises logged as "`what` failed" instead of raised.

    For listeners called from inside I/O callbacks (a carrier reporting a loss, a
    counter rendering a frame), where one failing listener must not break the caller.
    """

    def call(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            callback(*args, **kwargs)
        except Exception:
            log.exception("%s failed", what)

    return call


async def cancel_and_wait(*tasks: asyncio.Future[Any]) -> None:
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


class TaskSet:
    """The background tasks one object owns: started by name, kept alive, stopped together.

    A task that ends with an exception is logged with its name at once (never a silent
    "Task exception was never retrieved"), and `on_error` is told so its owner can
    recover, e.g. restart the task or drop the link.
    """

    def __init__(self, owner: str, on_error: Callable[[str, BaseException], None] | None = None):
        self._owner = owner
        self._on_error = on_error
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Start `coro` as a task of this set; it leaves the set when it ends."""
        task = asyncio.get_running_loop().create_task(coro, name=f"{self._owner}: {name}")
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def spawn_while_running(
        self, coro: Coroutine[Any, Any, Any], name: str | None = None
    ) -> asyncio.Task[Any] | None:
        """`spawn`, named after the coroutine unless told; with no loop running (the app is
        closing) the coroutine is closed unstarted and None returned."""
        try:
            return self.spawn(coro, name or str(getattr(coro, "__name__", "task")))
        except RuntimeError:
            coro.close()
            return None

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None:
            return
        log.error("%s failed", task.get_name(), exc_info=exc)
        if self._on_error is not None:
            self._on_error(task.get_name(), exc)

    async def cancel_all(self) -> None:
        """Cancel every task of the set and wait for each to finish."""
        tasks = list(self._tasks)
        self._tasks.clear()
        await cancel_and_wait(*tasks)

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[asyncio.Task[Any]]:
        return iter(list(self._tasks))
