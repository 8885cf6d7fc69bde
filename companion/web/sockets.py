"""The table link's sockets before HTTP: how many one address may hold, how long a request
may take to arrive, and what is said when connections are refused.

aiohttp reads a connection as soon as it is accepted and waits for its request as long
as the connection stays open; one device opening sockets and sending nothing (or a
byte now and then) could hold every file the host may open, and no phone could join.
So the link serves through its own site (`GuardedSite`), whose connections pass a
`SocketGuard` first:

* an address holds at most `per_address` sockets; a connection over that is closed at
  once, before anything of it is read. An IPv6 address is counted with its /64
  (`limits.counted_address`), as one device may take any address of it for each socket,
  and a /64 holds at most `per_network` (the phones of a table on one Wi-Fi share one);
* the host holds at most `capacity` sockets in all (well under its open-files limit),
  and the last `reserve` of them only go to addresses holding fewer than `newcomer`:
  a new phone still gets in while others are at their caps;
* a request whose headers are not all there within `header_timeout_s` of its first byte
  (a connection's first request: of the connection opening) is closed, on a new
  connection as on one kept for more requests; a connection idle between requests for
  `idle_timeout_s` too (aiohttp's keep-alive timeout); a page's WebSocket, once open, is
  kept by its heartbeat instead;
* refusals are logged as one line per burst ("N connections refused from ADDR in the
  last S s"), never one per socket.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from companion.web.limits import (
    FILES_FOR_THE_APP,
    HEADER_TIMEOUT_S,
    IDLE_TIMEOUT_S,
    REFUSALS_LOG_S,
    SOCKET_RESERVE,
    SOCKETS_MAX,
    SOCKETS_OF_A_NEWCOMER,
    SOCKETS_PER_ADDRESS,
    SOCKETS_PER_NETWORK,
    counted_address,
    is_network,
)

_LOGGER = logging.getLogger(__name__)

_END_OF_HEADERS = b"\r\n\r\n"


@dataclass(frozen=True)
class SocketLimits:
    """The limits a `SocketGuard` keeps (limits.py has the defaults; tests make them short)."""

    header_timeout_s: float = HEADER_TIMEOUT_S
    idle_timeout_s: float = IDLE_TIMEOUT_S
    per_address: int = SOCKETS_PER_ADDRESS
    per_network: int = SOCKETS_PER_NETWORK  # an IPv6 /64
    capacity: int | None = None  # None: from the process's open-files limit
    reserve: int = SOCKET_RESERVE
    newcomer: int = SOCKETS_OF_A_NEWCOMER
    log_every_s: float = REFUSALS_LOG_S


def capacity_for_open_files() -> int:
    """How many sockets the link may hold: `SOCKETS_MAX`, or fewer when the process may
    open fewer files than that and `FILES_FOR_THE_APP` more (the games, the counters...)."""
    try:
        import resource
    except ImportError:  # pragma: no cover (Windows: no such limit to keep under)
        return SOCKETS_MAX
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return SOCKETS_MAX
    return max(SOCKET_RESERVE, min(SOCKETS_MAX, soft - FILES_FOR_THE_APP))


class SocketGuard:
    """Counts the open sockets by address (an IPv6 one by its /64: `counted_address`),
    admits or refuses new ones, and logs refusals one line per burst."""

    def __init__(self, limits: SocketLimits | None = None) -> None:
        self.limits = limits or SocketLimits()
        self.capacity = self.limits.capacity or capacity_for_open_files()
        self.open: Counter[str] = Counter()
        self.total = 0
        self.refused: Counter[str] = Counter()
        self.timed_out: Counter[str] = Counter()
        self._report: asyncio.TimerHandle | None = None
        self._connections: dict[asyncio.BaseTransport, GuardedConnection] = {}

    def admit(self, address: str) -> bool:
        """Count one more socket from `address` (as `counted_address` names it), or say
        no (it is then not counted)."""
        limits = self.limits
        held = self.open[address]
        cap = limits.per_network if is_network(address) else limits.per_address
        room = (
            held < cap
            and self.total < self.capacity
            and (self.total < self.capacity - limits.reserve or held < limits.newcomer)
        )
        if not room:
            self.refused[address] += 1
            self._later()
            return False
        self.open[address] = held + 1
        self.total += 1
        return True

    def follow(self, transport: asyncio.BaseTransport, connection: GuardedConnection) -> None:
        """An admitted socket's connection, to be told when it becomes a WebSocket."""
        self._connections[transport] = connection

    def release(self, address: str, transport: asyncio.BaseTransport | None = None) -> None:
        """A socket from `address` closed."""
        if transport is not None:
            self._connections.pop(transport, None)
        self.total -= 1
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    def websocket_opened(self, transport: asyncio.BaseTransport | None) -> None:
        """The connection of `transport` is a page's WebSocket from now on: what it sends
        is no longer requests, and its heartbeat keeps it."""
        connection = self._connections.get(transport) if transport is not None else None
        if connection is not None:
            connection.became_websocket()

    def too_slow(self, address: str) -> None:
        """A socket from `address` was closed: its request did not arrive in time."""
        self.timed_out[address] += 1
        self._later()

    def _later(self) -> None:
        if self._report is None:
            loop = asyncio.get_running_loop()
            self._report = loop.call_later(self.limits.log_every_s, self.report)

    def report(self) -> None:
        """Log what was refused or closed since the last report, in one line each."""
        self._report = None
        seconds = f"{self.limits.log_every_s:g}"
        for counter, what in (
            (self.refused, "refused"),
            (self.timed_out, "closed for sending no request in time"),
        ):
            if counter:
                _LOGGER.warning(
                    "%d connections %s in the last %s s: %s",
                    sum(counter.values()),
                    what,
                    seconds,
                    _by_address(counter),
                )
                counter.clear()

    def cancel(self) -> None:
        """Stop reporting (the link stops): what is pending is logged now."""
        if self._report is not None:
            self._report.cancel()
            self.report()


def _by_address(counter: Counter[str]) -> str:
    """ "12 from 10.0.0.5, 3 from 10.0.0.7 and 2 more addresses"."""
    top = counter.most_common(3)
    said = ", ".join(f"{count} from {address}" for address, count in top)
    rest = len(counter) - len(top)
    return f"{said} and {rest} more addresses" if rest else said


def address_of_peer(peer: Any) -> str:
    """The address a connection came from, as the pages' sessions name it."""
    if not isinstance(peer, tuple) or not peer:
        return "?"
    text = str(peer[0])
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return text
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return text


class GuardedConnection(asyncio.Protocol):
    """One accepted connection: refused at once, or handed to aiohttp's request handler
    with a clock on each request until its headers have all arrived.

    A request's clock starts with its first byte (the first request's: when the
    connection opens) and stops at the blank line ending its headers. No route of the
    link takes a body, so bytes after that line start the next request's clock; once
    the connection is a page's WebSocket (`became_websocket`) there are no more requests.
    """

    def __init__(self, guard: SocketGuard, make_handler: Callable[[], Any]) -> None:
        self._guard = guard
        self._make_handler = make_handler
        self._inner: Any = None
        self._transport: asyncio.Transport | None = None
        self._address = "?"
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""  # the last bytes of the request arriving, to find its end in
        self._websocket = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._address = counted_address(address_of_peer(transport.get_extra_info("peername")))
        if not self._guard.admit(self._address):
            transport.abort()  # closed before anything is read
            return
        self._transport = transport
        self._guard.follow(transport, self)
        self._inner = self._make_handler()
        self._inner.connection_made(transport)
        self._start_clock()

    def data_received(self, data: bytes) -> None:
        if self._inner is None:
            return
        if not self._websocket:
            self._follow_requests(data)
        self._inner.data_received(data)

    def _follow_requests(self, data: bytes) -> None:
        """Stop the clock at the end of a request's headers; start it at the next one's
        first byte."""
        seen = self._tail + data
        end = seen.rfind(_END_OF_HEADERS)
        if end >= 0:
            self._stop_clock()
            seen = seen[end + len(_END_OF_HEADERS) :]
        if seen and self._timer is None:
            self._start_clock()
        self._tail = seen[-(len(_END_OF_HEADERS) - 1) :]

    def became_websocket(self) -> None:
        """The connection was upgraded to a page's WebSocket: no more requests come."""
        self._websocket = True
        self._stop_clock()

    def _start_clock(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self._guard.limits.header_timeout_s, self._too_slow)

    def _stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        inner, self._inner = self._inner, None
        if inner is not None:
            self._guard.release(self._address, self._transport)
            inner.connection_lost(exc)

    def _too_slow(self) -> None:
        self._timer = None
        if self._transport is not None and not self._transport.is_closing():
            self._guard.too_slow(self._address)
            self._transport.abort()


class GuardedSite(web.BaseSite):
    """aiohttp's TCP site, with every connection passing `guard` first."""

    __slots__ = ("_guard", "_host", "_port", "_reuse_address")

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        guard: SocketGuard,
        *,
        reuse_address: bool = True,
    ) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self._guard = guard
        self._reuse_address = reuse_address

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        guard = self._guard
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: GuardedConnection(guard, server),
            self._host,
            self._port,
            reuse_address=self._reuse_address,
        )
