"""What the table link's caps per address count, and how long each request may take.

An IPv6 device may take a new address of its network's /64 for every socket, so the caps
per address count IPv6 by /64 (IPv4, mapped into IPv6 or not, by its address). And a
request's headers have the same few seconds on a connection kept for more requests as on
a new one: one byte at a time, a second request is closed as soon as a first one is."""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import logging
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from companion.plumbing.places import LOCALE_DIR
from companion.table.app import Table
from companion.web import limits
from companion.web.client import TableClient
from companion.web.keys import BOARD, Role, TableKeys
from companion.web.limits import WrongCodes, counted_address
from companion.web.server import TableLink
from companion.web.session import LinkState, PageInfo
from companion.web.sockets import GuardedConnection, SocketGuard, SocketLimits
from companion.web.speech import Voices
from tests.web.conftest import new_game

BOUND_S = 10.0  # bounds each wait; nothing sleeps a fixed time before it looks


def test_ipv6_is_counted_by_its_64_and_ipv4_by_its_address() -> None:
    assert doctest.testmod(limits).failed == 0
    same = {counted_address(f"2001:db8:aa:bb:{n:x}::{n:x}") for n in range(1, 500)}
    assert same == {"2001:db8:aa:bb::/64"}
    assert counted_address("2001:db8:aa:bc::1") == "2001:db8:aa:bc::/64"
    assert counted_address("::1") == "::/64"
    assert counted_address("fe80::1%eth0") == counted_address("fe80::2") == "fe80::/64"
    assert counted_address("10.0.0.5") != counted_address("10.0.0.6")
    assert counted_address("::ffff:10.0.0.5") == counted_address("10.0.0.5") == "10.0.0.5"
    assert counted_address("?") == "?"


class _Transport(asyncio.Transport):
    """An accepted socket from `address`, as the guard sees it."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.peer = (address, 40000) if ":" not in address else (address, 40000, 0, 0)
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.peer if name == "peername" else default

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.aborted


class _Handler:
    """Stands in for aiohttp's request handler behind the guard."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        pass

    def connection_lost(self, exc: Exception | None) -> None:
        pass


async def test_a_new_ipv6_address_for_every_socket_gets_no_more_than_its_64() -> None:
    guard = SocketGuard(SocketLimits(per_address=4, per_network=6, capacity=100, reserve=0))

    def connect(address: str) -> bool:
        transport = _Transport(address)
        GuardedConnection(guard, _Handler).connection_made(transport)
        return not transport.aborted

    # Each socket from another address of one /64: the /64's cap holds.
    admitted = [connect(f"2001:db8:1:2::{n:x}") for n in range(1, 20)]
    assert admitted == [True] * 6 + [False] * 13
    assert guard.open == {"2001:db8:1:2::/64": 6}
    # Another /64 is another network.
    assert connect("2001:db8:1:3::1")
    # IPv4 stays counted per address, and an IPv4 address inside IPv6 is that address.
    assert [connect("192.168.1.20") for _ in range(3)] + [connect("::ffff:192.168.1.20")] == [
        True
    ] * 4
    assert not connect("::ffff:192.168.1.20") and not connect("192.168.1.20")
    assert connect("192.168.1.21")
    guard.cancel()


def test_boards_and_wrong_codes_count_an_ipv6_address_with_its_64(tmp_path: Path) -> None:
    link = LinkState(keys=TableKeys(tmp_path / "keys.json"), voices=Voices(None), table=None)  # type: ignore[arg-type]

    class Open:
        def __init__(self, address: str) -> None:
            self.info = PageInfo(role=BOARD, address=address, language="en", since=0.0)

    for n in range(limits.MAX_BOARDS_PER_ADDRESS):
        link.pages.add(Open(f"2001:db8:1:2::{n + 1:x}"))  # type: ignore[arg-type]
    assert not link.has_room(BOARD, "2001:db8:1:2::ffff")
    assert link.has_room(BOARD, "2001:db8:1:3::1")
    assert link.has_room(Role("seat", 0), "2001:db8:1:2::ffff")  # a seat is counted apart

    codes = WrongCodes()
    for n in range(limits.BAD_HELLOS):
        codes.note(f"2001:db8:1:2::{n + 1:x}")
    assert codes.paused("2001:db8:1:2::beef")
    assert not codes.paused("2001:db8:1:3::1")


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@contextlib.asynccontextmanager
async def _serving(tmp_path: Path, host: str, sockets: SocketLimits) -> AsyncIterator[TableLink]:
    table = Table(tmp_path / "games")
    table.adopt(new_game(3))
    link = TableLink(
        keys=TableKeys(tmp_path / "keys.json"),
        table=table,
        voices=Voices(LOCALE_DIR),
        host=host,
        port=0,
        sockets=sockets,
    )
    await link.start()
    try:
        yield link
    finally:
        await link.stop()
        table.shutdown()


async def _closed_by_host(reader: asyncio.StreamReader) -> None:
    """Returns once the host closed the connection."""
    with contextlib.suppress(ConnectionError):
        while await reader.read(65536):
            pass


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="this machine has no IPv6 loopback (::1)")
async def test_the_host_on_ipv6_counts_sockets_by_64(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Through the real server on ::1: sockets from ::1 are held against the cap of its /64
    (3 here), not of one address (2), and the refusal is logged under the /64."""
    caplog.set_level(logging.WARNING, logger="companion.web.sockets")
    sockets = SocketLimits(per_address=2, per_network=3, log_every_s=60.0)
    writers: list[asyncio.StreamWriter] = []
    async with _serving(tmp_path, "::1", sockets) as link, aiohttp.ClientSession() as http:
        # A seat's page opens and stays: its WebSocket is one of the /64's sockets.
        anna = TableClient(link.url(Role("seat", 0), "::1"), session=http, reconnect=False)
        await anna.connect(timeout_s=BOUND_S)
        try:
            for _ in range(2):  # two more, kept open after their request
                reader, writer = await asyncio.open_connection("::1", link.port)
                writers.append(writer)
                writer.write(b"GET /icon.svg HTTP/1.1\r\nHost: [::1]\r\n\r\n")
                assert b" 200 " in await asyncio.wait_for(reader.readuntil(b"\r\n"), BOUND_S)
            # The /64's fourth socket is closed at once, before anything of it is read.
            reader, writer = await asyncio.open_connection("::1", link.port)
            writers.append(writer)
            await asyncio.wait_for(_closed_by_host(reader), BOUND_S)
            # ... while the ones it holds go on.
            assert (await anna.press("level_up", timeout_s=BOUND_S))["ok"]
        finally:
            await anna.close()
            for writer in writers:
                writer.close()
    said = caplog.text  # the link logs what it refused when it stops
    assert "1 connections refused" in said and "1 from ::/64" in said, said


async def test_a_second_request_one_byte_at_a_time_is_closed_like_a_first(
    tmp_path: Path,
) -> None:
    """Through the real server: a connection kept after one request, whose second
    request's headers come one byte at a time, is closed once they took longer than a
    request may (as a first request would be), long before the idle timeout. A page's
    WebSocket, sending after that time, stays open."""
    header_s, idle_s = 0.5, 8.0
    sockets = SocketLimits(header_timeout_s=header_s, idle_timeout_s=idle_s)
    async with _serving(tmp_path, "127.0.0.1", sockets) as link:
        anna = TableClient(link.url(Role("seat", 0), "127.0.0.1"), reconnect=False)
        await anna.connect(timeout_s=BOUND_S)
        reader, writer = await asyncio.open_connection("127.0.0.1", link.port)
        try:
            writer.write(b"GET /icon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND_S)
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await asyncio.wait_for(reader.readexactly(length), BOUND_S)

            closed = asyncio.ensure_future(_closed_by_host(reader))
            began = time.monotonic()
            second = b"GET /icon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
            for byte in second:  # a byte every 50 ms, until the host closes
                writer.write(bytes([byte]))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(closed), 0.05)
                if closed.done():
                    break
            async with asyncio.timeout(BOUND_S):
                await closed
            took = time.monotonic() - began
            assert header_s * 0.9 <= took < idle_s / 2, f"closed after {took:.2f} s"
            # The page's WebSocket sent its hello and now presses, later than a request
            # may take: it is still open.
            assert took > header_s
            assert (await anna.press("level_up", timeout_s=BOUND_S))["ok"]
        finally:
            writer.close()
            await anna.close()
