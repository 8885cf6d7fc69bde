"""Scripted phones: pages that press at random, for demos (`companion sim --phones N`),
the load test and the benchmark. Each one keeps count of what the host answered, so a
run can prove that no press was lost or applied twice.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from companion.plumbing.tasks import TaskSet
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


class PhoneTable:
    """Scripted phones for `companion sim --phones N`: on a table of their own in this
    process (a random game, its board page printed to watch), or on a host's seat codes."""

    def __init__(self, phones: int, *, rate_per_s: float = 1.0, join: list[str] | None = None):
        self.phones_wanted = phones
        self.rate_per_s = rate_per_s
        self.join = list(join or [])
        self.phones: list[ScriptedPhone] = []
        self.board_url = ""
        self._link: object = None

    async def start(self) -> None:
        """Start the table (unless joining one) and every phone on it."""
        urls = self.join
        if not urls:
            urls = await self._own_table()
        for index in range(self.phones_wanted or len(urls)):
            phone = ScriptedPhone(urls[index % len(urls)], rate_per_s=self.rate_per_s, seed=index)
            await phone.start()
            self.phones.append(phone)

    async def _own_table(self) -> list[str]:
        import tempfile
        from pathlib import Path

        from companion.core import Game
        from companion.core.randomplay import random_setup
        from companion.table.app import Table
        from companion.web.keys import BOARD, Role, TableKeys
        from companion.web.server import TableLink

        game = Game(random_setup(random.Random()))
        folder = Path(tempfile.mkdtemp(prefix="companion-sim-phones-"))
        table = Table(folder)
        table.adopt(game)
        link = TableLink(
            keys=TableKeys(folder / "table-link.json"), table=table, host="127.0.0.1", port=0
        )
        await link.start()
        self._link = link
        self.board_url = link.url(BOARD, "127.0.0.1")
        seats = min(len(game.state.players), max(1, self.phones_wanted))
        return [link.url(Role("seat", seat), "127.0.0.1") for seat in range(seats)]

    async def stop(self) -> None:
        for phone in self.phones:
            await phone.close()
        link = self._link
        if link is not None:
            await link.stop()  # type: ignore[attr-defined]

    def lines(self) -> list[str]:
        """One line per phone: its seat, what it sent and what the host answered."""
        out = []
        for index, phone in enumerate(self.phones):
            view = phone.client.view or {}
            name = view.get("name", "?") if isinstance(view, dict) else "?"
            count = phone.count
            state = "connected" if phone.client.connected else "reconnecting"
            out.append(
                f"phone {index + 1} ({name}, {state}): {count.sent} presses, "
                f"{count.applied} applied, {count.refused} refused; Level {view.get('level', '?')}"
            )
        return out
