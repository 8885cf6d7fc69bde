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
    assert gd.decode(b"Col" + bytes([3])) == gd.ColourReport(gd.Colour.BLUE, 3)


def test_the_makers_colour_names() -> None:
    names = [c.name.lower() for c in gd.Colour]
    assert names == ["black", "red", "green", "blue", "yellow", "orange"]
    assert [int(c) for c in gd.Colour] == list(range(6))


@pytest.mark.parametrize("code", [6, 9, 255])
def test_a_colour_code_above_5_is_no_known_colour_not_an_error(code: int) -> None:
    assert gd.decode(b"Col" + bytes([code])) == gd.ColourReport(None, code)


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


# Positions from the maker's tables (d20: twenty; d4, d8, d12: a set of 24) and what
# each shell shows there.
@pytest.mark.parametrize(
    ("shell", "vector", "face"),
    [
        (DieType.D6, (64, 0, 0), 6),
        (DieType.D20, (-64, 0, -22), 1),
        (DieType.D20, (64, 0, 22), 20),
        (DieType.D20, (42, 42, 42), 14),
        (DieType.D10, (-64, 0, -22), 8),  # the d20's position 1 shows 8 on a d10 ...
        (DieType.D00, (-64, 0, -22), 80),  # ... and 80 on a d00
        (DieType.D10, (0, 22, -64), 6),
        (DieType.D00, (42, 42, -42), 40),
        (DieType.D4, (20, -60, -20), 3),
        (DieType.D4, (-40, 40, 40), 2),
        (DieType.D8, (-40, 20, -40), 1),
        (DieType.D8, (40, -20, 40), 8),
        (DieType.D12, (60, 0, 20), 12),
        (DieType.D12, (-20, 60, 20), 12),  # the 24 positions show each number twice
        (DieType.D12, (20, 60, -20), 2),
    ],
)
def test_each_shell_reads_the_makers_face(shell: DieType, vector: tuple, face: int) -> None:
    assert gd.face_for(shell, vector) == face
    noisy = tuple(v + (5 if i == 1 else -4) for i, v in enumerate(vector))
    assert gd.face_for(shell, noisy) == face  # the nearest position, not an exact match


@pytest.mark.parametrize("shell", gd.SHELLS)
def test_every_face_of_every_shell_is_read_back(shell: DieType) -> None:
    faces = gd.shell_faces(shell)
    assert len(faces) == {DieType.D00: 10}.get(shell, int(shell.value[1:]))
    for face in faces:
        assert gd.face_for(shell, gd.vector_for(shell, face)) == face


def test_a_shell_the_maker_does_not_make_is_not_read() -> None:
    assert gd.face_for(DieType.D6_FUDGE, (64, 0, 0)) is None
    with pytest.raises(ValueError):
        gd.vector_for(DieType.D20, 21)


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
    [b"", b"S", b"S\x01\x02", b"FS\x01\x02", b"Bat", b"Col", b"S\0\0\0"],
)
def test_malformed_raise_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError):
        gd.decode(data)


def test_unknown_events_are_not_errors() -> None:
    assert gd.decode(b"\x7fxyz") == gd.OtherMessage(0x7F)


def test_a_battery_over_100_percent_is_held_to_100_not_refused() -> None:
    assert gd.decode(b"Bat" + bytes([255])) == gd.Battery(100)
