"""Keeping a link up: reopen it with exponential backoff whenever it is lost.

A `Reconnector` owns the retry loop for one link. After every successful open
it awaits `on_open(link)`, the place for the HELLO exchange and the full resync
a counter needs after a reconnect or reboot. It never blocks its caller: it
runs as one task on the shared loop.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

from companion.devices.link import Link, LinkError, LinkOpenError, LinkState
from companion.plumbing.tasks import TaskSet

_LOGGER = logging.getLogger(__name__)

INITIAL_BACKOFF_S = 0.25  # s: a counter that merely reset is back within a second; retry soon
MAX_BACKOFF_S = 30.0  # s: a counter switched off for good is tried twice a minute, no more
BACKOFF_FACTOR = 2.0  # each failed attempt doubles the wait
BACKOFF_JITTER = 0.2  # fraction: several counters lost together must not retry in lockstep
STABLE_AFTER_S = 5.0  # s: a connection that lasted this long starts the backoff from scratch


class Backoff:
    """Exponential backoff with seeded jitter: 0.25 s, 0.5 s, 1 s, ... up to `max_s`."""

    def __init__(
        self,
        *,
        initial_s: float = INITIAL_BACKOFF_S,
        max_s: float = MAX_BACKOFF_S,
        factor: float = BACKOFF_FACTOR,
        jitter: float = BACKOFF_JITTER,
        rng: random.Random | None = None,
    ) -> None:
        if initial_s <= 0 or max_s < initial_s or factor < 1 or not 0 <= jitter < 1:
            raise ValueError("backoff needs 0 < initial <= max, factor >= 1, 0 <= jitter < 1")
        self.initial_s = initial_s
        self.max_s = max_s
        self.factor = factor
        self.jitter = jitter
        self._rng = rng or random.Random()
        self._failures = 0

    def next_delay(self) -> float:
        """The wait before the next attempt; each call counts one more failure."""
        base = min(self.max_s, self.initial_s * self.factor**self._failures)
        self._failures += 1
        spread = base * self.jitter
        return min(self.max_s, base + self._rng.uniform(-spread, spread))

    def reset(self) -> None:
        """Start again from the initial delay (after a connection proved stable)."""
        self._failures = 0


OpenHandler = Callable[[Link], Awaitable[None]]


class Reconnector:
    """Keeps `link` open until `stop()`: reopens it with backoff after every loss.

    A link closed on purpose (`link.close()`) stops the reconnector too; only a
    lost link (or one that fails to open) is retried. A `LinkError` raised by
    `on_open` (no HELLO, lost during the resync) drops the link and is retried
    the same way; `last_error` keeps the most recent one for the user.
    """

    def __init__(
        self,
        link: Link,
        *,
        on_open: OpenHandler | None = None,
        backoff: Backoff | None = None,
        stable_after_s: float = STABLE_AFTER_S,
    ) -> None:
        self.link = link
        self._on_open = on_open
        self.backoff = backoff or Backoff()
        self.stable_after_s = stable_after_s
        self.attempts = 0  # open attempts made, successful or not
        self.opens = 0  # successful opens
        self.last_error: Exception | None = None
        # One task at most; a TaskSet so that a failure is logged by name and restarts it.
        self._tasks = TaskSet(f"reconnect {link.name}", on_error=self._failed)
        self._changed = asyncio.Event()
        self._opened = asyncio.Event()
        link.on_state_change(self._on_state)

    @property
    def running(self) -> bool:
        """True while the retry loop runs."""
        return len(self._tasks) > 0

    def start(self) -> None:
        """Start the retry loop on the running event loop; returns at once."""
        if not self.running:
            self._tasks.spawn(self._run(), "retry loop")

    async def stop(self) -> None:
        """Stop retrying and close the link."""
        await self._tasks.cancel_all()
        await self.link.close()

    def _failed(self, _name: str, exc: BaseException) -> None:
        """The retry loop broke on something unexpected (logged by the TaskSet): keep the
        link coming back all the same, after the next backoff delay."""
        self.last_error = exc if isinstance(exc, Exception) else None
        self._tasks.spawn(self._run(first_delay_s=self.backoff.next_delay()), "retry loop")

    async def wait_open(self) -> None:
        """Return once the link is open and `on_open` has run (use with a timeout)."""
        await self._opened.wait()

    def _on_state(self, state: LinkState) -> None:
        if state is not LinkState.OPEN:
            self._opened.clear()
        self._changed.set()

    async def _run(self, first_delay_s: float = 0.0) -> None:
        loop = asyncio.get_running_loop()
        if first_delay_s:
            await asyncio.sleep(first_delay_s)
        while True:
            _raise_if_cancelled()
            self.attempts += 1
            try:
                await self.link.open()
            except LinkOpenError as exc:
                self.last_error = exc
                delay = self.backoff.next_delay()
                _LOGGER.debug("%s: %s; next try in %.2f s", self.link.name, exc, delay)
                await asyncio.sleep(delay)
                continue
            _raise_if_cancelled()
            self.opens += 1
            opened_at = loop.time()
            if self._on_open is not None:
                try:
                    await self._on_open(self.link)
                except LinkError as exc:
                    # Lost again during the resync, or the counter did not answer
                    # as it should (still booting, say): cut it and try again later.
                    self.last_error = exc
                    await self.link.drop(f"setup failed: {exc}")
            _raise_if_cancelled()
            if self.link.is_open:
                self._opened.set()
            while self.link.is_open:
                self._changed.clear()
                await self._changed.wait()
            self._opened.clear()
            if self.link.state is LinkState.CLOSED:
                return  # closed on purpose
            if loop.time() - opened_at >= self.stable_after_s:
                self.backoff.reset()
            await asyncio.sleep(self.backoff.next_delay())


def _raise_if_cancelled() -> None:
    """Honour a cancellation that a carrier's library swallowed while connecting.

    A BLE stack that catches CancelledError mid-connect lets the task run on as if
    nothing happened; the task still counts the request (`Task.cancelling()`), so
    stopping the reconnect loop works even then instead of hanging until a timeout.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
