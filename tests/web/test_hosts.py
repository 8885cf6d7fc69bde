"""A page of another site whose name was rebound to the host's address (DNS rebinding)
reaches nothing: every request must be addressed to one of the host's own names."""

from __future__ import annotations

import asyncio
import json
import socket

import aiohttp
import pytest

from companion.web import server
from companion.web.hosts import ServedNames
from companion.web.keys import BOARD, Role
from tests.web.conftest import Table

FOREIGN = ("evil.example", "evil.example:8770", "rebind.attacker.test.", "10.66.0.1", "[fe80::66]")


async def _raw_get(port: int, host: str, path: str = "/") -> int:
    """The status of one GET sent by hand with exactly this `Host` header."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        async with asyncio.timeout(10):
            status_line = await reader.readline()
        return int(status_line.split()[1])
    finally:
        writer.close()


@pytest.mark.parametrize("host", FOREIGN)
async def test_a_request_under_a_foreign_name_is_refused_and_changes_nothing(
    table: Table, host: str
) -> None:
    port = table.link.port
    assert port is not None
    base = table.board_url().split("#")[0].rstrip("/")
    for path in ("/", "/app.js", "/ws", "/no-such-file"):
        assert await _raw_get(port, host, path) == 421, path
    # A page under the rebound name sends its secret and presses: refused before the
    # hello is read, so nothing is applied...
    async with aiohttp.ClientSession() as http:
        for _ in range(server.BAD_HELLOS + 5):  # ...and no wrong code is counted against it
            try:
                async with http.ws_connect(base + "/ws", headers={"Host": host}) as ws:
                    await ws.send_str(json.dumps({"t": "hello", "key": "x" * 32, "page": "p"}))
                    await ws.receive(timeout=10)
                raise AssertionError("a socket under a foreign name was opened")
            except aiohttp.WSServerHandshakeError as refused:
                assert refused.status == 421
        seat_key = table.link.keys.secret_of(Role("seat", 0))
        try:
            async with http.ws_connect(base + "/ws", headers={"Host": host}) as ws:
                await ws.send_str(json.dumps({"t": "hello", "key": seat_key, "page": "p"}))
                await ws.send_str(json.dumps({"t": "press", "id": 1, "press": "level_up"}))
                await ws.receive(timeout=10)
            raise AssertionError("a socket under a foreign name was opened")
        except aiohttp.WSServerHandshakeError as refused:
            assert refused.status == 421
    assert table.game.revision == 0
    # The victim's own address is not paused: its phone joins and presses.
    anna = await table.seat(0)
    assert (await anna.press("level_up"))["ok"]


async def test_the_hosts_own_names_and_addresses_are_served(table: Table) -> None:
    port = table.link.port
    assert port is not None
    hostname = socket.gethostname()
    short = hostname.split(".")[0]
    own = [
        f"127.0.0.1:{port}",
        "127.0.0.1",
        "localhost",
        f"LOCALHOST.:{port}",
        f"[::1]:{port}",
        hostname,
        f"{short}.local:{port}",
    ]
    for host in own:
        assert await _raw_get(port, host) == 200, host
        assert await _raw_get(port, host, "/app.js") == 200, host
    # The address a code names is served, whatever it is (here one on no network).
    url = table.link.url(BOARD, "192.0.2.7")
    assert await _raw_get(port, f"192.0.2.7:{port}") == 200, url
    # A real page under the host's own address joins as before.
    board = await table.board()
    assert board.role == "board"


def test_the_address_a_connection_arrived_at_is_the_hosts_own() -> None:
    served = ServedNames()
    assert served.allows("10.1.2.3:8770", ("10.1.2.3", 8770))
    assert served.allows("[::ffff:10.1.2.3]:8770", ("::ffff:10.1.2.3", 8770, 0, 0))
    assert not served.allows("10.1.2.4:8770", ("10.1.2.3", 8770))
    assert not served.allows("10.1.2.3.evil.example", ("10.1.2.3", 8770))
    assert served.allows(None, None)  # no browser sends no Host: judged by its secret


def test_a_name_server_that_never_answers_does_not_hold_the_links_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a network whose name server does not answer, looking up the computer's own name
    can take half a minute: the addresses come without it, and the lookup is not made
    again for every start while it is known not to answer."""
    import threading

    from companion.web import invites

    released = threading.Event()
    asked: list[str] = []

    def stuck(host: str, *args: object, **kwargs: object) -> list[object]:
        asked.append(host)
        released.wait(60)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.99.0.7", 0))]

    monkeypatch.setattr(invites, "_named", None)
    monkeypatch.setattr(invites.socket, "getaddrinfo", stuck)
    try:
        first = invites.local_addresses()
        again = invites.local_addresses()
        names = ServedNames()
        names.learn()
    finally:
        released.set()
    assert "10.99.0.7" not in first and first == again
    assert len(asked) == 1, "the name was looked up again while it was known not to answer"
