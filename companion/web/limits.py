"""The table link's limits in one place: sizes, rates, caps and timeouts, and the token
buckets that keep an address or a page under them.

The HTTP middlewares (middleware.py) use them before a socket is opened, a page's
session (session.py) for each message it reads; docs/table-link.md ("Who may write")
says them in words.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable

DEFAULT_PORT = 8770  # kept across restarts, so the codes phones hold stay valid
HELLO_TIMEOUT_S = 5.0  # a page says hello at once; a socket that does not is not a page of ours
HEARTBEAT_S = 10.0  # a phone that vanished without closing is noticed within two of these
SEND_TIMEOUT_S = 5.0  # a page that takes no message for this long is dropped (it comes back)
CLOSE_TIMEOUT_S = 1.0  # closing a page that is already gone must not hold up the host
MAX_MESSAGE_BYTES = 1024  # a page's largest message is about 150 bytes
# Sockets, before any HTTP (sockets.py): a device that opens many and sends nothing
# must not hold the files the host may open, nor keep new phones out.
HEADER_TIMEOUT_S = 5.0  # a request's headers arrive at once; a socket still sending them is closed
IDLE_TIMEOUT_S = 15.0  # a socket idle between requests (not a page's WebSocket) is closed
SOCKETS_PER_ADDRESS = 48  # a browser opens ~6 for a page; 16 boards and a few seats from one device
# An IPv6 device may take a new address of its network's /64 for every socket, so IPv6
# is counted by /64 (`counted_address`); the phones of a table on one Wi-Fi share it.
SOCKETS_PER_NETWORK = 160  # 8 seats and 2 boards each loading a page (~6 sockets), thrice
SOCKETS_MAX = 512  # sockets open at once on the host, at most...
FILES_FOR_THE_APP = 256  # ... and this many files under the process's limit stay the app's own
SOCKET_RESERVE = 64  # the last sockets go only to addresses holding fewer than:
SOCKETS_OF_A_NEWCOMER = 8  # ... so a new phone gets in while others are at their caps
REFUSALS_LOG_S = 10.0  # refused connections are logged as one line per this many seconds
# Pages are counted once they said hello, seats and boards apart: boards never take a
# seat's place, and one seat's pages never take another's.
MAX_PAGES_PER_SEAT = 8  # a phone, a tablet, a reload whose old page has not gone yet
MAX_BOARDS = 32  # a table has a TV or two; more is someone's script
MAX_BOARDS_PER_ADDRESS = 16  # one device may open a few tabs; a script opening more is refused
RATE_PER_S = 20.0  # messages a page may send each second, on average (a finger does ~8)
BURST = 40  # ... and at once
FLOOD_CLOSE = 200  # messages dropped in a row before the page is closed
BAD_HELLOS = 20  # hellos with a secret that is not ours, per address, before a pause
BAD_HELLO_REFILL_S = 3.0  # one more such hello is allowed every this many seconds
BAD_HELLO_ADDRESSES = 1024  # addresses whose wrong codes are remembered (the oldest go first)
PRESS_MEMORY = 64  # answers kept per page, to answer a press sent again after a reconnect
PAGES_PER_SEAT = 8  # pages whose presses are remembered per seat (a phone reloading is a new page)
MAX_PAGE_ID = 64
MAX_PRESS_ID = 2**53  # what a JavaScript number counts exactly


def counted_address(address: str) -> str:
    """What a limit per address counts `address` as: an IPv4 address as itself (one inside
    an IPv6 one too), an IPv6 address by its /64, which one device may fill with addresses
    of its own choosing (a scope such as `%wlan0` is left out); anything else as it is.

    >>> counted_address("192.168.1.20"), counted_address("::ffff:192.168.1.20")
    ('192.168.1.20', '192.168.1.20')
    >>> counted_address("2001:db8:1:2:aaaa::1"), counted_address("fe80::1%wlan0")
    ('2001:db8:1:2::/64', 'fe80::/64')
    """
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv4Address):
        return str(parsed)
    if parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    return str(ipaddress.IPv6Network((parsed, 64), strict=False))


def is_network(counted: str) -> bool:
    """Whether a `counted_address` stands for a network (an IPv6 /64), not one address."""
    return "/" in counted


class Bucket:
    """A token bucket: `take()` is True while the average rate stays under `rate_per_s`."""

    def __init__(
        self, rate_per_s: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.tokens = burst
        self._clock = clock
        self._at = clock()

    def available(self) -> bool:
        """Whether a `take()` now would succeed (nothing is taken)."""
        now = self._clock()
        self.tokens = min(self.burst, self.tokens + (now - self._at) * self.rate_per_s)
        self._at = now
        return self.tokens >= 1

    def take(self) -> bool:
        """Use one token if there is one."""
        if self.available():
            self.tokens -= 1
            return True
        return False


class WrongCodes:
    """Hellos with a secret that is not this table's, per address (`counted_address`): past
    `BAD_HELLOS` of them an address is paused (one more every `BAD_HELLO_REFILL_S`)."""

    def __init__(self) -> None:
        self._buckets: dict[str, Bucket] = {}

    def paused(self, address: str) -> bool:
        """Whether the address (an IPv6 one with its /64) must wait before it may say hello
        again."""
        bucket = self._buckets.get(counted_address(address))
        return bucket is not None and not bucket.available()

    def note(self, address: str) -> None:
        """The address sent a wrong code."""
        bucket = self._buckets.setdefault(
            counted_address(address), Bucket(1 / BAD_HELLO_REFILL_S, BAD_HELLOS)
        )
        bucket.take()
        if len(self._buckets) > BAD_HELLO_ADDRESSES:  # addresses seen long ago are forgotten
            self._buckets.pop(next(iter(self._buckets)))
