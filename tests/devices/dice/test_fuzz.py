"""Malformed notifications never crash: the decoders raise only DecodeError, the sources count."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from companion.devices.dice import godice_protocol, pixels_protocol
from companion.devices.dice.model import DecodeError

ANY_BYTES = st.binary(max_size=64)
PIXELS_IDS = st.sampled_from(
    [pixels_protocol.I_AM_A_DIE, pixels_protocol.ROLL_STATE, pixels_protocol.BATTERY_LEVEL]
)


def _check_pixels(data: bytes) -> None:
    try:
        message = pixels_protocol.decode(data)
    except DecodeError:
        return
    # Whatever decodes is within the protocol's ranges.
    if isinstance(message, pixels_protocol.IAmADie | pixels_protocol.BatteryLevel):
        percent = getattr(message, "battery_percent", getattr(message, "percent", 0))
        assert 0 <= percent <= 100
    if isinstance(message, pixels_protocol.RollStateMessage):
        assert message.state in pixels_protocol.RollState


@given(ANY_BYTES)
def test_pixels_decoder_raises_only_decode_error(data: bytes) -> None:
    _check_pixels(data)


@given(PIXELS_IDS, ANY_BYTES)
def test_pixels_known_ids_raise_only_decode_error(message_id: int, rest: bytes) -> None:
    _check_pixels(bytes([message_id]) + rest)


@given(st.sampled_from([b"R", b"S", b"FS", b"TS", b"MS", b"Bat", b"Col", b""]), ANY_BYTES)
def test_godice_decoder_raises_only_decode_error(head: bytes, rest: bytes) -> None:
    try:
        message = godice_protocol.decode(head + rest)
    except DecodeError:
        return
    if isinstance(message, godice_protocol.Resting):
        assert 1 <= godice_protocol.d6_face(message.vector) <= 6
    if isinstance(message, godice_protocol.Battery):
        assert 0 <= message.percent <= 100
