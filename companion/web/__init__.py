"""The table link: every phone, tablet or TV at the table follows the game in its browser.

`TableLink` (server.py) is a small web server on the app's own asyncio loop. It
follows a `Game` as the counters do: each page gets a projection of the state
(views.py: a seat's view, the board's view), whole on joining and then as changes.
A phone's press comes back as a request and goes through the one rules path for
presses (`companion.core.presses`). Who may write is decided by secrets carried in
the codes the host shows (keys.py); texts speak the phone's language (speech.py).
`TableClient` (client.py) speaks the same protocol for scripted phones.

The server is an aiohttp application: routes.py (routes and handlers), middleware.py
(checks before a page's socket opens), session.py (one page's WebSocket session),
limits.py (sizes, rates and caps), cache.py (views worked out once for many pages).
"""

from __future__ import annotations
