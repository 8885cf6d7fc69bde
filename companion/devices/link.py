"""The message link: one interface over every carrier that reaches a counter.

A `Link` moves whole protocol messages (at most `MAX_PAYLOAD` bytes each), not
bytes: the serial carrier frames and deframes them, the BLE carrier maps one
message to one GATT write or notification. Everything runs on the caller's
asyncio loop; nothing here starts a thread.
"""

from __future__ import annotations

import abc
import asyncio
import enum
import logging
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Self

from companion.devices import wire
from companion.plumbing.errors import CompanionError
from companion.plumbing.listeners import Listeners
from companion.plumbing.tasks import TaskSet, guarded

_LOGGER = logging.getLogger(__name__)

MAX_PAYLOAD = wire.MAX_MESSAGE  # bytes: one message, the codec's limit (one BLE ATT payload)


class LinkState(enum.Enum):
    """Where a link is in its life: it can be opened again after CLOSED or LOST."""

    CLOSED = "closed"
    OPENING = "opening"
    OPEN = "open"
    LOST = "lost"


class LinkError(CompanionError):
    """Base of every error a link raises; carriers translate their own errors into these."""


class LinkOpenError(LinkError):
    """The carrier could not be opened (port missing or busy, device out of range)."""


class LinkClosedError(LinkError):
    """Sending or receiving on a link that is not open (closed by us, or lost)."""


class LinkLostError(LinkClosedError):
    """The carrier went away under us: cable pulled, counter reset, radio out of range."""


class PayloadTooLongError(LinkError, ValueError):
    """A message longer than one BLE ATT payload was handed to a link."""


MessageCallback = Callable[[bytes], None]
StateCallback = Callable[[LinkState], None]


class Link(abc.ABC):
    """A message-oriented connection to one counter.

    Received messages go to the registered `on_message` callbacks if there are
    any, otherwise into a queue read by `recv()` or `async for`. Iteration and
    `recv()` end with `LinkClosedError` (or its subclass `LinkLostError`) once
    the link is closed or lost and the queue is drained.
    """

    #: Carrier name, shown to users ("serial", "ble").
    transport: str = ""
    #: How many messages the counter can hold that it has not yet taken in; a session
    #: never has more of its messages unanswered on this link (None: no limit).
    send_window: int | None = None

    def __init__(self, address: str) -> None:
        #: Where the counter is: a serial port path or a BLE address.
        self.address = address
        #: How the link is shown in logs and messages, e.g. "serial /dev/ttyACM0".
        self.name = f"{self.transport} {address}"
        #: True when the counter at the other end forgets its claim when it stops (a
        #: virtual counter, whose flash is memory): its claim token is not saved.
        self.forgets_claims = False
        self._state = LinkState.CLOSED
        self._queue: asyncio.Queue[bytes | LinkClosedError] = asyncio.Queue()
        self._message_callbacks: Listeners[[bytes]] = Listeners()
        self._state_callbacks: Listeners[[LinkState]] = Listeners()
        self._junk_callbacks: Listeners[[int]] = Listeners()
        self._lost_reason: LinkClosedError | None = None
        self._open_lock = asyncio.Lock()
        self._tasks = TaskSet(f"link {self.name}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self._state.value}>"

    # -- state -------------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        """The current state; `on_state_change` reports every change."""
        return self._state

    @property
    def is_open(self) -> bool:
        """True while messages can be sent."""
        return self._state is LinkState.OPEN

    @property
    def lost_reason(self) -> LinkClosedError | None:
        """Why the link was last lost or closed, or None while it never was."""
        return self._lost_reason

    def on_state_change(self, callback: StateCallback) -> Callable[[], None]:
        """Call `callback(state)` on every state change; returns a function that unregisters it."""
        # Carriers report losses from inside their I/O callbacks; one failing
        # listener must neither break them nor starve the others.
        return self._state_callbacks.add(guarded(callback, f"{self.name}: state callback"))

    def on_message(self, callback: MessageCallback) -> Callable[[], None]:
        """Deliver every received message to `callback` instead of the queue.

        Returns a function that unregisters it; with no callback left, messages
        queue up again for `recv()`.
        """
        # A failing consumer must not take the carrier down with it (the serial
        # transport would close the port on an exception here).
        return self._message_callbacks.add(guarded(callback, f"{self.name}: message callback"))

    def on_junk(self, callback: Callable[[int], None]) -> Callable[[], None]:
        """Call `callback(count)` when the carrier threw away `count` pieces of what it received
        (serial frames that failed their check); returns a function that unregisters it."""
        return self._junk_callbacks.add(guarded(callback, f"{self.name}: junk callback"))

    # -- life cycle --------------------------------------------------------------------

    async def open(self) -> None:
        """Open the carrier; safe to call again after the link was closed or lost.

        Raises `LinkOpenError` if the counter cannot be reached. A lock makes
        concurrent calls wait for one another instead of racing two connects.
        """
        async with self._open_lock:
            if self._state is LinkState.OPEN:
                return
            self._queue = asyncio.Queue()
            self._lost_reason = None
            self._set_state(LinkState.OPENING)
            try:
                await self._open()
            except LinkOpenError:
                self._set_state(LinkState.CLOSED)
                raise
            except Exception as exc:
                self._set_state(LinkState.CLOSED)
                raise LinkOpenError(f"cannot open {self.name}: {exc}") from exc
            except BaseException:  # cancelled: the carrier cleaned up after itself
                self._set_state(LinkState.CLOSED)
                raise
            if self._state is not LinkState.OPENING:
                # The carrier went away while we were still setting it up.
                reason = self._lost_reason or LinkLostError(f"{self.name} lost while opening")
                await self._close()
                raise LinkOpenError(f"cannot open {self.name}: {reason}") from reason
            self._set_state(LinkState.OPEN)

    async def close(self) -> None:
        """Close the carrier; pending `recv()` calls end with `LinkClosedError`."""
        if self._state in (LinkState.CLOSED, LinkState.LOST):
            return
        self._finish(LinkState.CLOSED, LinkClosedError(f"{self.name} was closed"))
        await self._close()

    async def drop(self, reason: str) -> None:
        """Cut the carrier as a failure would: the link reports LOST, not CLOSED.

        Used by fault injection and by callers that detect a dead peer (for
        example a counter that stopped answering).
        """
        if self._state is not LinkState.OPEN:
            return
        self._finish(LinkState.LOST, LinkLostError(f"{self.name} lost: {reason}"))
        await self._close()

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- messages ----------------------------------------------------------------------

    async def send(self, payload: bytes) -> None:
        """Send one message of at most `MAX_PAYLOAD` bytes."""
        if len(payload) > MAX_PAYLOAD:
            raise PayloadTooLongError(
                f"a message is at most {MAX_PAYLOAD} bytes, this one has {len(payload)}"
            )
        if self._state is not LinkState.OPEN:
            raise self._lost_reason or LinkClosedError(f"{self.name} is not open")
        await self._send(bytes(payload))

    async def recv(self) -> bytes:
        """The next received message; raises `LinkClosedError` once the link is down."""
        if self._queue.empty() and self._state not in (LinkState.OPEN, LinkState.OPENING):
            raise self._lost_reason or LinkClosedError(f"{self.name} is not open")
        item = await self._queue.get()
        if isinstance(item, LinkClosedError):
            self._queue.put_nowait(item)  # every later reader sees the end too
            raise item
        return item

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[bytes]:
        while True:
            try:
                yield await self.recv()
            except LinkClosedError:
                return

    # -- for carriers ------------------------------------------------------------------

    def _deliver(self, payload: bytes) -> None:
        """Carriers call this with every whole message received."""
        if not self._message_callbacks:
            self._queue.put_nowait(payload)
            return
        self._message_callbacks.emit(payload)

    def _junk(self, count: int) -> None:
        """Carriers call this when they throw received data away as damaged or foreign."""
        self._junk_callbacks.emit(count)

    def _drop_soon(self, reason: str) -> None:
        """`drop()` from a synchronous carrier callback, keeping the task referenced."""
        self._tasks.spawn(self.drop(reason), "drop")

    def _carrier_lost(self, reason: str) -> None:
        """Carriers call this when the connection ends without `close()`."""
        if self._state in (LinkState.OPEN, LinkState.OPENING):
            _LOGGER.info("%s lost: %s", self.name, reason)
            self._finish(LinkState.LOST, LinkLostError(f"{self.name} lost: {reason}"))

    def _finish(self, state: LinkState, reason: LinkClosedError) -> None:
        self._lost_reason = reason
        self._queue.put_nowait(reason)
        self._set_state(state)

    def _set_state(self, state: LinkState) -> None:
        if state is self._state:
            return
        self._state = state
        self._state_callbacks.emit(state)

    @abc.abstractmethod
    async def _open(self) -> None:
        """Open the carrier or raise; `open()` handles state and locking."""

    @abc.abstractmethod
    async def _send(self, payload: bytes) -> None:
        """Put one message on the carrier."""

    @abc.abstractmethod
    async def _close(self) -> None:
        """Release the carrier; must be safe to call when it is already gone."""
