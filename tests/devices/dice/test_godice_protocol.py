"""GoDice events decode as the published layouts say; the face comes from the gravity vector."""

from __future__ import annotations

import pytest

from companion.devices.dice import godice_protocol as gd
from companion.devices.dice.model import DecodeError, DieType


def test_roll_start() -> None:
    assert gd.decode(b"R") == gd.RollStarted()


def test_stable_carries_three_signed_bytes() -> None:
    expected = gd.Resting(gd.Stability.STABLE, (64, -2, 3))
    assert gd.decode(b"S" + bytes([0x40, 0xFE, 0x03])) == expected


@pytest.mark.parametrize(
    ("head", "stability"),
    [(b"FS", gd.Stability.FAKE), (b"TS", gd.Stability.TILT), (b"MS", gd.Stability.MOVE)],
)
def test_two_letter_rests_are_not_rolls(head: bytes, stability: gd.Stability) -> None:
    message = gd.decode(head + bytes([0, 0x40, 0]))
    assert message == gd.Resting(stability, (0, 64, 0))


def test_battery_and_colour() -> None:
    assert gd.decode(b"Bat" + bytes([100])) == gd.Battery(100)
    assert gd.decode(b"Col" + bytes([3])) == gd.ColourReport(gd.Colour.BLUE)


@pytest.mark.parametrize("face", range(1, 7))
def test_each_face_vector_reads_back_as_that_face(face: int) -> None:
    assert gd.d6_face(gd.D6_VECTORS[face]) == face


def test_published_d6_axes() -> None:
    # 1 and 6 on the x axis, 3 and 4 on y, 2 and 5 on z.
    assert gd.D6_VECTORS[1] == (-64, 0, 0) and gd.D6_VECTORS[6] == (64, 0, 0)
    assert gd.D6_VECTORS[3] == (0, 64, 0) and gd.D6_VECTORS[4] == (0, -64, 0)
    assert gd.D6_VECTORS[2] == (0, 0, 64) and gd.D6_VECTORS[5] == (0, 0, -64)


def test_noisy_vector_picks_the_nearest_face() -> None:
    assert gd.d6_face((10, -50, 30)) == 4


def test_other_shells_are_not_read() -> None:
    assert gd.face_for(DieType.D20, (64, 0, 0)) is None
    assert gd.face_for(DieType.D6, (64, 0, 0)) == 6


def test_commands_match_the_published_bytes() -> None:
    assert gd.request_battery() == bytes([3])
    assert gd.request_colour() == bytes([23])
    assert gd.set_leds((1, 2, 3), (4, 5, 6)) == bytes([8, 1, 2, 3, 4, 5, 6])
    assert gd.pulse((9, 8, 7), count=4, on_ms=100, off_ms=50) == bytes(
        [16, 4, 10, 5, 9, 8, 7, 1, 0]
    )


def test_encoders_round_trip() -> None:
    assert gd.decode(gd.stable((1, -64, 2))) == gd.Resting(gd.Stability.STABLE, (1, -64, 2))
    assert gd.decode(gd.battery(42)) == gd.Battery(42)
    assert gd.decode_pulse(gd.pulse((1, 2, 3))) == (2, (1, 2, 3))


@pytest.mark.parametrize(
    "data",
    [b"", b"S", b"S\x01\x02", b"FS\x01\x02", b"Bat", b"Col", b"Col\x09", b"S\0\0\0"],
)
def test_malformed_raise_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError):
        gd.decode(data)


def test_unknown_events_are_not_errors() -> None:
    assert gd.decode(b"\x7fxyz") == gd.OtherMessage(0x7F)


def test_a_battery_over_100_percent_is_held_to_100_not_refused() -> None:
    assert gd.decode(b"Bat" + bytes([255])) == gd.Battery(100)
