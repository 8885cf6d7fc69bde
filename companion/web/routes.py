"""The table link's web application: its routes and their handlers.

* `/` - the page (HTML with its words in the browser's language, no build step);
* `/app.js`, `/app.css`, `/sw.js`, `/icon.svg` - its files, from `static/`;
* `/ws` - one WebSocket per open page (session.py), behind the middlewares'
  checks (middleware.py).

`make_app` builds the `aiohttp.web.Application` for one `LinkState`, kept in it under
`LINK` for the handlers and middlewares to reach.
"""

from __future__ import annotations

import json
from importlib import resources

from aiohttp import web

from companion.web.limits import HEARTBEAT_S, MAX_MESSAGE_BYTES
from companion.web.middleware import MIDDLEWARES, SOCKET
from companion.web.session import LINK, LinkState, PageSession
from companion.web.speech import accepted_languages
from companion.web.words import page_words

STATIC_FILES: dict[str, str] = {
    "app.js": "text/javascript",
    "app.css": "text/css",
    "sw.js": "text/javascript",
    "icon.svg": "image/svg+xml",
}
PAGE_HEADERS = {
    # Everything comes from the host itself; nothing runs that it did not serve.
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

routes = web.RouteTableDef()


@routes.get("/")
async def index(request: web.Request) -> web.Response:
    """The page, in the browser's language."""
    speech = request.app[LINK].voices.for_browser(
        accepted_languages(request.headers.get("Accept-Language", ""))
    )
    html = asset("index.html").decode()
    words = json.dumps(page_words(speech), ensure_ascii=False).replace("<", "\\u003c")
    html = html.replace("{{lang}}", speech.code.replace("_", "-"))
    html = html.replace("{{title}}", _escape(speech.gettext("Munchkin Companion")))
    html = html.replace("{{words}}", words)
    return web.Response(text=html, content_type="text/html", charset="utf-8", headers=PAGE_HEADERS)


async def static_file(request: web.Request) -> web.Response:
    """One of the page's files."""
    name = request.path.lstrip("/")
    headers = dict(PAGE_HEADERS)
    if name == "sw.js":
        headers["Service-Worker-Allowed"] = "/"
    return web.Response(body=asset(name), content_type=STATIC_FILES[name], headers=headers)


for _name in STATIC_FILES:
    routes.get(f"/{_name}")(static_file)


@routes.get("/ws", name=SOCKET)
async def socket(request: web.Request) -> web.StreamResponse:
    """A page's WebSocket, for as long as the page is open."""
    link = request.app[LINK]
    ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE_BYTES, heartbeat=HEARTBEAT_S, autoping=True)
    await ws.prepare(request)
    if link.sockets is not None:  # no more requests come on this connection
        link.sockets.websocket_opened(request.transport)
    page = await PageSession.greet(link, ws, request)
    if page is not None:
        await page.run()
    return ws


def make_app(link: LinkState) -> web.Application:
    """The application serving `link`'s pages."""
    app = web.Application(client_max_size=MAX_MESSAGE_BYTES, middlewares=MIDDLEWARES)
    app[LINK] = link
    app.add_routes(routes)
    return app


def asset(name: str) -> bytes:
    return resources.files("companion.web").joinpath("static", name).read_bytes()


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )
