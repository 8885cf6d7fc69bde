"""Pixels messages decode as the published layouts say, and malformed ones raise DecodeError."""

from __future__ import annotations

import struct

import pytest

from companion.devices.dice import pixels_protocol as px
from companion.devices.dice.model import DecodeError, DieType, Motion


def test_roll_state_layout_id_state_face_index() -> None:
    assert px.decode(bytes([3, 1, 5])) == px.RollStateMessage(px.RollState.ROLLED, 5)
    assert px.decode(bytes([3, 3, 0])).state is px.RollState.ROLLING


@pytest.mark.parametrize(
    ("state", "motion"),
    [
        (px.RollState.ROLLED, Motion.SETTLED),
        (px.RollState.ROLLING, Motion.ROLLING),
        (px.RollState.HANDLING, Motion.HANDLING),
        (px.RollState.CROOKED, Motion.CROOKED),
        (px.RollState.ON_FACE, Motion.RESTING),
        (px.RollState.UNKNOWN, Motion.UNKNOWN),
    ],
)
def test_only_rolled_is_a_settled_result(state: px.RollState, motion: Motion) -> None:
    assert state.motion is motion


def test_battery_level_layout_id_percent_state() -> None:
    assert px.decode(bytes([34, 55, 2])) == px.BatteryLevel(55, 2)


def test_legacy_identity_22_bytes_in_documented_order() -> None:
    data = struct.pack(
        "<BBBBIIHIBBBB", 2, 6, 1, 2, 0xDEADBEEF, 0x12345678, 900, 1_700_000_000, 1, 3, 64, 0
    )
    assert len(data) == 22
    message = px.decode(data)
    assert message == px.IAmADie(
        die_type=DieType.D6,
        led_count=6,
        pixel_id=0x12345678,
        build_timestamp=1_700_000_000,
        roll_state=px.RollState.ROLLED,
        face_index=3,
        battery_percent=64,
        battery_state=0,
    )


def test_legacy_identity_without_die_type_falls_back_on_led_count() -> None:
    data = struct.pack("<BBBBIIHIBBBB", 2, 20, 0, 0, 0, 7, 0, 0, 5, 0, 90, 0)
    assert px.decode(data).die_type is DieType.D20  # type: ignore[union-attr]


def test_chunked_identity_reads_type_name_status() -> None:
    data = px.identity(
        name="Ruby",
        pixel_id=42,
        die_type=DieType.D6_PIPPED,
        led_count=21,
        roll_state=px.RollState.ON_FACE,
        face_index=2,
        battery_percent=71,
        build_timestamp=1234,
    )
    message = px.decode(data)
    assert isinstance(message, px.IAmADie)
    assert (message.name, message.pixel_id, message.die_type) == ("Ruby", 42, DieType.D6_PIPPED)
    assert (message.roll_state, message.face_index, message.battery_percent) == (
        px.RollState.ON_FACE,
        2,
        71,
    )
    assert message.build_timestamp == 1234


def test_identity_round_trips_in_the_legacy_layout_too() -> None:
    data = px.identity(
        name="x", pixel_id=9, die_type=DieType.D12, led_count=12,
        roll_state=px.RollState.ROLLED, face_index=11, battery_percent=5, legacy=True,
    )  # fmt: skip
    assert len(data) == px.LEGACY_I_AM_A_DIE_SIZE
    message = px.decode(data)
    assert isinstance(message, px.IAmADie)
    assert (message.die_type, message.face_index, message.pixel_id) == (DieType.D12, 11, 9)


@pytest.mark.parametrize(
    ("die_type", "index", "value"),
    [(DieType.D6, 0, 1), (DieType.D6, 5, 6), (DieType.D20, 19, 20), (DieType.D10, 0, 0)],
)
def test_face_values(die_type: DieType, index: int, value: int) -> None:
    assert px.face_value(die_type, index) == value


def test_blink_layout_matches_the_makers_library() -> None:
    # id, count u8, duration u16, colour u32, face mask u32, fade u8, loop count u8.
    data = px.blink((0x11, 0x22, 0x33), count=3, duration_ms=0x0456, fade=7, loop_count=4)
    assert data == bytes([29, 3, 0x56, 0x04, 0x33, 0x22, 0x11, 0x00]) + b"\xff" * 4 + bytes([7, 4])
    assert px.decode_blink(data) == px.Blink(3, 0x0456, (0x11, 0x22, 0x33), px.ALL_FACES, 7, 4)


def test_a_blink_plays_once_unless_asked_to_loop() -> None:
    # The last byte is how many times the animation plays, 1 by default as in the maker's
    # library; it is no on/off flag.
    assert px.blink((1, 2, 3))[-1] == 1
    assert px.decode_blink(px.blink((1, 2, 3), loop_count=255)).loop_count == 255


def test_requests_are_single_bytes() -> None:
    assert px.who_are_you() == b"\x01"
    assert px.request_roll_state() == bytes([23])


def test_other_message_ids_are_not_errors() -> None:
    assert px.decode(bytes([30])) == px.OtherMessage(30)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        bytes([3]),
        bytes([3, 1]),
        bytes([34, 5]),
        bytes([2]),
        bytes([2, 0]),  # a chunk of size 0
        bytes([2, 200, 1, 2]),  # a chunk longer than the message
    ],
)
def test_malformed_raise_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError):
        px.decode(data)


@pytest.mark.parametrize("value", [6, 9, 255])
def test_a_roll_state_this_app_does_not_know_is_unknown_not_an_error(value: int) -> None:
    assert px.decode(bytes([3, value, 2])) == px.RollStateMessage(px.RollState.UNKNOWN, 2)
    legacy = struct.pack("<BBBBIIHIBBBB", 2, 6, 0, 2, 0, 7, 0, 0, value, 0, 50, 0)
    chunked = px.identity(
        name="Ruby",
        pixel_id=7,
        die_type=DieType.D6,
        led_count=6,
        roll_state=px.RollState.ROLLED,
        face_index=0,
        battery_percent=50,
    )
    chunked = chunked[:-2] + bytes([value, 0])  # the status chunk's roll state
    for data in (legacy, chunked):
        message = px.decode(data)
        assert isinstance(message, px.IAmADie)
        assert message.roll_state is px.RollState.UNKNOWN and message.pixel_id == 7
    state = bytes([6, 0x20, value, 0, 50])
    advert = px.parse_advert({px.INFO_SERVICE_DATA_UUID: px.service_data(7, 0)}, {0x0D39: state})
    assert advert is not None and advert.roll_state is px.RollState.UNKNOWN


@pytest.mark.parametrize(
    ("code", "leds", "die_type"),
    [
        (0, 20, DieType.D20),  # unknown: estimated from the LED count
        (0, 21, DieType.D6_PIPPED),
        (0, 7, DieType.UNKNOWN),
        (2, 20, DieType.D6),  # a known code is the die type, whatever the LED count
        (7, 6, DieType.D20),
        (12, 6, DieType.UNKNOWN),  # a code newer than this app: unknown, not estimated
    ],
)
def test_an_advertised_die_type_is_estimated_only_when_its_code_is_0(
    code: int, leds: int, die_type: DieType
) -> None:
    state = bytes([leds, code << 4, 5, 0, 50])
    advert = px.parse_advert({px.INFO_SERVICE_DATA_UUID: px.service_data(7, 0)}, {0x0D39: state})
    assert advert is not None and advert.die_type is die_type


def test_an_advertised_pixel_id_of_0_is_no_die() -> None:
    info, state = px.service_data(0, 0), bytes([6, 0x20, 5, 0, 50])
    assert px.parse_advert({px.INFO_SERVICE_DATA_UUID: info}, {0x0D39: state}) is None


def test_advertised_service_data_carries_the_pixel_id() -> None:
    assert px.pixel_id_from_service_data(px.service_data(77, 5)) == 77
    with pytest.raises(DecodeError):
        px.pixel_id_from_service_data(b"\x01\x02")


def test_a_battery_over_100_percent_is_held_to_100() -> None:
    assert px.decode(bytes([34, 101, 0])) == px.BatteryLevel(100, 0)


@pytest.mark.parametrize(
    ("leds", "die_type"),
    [
        (6, DieType.D6),
        (20, DieType.D20),
        (21, DieType.D6_PIPPED),
        (8, DieType.D8),
        (7, DieType.UNKNOWN),
    ],
)
def test_a_die_type_this_app_does_not_know_is_estimated_from_the_led_count(
    leds: int, die_type: DieType
) -> None:
    data = struct.pack("<BBBBIIHIBBBB", 2, leds, 0, 42, 0, 7, 0, 0, 1, 0, 50, 0)
    message = px.decode(data)
    assert isinstance(message, px.IAmADie) and message.die_type is die_type


@pytest.mark.parametrize(
    ("die_type", "index", "old", "new"),
    [
        (DieType.D6, 0, 1, 1),
        (DieType.D6, 1, 5, 2),  # 2 and 5 swapped by the wrong normals ...
        (DieType.D6, 4, 2, 5),
        (DieType.D6, 2, 4, 3),  # ... and 3 and 4
        (DieType.D6, 3, 3, 4),
        (DieType.D6, 5, 6, 6),
        (DieType.D4, 3, 2, 4),
        (DieType.D4, 5, 4, 6),
        (DieType.D20, 7, 8, 8),  # other shapes were right
    ],
)
def test_firmware_built_with_wrong_normals_is_corrected_from_its_build_time(
    die_type: DieType, index: int, old: int, new: int
) -> None:
    assert px.face_value(die_type, index, build_timestamp=px.BAD_NORMALS_BUILT_BY) == old
    assert px.face_value(die_type, index, build_timestamp=px.BAD_NORMALS_BUILT_BY + 1) == new
    assert px.face_value(die_type, index) == new  # no build time known: as current firmware


def test_a_tilted_roll_is_crooked_only_on_6_led_dice_built_before_2024_05_22_13_00() -> None:
    cut_off = 1_716_382_800  # 2024-05-22 13:00 UTC, the maker's library's cut-off
    assert px.tilted_is_crooked(6, cut_off - 1)
    assert px.tilted_is_crooked(6, 1_716_336_000 + 3600)  # 01:00 that day: not fixed yet
    assert not px.tilted_is_crooked(6, cut_off)
    assert not px.tilted_is_crooked(20, cut_off - 1)
    assert px.tilted_is_crooked(6, 0)  # unknown build time: the fix applies


def test_the_advertisement_carries_id_and_build_time_under_180a_and_state_as_maker_data() -> None:
    info = px.service_data(0x1234ABCD, 1_700_000_000)
    state = px.manufacturer_data(
        led_count=6,
        die_type=DieType.D6,
        roll_state=px.RollState.ON_FACE,
        face_index=1,
        battery_percent=77,
        charging=True,
        colourway=3,
    )
    assert state == bytes([6, 0x23, 5, 1, 0x80 | 77])
    for company in px.COMPANY_IDS:
        advert = px.parse_advert({px.INFO_SERVICE_DATA_UUID: info}, {company: state})
        assert advert == px.Advert(
            pixel_id=0x1234ABCD,
            build_timestamp=1_700_000_000,
            led_count=6,
            die_type=DieType.D6,
            roll_state=px.RollState.ON_FACE,
            face_index=1,
            battery_percent=77,
            charging=True,
        )
        assert advert.face == 5  # that firmware's wrong normals, corrected
    # Under the service UUID, or under someone else's company id, it is not a Pixels advert.
    assert px.parse_advert({px.SERVICE_UUID: info}, {0xFFFF: state}) is None
    assert px.parse_advert({px.INFO_SERVICE_DATA_UUID: info}, {0x004C: state}) is None
    assert px.parse_advert({px.INFO_SERVICE_DATA_UUID: info}, {0xFFFF: state[:4]}) is None
