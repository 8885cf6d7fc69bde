"""The load-and-faults run of the table link, shared by the test (short) and
benchmarks/web_load.py (two minutes): 8 seats pressing 5 times a second with random
disconnects, 2 boards watching; afterwards every count must add up."""

from __future__ import annotations

import asyncio
import gc
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion.core import Source
from companion.plumbing.places import LOCALE_DIR
from companion.table.app import Table
from companion.web.client import TableClient
from companion.web.keys import BOARD, Role, TableKeys
from companion.web.phones import ScriptedPhone
from companion.web.server import TableLink
from companion.web.speech import Voices
from companion.web.views import board_view, seat_view

LOOPBACK = "127.0.0.1"


@dataclass
class LoadResult:
    seconds: float
    presses: int = 0
    applied: int = 0
    refused: int = 0
    drops: int = 0
    problems: list[str] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)  # sampled through the run
    sockets: list[int] = field(default_factory=list)  # open sockets of this process, sampled
    actions: int = 0


def open_sockets() -> int:
    """Sockets this process holds open (Linux)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                count += 1
        except OSError:
            continue
    return count


def rss_kib() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


async def run_load(
    seconds: float, *, seats: int = 8, boards: int = 2, rate_per_s: float = 5.0
) -> LoadResult:
    from tests.web.conftest import new_game

    game = new_game(seats)
    folder = Path(tempfile.mkdtemp(prefix="companion-load-"))
    application = Table(folder / "games")
    application.adopt(game)
    link = TableLink(
        keys=TableKeys(folder / "table-link.json"),
        table=application,
        voices=Voices(LOCALE_DIR),
        host=LOOPBACK,
        port=0,
    )
    await link.start()
    result = LoadResult(seconds=seconds)
    phones = [
        ScriptedPhone(
            link.url(Role("seat", seat), LOOPBACK),
            rate_per_s=rate_per_s,
            drop_every_s=max(2.0, seconds / 6),
            seed=seat,
        )
        for seat in range(seats)
    ]
    watchers = [TableClient(link.url(BOARD, LOOPBACK)) for _ in range(boards)]
    try:
        for watcher in watchers:
            await watcher.connect()
        for phone in phones:
            await phone.start()
        # Garbage from before the run is not the run's: collected once, not every sample
        # (a full collection in a big process takes long enough to starve the pages).
        gc.collect()
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            await asyncio.sleep(min(1.0, seconds / 10))
            result.rss_kib.append(rss_kib())
            result.sockets.append(open_sockets())
        for phone in phones:
            await phone.stop()
        # Every page comes back (a drop may be in progress) and shows the host's state.
        for phone in phones:
            await phone.client.wait_for(
                lambda v, p=phone: (
                    p.client.connected
                    and v
                    == {
                        **seat_view(
                            game.state,
                            p.client.seat or 0,
                            link.voices.speech("en"),
                            lambda a: game.check(a) is None,
                        ),
                        "kill": None,  # no kill is called in this game
                    }
                ),
                timeout_s=30,
                what="the host's state on a seat's page",
            )
        for watcher in watchers:
            await watcher.wait_for(
                lambda v: v == {**board_view(game.state, link.voices.speech("en")), "kill": None},
                timeout_s=30,
                what="the host's state on a board page",
            )
        result.sockets.append(open_sockets())
        for seat, phone in enumerate(phones):
            count = phone.count
            result.presses += count.sent
            result.applied += count.applied
            result.refused += count.refused
            result.drops += count.drops
            written = sum(1 for a in game.log if a.source == Source(via="phone", seat=seat))
            if written != count.applied:
                result.problems.append(
                    f"seat {seat}: {count.applied} presses answered applied, {written} in the log"
                )
            if count.applied + count.refused != count.sent:
                result.problems.append(
                    f"seat {seat}: {count.sent} sent, {count.applied + count.refused} answered"
                )
        result.actions = len(game.log)
    finally:
        for phone in phones:
            await phone.close()
        for watcher in watchers:
            await watcher.close()
        await link.stop()
    return result
