"""The table link's web server: pages follow the game, and a seat's phone presses for its seat.

`TableLink` runs on the app's own asyncio loop (aiohttp). It serves the page (HTML,
CSS and a small JavaScript module from this package, no build step) and one
WebSocket per open page. A page says hello with the secret from its code
(keys.py): a seat's secret lets it press for that seat, the board's only lets it
watch, anything else gets the "ask the host" answer and is closed. The link follows
a `Game` as the counters do: on every change each page is woken, works out its view
(views.py) and is sent what changed. A press goes through `press_action`, the one
place that decides what a press may do for counters and phones alike, and is
answered once the game has saved it (`persist`). Every message is size- and
rate-limited; bad input gets a clear answer and changes nothing.

Protocol (JSON text messages; docs/table-link.md):
  page -> host: hello {key, page, langs} · press {id, press} · roll {id, face}
  host -> page: welcome {role, seat, v, view} · patch {v, set} · ack {id, ok, why}
                error {why} · ask {} · bye {why}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from companion.core import Game, GameState
from companion.core.phrase import Phrase, phrase_template
from companion.core.presses import Press
from companion.plumbing.listeners import Listeners
from companion.plumbing.tasks import TaskSet, cancel_and_wait
from companion.table.app import Table
from companion.table.outcome import SAVE_FAILED, Outcome
from companion.web.keys import Role, TableKeys
from companion.web.speech import Speech, Voices, accepted_languages
from companion.web.views import RollOffer, View, board_view, changes, seat_view
from companion.web.words import (
    NOT_JSON,
    NOT_YOUR_ROLL,
    SLOW_DOWN,
    page_words,
    unknown_request,
)

_LOGGER = logging.getLogger(__name__)

DEFAULT_PORT = 8770  # kept across restarts, so the codes phones hold stay valid
HELLO_TIMEOUT_S = 5.0  # a page says hello at once; a socket that does not is not a page of ours
HEARTBEAT_S = 10.0  # a phone that vanished without closing is noticed within two of these
SEND_TIMEOUT_S = 5.0  # a page that takes no message for this long is dropped (it comes back)
CLOSE_TIMEOUT_S = 1.0  # closing a page that is already gone must not hold up the host
MAX_MESSAGE_BYTES = 1024  # a page's largest message is about 150 bytes
MAX_PAGES = 64  # a table is eight seats and a few boards; more is someone's script
MAX_PAGES_PER_ADDRESS = 32  # one device may open a few tabs; a script opening more is refused
RATE_PER_S = 20.0  # messages a page may send each second, on average (a finger does ~8)
BURST = 40  # ... and at once
FLOOD_CLOSE = 200  # messages dropped in a row before the page is closed
BAD_HELLOS = 20  # hellos with a secret that is not ours, per address, before a pause
BAD_HELLO_REFILL_S = 3.0  # one more such hello is allowed every this many seconds
PRESS_MEMORY = 64  # answers kept per page, to answer a press sent again after a reconnect
PAGES_PER_SEAT = 8  # pages whose presses are remembered per seat (a phone reloading is a new page)
MAX_PAGE_ID = 64
MAX_PRESS_ID = 2**53  # what a JavaScript number counts exactly

NO_GAME = phrase_template("No game is open on the host yet.")
# What a phone's page has buttons for (a Level or Gear +/-; Next phase and End turn on
# its player's turn). A counter's "next turn" button is the same press as End turn.
PHONE_PRESSES = frozenset(Press)


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


@dataclass
class PageInfo:
    """What the host shows of one open page."""

    role: Role
    address: str
    language: str
    since: float


@dataclass(eq=False)
class _Page:
    ws: web.WebSocketResponse
    info: PageInfo
    page_id: str
    speech: Speech
    bucket: Bucket
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    sent: View | None = None
    sent_version: int = -1
    dropped: int = 0
    slow_told: float = 0.0
    messages_sent: int = 0
    bytes_sent: int = 0


@dataclass
class _Ledger:
    """The presses of one page, so a press sent again is answered, not applied again."""

    highest: int = 0
    answers: OrderedDict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=OrderedDict)


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
    ) -> None:
        self.keys = keys
        self.voices = voices or Voices(None)
        # The application every press goes through, and whose open game the pages follow.
        self.table = table
        self.host = host
        self.wanted_port = port if port is not None else (keys.port or DEFAULT_PORT)
        self.port: int | None = None
        self.game: Game | None = None
        #: Something the host shows changed: a page came or went, a seat was taken back.
        self.changes: Listeners[[]] = Listeners()
        self._pages: set[_Page] = set()
        self._ledgers: dict[int, OrderedDict[str, _Ledger]] = {}
        self._views: dict[tuple[Any, ...], tuple[tuple[Any, ...], View]] = {}
        self._bad_hellos: dict[str, Bucket] = {}
        self._unsubscribe: Callable[[], None] | None = None
        self._runner: web.AppRunner | None = None
        self._tasks = TaskSet("table link")
        self._sequence = 0
        self._stop_following: Callable[[], None] | None = None

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
        app = web.Application(client_max_size=MAX_MESSAGE_BYTES)
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._socket)
        for name in STATIC_FILES:
            app.router.add_get(f"/{name}", self._static)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            port = await self._bind(runner, self.wanted_port)
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        self.port = port
        self._stop_following = self.table.followers.add(self.set_game)
        self.set_game(self.table.game, self.table.game_id)
        return port

    async def _bind(self, runner: web.AppRunner, port: int) -> int:
        for attempt in (port, 0):
            site = web.TCPSite(runner, self.host, attempt, reuse_address=True)
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
        pages = list(self._pages)
        await asyncio.gather(*(self._close(page, "off") for page in pages))
        await self._tasks.cancel_all()
        stop_following, self._stop_following = self._stop_following, None
        if stop_following is not None:
            stop_following()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        self.port = None
        self.changes.emit()

    def url(self, role: Role, address: str) -> str:
        """The address a code for `role` carries: the page, with its secret after the `#`."""
        port = self.port or self.wanted_port
        return f"http://{_host_in_url(address)}:{port}/#k={self.keys.secret_of(role)}"

    # -- the game -------------------------------------------------------------------------

    def set_game(self, game: Game | None, game_id: str = "") -> None:
        """Follow another game (or none). A game other than the last one gets new seat
        secrets: its phones are told to scan again; boards follow on."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.game = game
        if game is not None:
            self._unsubscribe = game.subscribe(self._game_changed)
            if game_id and self.keys.for_game(game_id):
                self._ledgers.clear()
                for page in list(self._pages):
                    if page.info.role.writes:
                        self._tasks.spawn(self._close(page, "new_game"), "new game")
        self._game_changed(None)

    def _game_changed(self, _state: GameState | None) -> None:
        self._sequence += 1
        for page in self._pages:
            page.wake.set()

    # -- what the host does ---------------------------------------------------------------

    def pages(self) -> list[PageInfo]:
        """Every open page, oldest first."""
        return sorted((page.info for page in self._pages), key=lambda info: info.since)

    def take_back(self, seat: int) -> None:
        """The seat gets a new secret; its phones are told and can no longer press."""
        self.keys.take_back(seat)
        self._ledgers.pop(seat, None)
        for page in list(self._pages):
            if page.info.role.seat == seat and page.info.role.writes:
                self._tasks.spawn(self._close(page, "taken"), "seat taken back")
        self.changes.emit()

    def _wake_seat(self, seat: int) -> None:
        for page in self._pages:
            if page.info.role.seat == seat:
                page.wake.set()

    # -- HTTP -----------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.Response:
        speech = self.voices.for_browser(
            accepted_languages(request.headers.get("Accept-Language", ""))
        )
        html = _asset("index.html").decode()
        words = json.dumps(page_words(speech), ensure_ascii=False).replace("<", "\\u003c")
        html = html.replace("{{lang}}", speech.code.replace("_", "-"))
        html = html.replace("{{title}}", _escape(speech.gettext("Munchkin Companion")))
        html = html.replace("{{words}}", words)
        return web.Response(
            text=html, content_type="text/html", charset="utf-8", headers=_PAGE_HEADERS
        )

    async def _static(self, request: web.Request) -> web.Response:
        name = request.path.lstrip("/")
        headers = dict(_PAGE_HEADERS)
        if name == "sw.js":
            headers["Service-Worker-Allowed"] = "/"
        return web.Response(body=_asset(name), content_type=STATIC_FILES[name], headers=headers)

    # -- a page ---------------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        address = request.remote or "?"
        if not _same_origin(request):
            raise web.HTTPForbidden(text="this page belongs to another site")
        if (
            len(self._pages) >= MAX_PAGES
            or sum(1 for page in self._pages if page.info.address == address)
            >= MAX_PAGES_PER_ADDRESS
        ):
            raise web.HTTPServiceUnavailable(text="too many pages are open on the host")
        bad = self._bad_hellos.get(address)
        if bad is not None and not bad.available():
            raise web.HTTPTooManyRequests(text="too many wrong codes: wait a minute")
        ws = web.WebSocketResponse(
            max_msg_size=MAX_MESSAGE_BYTES, heartbeat=HEARTBEAT_S, autoping=True
        )
        await ws.prepare(request)
        page = await self._greet(ws, request, address)
        if page is None:
            return ws
        self._pages.add(page)
        self.changes.emit()
        sender = self._tasks.spawn(self._send_loop(page), f"page {address}")
        try:
            await self._read_loop(page)
        finally:
            self._pages.discard(page)
            await cancel_and_wait(sender)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), CLOSE_TIMEOUT_S)
            self.changes.emit()
        return ws

    async def _greet(
        self, ws: web.WebSocketResponse, request: web.Request, address: str
    ) -> _Page | None:
        """Read the hello; a page of ours gets its whole view, anyone else "ask the host"."""
        try:
            message = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT_S)
        except TimeoutError:
            await ws.close(message=b"no hello")
            return None
        hello = _parse(message)
        if not isinstance(hello, dict) or hello.get("t") != "hello":
            await _send_json(ws, {"t": "ask"})
            await ws.close(message=b"no hello")
            return None
        role = self.keys.who(hello.get("key"))
        if role is None:
            bucket = self._bad_hellos.setdefault(
                address, Bucket(1 / BAD_HELLO_REFILL_S, BAD_HELLOS)
            )
            bucket.take()
            if len(self._bad_hellos) > 1024:  # addresses seen long ago are forgotten
                self._bad_hellos.pop(next(iter(self._bad_hellos)))
            await _send_json(ws, {"t": "ask"})
            await ws.close(message=b"not a code of this table")
            return None
        langs = hello.get("langs")
        tags = [t for t in langs if isinstance(t, str)] if isinstance(langs, list) else []
        tags += accepted_languages(request.headers.get("Accept-Language", ""))
        speech = self.voices.for_browser(tags)
        page_id = hello.get("page")
        if not isinstance(page_id, str) or not 0 < len(page_id) <= MAX_PAGE_ID:
            page_id = f"anonymous-{id(ws)}"
        page = _Page(
            ws=ws,
            info=PageInfo(role=role, address=address, language=speech.code, since=time.time()),
            page_id=page_id,
            speech=speech,
            bucket=Bucket(RATE_PER_S, BURST),
        )
        view = self._view_for(page)
        page.sent, page.sent_version = view, self._sequence
        await self._send(
            page,
            {
                "t": "welcome",
                "role": role.kind,
                "seat": role.seat,
                "v": self._sequence,
                "view": view,
            },
        )
        return page

    async def _read_loop(self, page: _Page) -> None:
        ws = page.ws
        while True:
            message = await ws.receive()
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            if message.type == WSMsgType.ERROR:
                # Too large, or not a WebSocket frame at all: aiohttp has closed it.
                _LOGGER.info("page %s: %s", page.info.address, ws.exception())
                return
            if not page.bucket.take():
                page.dropped += 1
                if page.dropped >= FLOOD_CLOSE:
                    await ws.close(code=1008, message=b"too many messages")
                    return
                await self._slow_down(page, _parse(message))
                continue
            page.dropped = 0
            request = _parse(message)
            if request is None:
                await self._send(page, {"t": "error", "why": page.speech.say(NOT_JSON)})
                continue
            await self._answer(page, request)

    async def _slow_down(self, page: _Page, request: Any) -> None:
        """A message over the page's rate is not read: a press is answered as refused (the
        page may send it again later), anything else hears "slow down" once a second."""
        why = page.speech.say(SLOW_DOWN)
        asks = isinstance(request, dict) and request.get("t") in ("press", "roll")
        number = request.get("id") if asks else None
        if type(number) is int:
            await self._send(page, {"t": "ack", "id": number, "ok": False, "why": why})
            return
        now = time.monotonic()
        if now - page.slow_told > 1.0:
            page.slow_told = now
            await self._send(page, {"t": "error", "why": why})

    async def _answer(self, page: _Page, request: Any) -> None:
        kind = request.get("t") if isinstance(request, dict) else None
        if kind not in ("press", "roll"):
            said = unknown_request(kind if isinstance(kind, str) else type(request).__name__)
            await self._send(page, {"t": "error", "why": page.speech.say(said)})
            return
        number = request.get("id")
        if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < MAX_PRESS_ID:
            said = Phrase("A press needs a number from 1 on: {id}", id=str(number)[:20])
            await self._send(page, {"t": "error", "why": page.speech.say(said)})
            return
        role = page.info.role
        if not role.writes or role.seat is None:
            why = page.speech.gettext("This page can only watch the game")
            await self._send(page, {"t": "ack", "id": number, "ok": False, "why": why})
            return
        ledger = self._ledger(role.seat, page.page_id)
        known = ledger.answers.get(number)
        if known is not None:  # sent again after a reconnect: answered, never applied twice
            earlier = await asyncio.shield(known)
            await self._send(page, {"t": "ack", "id": number, **earlier, "again": True})
            return
        if number <= ledger.highest:  # older than what is remembered: it was answered then
            await self._send(page, {"t": "ack", "id": number, "ok": True, "again": True})
            return
        ledger.highest = number
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        ledger.answers[number] = future
        while len(ledger.answers) > PRESS_MEMORY:
            ledger.answers.popitem(last=False)
        answer: dict[str, Any] = {"ok": False, "why": page.speech.say(SAVE_FAILED)}
        try:
            if kind == "press":
                answer = await self._press(role.seat, request.get("press"), page.speech)
            else:
                answer = await self._roll(role.seat, request.get("face"), page.speech)
        finally:
            future.set_result(answer)
        await self._send(page, {"t": "ack", "id": number, **answer})

    def _ledger(self, seat: int, page_id: str) -> _Ledger:
        pages = self._ledgers.setdefault(seat, OrderedDict())
        ledger = pages.get(page_id)
        if ledger is None:
            ledger = pages[page_id] = _Ledger()
            while len(pages) > PAGES_PER_SEAT:
                pages.popitem(last=False)
        else:
            pages.move_to_end(page_id)
        return ledger

    async def _press(self, seat: int, what: object, speech: Speech) -> dict[str, Any]:
        try:
            press = Press(str(what))
        except ValueError:
            said = Phrase("There is no button called {name}", name=str(what)[:40])
            return {"ok": False, "why": speech.say(said)}
        if self.game is None:
            return {"ok": False, "why": speech.say(NO_GAME)}
        player = None if press in (Press.NEXT_TURN, Press.NEXT_PHASE) else seat
        outcome = self.table.press(press, player, "phone", seat=seat)
        return await self._answered(outcome, speech)

    async def _roll(self, seat: int, face: object, speech: Speech) -> dict[str, Any]:
        if face is not None and (isinstance(face, bool) or face not in range(1, 7)):
            said = Phrase("A die shows 1 to 6, not {face}", face=str(face)[:20])
            return {"ok": False, "why": speech.say(said)}
        if self.game is None:
            return {"ok": False, "why": speech.say(NOT_YOUR_ROLL)}
        outcome = self.table.take_roll(seat, face if isinstance(face, int) else None, "phone")
        return await self._answered(outcome, speech)

    async def _answered(self, outcome: Outcome, speech: Speech) -> dict[str, Any]:
        """A press's answer: refused with the rule's words in the page's language, or
        applied once its change is on disk."""
        if outcome.refused:
            return {"ok": False, "why": speech.say(outcome.why)}
        durable = self.table.durable(outcome)
        if durable is None:
            return {"ok": True}
        try:
            await durable
        except Exception as exc:  # applied and on every screen, but not on disk
            _LOGGER.warning("a phone's press could not be saved: %s", exc)
            return {"ok": True, "why": speech.say(SAVE_FAILED)}
        return {"ok": True}

    # -- sending --------------------------------------------------------------------------

    def _view_for(self, page: _Page) -> View | None:
        """The page's view of the current state, worked out once per language and role.

        A seat's view is kept while nothing it shows can have changed (the states are
        immutable, so an unchanged player is the very same object): a press by one player
        costs the other seats' pages nothing, not even a comparison of their views.
        """
        game = self.game
        if game is None:
            return None
        role = page.info.role
        offered = self.table.roll_offers().get(role.seat) if role.seat is not None else None
        offer = RollOffer(offered.seat, offered.monster) if offered is not None else None
        key = (role.kind, role.seat, page.speech.code, offer)
        state = game.state
        inputs = _inputs(state, role.seat)
        kept = self._views.get(key)
        if kept is not None and _same(kept[0], inputs):
            return kept[1]
        if role.kind == "board":
            view = board_view(state, page.speech)
        else:
            assert role.seat is not None
            view = seat_view(
                state,
                role.seat,
                page.speech,
                lambda action: game.check(action) is None,
                offer,
            )
        self._views[key] = (inputs, view)
        return view

    async def _send_loop(self, page: _Page) -> None:
        while True:
            await page.wake.wait()
            page.wake.clear()
            version = self._sequence
            view = self._view_for(page)
            if view is page.sent:
                continue  # nothing this page shows changed
            patch: list[list[Any]]
            if page.sent is None or view is None:
                patch = [[[], view]] if view != page.sent else []
            else:
                patch = changes(page.sent, view)
            page.sent, page.sent_version = view, version
            if patch:
                await self._send(page, {"t": "patch", "v": version, "set": patch})

    async def _send(self, page: _Page, message: dict[str, Any]) -> None:
        try:
            # A timeout scope, not wait_for: no task is made for each message sent.
            async with asyncio.timeout(SEND_TIMEOUT_S):
                sent = await _send_json(page.ws, message)
        except (TimeoutError, ConnectionError, RuntimeError):
            # Gone, or too slow to keep up: closed, and it comes back with a whole view.
            self._tasks.spawn(self._drop(page), "drop a page")
            return
        page.messages_sent += 1
        page.bytes_sent += sent

    async def _drop(self, page: _Page) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(page.ws.close(code=1001), CLOSE_TIMEOUT_S)

    async def _close(self, page: _Page, why: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(_send_json(page.ws, {"t": "bye", "why": why}), CLOSE_TIMEOUT_S)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(page.ws.close(code=1000), CLOSE_TIMEOUT_S)

    # -- for tests and the benchmark ------------------------------------------------------

    def traffic(self) -> dict[str, tuple[int, int]]:
        """Messages and bytes sent to each open page so far, by a name for the page."""
        return {
            f"{page.info.role.kind}{'' if page.info.role.seat is None else page.info.role.seat}"
            f"@{page.page_id}": (page.messages_sent, page.bytes_sent)
            for page in self._pages
        }


def _inputs(state: GameState, seat: int | None) -> tuple[Any, ...]:
    """What a page's view is made of: all of the state for the board; for a seat, its own
    player and what the turn, the fight and the rules' limits depend on."""
    if seat is None:
        return (state,)
    player = state.players[seat] if 0 <= seat < len(state.players) else None
    return (
        state.setup,
        player,
        state.current,
        state.turn,
        state.phase,
        state.combat,
        state.winners,
        state.winning_level,
    )


def _same(kept: tuple[Any, ...], now: tuple[Any, ...]) -> bool:
    """Whether two views' inputs are the same: the very same objects, or equal numbers."""
    return all(
        a is b or (type(a) is int and type(b) is int and a == b) or (a == () and b == ())
        for a, b in zip(kept, now, strict=True)
    )


async def _send_json(ws: web.WebSocketResponse, message: dict[str, Any]) -> int:
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    await ws.send_str(text)
    return len(text.encode())


def _parse(message: Any) -> Any:
    """A page's message as JSON data, or None when it is not JSON text."""
    if message.type != WSMsgType.TEXT:
        return None
    try:
        return json.loads(message.data)
    except (ValueError, RecursionError):
        return None


def _same_origin(request: web.Request) -> bool:
    """A browser names the page that opened a socket: it must be one of ours.

    Pages of other sites (or a name rebound to this address) are refused; a client
    that is not a browser sends no Origin and is judged by its secret alone.
    """
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == request.host.lower()


def _host_in_url(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


STATIC_FILES: dict[str, str] = {
    "app.js": "text/javascript",
    "app.css": "text/css",
    "sw.js": "text/javascript",
    "icon.svg": "image/svg+xml",
}
_PAGE_HEADERS = {
    # Everything comes from the host itself; nothing runs that it did not serve.
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def _asset(name: str) -> bytes:
    return resources.files("companion.web").joinpath("static", name).read_bytes()
