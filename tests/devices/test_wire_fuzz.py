"""Hypothesis fuzzing of the shared codec under CPython (the VM side is in tests/firmware)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.devices import framing, wire

ANY_BYTES = st.binary(max_size=40)


@given(ANY_BYTES)
def test_decode_raises_only_wire_error(data: bytes) -> None:
    try:
        msg = wire.decode(data)
    except wire.WireError as exc:
        assert exc.code in range(1, 11)
    else:
        # Whatever decodes must encode back to exactly the same bytes.
        assert wire.encode(msg) == data


@given(st.sampled_from(sorted(wire.MESSAGE_TYPES)), st.binary(max_size=18))
def test_decode_of_known_types_raises_only_wire_error(kind: int, rest: bytes) -> None:
    data = bytes([kind]) + rest
    try:
        msg = wire.decode(data)
    except wire.WireError:
        return
    assert wire.encode(msg) == data


@given(st.lists(st.binary(max_size=30), max_size=8))
def test_deframer_never_raises_and_returns_only_crc_checked_payloads(chunks: list) -> None:
    deframer = framing.Deframer()
    for chunk in chunks:
        for payload in deframer.feed(chunk):
            assert len(payload) <= wire.MAX_MESSAGE
            # Re-framing what came out reproduces a frame whose CRC holds.
            assert framing.Deframer().feed(framing.frame(payload)) == [payload]


@settings(derandomize=True, max_examples=400)
@given(
    st.binary(min_size=3, max_size=wire.MAX_MESSAGE),
    st.data(),
)
def test_corrupted_frames_are_never_accepted(payload: bytes, data: st.DataObject) -> None:
    good = framing.frame(payload)
    body = bytearray(good[:-1])
    # Change one to three bytes (a burst the CRC is sure to catch) inside the frame.
    start = data.draw(st.integers(0, len(body) - 1))
    width = data.draw(st.integers(1, min(2, len(body) - start)))
    for i in range(start, start + width):
        body[i] ^= data.draw(st.integers(1, 255))
    deframer = framing.Deframer()
    got = deframer.feed(bytes(body) + b"\x00")
    assert got == []
    assert deframer.dropped >= 1


@given(st.binary(min_size=0, max_size=wire.MAX_MESSAGE))
def test_any_payload_survives_framing(payload: bytes) -> None:
    framed = framing.frame(payload)
    assert framed.endswith(b"\x00") and 0 not in framed[:-1]
    assert framing.Deframer().feed(framed) == [payload]
