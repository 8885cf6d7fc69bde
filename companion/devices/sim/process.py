"""The process virtual counters run in (`host`), and the pipe to it: started as the app opens.

Light to import on purpose: `start_early` runs before the app loads Kivy, so the
host's own imports (the BLE stack, the firmware) overlap the app's on another core.
The bleak backend and the fleet built on it are in `remote`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from companion.plumbing.errors import CompanionError
from companion.plumbing.tasks import guarded

log = logging.getLogger(__name__)

HOST_MODULE = "companion.devices.sim.host"
PROTOCOL = 2  # `host.PROTOCOL`, the messages this side speaks
READY_TIMEOUT_S = 60.0  # s: the host loads the BLE stack first; a busy machine is slow at it
REQUEST_TIMEOUT_S = 30.0  # s: no request takes long unless the host is stuck
EXIT_STATUS_WAIT_S = 1.0  # s: a process whose pipe closed is ending; its status comes at once
STOP_TIMEOUT_S = 3.0  # s: switching off takes milliseconds; past this the process is ended

Listener = Callable[[dict[str, Any]], None]


class HostError(CompanionError):
    """The host could not do what was asked (its own words say why)."""


class HostGoneError(HostError):
    """The counters' process ended (or never answered): its counters are gone with it."""


def can_spawn() -> bool:
    """True where the app can start a second Python process for its virtual counters."""
    if "ANDROID_ARGUMENT" in os.environ or "ANDROID_PRIVATE" in os.environ:
        return False
    return bool(sys.executable) and os.path.exists(sys.executable)


class HostProcess:
    """One `host` process and the pipe to it: requests with answers, and events."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ident_of: dict[asyncio.Future[dict[str, Any]], int] = {}
        self._listeners: dict[str, list[Listener]] = {}
        self._writer: asyncio.WriteTransport | None = None
        self._reading: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[dict[str, Any]] | None = None
        self._attaching: asyncio.Lock | None = None
        self.gone: str | None = None  # why the host is gone, once it is
        # Requests sent ahead of the app's need (`ask_ahead`): op -> (fields, answer).
        self._ahead: dict[str, tuple[dict[str, Any], asyncio.Future[dict[str, Any]]]] = {}

    @classmethod
    def spawn(cls, *, prestart: bool = False) -> HostProcess:
        """Start the host process now (no event loop needed: the app may not have one yet);
        with `prestart` it starts the counters the app starts by default at once."""
        process = subprocess.Popen(
            [sys.executable, "-m", HOST_MODULE, *(["--prestart"] if prestart else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
        )
        return cls(process)

    @property
    def alive(self) -> bool:
        """True while the process runs and its pipe is open."""
        return self.gone is None and self.process.poll() is None

    async def attach(self) -> None:
        """Read the host's pipe on the running loop, once it says it is ready."""
        if self._attaching is None:
            self._attaching = asyncio.Lock()
        async with self._attaching:
            if self._reading is None:
                await self._connect_pipes()
        if self._ready is None:
            raise HostGoneError("the virtual counters' process was not started")
        try:
            async with asyncio.timeout(READY_TIMEOUT_S):
                hello = await asyncio.shield(self._ready)
        except TimeoutError:
            self._lost(f"it did not start within {READY_TIMEOUT_S:g} s")
            raise HostGoneError(f"the virtual counters did not start: {self.gone}") from None
        if hello.get("protocol") != PROTOCOL:
            self._lost(f"it speaks version {hello.get('protocol')!r}, not {PROTOCOL}")
            raise HostGoneError(f"the virtual counters' process is not this app's: {self.gone}")

    async def _connect_pipes(self) -> None:
        loop = asyncio.get_running_loop()
        stdout, stdin = self.process.stdout, self.process.stdin
        assert stdout is not None and stdin is not None
        reader = asyncio.StreamReader(limit=1 << 20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdout)
        self._writer, _protocol = await loop.connect_write_pipe(asyncio.Protocol, stdin)
        self._ready = loop.create_future()
        self._reading = asyncio.ensure_future(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        why = "it ended"
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                try:
                    message = json.loads(line)
                except ValueError:
                    log.warning("virtual counters: a line that is not a message: %.80r", line)
                    continue
                if isinstance(message, dict):
                    self._dispatch(message)
        except (OSError, ValueError) as exc:
            why = f"its pipe failed: {exc}"
        code = self.process.poll()
        if code is None:  # its pipe closes as it ends: a moment for its status
            loop = asyncio.get_running_loop()
            with contextlib.suppress(TimeoutError):
                code = await asyncio.wait_for(
                    loop.run_in_executor(None, self.process.wait), EXIT_STATUS_WAIT_S
                )
        if code is not None and code != 0:
            why = f"it ended with status {code}"
        self._lost(why)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "re" in message:
            future = self._pending.pop(int(message["re"]), None)
            if future is not None and not future.done():
                future.set_result(message)
            return
        event = str(message.get("ev"))
        if event == "ready" and self._ready is not None and not self._ready.done():
            self._ready.set_result(message)
        for listener in list(self._listeners.get(event, ())):
            listener(message)

    def _lost(self, why: str) -> None:
        if self.gone is not None:
            return
        self.gone = why
        log.info("virtual counters' process: %s", why)
        error = HostGoneError(f"the virtual counters stopped: {why}")
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(error)
            self._ready.exception()  # retrieved here: nobody may be waiting for it
        for listener in list(self._listeners.get("gone", ())):
            listener({"ev": "gone", "why": why})

    def listen(self, event: str, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call `listener(message)` on every event of this kind ("gone" when the host ends);
        returns an unregister."""
        listeners = self._listeners.setdefault(event, [])
        wrapped = guarded(listener, f"virtual counters: {event} listener")
        listeners.append(wrapped)

        def unregister() -> None:
            with contextlib.suppress(ValueError):
                listeners.remove(wrapped)

        return unregister

    def send(self, op: str, **fields: Any) -> int:
        """Send one request without waiting for its answer; returns its id."""
        if self.gone is not None or self._writer is None or self._writer.is_closing():
            raise HostGoneError(f"the virtual counters stopped: {self.gone or 'not attached'}")
        ident = next(self._ids)
        message = {"id": ident, "op": op, **fields}
        self._writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return ident

    def post(self, op: str, **fields: Any) -> asyncio.Future[dict[str, Any]]:
        """Send a request now; its answer (error or not) completes the future returned."""
        ident = self.send(op, **fields)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        self._ident_of[future] = ident
        future.add_done_callback(self._ident_of.pop)
        return future

    async def ask_ahead(self, op: str, **fields: Any) -> None:
        """Send a request the app will make later, now, without waiting for its answer:
        `take_ahead` with the same fields gets it then. The host answers once ready.
        The same request asked ahead again is not sent twice."""
        sent = self._ahead.get(op)
        if sent is not None and sent[0] == fields:
            return
        if self._reading is None:
            await self._connect_pipes()
        answer = self.post(op, **fields)
        answer.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._ahead[op] = (fields, answer)

    def asked_ahead(self, op: str) -> dict[str, Any] | None:
        """The fields of the request `op` sent ahead and not taken yet (None: none is)."""
        sent = self._ahead.get(op)
        return dict(sent[0]) if sent is not None else None

    async def take_ahead(
        self, op: str, *, timeout_s: float = REQUEST_TIMEOUT_S, **fields: Any
    ) -> dict[str, Any] | None:
        """The answer to a request sent ahead with these very fields (None: none was)."""
        sent = self._ahead.pop(op, None)
        if sent is None or sent[0] != fields:
            return None
        async with asyncio.timeout(timeout_s):
            answer = await sent[1]
        if "error" in answer:
            raise HostError(str(answer["error"]))
        return answer

    async def request(
        self, op: str, *, timeout_s: float = REQUEST_TIMEOUT_S, **fields: Any
    ) -> dict[str, Any]:
        """Send a request and wait for its answer; a failure comes back as `HostError`
        (`HostGoneError` when the host is gone) or `TimeoutError`."""
        future = self.post(op, **fields)
        ident = self._ident_of[future]
        try:
            async with asyncio.timeout(timeout_s):
                answer = await future
        finally:
            self._pending.pop(ident, None)
        if "error" in answer:
            if answer.get("kind") == "timeout":
                raise TimeoutError(str(answer["error"]))
            raise HostError(str(answer["error"]))
        return answer

    async def stop(self) -> None:
        """Ask the host to switch everything off and end; end it if it does not."""
        if self._writer is not None and self.alive:
            with contextlib.suppress(HostError, TimeoutError):
                await self.request("stop", timeout_s=STOP_TIMEOUT_S)
        if self._writer is not None:
            self._writer.close()
        elif self.process.stdin is not None:
            self.process.stdin.close()  # never attached: its end of the pipe closes
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(None, self.process.wait), STOP_TIMEOUT_S)
        except TimeoutError:
            self.process.kill()
            await loop.run_in_executor(None, self.process.wait)
        if self._reading is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reading
        self._lost("it was switched off")
        if self.process.stdout is not None and self._reading is None:
            self.process.stdout.close()


# -- one host started as the app opens ---------------------------------------------------

_early: HostProcess | None = None


def start_early() -> None:
    """Start the virtual counters' process now, before the app loads Kivy and its game, so
    its imports run on another core meanwhile. Taken by the first `RemoteFleet`; the
    process ends with the app even if nothing takes it (its input closes)."""
    global _early
    if _early is None and can_spawn():
        try:
            _early = HostProcess.spawn(prestart=True)
        except OSError as exc:  # the app starts them later, or says why it cannot
            log.warning("could not start the virtual counters early: %s", exc)


def take_host() -> HostProcess:
    """The host started early if it still runs, else a new one."""
    global _early
    host, _early = _early, None
    if host is not None and host.process.poll() is None:
        return host
    return HostProcess.spawn()


async def start_counters_ahead(players: int) -> None:
    """Ask the host started early for the app's default counters for `players` now,
    before the app loads its device layer, so it connects its adapter to them meanwhile
    (`host` "start" with connect_ahead; `RemoteFleet.start` takes the answer). Nothing
    happens without an early host; if real counters answer, it ends with the host."""
    host = _early
    if host is None or not host.alive:
        return
    try:
        await host.ask_ahead("start", players=players, setup={}, connect_ahead=True)
    except (HostError, OSError) as exc:  # asked again when the counters are wanted
        log.info("could not ask the virtual counters ahead: %s", exc)


def asked_ahead(op: str) -> dict[str, Any] | None:
    """What the host started early was asked ahead for `op` and not yet given (None: it
    was not asked, it was taken, or there is no such host)."""
    host = _early
    return host.asked_ahead(op) if host is not None else None


def discard_early() -> None:
    """No virtual counters after all (real ones answered): the early host ends."""
    global _early
    host, _early = _early, None
    if host is not None and host.process.stdin is not None:
        host.process.stdin.close()  # it ends when its input closes; reaped off the loop
        threading.Thread(target=host.process.wait, name="virtual-counters-end", daemon=True).start()
