"""The names the table link answers to: a request must be addressed to the host itself.

A page of another site can be made to reach the host under its own name (DNS rebinding:
the other site's name is pointed at the host's address once the page is loaded). Its
browser then names that other site in the request's `Host` header, so the link serves
only requests addressed to one of the host's own names: the address the connection
arrived at, the loopback addresses and `localhost`, the computer's name and its `.local`
name, the addresses of the network the invitations name (invites.py), and every address
a code was made for (`TableLink.url`). Anything else is refused (421) before it is read.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

from companion.web.invites import local_addresses

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class ServedNames:
    """The host names and addresses a request may be addressed to."""

    def __init__(self) -> None:
        self.names: set[str] = {"localhost"}
        self.addresses: set[IPAddress] = set()

    def learn(self, serving_on: str = "") -> None:
        """Take in the computer's names and its addresses on the network (and `serving_on`,
        the address the link was asked to serve on, unless it is every address)."""
        try:
            hostname = socket.gethostname()
        except OSError:  # pragma: no cover (every system has one)
            hostname = ""
        if hostname:
            self.add(hostname)
            short = _normal(hostname).split(".", 1)[0]
            self.add(short)
            self.add(f"{short}.local")
        for address in local_addresses():
            self.add(address)
        if serving_on not in ("", "0.0.0.0", "::"):
            self.add(serving_on)

    def add(self, name: str) -> None:
        """One more name or address the host answers to (a code was made for it)."""
        address = _address(name)
        if address is not None:
            self.addresses.add(address)
        elif name:
            self.names.add(_normal(name))

    def allows(self, host: str | None, arrived_at: Any) -> bool:
        """Whether a request whose `Host` header is `host`, on a connection that arrived at
        the local address `arrived_at` (a socket name), is addressed to this host.

        A request with no `Host` header comes from no browser (every browser sends one),
        so no other site's page can have sent it: it is judged by its secret alone.
        """
        if host is None:
            return True
        name = _host_name(host)
        address = _address(name)
        if address is None:
            return _normal(name) in self.names
        if address.is_loopback or address in self.addresses:
            return True
        local = _address(str(arrived_at[0])) if isinstance(arrived_at, tuple) else None
        return local is not None and address == local


def _host_name(host: str) -> str:
    """The name in a `Host` header, without its port ("[::1]:8770" -> "::1")."""
    host = host.strip()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def _normal(name: str) -> str:
    return name.strip().rstrip(".").lower()


def _address(text: str) -> IPAddress | None:
    """`text` as an IP address (an IPv4 address inside an IPv6 one as itself), or None."""
    try:
        address = ipaddress.ip_address(text.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
