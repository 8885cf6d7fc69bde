"""One open page of the table link: its WebSocket session, from hello to goodbye.

A page says hello with the secret from its code (keys.py): a seat's secret lets it
press for that seat, the board's only lets it watch, anything else gets the "ask the
host" answer and is closed. A page that is in gets its whole view (welcome), then, each
time the game changes, what changed of it (patch). A press or a run-away roll goes to
the table (`companion.table.app.Table`), the one place that decides what a press may
do for counters and phones alike, and is answered (ack) once the game has saved it.
Each page numbers its presses; the ledger of a seat's pages answers a press sent again
(after a reconnect, or replayed) without applying it twice. aiohttp's heartbeat pings
every page, and a page over its message rate is told to slow down (limits.py).

`LinkState` is what every page's session shares with the others, the HTTP handlers
(routes.py) and the middlewares (middleware.py); the application keeps it under `LINK`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from companion.core import Game, GameState
from companion.core.phrase import Phrase
from companion.core.presses import Press
from companion.plumbing.listeners import Listeners
from companion.plumbing.tasks import TaskSet, cancel_and_wait
from companion.table.app import Table
from companion.table.outcome import SAVE_FAILED, Outcome
from companion.web.cache import ViewCache
from companion.web.hosts import ServedNames
from companion.web.keys import Role, TableKeys
from companion.web.limits import (
    BURST,
    CLOSE_TIMEOUT_S,
    FLOOD_CLOSE,
    HELLO_TIMEOUT_S,
    MAX_BOARDS,
    MAX_BOARDS_PER_ADDRESS,
    MAX_PAGE_ID,
    MAX_PAGES_PER_SEAT,
    MAX_PRESS_ID,
    PAGES_PER_SEAT,
    PRESS_MEMORY,
    RATE_PER_S,
    SEND_TIMEOUT_S,
    Bucket,
    WrongCodes,
    counted_address,
)
from companion.web.sockets import SocketGuard
from companion.web.speech import Speech, Voices, accepted_languages
from companion.web.views import RollOffer, View, changes
from companion.web.words import (
    NOT_JSON,
    PAGES_FULL,
    SLOW_DOWN,
    unknown_request,
)

_LOGGER = logging.getLogger(__name__)


@dataclass
class PageInfo:
    """What the host shows of one open page."""

    role: Role
    address: str
    language: str
    since: float


@dataclass
class Ledger:
    """The presses of one page, so a press sent again is answered, not applied again."""

    highest: int = 0
    answers: OrderedDict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=OrderedDict)


class PressLedgers:
    """The ledgers of the last `PAGES_PER_SEAT` pages of each seat (a reload is a new page)."""

    def __init__(self) -> None:
        self._seats: dict[int, OrderedDict[str, Ledger]] = {}

    def of(self, seat: int, page_id: str) -> Ledger:
        pages = self._seats.setdefault(seat, OrderedDict())
        ledger = pages.get(page_id)
        if ledger is None:
            ledger = pages[page_id] = Ledger()
            while len(pages) > PAGES_PER_SEAT:
                pages.popitem(last=False)
        else:
            pages.move_to_end(page_id)
        return ledger

    def forget(self, seat: int) -> None:
        """The seat was taken back: its presses are no longer answered as its own."""
        self._seats.pop(seat, None)

    def clear(self) -> None:
        self._seats.clear()


class LinkState:
    """What the link's handlers, middlewares and page sessions share: the table and the game
    the pages follow, the secrets, the open pages with their press ledgers and views."""

    def __init__(self, *, keys: TableKeys, voices: Voices, table: Table) -> None:
        self.keys = keys
        self.voices = voices
        # The application every press goes through, and whose open game the pages follow.
        self.table = table
        self.game: Game | None = None
        # Counts the game's changes: a page's messages carry it as their version.
        self.sequence = 0
        #: Something the host shows changed: a page came or went, a seat was taken back.
        self.changes: Listeners[[]] = Listeners()
        self.pages: set[PageSession] = set()
        self.ledgers = PressLedgers()
        self.views = ViewCache()
        self.wrong_codes = WrongCodes()
        #: The names and addresses a request must be addressed to (hosts.py).
        self.served = ServedNames()
        #: The sockets of the site the link serves through, while it serves (sockets.py).
        self.sockets: SocketGuard | None = None
        self.tasks = TaskSet("table link")

    def game_changed(self, _state: GameState | None = None) -> None:
        """Every page is woken to work out its view again."""
        self.sequence += 1
        for page in self.pages:
            page.wake.set()

    def has_room(self, role: Role, address: str) -> bool:
        """Whether one more page for `role` may open from `address`: a seat's pages are
        counted per seat (`MAX_PAGES_PER_SEAT`), boards apart from seats (`MAX_BOARDS`, and
        `MAX_BOARDS_PER_ADDRESS` from one address, an IPv6 one with the rest of its /64), so
        boards never take a seat's place."""
        if role.writes:
            return sum(1 for page in self.pages if page.info.role == role) < MAX_PAGES_PER_SEAT
        boards = [page for page in self.pages if not page.info.role.writes]
        counted = counted_address(address)  # an IPv6 address with its /64
        from_there = sum(1 for page in boards if counted_address(page.info.address) == counted)
        return len(boards) < MAX_BOARDS and from_there < MAX_BOARDS_PER_ADDRESS

    def close_writers(self, why: str, seat: int | None = None) -> None:
        """Tell the pages that press (for `seat`, or for any seat) why they end, and close them."""
        for page in list(self.pages):
            role = page.info.role
            if role.writes and (seat is None or role.seat == seat):
                self.tasks.spawn(page.close(why), f"close a page: {why}")

    def view_for(self, page: PageSession) -> View | None:
        """The page's view of the current state (None while no game is open)."""
        game = self.game
        if game is None:
            return None
        role = page.info.role
        offered = self.table.roll_offers().get(role.seat) if role.seat is not None else None
        offer = RollOffer(offered.seat, offered.monster) if offered is not None else None
        view = self.views.view(game, role, page.speech, offer)
        # The kill's countdown is read as it is now, never kept with the view: a page
        # counts the seconds down itself from what it is sent.
        countdown = self.table.countdown
        left = round(countdown.remaining(), 1) if countdown.running else None
        return {**view, "kill": {"left": left} if left is not None else None}


LINK = web.AppKey("link", LinkState)


def address_of(request: web.Request) -> str:
    return request.remote or "?"


@dataclass(eq=False)
class PageSession:
    """One page's WebSocket: what it was sent, and its loops for reading and sending."""

    link: LinkState
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

    @classmethod
    async def greet(
        cls, link: LinkState, ws: web.WebSocketResponse, request: web.Request
    ) -> PageSession | None:
        """Read the hello; a page of ours gets its whole view, anyone else "ask the host"."""
        address = address_of(request)
        try:
            message = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT_S)
        except TimeoutError:
            await ws.close(message=b"no hello")
            return None
        hello = parse(message)
        if not isinstance(hello, dict) or hello.get("t") != "hello":
            await send_json(ws, {"t": "ask"})
            await ws.close(message=b"no hello")
            return None
        role = link.keys.who(hello.get("key"))
        if role is None:
            link.wrong_codes.note(address)
            await send_json(ws, {"t": "ask"})
            await ws.close(message=b"not a code of this table")
            return None
        langs = hello.get("langs")
        tags = [t for t in langs if isinstance(t, str)] if isinstance(langs, list) else []
        tags += accepted_languages(request.headers.get("Accept-Language", ""))
        speech = link.voices.for_browser(tags)
        if not link.has_room(role, address):
            # Told why; the page tries again later on its own (1013: try again later).
            await send_json(ws, {"t": "error", "why": speech.gettext(PAGES_FULL)})
            await ws.close(code=1013, message=b"too many pages")
            return None
        page_id = hello.get("page")
        if not isinstance(page_id, str) or not 0 < len(page_id) <= MAX_PAGE_ID:
            page_id = f"anonymous-{id(ws)}"
        page = cls(
            link=link,
            ws=ws,
            info=PageInfo(role=role, address=address, language=speech.code, since=time.time()),
            page_id=page_id,
            speech=speech,
            bucket=Bucket(RATE_PER_S, BURST),
        )
        # Counted from here on, before anything is awaited: pages saying hello at the same
        # time cannot pass a cap together.
        link.pages.add(page)
        try:
            view = link.view_for(page)
            page.sent, page.sent_version = view, link.sequence
            await page.send(
                {
                    "t": "welcome",
                    "role": role.kind,
                    "seat": role.seat,
                    "v": link.sequence,
                    "view": view,
                }
            )
        except BaseException:
            link.pages.discard(page)
            raise
        return page

    async def run(self) -> None:
        """Follow the game until the page goes (or is closed), then forget it."""
        link = self.link
        link.pages.add(self)  # greet counted it already
        link.changes.emit()
        sender = link.tasks.spawn(self._send_loop(), f"page {self.info.address}")
        try:
            await self._read_loop()
        finally:
            link.pages.discard(self)
            await cancel_and_wait(sender)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), CLOSE_TIMEOUT_S)
            link.changes.emit()

    # -- reading --------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        ws = self.ws
        while True:
            message = await ws.receive()
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            if message.type == WSMsgType.ERROR:
                # Too large, or not a WebSocket frame at all: aiohttp has closed it.
                _LOGGER.info("page %s: %s", self.info.address, ws.exception())
                return
            if not self.bucket.take():
                self.dropped += 1
                if self.dropped >= FLOOD_CLOSE:
                    await ws.close(code=1008, message=b"too many messages")
                    return
                await self._slow_down(parse(message))
                continue
            self.dropped = 0
            request = parse(message)
            if request is None:
                await self.send({"t": "error", "why": self.speech.say(NOT_JSON)})
                continue
            await self._answer(request)

    async def _slow_down(self, request: Any) -> None:
        """A message over the page's rate is not read: a press is answered as refused (the
        page may send it again later), anything else hears "slow down" once a second."""
        why = self.speech.say(SLOW_DOWN)
        asks = isinstance(request, dict) and request.get("t") in ("press", "roll")
        number = request.get("id") if asks else None
        if type(number) is int:
            await self.send({"t": "ack", "id": number, "ok": False, "why": why})
            return
        now = time.monotonic()
        if now - self.slow_told > 1.0:
            self.slow_told = now
            await self.send({"t": "error", "why": why})

    async def _answer(self, request: Any) -> None:
        speech = self.speech
        kind = request.get("t") if isinstance(request, dict) else None
        if kind not in ("press", "roll"):
            said = unknown_request(kind if isinstance(kind, str) else type(request).__name__)
            await self.send({"t": "error", "why": speech.say(said)})
            return
        number = request.get("id")
        if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < MAX_PRESS_ID:
            said = Phrase("A press needs a number from 1 on: {id}", id=str(number)[:20])
            await self.send({"t": "error", "why": speech.say(said)})
            return
        role = self.info.role
        if not role.writes or role.seat is None:
            why = speech.gettext("This page can only watch the game")
            await self.send({"t": "ack", "id": number, "ok": False, "why": why})
            return
        ledger = self.link.ledgers.of(role.seat, self.page_id)
        known = ledger.answers.get(number)
        if known is not None:  # sent again after a reconnect: answered, never applied twice
            earlier = await asyncio.shield(known)
            await self.send({"t": "ack", "id": number, **earlier, "again": True})
            return
        if number <= ledger.highest:  # older than what is remembered: it was answered then
            await self.send({"t": "ack", "id": number, "ok": True, "again": True})
            return
        ledger.highest = number
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        ledger.answers[number] = future
        while len(ledger.answers) > PRESS_MEMORY:
            ledger.answers.popitem(last=False)
        answer: dict[str, Any] = {"ok": False, "why": speech.say(SAVE_FAILED)}
        try:
            if kind == "press":
                answer = await self._press(role.seat, request.get("press"))
            else:
                answer = await self._roll(role.seat, request.get("face"))
        finally:
            future.set_result(answer)
        await self.send({"t": "ack", "id": number, **answer})

    async def _press(self, seat: int, what: object) -> dict[str, Any]:
        if what == "kill":  # the fighter calls the kill: the table's countdown starts
            return await self._answered(self.link.table.kill("phone", seat))
        if what == "wait":  # anyone interferes: the countdown stops
            return await self._answered(self.link.table.interfere("phone", seat))
        try:
            press = Press(str(what))
        except ValueError:
            said = Phrase("There is no button called {name}", name=str(what)[:40])
            return {"ok": False, "why": self.speech.say(said)}
        player = None if press in (Press.NEXT_TURN, Press.NEXT_PHASE) else seat
        outcome = self.link.table.press(press, player, "phone", seat=seat)
        return await self._answered(outcome)

    async def _roll(self, seat: int, face: object) -> dict[str, Any]:
        if face is not None and (isinstance(face, bool) or face not in range(1, 7)):
            said = Phrase("A die shows 1 to 6, not {face}", face=str(face)[:20])
            return {"ok": False, "why": self.speech.say(said)}
        outcome = self.link.table.take_roll(seat, face if isinstance(face, int) else None, "phone")
        return await self._answered(outcome)

    async def _answered(self, outcome: Outcome) -> dict[str, Any]:
        """A press's answer: refused with the rule's words in the page's language, or
        applied once its change is on disk."""
        if outcome.refused:
            return {"ok": False, "why": self.speech.say(outcome.why)}
        durable = self.link.table.durable(outcome)
        if durable is None:
            return {"ok": True}
        try:
            await durable
        except Exception as exc:  # applied and on every screen, but not on disk
            _LOGGER.warning("a phone's press could not be saved: %s", exc)
            return {"ok": True, "why": self.speech.say(SAVE_FAILED)}
        return {"ok": True}

    # -- sending --------------------------------------------------------------------------

    async def _send_loop(self) -> None:
        link = self.link
        while True:
            await self.wake.wait()
            self.wake.clear()
            version = link.sequence
            view = link.view_for(self)
            if view is self.sent:
                continue  # nothing this page shows changed
            patch: list[list[Any]]
            if self.sent is None or view is None:
                patch = [[[], view]] if view != self.sent else []
            else:
                patch = changes(self.sent, view)
            self.sent, self.sent_version = view, version
            if patch:
                await self.send({"t": "patch", "v": version, "set": patch})

    async def send(self, message: dict[str, Any]) -> None:
        try:
            # A timeout scope, not wait_for: no task is made for each message sent.
            async with asyncio.timeout(SEND_TIMEOUT_S):
                sent = await send_json(self.ws, message)
        except (TimeoutError, ConnectionError, RuntimeError):
            # Gone, or too slow to keep up: closed, and it comes back with a whole view.
            self.link.tasks.spawn(self._drop(), "drop a page")
            return
        self.messages_sent += 1
        self.bytes_sent += sent

    async def _drop(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=1001), CLOSE_TIMEOUT_S)

    async def close(self, why: str) -> None:
        """Say goodbye ("taken", "new_game", "off") and close the socket."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(send_json(self.ws, {"t": "bye", "why": why}), CLOSE_TIMEOUT_S)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=1000), CLOSE_TIMEOUT_S)


async def send_json(ws: web.WebSocketResponse, message: dict[str, Any]) -> int:
    """Send a message as compact JSON text; the bytes it took."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    await ws.send_str(text)
    return len(text.encode())


def parse(message: Any) -> Any:
    """A page's message as JSON data, or None when it is not JSON text."""
    if message.type != WSMsgType.TEXT:
        return None
    try:
        return json.loads(message.data)
    except (ValueError, RecursionError):
        return None
