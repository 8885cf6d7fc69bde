"""The table link's web server: pages follow the game, and a seat's phone presses for its seat.

`TableLink` is what the rest of the app uses: it runs the web application on the app's
own asyncio loop (aiohttp), follows the table's open game, and lets the host see the
open pages, take a seat back and turn the link off. The application is built as aiohttp
applications are:

* routes.py - the routes and their handlers: the page, its files, the WebSocket;
* middleware.py - the checks before a request is answered: the name it is addressed to
  (hosts.py), a socket's origin, the pause after wrong codes;
* session.py - one page's WebSocket session (hello, welcome, patches, presses and their
  acks, the press ledger) and `LinkState`, what the sessions share;
* sockets.py - the sockets before HTTP: how many from one address and in all, how long
  a request may take to arrive;
* limits.py - every size, rate and cap; cache.py - the views worked out once for many
  pages.

Protocol (JSON text messages; docs/table-link.md):
  page -> host: hello {key, page, langs} · press {id, press} · roll {id, face}
  host -> page: welcome {role, seat, v, view} · patch {v, set} · ack {id, ok, why}
                error {why} · ask {} · bye {why}
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from aiohttp import web

from companion.core import Game
from companion.plumbing.listeners import Listeners
from companion.table.app import Table
from companion.web.keys import Role, TableKeys
from companion.web.limits import (
    BAD_HELLO_REFILL_S,
    BAD_HELLOS,
    BURST,
    CLOSE_TIMEOUT_S,
    DEFAULT_PORT,
    FLOOD_CLOSE,
    HEARTBEAT_S,
    HELLO_TIMEOUT_S,
    MAX_BOARDS,
    MAX_BOARDS_PER_ADDRESS,
    MAX_MESSAGE_BYTES,
    MAX_PAGE_ID,
    MAX_PAGES_PER_SEAT,
    MAX_PRESS_ID,
    PAGES_PER_SEAT,
    PRESS_MEMORY,
    RATE_PER_S,
    SEND_TIMEOUT_S,
    Bucket,
)
from companion.web.routes import STATIC_FILES, make_app
from companion.web.session import LinkState, PageInfo
from companion.web.sockets import GuardedSite, SocketGuard, SocketLimits
from companion.web.speech import Voices

__all__ = [
    "BAD_HELLOS",
    "BAD_HELLO_REFILL_S",
    "BURST",
    "CLOSE_TIMEOUT_S",
    "DEFAULT_PORT",
    "FLOOD_CLOSE",
    "HEARTBEAT_S",
    "HELLO_TIMEOUT_S",
    "MAX_BOARDS",
    "MAX_BOARDS_PER_ADDRESS",
    "MAX_MESSAGE_BYTES",
    "MAX_PAGES_PER_SEAT",
    "MAX_PAGE_ID",
    "MAX_PRESS_ID",
    "PAGES_PER_SEAT",
    "PRESS_MEMORY",
    "RATE_PER_S",
    "SEND_TIMEOUT_S",
    "STATIC_FILES",
    "Bucket",
    "PageInfo",
    "TableLink",
]

_LOGGER = logging.getLogger(__name__)


class TableLink:
    """The table link of one host: a web server, the pages on it, the game they follow.

    Typical use by the app::

        link = TableLink(keys=TableKeys(), table=table, voices=Voices(locale_dir))
        await link.start()  # it follows the table's open game from then on
        ...  # link.url(role, address), link.pages(), link.take_back(seat)
        await link.stop()
    """

    def __init__(
        self,
        *,
        keys: TableKeys,
        table: Table,
        voices: Voices | None = None,
        host: str = "0.0.0.0",
        port: int | None = None,
        sockets: SocketLimits | None = None,
    ) -> None:
        self.keys = keys
        self.voices = voices or Voices(None)
        # The application every press goes through, and whose open game the pages follow.
        self.table = table
        self.host = host
        self.wanted_port = port if port is not None else (keys.port or DEFAULT_PORT)
        self.port: int | None = None
        self._link = LinkState(keys=keys, voices=self.voices, table=table)
        self._unsubscribe: Callable[[], None] | None = None
        self._runner: web.AppRunner | None = None
        self.socket_limits = sockets or SocketLimits()
        self._guard: SocketGuard | None = None
        self._stop_following: Callable[[], None] | None = None

    @property
    def game(self) -> Game | None:
        """The game the pages follow (None while the table has none open)."""
        return self._link.game

    @property
    def changes(self) -> Listeners[[]]:
        """Something the host shows changed: a page came or went, a seat was taken back."""
        return self._link.changes

    # -- the server -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._runner is not None

    async def start(self) -> int:
        """Serve on `host`; the remembered port, or another free one if it is taken.

        Returns the port. Raises OSError when no port can be had at all.
        """
        if self._runner is not None:
            assert self.port is not None
            return self.port
        self._link.served.learn(self.host)
        runner = web.AppRunner(
            make_app(self._link),
            access_log=None,
            handle_signals=False,
            keepalive_timeout=self.socket_limits.idle_timeout_s,
        )
        await runner.setup()
        guard = SocketGuard(self.socket_limits)
        self._link.sockets = guard
        try:
            port = await self._bind(runner, guard, self.wanted_port)
        except OSError:
            self._link.sockets = None
            await runner.cleanup()
            raise
        self._runner = runner
        self._guard = guard
        self.port = port
        following = self.table.followers.add(self.set_game)
        # A kill called or called off (from anywhere) is shown on every page at once.
        counting = self.table.countdown.changes.add(self._link.game_changed)

        def stop_following() -> None:
            following()
            counting()

        self._stop_following = stop_following
        self.set_game(self.table.game, self.table.game_id)
        return port

    async def _bind(self, runner: web.AppRunner, guard: SocketGuard, port: int) -> int:
        for attempt in (port, 0):
            site = GuardedSite(runner, self.host, attempt, guard, reuse_address=True)
            try:
                await site.start()
            except OSError:
                if attempt == 0:
                    raise
                _LOGGER.info("port %d is taken; the table link takes another", port)
                continue
            bound = runner.addresses[-1]
            return int(bound[1])
        raise OSError("no port")  # pragma: no cover (the loop returns or raises)

    async def stop(self) -> None:
        """Tell every page the link is off, close them, and stop serving."""
        link = self._link
        await asyncio.gather(*(page.close("off") for page in list(link.pages)))
        await link.tasks.cancel_all()
        stop_following, self._stop_following = self._stop_following, None
        if stop_following is not None:
            stop_following()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        guard, self._guard = self._guard, None
        self._link.sockets = None
        if guard is not None:
            guard.cancel()
        self.port = None
        link.changes.emit()

    def url(self, role: Role, address: str) -> str:
        """The address a code for `role` carries: the page, with its secret after the `#`."""
        port = self.port or self.wanted_port
        self._link.served.add(address)  # a request to the address a code names is served
        return f"http://{_host_in_url(address)}:{port}/#k={self.keys.secret_of(role)}"

    # -- the game -------------------------------------------------------------------------

    def set_game(self, game: Game | None, game_id: str = "") -> None:
        """Follow another game (or none). A game other than the last one gets new seat
        secrets: its phones are told to scan again; boards follow on."""
        link = self._link
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        link.game = game
        if game is not None:
            self._unsubscribe = game.subscribe(link.game_changed)
            if game_id and self.keys.for_game(game_id):
                link.ledgers.clear()
                link.close_writers("new_game")
        link.game_changed(None)

    # -- what the host does ---------------------------------------------------------------

    def pages(self) -> list[PageInfo]:
        """Every open page, oldest first."""
        return sorted((page.info for page in self._link.pages), key=lambda info: info.since)

    def take_back(self, seat: int) -> None:
        """The seat gets a new secret; its phones are told and can no longer press."""
        link = self._link
        self.keys.take_back(seat)
        link.ledgers.forget(seat)
        link.close_writers("taken", seat)
        link.changes.emit()

    # -- for tests and the benchmark ------------------------------------------------------

    def traffic(self) -> dict[str, tuple[int, int]]:
        """Messages and bytes sent to each open page so far, by a name for the page."""
        return {
            f"{page.info.role.kind}{'' if page.info.role.seat is None else page.info.role.seat}"
            f"@{page.page_id}": (page.messages_sent, page.bytes_sent)
            for page in self._link.pages
        }


def _host_in_url(address: str) -> str:
    return f"[{address}]" if ":" in address else address
