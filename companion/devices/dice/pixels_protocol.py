"""The Pixels dice message layouts: bytes from a die into messages, and the few we send.

Layouts follow the maker's published communications protocol and its own client
library (pixels-js): every message is one GATT write or notification, little
endian, its first byte the message id. Only what a roll needs is decoded (who
the die is, its roll state, its battery); any other message id decodes to
`OtherMessage`. Bytes that break a layout raise `DecodeError`, never anything
else; values merely out of range (a battery over 100 %, a die type or a roll
state this app does not know) are read as the maker's library reads them.

Firmware built up to 2023-11-17 computed its faces from wrong normals (a d6
reports 2 and 5, 3 and 4 swapped), and firmware built before 2024-05-22 13:00 UTC
reports a slightly tilted roll of a 6-LED die as crooked: `face_value` and
`tilted_is_crooked` correct both from the build time in the die's identity (the
second also when that time is unknown, as the maker's library does).
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from companion.devices.dice.model import DecodeError, DieType, Motion

# Firmware built since late 2024 offers this service; older firmware (the
# 2024-11-07 release included) offers the LEGACY_ set. A die offers one of them.
SERVICE_UUID = "a6b90001-7a5a-43f2-a962-350c8edc9b5b"
NOTIFY_CHAR_UUID = "a6b90002-7a5a-43f2-a962-350c8edc9b5b"
WRITE_CHAR_UUID = "a6b90003-7a5a-43f2-a962-350c8edc9b5b"
LEGACY_SERVICE_UUID = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
LEGACY_NOTIFY_CHAR_UUID = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"  # the service's own UUID
LEGACY_WRITE_CHAR_UUID = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
SERVICE_UUIDS = (SERVICE_UUID, LEGACY_SERVICE_UUID)
#: (write, notify) characteristic pairs, the current set first.
CHARACTERISTICS = (
    (WRITE_CHAR_UUID, NOTIFY_CHAR_UUID),
    (LEGACY_WRITE_CHAR_UUID, LEGACY_NOTIFY_CHAR_UUID),
)
# Advertising, as the firmware splits it: the advertisement lists Device Information's
# 16-bit UUID and carries the die's state as manufacturer data under one of these company
# ids; the scan response lists the die's service and carries its id and build time as
# service data under that same 16-bit UUID.
INFO_SERVICE_DATA_UUID = "0000180a-0000-1000-8000-00805f9b34fb"
# Unassigned (firmware up to the 2024-11-07 release), Systemic Games (since).
COMPANY_IDS = (0xFFFF, 0x0D39)

BAD_NORMALS_BUILT_BY = 1_704_150_000  # s: firmware built up to this (2023-11-17 builds)
CROOKED_FIX_BUILT_AT = 1_716_382_800  # s: 2024-05-22 13:00 UTC, the maker's library's cut-off

# Message ids (the first byte), as numbered by the firmware.
WHO_ARE_YOU = 1
I_AM_A_DIE = 2
ROLL_STATE = 3
REQUEST_ROLL_STATE = 23
BLINK = 29
REQUEST_BATTERY_LEVEL = 33
BATTERY_LEVEL = 34

LEGACY_I_AM_A_DIE_SIZE = 22  # bytes: the flat layout of firmware before chunked identities
SERVICE_DATA_SIZE = 8  # bytes: Pixel id and firmware build time, in the advertisement
MANUFACTURER_DATA_SIZE = 5  # bytes: LED count, design, roll state, face index, battery
ALL_FACES = 0xFFFF_FFFF  # face mask: light every face
CHARGING_BIT = 0x80  # in the advertised battery byte; the low seven bits are the percent


class RollState(enum.IntEnum):
    """The roll states a Pixels die reports; a value this app does not know reads UNKNOWN."""

    UNKNOWN = 0
    ROLLED = 1  # came to rest after a proper roll (older firmware: "on a face")
    HANDLING = 2
    ROLLING = 3
    CROOKED = 4
    ON_FACE = 5  # at rest, but it never moved enough to count as a roll

    @property
    def motion(self) -> Motion:
        """The maker-neutral name of this state."""
        return _MOTION[self]


_MOTION = {
    RollState.UNKNOWN: Motion.UNKNOWN,
    RollState.ROLLED: Motion.SETTLED,
    RollState.HANDLING: Motion.HANDLING,
    RollState.ROLLING: Motion.ROLLING,
    RollState.CROOKED: Motion.CROOKED,
    RollState.ON_FACE: Motion.RESTING,
}

# The die type byte of an identity message.
DIE_TYPES = {
    0: DieType.UNKNOWN,
    1: DieType.D4,
    2: DieType.D6,
    3: DieType.D8,
    4: DieType.D10,
    5: DieType.D00,
    6: DieType.D12,
    7: DieType.D20,
    8: DieType.D6_PIPPED,
    9: DieType.D6_FUDGE,
}
DIE_TYPE_CODES = {die_type: code for code, die_type in DIE_TYPES.items()}

# In an identity, a die type code of 0 or one this app does not know; in an advertisement,
# a code of 0 only: the maker's library estimates the shape from the LED count.
_TYPE_BY_LED_COUNT = {
    4: DieType.D4,
    6: DieType.D6,
    8: DieType.D8,
    10: DieType.D10,
    12: DieType.D12,
    20: DieType.D20,
    21: DieType.D6_PIPPED,
}
# Firmware with wrong normals: face index -> number, for the shapes it got wrong.
_BAD_NORMALS = {
    DieType.D6: {4: 2, 3: 3, 2: 4, 1: 5},
    DieType.D4: {3: 2, 2: 3, 5: 4},
}


def face_value(die_type: DieType, face_index: int, build_timestamp: int = 0) -> int:
    """The number on a face, from the 0-based face index a Pixels die reports.

    ``build_timestamp`` is the die's firmware build time (from its identity or its
    advertisement); firmware built up to BAD_NORMALS_BUILT_BY reports d6 and d4
    faces from wrong normals, which this undoes as the maker's library does.

    >>> face_value(DieType.D6, 0), face_value(DieType.D10, 0), face_value(DieType.D00, 3)
    (1, 0, 30)
    >>> face_value(DieType.D6, 1), face_value(DieType.D6, 1, build_timestamp=1_700_000_000)
    (2, 5)
    """
    if 0 < build_timestamp <= BAD_NORMALS_BUILT_BY and die_type in _BAD_NORMALS:
        fixes = _BAD_NORMALS[die_type]
        if die_type is DieType.D4:
            return fixes.get(face_index, 1)
        return fixes.get(face_index, face_index + 1)
    if die_type is DieType.D10:
        return face_index
    if die_type is DieType.D00:
        return face_index * 10
    if die_type is DieType.UNKNOWN:
        return face_index
    return face_index + 1


def tilted_is_crooked(led_count: int, build_timestamp: int) -> bool:
    """True for a 6-LED die whose firmware reports a slightly tilted roll as crooked.

    Firmware built before 2024-05-22 13:00 UTC does so; such a "crooked" state
    after a roll carries the face that is up and counts as the roll's result. An
    unknown build time (0) counts as such firmware, as in the maker's library.
    """
    return led_count == 6 and build_timestamp < CROOKED_FIX_BUILT_AT


@dataclass(frozen=True)
class IAmADie:
    """A die's answer to WhoAreYou: what it is and how it lies right now."""

    die_type: DieType
    led_count: int
    pixel_id: int
    build_timestamp: int
    roll_state: RollState
    face_index: int
    battery_percent: int
    battery_state: int
    name: str = ""  # only the chunked layout carries the die's name


@dataclass(frozen=True)
class RollStateMessage:
    """Sent whenever the roll state or the face up changes."""

    state: RollState
    face_index: int


@dataclass(frozen=True)
class BatteryLevel:
    """Sent whenever the battery level or charging state changes."""

    percent: int
    state: int


@dataclass(frozen=True)
class OtherMessage:
    """A message id this app does not read (animations, telemetry, acknowledgements)."""

    message_id: int


Message = IAmADie | RollStateMessage | BatteryLevel | OtherMessage


def decode(data: bytes) -> Message:
    """One notification from a die into a message; raises `DecodeError` if malformed.

    >>> decode(bytes([3, 1, 4]))
    RollStateMessage(state=<RollState.ROLLED: 1>, face_index=4)
    >>> decode(bytes([34, 87, 0]))
    BatteryLevel(percent=87, state=0)
    """
    if not data:
        raise DecodeError("Pixels: empty notification")
    message_id = data[0]
    if message_id == ROLL_STATE:
        _need(data, 3, "RollState")
        return RollStateMessage(_roll_state(data[1]), data[2])
    if message_id == BATTERY_LEVEL:
        _need(data, 3, "BatteryLevel")
        return BatteryLevel(_percent(data[1]), data[2])
    if message_id == I_AM_A_DIE:
        if len(data) == LEGACY_I_AM_A_DIE_SIZE:
            return _legacy_identity(data)
        return _chunked_identity(data)
    return OtherMessage(message_id)


def _need(data: bytes, size: int, what: str) -> None:
    if len(data) < size:
        raise DecodeError(f"Pixels: {what} needs {size} bytes, got {len(data)}")


def _roll_state(value: int) -> RollState:
    """A roll state; one newer than this app is unknown, as the maker's library reads it."""
    try:
        return RollState(value)
    except ValueError:
        return RollState.UNKNOWN


def _percent(value: int) -> int:
    """A battery reading held to 0..100 (a gauge may overshoot while charging)."""
    return value if value <= 100 else 100


def _die_type(code: int, led_count: int) -> DieType:
    """An identity's die type: unknown (or one newer than this app) is estimated from the
    LED count, as the maker's library does on connecting."""
    die_type = DIE_TYPES.get(code, DieType.UNKNOWN)
    if die_type is DieType.UNKNOWN:
        return _TYPE_BY_LED_COUNT.get(led_count, DieType.UNKNOWN)
    return die_type


def _advertised_die_type(code: int, led_count: int) -> DieType:
    """An advertisement's die type: only code 0 is estimated from the LED count; a code
    this app does not know stays unknown, as the maker's scanner reads it."""
    if code == 0:
        return _TYPE_BY_LED_COUNT.get(led_count, DieType.UNKNOWN)
    return DIE_TYPES.get(code, DieType.UNKNOWN)


# id, LED count, colour, die type, data-set hash, Pixel id, free flash, build time,
# roll state, face index, battery percent, battery state
_LEGACY = struct.Struct("<BBBBIIHIBBBB")


def _legacy_identity(data: bytes) -> IAmADie:
    (_, leds, _colour, type_code, _hash, pixel_id, _flash, built, roll, face, battery, state) = (
        _LEGACY.unpack(data)
    )
    return _identity(type_code, leds, pixel_id, built, (roll, face, battery, state))


def _identity(
    type_code: int, leds: int, pixel_id: int, built: int, status: tuple[int, ...], name: str = ""
) -> IAmADie:
    """The record both identity layouts decode to; ``status`` is roll state, face index,
    battery percent and battery state as the die sent them."""
    roll, face, battery, battery_state = status
    return IAmADie(
        die_type=_die_type(type_code, leds),
        led_count=leds,
        pixel_id=pixel_id,
        build_timestamp=built,
        roll_state=_roll_state(roll),
        face_index=face,
        battery_percent=_percent(battery),
        battery_state=battery_state,
        name=name,
    )


# The chunked identity: after the id byte, six chunks in this order, each starting
# with its own size in bytes (the size byte included).
_CHUNKS = ("version", "die", "design name", "die name", "settings", "status")
_VERSION_MIN = 7  # size, firmware version (2), build timestamp (4)
_DIE_MIN = 9  # size, Pixel id (4), chip model, die type, LED count, colourway
_STATUS_MIN = 5  # size, battery percent, battery state, roll state, face index


def _chunked_identity(data: bytes) -> IAmADie:
    chunks: dict[str, bytes] = {}
    offset = 1
    for name in _CHUNKS:
        if offset >= len(data):
            raise DecodeError(f"Pixels: IAmADie ends before its {name} chunk")
        size = data[offset]
        if size < 1 or offset + size > len(data):
            raise DecodeError(f"Pixels: IAmADie {name} chunk claims {size} bytes")
        chunks[name] = data[offset : offset + size]
        offset += size
    version, die, status = chunks["version"], chunks["die"], chunks["status"]
    if len(version) < _VERSION_MIN or len(die) < _DIE_MIN or len(status) < _STATUS_MIN:
        raise DecodeError("Pixels: IAmADie chunk too short for its fields")
    (built,) = struct.unpack_from("<I", version, 3)
    pixel_id, _chip, type_code, leds = struct.unpack_from("<IBBB", die, 1)
    battery, battery_state, roll, face = status[1:5]
    return _identity(
        type_code,
        leds,
        pixel_id,
        built,
        (roll, face, battery, battery_state),
        _text(chunks["die name"]),
    )


def _text(chunk: bytes) -> str:
    return chunk[1:].split(b"\0", 1)[0].decode("utf-8", errors="replace")


# -- what the app sends ----------------------------------------------------------------


def who_are_you() -> bytes:
    """Ask the die to identify itself (it answers with IAmADie)."""
    return bytes([WHO_ARE_YOU])


def request_roll_state() -> bytes:
    """Ask for the current roll state (answered with a RollState message)."""
    return bytes([REQUEST_ROLL_STATE])


def blink(
    rgb: tuple[int, int, int],
    *,
    count: int = 2,
    duration_ms: int = 1000,
    face_mask: int = ALL_FACES,
    fade: int = 128,
    loop_count: int = 1,
) -> bytes:
    """Flash the die's LEDs `count` times in `duration_ms` (fade 0 sharp .. 255 soft), the
    whole animation played `loop_count` times (the firmware plays 0 as 1).

    >>> len(blink((0, 128, 255))), blink((0, 128, 255))[-1]
    (14, 1)
    """
    red, green, blue = rgb
    colour = (red << 16) | (green << 8) | blue  # ARGB; the die ignores alpha
    return _BLINK.pack(BLINK, count, duration_ms, colour, face_mask, fade, loop_count)


# id, flash count (u8), duration ms (u16), colour (u32), face mask (u32), fade (u8),
# loop count (u8): the maker's library's field order and sizes.
_BLINK = struct.Struct("<BBHIIBB")


@dataclass(frozen=True)
class Blink:
    """A Blink message as the die reads it (what a virtual die shows)."""

    count: int
    duration_ms: int
    rgb: tuple[int, int, int]
    face_mask: int
    fade: int
    loop_count: int


def decode_blink(data: bytes) -> Blink:
    """A Blink message's fields; `DecodeError` if it is not one."""
    if len(data) != _BLINK.size or data[0] != BLINK:
        raise DecodeError("Pixels: Blink is 14 bytes starting with 29")
    _, count, duration_ms, colour, face_mask, fade, loop_count = _BLINK.unpack(data)
    rgb = ((colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF)
    return Blink(count, duration_ms, rgb, face_mask, fade, loop_count)


# -- what a die advertises ---------------------------------------------------------------


@dataclass(frozen=True)
class Advert:
    """What a Pixels die says about itself in its advertisement, before any connection."""

    pixel_id: int
    build_timestamp: int
    led_count: int
    die_type: DieType
    roll_state: RollState
    face_index: int
    battery_percent: int
    charging: bool

    @property
    def face(self) -> int:
        """The number on the face that is up (build-time corrections applied)."""
        return face_value(self.die_type, self.face_index, self.build_timestamp)


def service_data(pixel_id: int, build_timestamp: int) -> bytes:
    """The service data a die advertises under INFO_SERVICE_DATA_UUID: its id and build time."""
    return struct.pack("<II", pixel_id, build_timestamp)


def pixel_id_from_service_data(data: bytes) -> int:
    """The Pixel id in advertised service data; `DecodeError` if it is not that layout."""
    if len(data) < SERVICE_DATA_SIZE:
        raise DecodeError(f"Pixels: service data is {SERVICE_DATA_SIZE} bytes, got {len(data)}")
    return int(struct.unpack_from("<I", data)[0])


def manufacturer_data(
    *,
    led_count: int,
    die_type: DieType,
    roll_state: RollState,
    face_index: int,
    battery_percent: int,
    charging: bool = False,
    colourway: int = 0,
) -> bytes:
    """The manufacturer data a die advertises: its state in 5 bytes."""
    design = (DIE_TYPE_CODES[die_type] << 4) | (colourway & 0x0F)
    battery = (battery_percent & 0x7F) | (CHARGING_BIT if charging else 0)
    return bytes([led_count, design, roll_state, face_index, battery])


def parse_advert(
    service_data_by_uuid: Mapping[str, bytes], manufacturer_data_by_company: Mapping[int, bytes]
) -> Advert | None:
    """A die's advertisement (bleak's ``service_data`` and ``manufacturer_data``), or None.

    None until both parts are heard (the service data comes only in the scan
    response, a moment after the first packet), and for a Pixel id of 0, which the
    maker's scanner refuses as invalid.
    """
    info = service_data_by_uuid.get(INFO_SERVICE_DATA_UUID)
    state = advertised_state(manufacturer_data_by_company)
    if info is None or len(info) < SERVICE_DATA_SIZE or state is None:
        return None
    pixel_id, built = struct.unpack_from("<II", info)
    if pixel_id == 0:
        return None
    leds, design, roll, face, battery = state[:MANUFACTURER_DATA_SIZE]
    return Advert(
        pixel_id=pixel_id,
        build_timestamp=built,
        led_count=leds,
        die_type=_advertised_die_type(design >> 4, leds),
        roll_state=_roll_state(roll),
        face_index=face,
        battery_percent=_percent(battery & 0x7F),
        charging=bool(battery & CHARGING_BIT),
    )


def advertised_state(manufacturer_data_by_company: Mapping[int, bytes]) -> bytes | None:
    """The die's 5 bytes of state, under either of the firmware's company ids."""
    for company in COMPANY_IDS:
        state = manufacturer_data_by_company.get(company)
        if state is not None and len(state) >= MANUFACTURER_DATA_SIZE:
            return state
    return None


def is_die_advertisement(
    service_uuids: Sequence[str], manufacturer_data_by_company: Mapping[int, bytes]
) -> bool:
    """True for the advertisement a die sends before its scan response is heard.

    It lists Device Information (180a) and carries the die's state as
    manufacturer data; neither the die's service nor its id are in it yet.
    """
    listed = INFO_SERVICE_DATA_UUID in service_uuids
    return listed and advertised_state(manufacturer_data_by_company) is not None


def identity(
    *,
    name: str,
    pixel_id: int,
    die_type: DieType,
    led_count: int,
    roll_state: RollState,
    face_index: int,
    battery_percent: int,
    build_timestamp: int = 0,
    legacy: bool = False,
) -> bytes:
    """An IAmADie message as a die sends it (for virtual dice and tests)."""
    type_code = DIE_TYPE_CODES[die_type]
    if legacy:
        return _LEGACY.pack(
            I_AM_A_DIE, led_count, 0, type_code, 0, pixel_id, 0, build_timestamp,
            roll_state, face_index, battery_percent, 0,
        )  # fmt: skip
    version = struct.pack("<BHIHHHH", 15, 0, build_timestamp, 0, 0, 0, 0)
    die = struct.pack("<BIBBBB", 9, pixel_id, 1, type_code, led_count, 0)
    design = bytes([2, 0])
    encoded_name = name.encode()[:31] + b"\0"
    die_name = bytes([1 + len(encoded_name)]) + encoded_name
    settings = struct.pack("<BIII", 13, 0, 0, 0)
    status = bytes([5, battery_percent, 0, roll_state, face_index])
    return bytes([I_AM_A_DIE]) + version + die + design + die_name + settings + status
