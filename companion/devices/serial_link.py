"""The USB serial carrier: a `Link` over a real (or pseudo-terminal) serial port.

Built on pyserial-asyncio-fast's transport, which reads the port's file
descriptor from the event loop. Two of its steps would run in executor threads
and are done inline instead: opening the port (a tty open does not block) and
the flush-then-close on teardown, whose flush (`tcdrain`) can hang for as long
as a wedged USB-serial device stops reading. That close step is a private method
of the library's transport, so pyproject.toml pins the release range it was
tested with.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import serial
from serial_asyncio_fast import SerialTransport

from companion.devices import framing
from companion.devices.link import Link, LinkClosedError, LinkOpenError, LinkState
from companion.plumbing.tasks import guarded

_LOGGER = logging.getLogger(__name__)

BAUDRATE = 115_200  # baud: USB CDC ignores it; USB-UART bridges on the boards default to it
CLOSE_TIMEOUT_S = 1.0  # s: to hand over bytes still queued on close; a live port needs ms


class _InlineCloseTransport(SerialTransport):
    """The library's transport, closing the port on the loop instead of in a thread."""

    async def _call_connection_lost(self, exc: Exception | None, *, flush: bool) -> None:
        self._write_buffer.clear()
        port, protocol = self._serial, self._protocol
        self._serial = None
        self._protocol = None  # type: ignore[assignment]
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()
        if protocol is not None:
            protocol.connection_lost(exc)


class _Protocol(asyncio.Protocol):
    def __init__(self, link: SerialLink) -> None:
        self._link = link
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self._link._bytes_in(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        # Only the current connection may report a loss: a previous one that
        # finishes closing while the link is being reopened must not kill the new one.
        if self._link._protocol is self:
            self._link._carrier_lost(str(exc) if exc else "port closed")


class SerialLink(Link):
    """A counter on a serial port (`/dev/ttyACM0`, `COM4`, or a virtual counter's pty).

    Messages are framed by the shared `framing` module (COBS + CRC-16, 0x00
    delimited), with a fresh deframer for every connection. A link that wraps
    this one and reads the line itself (a fault injector, a tap) takes the raw
    bytes instead, with `on_bytes`, `feed_bytes` and `write_bytes`.
    """

    transport = "serial"

    def __init__(self, port: str, *, baudrate: int = BAUDRATE) -> None:
        super().__init__(port)
        self.port = port
        self.baudrate = baudrate
        self._transport: SerialTransport | None = None
        self._protocol: _Protocol | None = None
        self._deframer = framing.Deframer()
        self._bytes_receiver: Callable[[bytes], None] | None = None

    def on_bytes(self, receiver: Callable[[bytes], None] | None) -> None:
        """Hand every chunk read from the port to `receiver` instead of the deframer (None:
        back to whole messages); the receiver passes on what it lets through (`feed_bytes`)."""
        # A failing receiver must not take the port down (the transport closes on an exception).
        self._bytes_receiver = guarded(receiver, f"{self.name}: bytes") if receiver else None

    async def write_bytes(self, data: bytes) -> None:
        """Put `data` on the line as it is, framed or not."""
        if not self.is_open:
            raise self.lost_reason or LinkClosedError(f"{self.name} is not open")
        if self._transport is not None:
            self._transport.write(data)

    async def _open(self) -> None:
        # exclusive: a second program on the same port would steal half the bytes.
        port = serial.Serial(baudrate=self.baudrate, timeout=0, exclusive=True)
        # DTR and RTS both asserted from the start: MicroPython's USB CDC only sends
        # while DTR is set, and the auto-reset circuit of ESP32 boards with a USB-UART
        # bridge resets the chip whenever RTS is asserted without DTR.
        port.dtr = True
        port.rts = True
        port.port = self.port
        try:
            port.open()
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkOpenError(f"cannot open serial port {self.port}: {exc}") from exc
        self._deframer = framing.Deframer()  # a frame cut short by the last connection is gone
        protocol = _Protocol(self)
        self._protocol = protocol
        self._transport = _InlineCloseTransport(asyncio.get_running_loop(), protocol, port)

    async def _send(self, payload: bytes) -> None:
        if self._transport is not None:
            # A delimiter first: bytes something else left on the line end there
            # instead of spoiling this frame (the counter starts its frames so too).
            self._transport.write(b"\x00" + framing.frame(payload))

    def feed_bytes(self, data: bytes) -> None:
        """Read `data` as if it came from the port: whole frames become messages, the rest
        is junk (`on_junk`)."""
        dropped = self._deframer.dropped
        for payload in self._deframer.feed(data):
            self._deliver(payload)
        if self._deframer.dropped > dropped:
            self._junk(self._deframer.dropped - dropped)

    def _bytes_in(self, data: bytes) -> None:
        if self._bytes_receiver is not None:
            self._bytes_receiver(data)
        else:
            self.feed_bytes(data)

    async def _close(self) -> None:
        transport, protocol = self._transport, self._protocol
        self._transport = self._protocol = None
        if transport is None or protocol is None:
            return
        if self.state is LinkState.LOST:
            transport.abort()  # a cut line: what was still queued is gone
        else:
            transport.close()  # hands over what is queued, then closes
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await protocol.closed
        except TimeoutError:
            _LOGGER.warning("%s did not close in %.1f s; aborting it", self.name, CLOSE_TIMEOUT_S)
            transport.abort()
