"""What the table link checks of a request before a page's socket is opened (aiohttp
middlewares, outermost first in `MIDDLEWARES`).

They guard the WebSocket route only (the route named `SOCKET`); the page and its files
are served to anyone who asks. A refused socket is answered over plain HTTP, before its
hello is even read:

* another site's page (a different `Origin`): 403;
* too many pages open, on the host or from one address: 503;
* an address that sent too many wrong codes (limits.WrongCodes): 429 for a while.

A page's messages, once its socket is open, are limited by its session (session.py).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from companion.web.limits import MAX_PAGES, MAX_PAGES_PER_ADDRESS
from companion.web.session import LINK, address_of

SOCKET = "socket"  # the name of the route of the pages' WebSocket


def _guarded(request: web.Request) -> bool:
    return request.match_info.route.name == SOCKET


@web.middleware
async def same_origin(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A browser names the page that opened a socket: it must be one of ours.

    Pages of other sites (or a name rebound to this address) are refused; a client
    that is not a browser sends no Origin and is judged by its secret alone.
    """
    if _guarded(request):
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc.lower() != request.host.lower():
            raise web.HTTPForbidden(text="this page belongs to another site")
    return await handler(request)


@web.middleware
async def page_caps(request: web.Request, handler: Handler) -> web.StreamResponse:
    """At most `MAX_PAGES` pages are open, and `MAX_PAGES_PER_ADDRESS` from one address."""
    if _guarded(request):
        link = request.app[LINK]
        if (
            len(link.pages) >= MAX_PAGES
            or link.pages_at(address_of(request)) >= MAX_PAGES_PER_ADDRESS
        ):
            raise web.HTTPServiceUnavailable(text="too many pages are open on the host")
    return await handler(request)


@web.middleware
async def wrong_code_pause(request: web.Request, handler: Handler) -> web.StreamResponse:
    """An address that guessed at codes waits before it may say hello again."""
    if _guarded(request) and request.app[LINK].wrong_codes.paused(address_of(request)):
        raise web.HTTPTooManyRequests(text="too many wrong codes: wait a minute")
    return await handler(request)


MIDDLEWARES: tuple[Middleware, ...] = (same_origin, page_caps, wrong_code_pause)
