"""Invitations to the table link: the host's addresses on the local network, and QR codes.

A code is the page's address with a secret after the `#`; `qr_png` draws it for the
host's Invite screen (`companion serve` draws `qr` in the terminal).
"""

from __future__ import annotations

import io
import socket
import threading
import time

import segno

# A documentation address (RFC 5737): connecting a UDP socket to it sends nothing, it
# only asks the system which of its addresses the default route leaves from.
_ROUTE_PROBE = ("192.0.2.1", 9)
LOOPBACK = "127.0.0.1"
# The computer's own name is looked up for its addresses, but never for longer than this:
# on a network whose name server does not answer, the lookup can take half a minute, and
# the link's start (and every Invite) would wait for it. What it found is kept a while.
NAME_LOOKUP_S = 1.0
NAME_KEPT_S = 30.0
_named: tuple[float, list[str]] | None = None
_named_lock = threading.Lock()


def _name_addresses() -> list[str]:
    """The IPv4 addresses the computer's name resolves to; none if it does not resolve
    within NAME_LOOKUP_S (the lookup then goes on alone, and its answer is not used)."""
    global _named
    with _named_lock:
        if _named is not None and time.monotonic() - _named[0] < NAME_KEPT_S:
            return list(_named[1])
        found: list[str] = []
        done = threading.Event()

        def look() -> None:
            try:
                infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
                found.extend(str(info[4][0]) for info in infos)
            except OSError:
                pass
            finally:
                done.set()

        threading.Thread(target=look, name="companion-name-lookup", daemon=True).start()
        answer = list(found) if done.wait(NAME_LOOKUP_S) else []
        _named = (time.monotonic(), answer)
        return list(answer)


def local_addresses() -> list[str]:
    """The IPv4 addresses other devices on this network may reach the host at, best first.

    The one the default route leaves from comes first (the Wi-Fi, usually); loopback
    only when there is nothing else (a computer with no network: the host's own
    browser can still open the pages).
    """
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_ROUTE_PROBE)
            found.append(probe.getsockname()[0])
    except OSError:
        pass
    for address in _name_addresses():
        if address not in found:
            found.append(address)
    usable = [a for a in found if not a.startswith("127.") and not a.startswith("0.")]
    return usable or [LOOPBACK]


def qr(text: str) -> segno.QRCode:
    """The QR code of an address (medium error correction: a screen seen at an angle)."""
    return segno.make(text, error="m", micro=False)


def qr_png(text: str, scale: int = 8) -> bytes:
    """A QR code as PNG bytes, black on white with the quiet zone the standard asks for."""
    out = io.BytesIO()
    qr(text).save(out, kind="png", scale=scale, border=4, dark="#000000", light="#ffffff")
    return out.getvalue()
