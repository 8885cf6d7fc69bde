"""What the table link checks of a request before it is answered (aiohttp middlewares,
outermost first in `MIDDLEWARES`).

Every request, for the page, its files or a socket, must be addressed to the host
itself (hosts.py): a request under another name (a page of another site whose name was
rebound to the host's address) is refused with 421 before anything else happens. The
other checks guard the WebSocket route only (the route named `SOCKET`); the page and
its files are served to anyone who asks. A refused socket is answered over plain HTTP,
before its hello is even read:

* another site's page (a different `Origin`): 403;
* an address that sent too many wrong codes (limits.WrongCodes): 429 for a while.

How many pages may be open is decided once a page said hello, when it is known whether
it is a seat's or a board (session.py): boards never take a seat's place. Sockets before
HTTP (how many from one address, how long a request may take to arrive) are guarded by
sockets.py. A page's messages, once its socket is open, are limited by its session.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from companion.web.session import LINK, address_of

SOCKET = "socket"  # the name of the route of the pages' WebSocket


def _guarded(request: web.Request) -> bool:
    return request.match_info.route.name == SOCKET


@web.middleware
async def same_host(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A request must be addressed to one of the host's own names or addresses.

    A page of another site whose name was rebound to the host's address names that site
    in `Host`: it is refused here, before any route (so it is never counted as a wrong
    code either).
    """
    transport = request.transport
    arrived_at = transport.get_extra_info("sockname") if transport is not None else None
    if not request.app[LINK].served.allows(request.headers.get("Host"), arrived_at):
        raise web.HTTPMisdirectedRequest(text="this host does not serve that name")
    return await handler(request)


@web.middleware
async def same_origin(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A browser names the page that opened a socket: it must be one of ours.

    Pages of other sites are refused (a name rebound to this address is refused before,
    by `same_host`); a client that is not a browser sends no Origin and is judged by its
    secret alone.
    """
    if _guarded(request):
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc.lower() != request.host.lower():
            raise web.HTTPForbidden(text="this page belongs to another site")
    return await handler(request)


@web.middleware
async def wrong_code_pause(request: web.Request, handler: Handler) -> web.StreamResponse:
    """An address that guessed at codes waits before it may say hello again."""
    if _guarded(request) and request.app[LINK].wrong_codes.paused(address_of(request)):
        raise web.HTTPTooManyRequests(text="too many wrong codes: wait a minute")
    return await handler(request)


MIDDLEWARES: tuple[Middleware, ...] = (same_host, same_origin, wrong_code_pause)
