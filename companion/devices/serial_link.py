"""The USB serial carrier: a `Link` over a real (or pseudo-terminal) serial port.

Built on pyserial-asyncio-fast's transport, which reads the port's file
descriptor from the event loop. The port is opened directly rather than through
`create_serial_connection`, which would open it in an executor thread.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import serial
from serial_asyncio_fast import SerialTransport, connection_for_serial

from companion.devices.framing import Deframer, Framing, WireFraming
from companion.devices.link import Link, LinkOpenError

if TYPE_CHECKING:
    from companion.devices.chaos import FaultPlan

_LOGGER = logging.getLogger(__name__)

BAUDRATE = 115_200  # baud: USB CDC ignores it; USB-UART bridges on the boards default to it
CLOSE_TIMEOUT_S = 1.0  # s: a port that has not let go by then is gone; never hang a close on it


class _Protocol(asyncio.Protocol):
    def __init__(self, link: SerialLink, deframer: Deframer) -> None:
        self._link = link
        self._deframer = deframer
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self._link._bytes_in(self._deframer, data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        self._link._carrier_lost(str(exc) if exc else "port closed")


class SerialLink(Link):
    """A counter on a serial port (`/dev/ttyACM0`, `COM4`, or a virtual counter's pty).

    `framing` turns messages into bytes and back (the shared codec's COBS+CRC by
    default). `faults`, if given, corrupts, drops or cuts the raw byte stream in
    both directions for fault tests.
    """

    transport = "serial"

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = BAUDRATE,
        framing: Framing | None = None,
        faults: FaultPlan | None = None,
    ) -> None:
        super().__init__(port)
        self.port = port
        self.baudrate = baudrate
        self._framing = framing or WireFraming()
        self._faults = faults
        self._transport: SerialTransport | None = None
        self._protocol: _Protocol | None = None

    async def _open(self) -> None:
        try:
            # exclusive: a second program on the same port would steal half the bytes
            port = serial.Serial(self.port, self.baudrate, timeout=0, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkOpenError(f"cannot open serial port {self.port}: {exc}") from exc
        deframer = self._framing.deframer()
        transport, protocol = await connection_for_serial(
            asyncio.get_running_loop(), lambda: _Protocol(self, deframer), port
        )
        self._transport = transport
        self._protocol = protocol  # type: ignore[assignment]

    async def _send(self, payload: bytes) -> None:
        data = self._framing.frame(payload)
        if self._faults is not None:
            data, cut = self._faults.mangle(data)
            if cut:
                await self.drop("fault injection cut the line")
                return
        if self._transport is not None:
            self._transport.write(data)

    def _bytes_in(self, deframer: Deframer, data: bytes) -> None:
        if self._faults is not None:
            data, cut = self._faults.mangle(data)
            if cut:
                self._drop_soon("fault injection cut the line")
                return
        for payload in deframer.feed(data):
            self._deliver(payload)

    async def _close(self) -> None:
        transport, protocol = self._transport, self._protocol
        self._transport = self._protocol = None
        if transport is None or protocol is None:
            return
        transport.close()
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await protocol.closed
        except TimeoutError:
            _LOGGER.warning("%s did not close in %.1f s; aborting it", self.name, CLOSE_TIMEOUT_S)
            transport.abort()
