"""Scripted phones: pages that press at random, for demos (`companion sim --phones N`),
the load test and the benchmark. Each one keeps count of what the host answered, so a
run can prove that no press was lost or applied twice.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from companion.devices.tasks import TaskSet
from companion.web.client import TableClient

PRESSES = ("level_up", "level_down", "gear_up", "gear_down")


@dataclass
class PhoneCount:
    """What one scripted phone sent and what the host answered."""

    sent: int = 0
    applied: int = 0
    refused: int = 0
    drops: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


class ScriptedPhone:
    """A seat's page pressing `rate_per_s` times a second, dropping its connection now and
    then (`drop_every_s` on average; 0: never) as a phone losing Wi-Fi would."""

    def __init__(
        self,
        url: str,
        *,
        rate_per_s: float = 1.0,
        drop_every_s: float = 0.0,
        seed: int | None = None,
        langs: tuple[str, ...] = ("en",),
    ) -> None:
        self.client = TableClient(url, langs=langs)
        self.rate_per_s = rate_per_s
        self.drop_every_s = drop_every_s
        self.count = PhoneCount()
        self._random = random.Random(seed)
        self._answers: set[asyncio.Future[dict[str, object]]] = set()
        self._tasks = TaskSet("scripted phone")

    async def start(self) -> None:
        """Join the table (waits for the welcome), then press until stopped."""
        await self.client.connect()
        self._tasks.spawn(self._press(), "pressing")
        if self.drop_every_s > 0:
            self._tasks.spawn(self._drops(), "losing Wi-Fi")

    async def stop(self, answers_timeout_s: float = 30.0) -> None:
        """Stop pressing and wait until every press sent was answered."""
        await self._tasks.cancel_all()
        pending = [future for future in self._answers if not future.done()]
        if pending:
            await asyncio.wait_for(asyncio.gather(*pending), answers_timeout_s)

    async def close(self) -> None:
        await self._tasks.cancel_all()
        await self.client.close()

    async def _press(self) -> None:
        loop = asyncio.get_running_loop()
        interval = 1 / self.rate_per_s
        next_at = loop.time()
        while True:
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - loop.time()))
            what = self._random.choice(PRESSES)
            future = self.client.send_press(what)
            self.count.sent += 1
            self._answers.add(future)
            future.add_done_callback(self._answered)

    def _answered(self, future: asyncio.Future[dict[str, object]]) -> None:
        self._answers.discard(future)
        if future.cancelled():
            return
        answer = future.result()
        if answer.get("ok"):
            self.count.applied += 1
        else:
            self.count.refused += 1
            why = str(answer.get("why", ""))
            self.count.reasons[why] = self.count.reasons.get(why, 0) + 1

    async def _drops(self) -> None:
        while True:
            await asyncio.sleep(self._random.expovariate(1 / self.drop_every_s))
            self.count.drops += 1
            await self.client.drop()
