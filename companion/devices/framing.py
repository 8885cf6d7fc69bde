"""The seam between a byte stream and whole messages on the serial carrier.

Serial carries a stream of bytes, so every message is framed on the way out and
split back on the way in. The real framing (COBS, CRC-16, 0x00 delimiter) lives
in the shared codec `companion.devices.wire`; this module only adapts it to the
small interface `SerialLink` needs, so a transport can be tested with any framing.
"""

from __future__ import annotations

from typing import Protocol


class Deframer(Protocol):
    """Fed raw bytes, returns the whole messages completed by them (corrupt ones skipped)."""

    def feed(self, data: bytes) -> list[bytes]: ...


class Framing(Protocol):
    """How messages become bytes on a serial line and back."""

    def frame(self, payload: bytes) -> bytes: ...

    def deframer(self) -> Deframer: ...


class WireFraming:
    """The product framing from the shared codec: COBS + CRC-16/CCITT-FALSE, 0x00 delimited."""

    def frame(self, payload: bytes) -> bytes:
        from companion.devices import wire

        return wire.frame(payload)

    def deframer(self) -> Deframer:
        from companion.devices import wire

        return wire.Deframer()
