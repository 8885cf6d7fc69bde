"""One device opening a thousand sockets and sending nothing (slowloris) keeps no phone
out: its sockets over its cap are closed at once, the ones it holds are closed when
their request does not arrive in time, and the host says so in a line, not a flood.

The host runs in a child process whose open-files limit is 1,024, as on many systems."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from companion.web.client import TableClient
from companion.web.limits import SOCKETS_PER_ADDRESS

pytestmark = pytest.mark.slow

OPEN_FILES = 1024
ATTACK = 1100  # sockets from one address: more than the host may open
HEADER_S = 3.0  # the timeouts the host runs with here (short, so the test is quick)
IDLE_S = 4.0
SERVED_WITHIN_S = 1.0  # a new phone joins and presses within this, whatever the attack
BOUND_S = 30.0  # bounds each wait for an event; nothing sleeps a fixed time

HOST = r"""
import asyncio, json, logging, sys
from pathlib import Path
from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, Sex
from companion.table.app import Table
from companion.web.keys import BOARD, Role, TableKeys
from companion.web.server import TableLink
from companion.web.sockets import SocketLimits

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

async def main(folder, header_s, idle_s):
    folder = Path(folder)
    players = tuple(PlayerSetup(name=n, colour="#3e8ef7", sex=Sex.NONE) for n in ("Ann", "Bo"))
    table = Table(folder / "games")
    table.adopt(Game(GameSetup(players=players, edition=CLASSIC)))
    limits = SocketLimits(header_timeout_s=header_s, idle_timeout_s=idle_s, log_every_s=1.0)
    link = TableLink(keys=TableKeys(folder / "keys.json"), table=table, host="127.0.0.1",
                     port=0, sockets=limits)
    port = await link.start()
    seat = link.url(Role("seat", 0), "127.0.0.1")
    print(json.dumps({"port": port, "seat": seat}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await link.stop()
    table.shutdown()

asyncio.run(main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3])))
"""


def _limit_open_files() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))


class Closes:
    """When the host closed each of the attacker's sockets; waits for a count of them."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._changed = asyncio.Condition()

    async def note(self) -> None:
        async with self._changed:
            self.times.append(time.monotonic())
            self._changed.notify_all()

    async def reach(self, count: int) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: len(self.times) >= count)


async def _held_until_closed(port: int, closes: Closes) -> asyncio.StreamWriter | None:
    """A socket that starts a request and never ends it; notes when the host closes it."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        await closes.note()
        return None
    with contextlib.suppress(OSError):
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    with contextlib.suppress(OSError):
        await reader.read()  # until the host closes it
    await closes.note()
    return writer


async def test_a_thousand_idle_sockets_from_one_address_keep_no_phone_out(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, str(tmp_path), str(HEADER_S), str(IDLE_S)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit_open_files,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        assert host.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(host.stdout.readline), BOUND_S)
        started = json.loads(line)
        port, seat_url = started["port"], started["seat"]

        closes = Closes()
        closed = closes.times
        opened = time.monotonic()
        attack = [asyncio.ensure_future(_held_until_closed(port, closes)) for _ in range(ATTACK)]
        # Every socket over the address's cap is closed at once, without waiting for anything.
        held = SOCKETS_PER_ADDRESS
        async with asyncio.timeout(HEADER_S * 0.9):
            await closes.reach(ATTACK - held)
        assert len(closed) == ATTACK - held

        # A new phone from another address joins its seat and presses, at once.
        connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(connector=connector) as http:
            phone = TableClient(seat_url, session=http, reconnect=False)
            began = time.monotonic()
            await phone.connect(timeout_s=BOUND_S)
            answer = await phone.press("level_up", timeout_s=BOUND_S)
            served_s = time.monotonic() - began
            assert answer["ok"], answer
            assert served_s < SERVED_WITHIN_S, served_s
            # The attacker's sockets were still held meanwhile.
            assert ATTACK - len(closed) == held

            # The held sockets are closed once their request is late, and only then.
            async with asyncio.timeout(BOUND_S):
                for writer in await asyncio.gather(*attack):
                    if writer is not None:
                        writer.close()
            late = sorted(closed)[-held:]
            assert min(late) - opened >= HEADER_S * 0.9, min(late) - opened

            # A socket idle after its request (not a page's WebSocket) is closed too.
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /icon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            asked = time.monotonic()
            async with asyncio.timeout(BOUND_S):
                while await reader.read(65536):
                    pass
            idle_s = time.monotonic() - asked
            assert IDLE_S * 0.9 <= idle_s < IDLE_S + 5, idle_s
            writer.close()

            # The phone's page, a WebSocket, is still open and presses.
            assert (await phone.press("level_down", timeout_s=BOUND_S))["ok"]
            await phone.close()
    finally:  # the host stops when its input ends
        _out, err = await asyncio.to_thread(host.communicate, timeout=BOUND_S)
    assert host.returncode == 0, err[-2000:]
    said = err.decode()
    assert len(err) < 4000, said[-2000:]  # a few lines, not one per socket
    assert "connections refused in the last 1 s:" in said and "from 127.0.0.1" in said, said
    assert "closed for sending no request in time" in said, said
    print(said, f"a new phone was served in {served_s * 1000:.0f} ms", sep="\n")
