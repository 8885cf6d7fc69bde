"""A page of the table link without a browser: what scripted phones, the tests and the
benchmark use. It speaks the page's protocol exactly as app.js does: hello with the
secret, a whole view and then changes, numbered presses sent again after a reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from companion.plumbing.tasks import TaskSet

_LOGGER = logging.getLogger(__name__)

RETRY_S = (0.1, 0.3, 1.0, 2.0)  # waits between tries to reconnect (the page's are alike)
ANSWER_TIMEOUT_S = 10.0  # a press unanswered for this long is reported, not waited on forever


class Refused(Exception):
    """The host answered with a refusal that ended the page: ask, taken back, a new game."""


class TableClient:
    """One page: `url` is a code's address (`http://host:port/#k=<secret>`).

    With `reconnect`, a dropped socket is opened again with backoff and the presses
    not answered yet go again (the host answers each once).
    """

    def __init__(
        self,
        url: str,
        *,
        langs: tuple[str, ...] = ("en",),
        reconnect: bool = True,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        parts = urlsplit(url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        fragment = dict(p.split("=", 1) for p in parts.fragment.split("&") if "=" in p)
        self.key = fragment.get("k", "")
        self.langs = list(langs)
        self.reconnect = reconnect
        self.page_id = secrets.token_hex(8)
        self.role: str | None = None
        self.seat: int | None = None
        self.view: Any = None
        self.version = -1
        self.ended: str | None = None  # "ask", "taken", "new_game", "off"
        self.errors: list[str] = []
        self.messages = 0
        self.bytes = 0
        self.welcomes = 0
        #: Called with every message as it arrives, and the loop time it arrived at.
        self.on_message: Callable[[dict[str, Any], float], None] | None = None
        self._session = session
        self._own_session = session is None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._next_id = 1
        self._pending: dict[int, dict[str, Any]] = {}
        self._answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._changed = asyncio.Event()
        self._welcomed = asyncio.Event()
        self._tasks = TaskSet("table client")
        self._closing = False

    # -- life ------------------------------------------------------------------------------

    async def connect(self, timeout_s: float = 10.0) -> None:
        """Open the page and wait for the host's welcome (raises `Refused` on "ask")."""
        if self._session is None:
            self._session = aiohttp.ClientSession()
        self._tasks.spawn(self._run(), "page")
        async with asyncio.timeout(timeout_s):
            while not self._welcomed.is_set():
                if self.ended is not None:
                    raise Refused(self.ended)
                self._changed.clear()
                await self._changed.wait()

    async def close(self) -> None:
        """Close the page for good."""
        self._closing = True
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        await self._tasks.cancel_all()
        if self._own_session and self._session is not None:
            await self._session.close()
        for future in self._answers.values():
            if not future.done():
                future.cancel()

    async def drop(self) -> None:
        """Lose the connection as a phone losing Wi-Fi does (it comes back on its own)."""
        ws = self._ws
        if ws is not None:
            self._welcomed.clear()
            with contextlib.suppress(Exception):
                await ws.close(code=1001)

    @property
    def connected(self) -> bool:
        return self._welcomed.is_set() and self._ws is not None and not self._ws.closed

    # -- what a player does ---------------------------------------------------------------

    def send_press(self, what: str) -> asyncio.Future[dict[str, Any]]:
        """Press a button; the future gets the host's answer (`ok`, and `why` if refused)."""
        return self._request({"t": "press", "press": what})

    async def press(self, what: str, timeout_s: float = ANSWER_TIMEOUT_S) -> dict[str, Any]:
        """Press a button and wait for the answer."""
        future = self.send_press(what)
        async with asyncio.timeout(timeout_s):
            return await asyncio.shield(future)

    async def roll(self, face: int | None, timeout_s: float = ANSWER_TIMEOUT_S) -> dict[str, Any]:
        """Roll for the run-away the host waits for: a face, or None for the host to roll."""
        future = self._request({"t": "roll", "face": face})
        return await asyncio.wait_for(asyncio.shield(future), timeout_s)

    async def send_raw(self, text: str | bytes) -> None:
        """Send anything at all (for tests of what the host does with bad input)."""
        assert self._ws is not None
        if isinstance(text, bytes):
            await self._ws.send_bytes(text)
        else:
            await self._ws.send_str(text)

    async def wait_for(
        self, condition: Callable[[Any], bool], timeout_s: float = 10.0, what: str = ""
    ) -> None:
        """Wait until `condition(view)` holds."""
        try:
            async with asyncio.timeout(timeout_s):
                while not (self.view is not None and condition(self.view)):
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise TimeoutError(f"the page never showed {what or condition}: {self.view}") from None

    async def wait_ended(self, timeout_s: float = 10.0) -> str:
        """Wait until the host ends this page (taken back, a new game, not a code of
        its table); returns why."""
        try:
            async with asyncio.timeout(timeout_s):
                while self.ended is None:
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise TimeoutError(f"the host never ended the page: {self.view}") from None
        return self.ended

    @property
    def unanswered(self) -> int:
        """Presses sent and not answered yet."""
        return len(self._pending)

    # -- inside ----------------------------------------------------------------------------

    def take_id(self) -> int:
        """The number the next request gets (presses are numbered 1, 2, ... per page)."""
        number = self._next_id
        self._next_id += 1
        return number

    def _request(self, message: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        number = self.take_id()
        message = {**message, "id": number}
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[number] = message
        self._answers[number] = future
        if self.connected:
            self._tasks.spawn(self._send(message), "press")
        return future

    async def _send(self, message: dict[str, Any]) -> None:
        ws = self._ws
        if ws is None or ws.closed:
            return  # sent again after the reconnect
        with contextlib.suppress(ConnectionError, RuntimeError, aiohttp.ClientError):
            await ws.send_str(json.dumps(message))

    async def _run(self) -> None:
        failures = 0
        assert self._session is not None
        while not self._closing and self.ended is None:
            try:
                async with self._session.ws_connect(f"{self.base}/ws", heartbeat=None) as ws:
                    self._ws = ws
                    hello = {"t": "hello", "key": self.key, "page": self.page_id}
                    await ws.send_str(json.dumps({**hello, "langs": self.langs}))
                    async for message in ws:
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        failures = 0
                        # The bytes as they came (not the message written out again).
                        await self._take(json.loads(message.data), len(message.data.encode()))
            except (aiohttp.ClientError, ConnectionError, OSError) as exc:
                _LOGGER.debug("page %s: %s", self.page_id, exc)
            finally:
                self._ws = None
                self._welcomed.clear()
                self._changed.set()
            if not self.reconnect or self._closing or self.ended is not None:
                break
            await asyncio.sleep(RETRY_S[min(failures, len(RETRY_S) - 1)])
            failures += 1

    async def _take(self, message: dict[str, Any], size: int) -> None:
        now = asyncio.get_running_loop().time()
        self.messages += 1
        self.bytes += size
        kind = message.get("t")
        if kind == "welcome":
            self.role, self.seat = message["role"], message["seat"]
            self.view, self.version = message["view"], message["v"]
            self.welcomes += 1
            self._welcomed.set()
            for pending in list(self._pending.values()):
                await self._send(pending)
        elif kind == "patch":
            for path, value in message["set"]:
                self.view = _patched(self.view, path, value)
            self.version = message["v"]
        elif kind == "ack":
            self._pending.pop(message["id"], None)
            future = self._answers.pop(message["id"], None)
            if future is not None and not future.done():
                future.set_result(message)
        elif kind == "error":
            self.errors.append(message.get("why", ""))
        elif kind == "ask":
            self.ended = "ask"
        elif kind == "bye":
            self.ended = message.get("why", "bye")
            if self.ended == "off":
                self.ended = None if self.reconnect else "off"
        if self.on_message is not None:
            self.on_message(message, now)
        self._changed.set()


def _patched(view: Any, path: list[Any], value: Any) -> Any:
    """`view` with the value at `path` replaced (an empty path replaces the whole view)."""
    if not path:
        return value
    target = view
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return view
