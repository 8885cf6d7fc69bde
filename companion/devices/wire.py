"""Wire protocol of the LED level counters: messages, serial framing and claim/auth helpers.

This one module is shared by the app (``companion.devices.wire``) and the
firmware (a top-level ``wire`` module on the board), so it is written in the
subset of Python that both CPython and MicroPython >= 1.22 run: it imports only
``struct``, ``hashlib`` and ``os`` (for random tokens and nonces), and uses plain
classes, bytes and ints. ``docs/protocol.md`` is the specification; the vectors
in ``tests/vectors/`` pin its bytes.
"""

import hashlib
import struct

# --- versions, sizes ----------------------------------------------------------

PROTOCOL_MAJOR = 1  # bumped when an existing layout changes; peers must match
PROTOCOL_MINOR = 0  # bumped when messages or fields are only added
MAX_MESSAGE = 20  # bytes: one default BLE ATT payload (MTU 23 - 3)
HEADER_SIZE = 3  # type u8 + seq u16
MAX_BODY = MAX_MESSAGE - HEADER_SIZE
MAX_SLOTS = 8  # player slots in a SNAPSHOT
NO_SLOT = 0xFF  # "no player" in slot fields
CRC_SIZE = 2
# A COBS frame of the largest message: one code byte more than its data.
MAX_FRAME = MAX_MESSAGE + CRC_SIZE + 1

# --- BLE carrier ------------------------------------------------------------

SERVICE_UUID = "43f8bb66-4ffe-4ad5-a85e-3d955aefe093"
# app -> counter, write without response
RX_CHAR_UUID = "43f8bb66-4ffe-4ad5-a85e-3d955aefe094"
# counter -> app, notify
TX_CHAR_UUID = "43f8bb66-4ffe-4ad5-a85e-3d955aefe095"
BATTERY_SERVICE_UUID = 0x180F
BATTERY_LEVEL_CHAR_UUID = 0x2A19
DEVICE_INFO_SERVICE_UUID = 0x180A
MANUFACTURER_CHAR_UUID = 0x2A29
MODEL_CHAR_UUID = 0x2A24
FIRMWARE_REV_CHAR_UUID = 0x2A26
ADV_NAME_PREFIX = "MCounter"


def counter_name(counter_id: int) -> str:
    """The name a counter advertises: "MCounter-" and the low 16 bits of its id, upper-case hex."""
    return f"{ADV_NAME_PREFIX}-{counter_id & 0xFFFF:04X}"


# --- enumerations ------------------------------------------------------------

MSG_HELLO = 0x01
MSG_SNAPSHOT = 0x02
MSG_CONFIG = 0x03
MSG_SHOW = 0x04
MSG_BUTTON = 0x05
MSG_ACK = 0x06
MSG_PING = 0x07
MSG_PONG = 0x08
MSG_BATTERY = 0x09
MSG_ERROR = 0x0A
MSG_CLAIM = 0x0B
MSG_CLAIM_OPEN = 0x0C
MSG_CHALLENGE = 0x0D
MSG_AUTH = 0x0E

ROLE_APP = 0
ROLE_BOARD = 1
ROLE_TRACKER = 2

CAP_STRIP = 0x0001  # addressable LED level track
CAP_SEGMENTS = 0x0002  # 7-segment digits
CAP_LEDBAR = 0x0004  # short addressable LED bar
CAP_STATUS_LED = 0x0008
CAP_BATTERY = 0x0010
CAP_BLE = 0x0020
CAP_SERIAL = 0x0040
CAP_LEVEL_BUTTONS = 0x0080  # + and - buttons
CAP_NEXT_BUTTON = 0x0100
CAP_CLAIMED = 0x8000  # not a capability but state: a CHALLENGE follows this HELLO

FLAG_TURN = 0x1
FLAG_FIGHTING = 0x2
FLAG_HELPING = 0x4
FLAG_DEAD = 0x8

CFG_COLOURS = 1
CFG_BRIGHTNESS = 2
CFG_BUDGET = 3
CFG_SLOT_MAP = 4
CFG_WIN_LEVEL = 5

SHOW_CLEAR = 0
SHOW_COMBAT = 1
SHOW_ROLL = 2
SHOW_WIN = 3
SHOW_IDENTIFY = 4

INTENT_LEVEL_UP = 1
INTENT_LEVEL_DOWN = 2
INTENT_NEXT_TURN = 3

BATTERY_CHARGING = 0x1
BATTERY_LOW = 0x2
BATTERY_EXTERNAL = 0x4

ERR_MALFORMED = 1
ERR_UNKNOWN_TYPE = 2
ERR_VERSION = 3
ERR_OVERSIZE = 4
ERR_NOT_AUTHENTICATED = 5
ERR_AUTH_FAILED = 6
ERR_REPLAY = 7
ERR_NOT_CLAIMING = 8
ERR_UNEXPECTED = 9
ERR_BAD_FRAME = 10

TOKEN_SIZE = 16
NONCE_SIZE = 16
MAC_SIZE = 16
CLAIM_WINDOW_S = 30
MAX_DETAIL = MAX_BODY - 3  # ERROR: code u8 + ref_seq u16 + detail text


class WireError(ValueError):
    """The codec's one error type; ``code`` is the ERR_* number a counter reports back."""

    def __init__(self, message: str, code: int = ERR_MALFORMED) -> None:
        super().__init__(message)
        self.code = code


# --- field checks --------------------------------------------------------------


def _int(name, value, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or value < low or value > high:
        raise WireError(f"{name} must be an integer from {low} to {high}")
    return value


def _u8(name, value):
    return _int(name, value, 0, 0xFF)


def _u16(name, value):
    return _int(name, value, 0, 0xFFFF)


def _i16(name, value):
    return _int(name, value, -0x8000, 0x7FFF)


def _u32(name, value):
    return _int(name, value, 0, 0xFFFFFFFF)


def _slot(name, value):
    if value != NO_SLOT:
        _int(name, value, 0, MAX_SLOTS - 1)
    return value


def _blob(name, value, size):
    if isinstance(value, str):
        raise WireError(f"{name} must be {size} bytes")
    try:
        value = bytes(value)
    except (TypeError, ValueError):
        raise WireError(f"{name} must be {size} bytes") from None
    if len(value) != size:
        raise WireError(f"{name} must be {size} bytes")
    return value


def _body_len(body, size):
    if len(body) != size:
        raise WireError(f"message body is {len(body)} bytes, expected {size}")


# --- messages -------------------------------------------------------------------


class Message:
    """Base of all messages: ``seq`` (u16) is in every header; FIELDS are the body."""

    TYPE = 0
    FIELDS = ()
    seq = 0

    def values(self) -> tuple:
        return tuple([getattr(self, name) for name in self.FIELDS])

    def to_dict(self) -> dict:
        """Plain JSON-friendly values (bytes as lists of ints), as in the test vectors."""
        out = {"type": type(self).__name__, "seq": self.seq}
        for name in self.FIELDS:
            out[name] = _plain(getattr(self, name))
        return out

    def encode(self) -> bytes:
        return bytes([self.TYPE, self.seq & 0xFF, self.seq >> 8]) + self._body()

    def _body(self):
        return b""

    def __eq__(self, other):
        return (
            type(self) is type(other) and self.seq == other.seq and self.values() == other.values()
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.TYPE, self.seq, self.values()))

    def __repr__(self):
        parts = [f"seq={self.seq!r}"]
        for name in self.FIELDS:
            parts.append(f"{name}={getattr(self, name)!r}")
        return type(self).__name__ + "(" + ", ".join(parts) + ")"


def _plain(value):
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


class Hello(Message):
    """Both ways at the start of a session: who I am and what I can do."""

    TYPE = MSG_HELLO
    FIELDS = ("major", "minor", "firmware", "role", "slots", "led_count", "caps", "counter_id")

    def __init__(
        self,
        role: int,
        firmware: tuple = (0, 0, 0),
        slots: int = 0,
        led_count: int = 0,
        caps: int = 0,
        counter_id: int = 0,
        major: int = PROTOCOL_MAJOR,
        minor: int = PROTOCOL_MINOR,
        seq: int = 0,
    ) -> None:
        self.seq = _u16("seq", seq)
        self.major = _u8("major", major)
        self.minor = _u8("minor", minor)
        firmware = tuple(firmware)
        if len(firmware) != 3:
            raise WireError("firmware must be (major, minor, patch)")
        for part in firmware:
            _u8("firmware", part)
        self.firmware = firmware
        self.role = _int("role", role, ROLE_APP, ROLE_TRACKER)
        self.slots = _int("slots", slots, 0, MAX_SLOTS)
        self.led_count = _u16("led_count", led_count)
        self.caps = _u16("caps", caps)
        self.counter_id = _u32("counter_id", counter_id)

    def _body(self):
        return struct.pack(
            "<BBBBBBBHHI",
            self.major,
            self.minor,
            self.firmware[0],
            self.firmware[1],
            self.firmware[2],
            self.role,
            self.slots,
            self.led_count,
            self.caps,
            self.counter_id,
        )

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 15)
        major, minor, fa, fb, fc, role, slots, leds, caps, cid = struct.unpack("<BBBBBBBHHI", body)
        if major != PROTOCOL_MAJOR:
            raise WireError(
                f"protocol version {major}.{minor} is not supported (need {PROTOCOL_MAJOR}.x)",
                ERR_VERSION,
            )
        return cls(role, (fa, fb, fc), slots, leds, caps, cid, major, minor, seq)


class Snapshot(Message):
    """App -> counter: the whole table, absolute and idempotent. Level 0 = empty slot."""

    TYPE = MSG_SNAPSHOT
    FIELDS = ("rev", "levels", "flags")

    def __init__(self, rev: int, levels: tuple = (), flags: tuple = (), seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.rev = _u16("rev", rev)
        levels = tuple(levels)
        flags = tuple(flags)
        if len(levels) > MAX_SLOTS or len(flags) > MAX_SLOTS:
            raise WireError(f"a snapshot holds at most {MAX_SLOTS} player slots")
        for level in levels:
            _u8("level", level)
        for flag in flags:
            _int("flags", flag, 0, 0xF)
        self.levels = levels + (0,) * (MAX_SLOTS - len(levels))
        self.flags = flags + (0,) * (MAX_SLOTS - len(flags))

    def _body(self):
        packed = bytearray(MAX_SLOTS // 2)
        for i in range(MAX_SLOTS):
            packed[i >> 1] |= self.flags[i] << (4 * (i & 1))
        return struct.pack("<H", self.rev) + bytes(self.levels) + bytes(packed)

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 2 + MAX_SLOTS + MAX_SLOTS // 2)
        rev = body[0] | body[1] << 8
        levels = tuple(body[2 : 2 + MAX_SLOTS])
        packed = body[2 + MAX_SLOTS :]
        flags = tuple([(packed[i >> 1] >> (4 * (i & 1))) & 0xF for i in range(MAX_SLOTS)])
        return cls(rev, levels, flags, seq)


class Config(Message):
    """App -> counter settings; one subclass per KEY (the first body byte)."""

    TYPE = MSG_CONFIG
    KEY = 0


class ConfigColours(Config):
    """Colours of up to 5 consecutive player slots, starting at ``first``."""

    KEY = CFG_COLOURS
    FIELDS = ("first", "colours")
    MAX_COLOURS = 5

    def __init__(self, first: int, colours: tuple, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.first = _int("first", first, 0, MAX_SLOTS - 1)
        out = []
        for colour in colours:
            colour = tuple(colour)
            if len(colour) != 3:
                raise WireError("a colour is (red, green, blue)")
            for part in colour:
                _u8("colour", part)
            out.append(colour)
        if not 1 <= len(out) <= self.MAX_COLOURS or first + len(out) > MAX_SLOTS:
            raise WireError("1 to 5 colours for slots 0..7")
        self.colours = tuple(out)

    def _body(self):
        body = bytearray([self.KEY, self.first])
        for colour in self.colours:
            body.extend(bytes(colour))
        return bytes(body)

    @classmethod
    def _decode(cls, seq, body):
        count = (len(body) - 2) // 3
        if len(body) < 5 or (len(body) - 2) % 3:
            raise WireError("colour list has a bad length")
        colours = [tuple(body[2 + 3 * i : 5 + 3 * i]) for i in range(count)]
        return cls(body[1], colours, seq)


class ConfigBrightness(Config):
    """Master brightness 0..255, before the current limiter."""

    KEY = CFG_BRIGHTNESS
    FIELDS = ("brightness",)

    def __init__(self, brightness: int, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.brightness = _u8("brightness", brightness)

    def _body(self):
        return bytes([self.KEY, self.brightness])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 2)
        return cls(body[1], seq)


class ConfigBudget(Config):
    """LED current budget in milliamps; 0 restores the board's default."""

    KEY = CFG_BUDGET
    FIELDS = ("budget_ma",)

    def __init__(self, budget_ma: int, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.budget_ma = _u16("budget_ma", budget_ma)

    def _body(self):
        return bytes([self.KEY]) + struct.pack("<H", self.budget_ma)

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 3)
        return cls(body[1] | body[2] << 8, seq)


class ConfigSlotMap(Config):
    """Which player slot each physical position shows (NO_SLOT = none).

    A tracker has one position (the player it belongs to); a level board has
    one position per LED of a level space.
    """

    KEY = CFG_SLOT_MAP
    FIELDS = ("slots",)

    def __init__(self, slots: tuple, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        slots = tuple(slots)
        if not 1 <= len(slots) <= MAX_SLOTS:
            raise WireError("a slot map has 1 to 8 positions")
        for slot in slots:
            _slot("slot", slot)
        self.slots = slots

    def _body(self):
        return bytes([self.KEY]) + bytes(self.slots)

    @classmethod
    def _decode(cls, seq, body):
        return cls(tuple(body[1:]), seq)


class ConfigWinLevel(Config):
    """The winning level of this game (10, or 20 in Epic): the top of the track."""

    KEY = CFG_WIN_LEVEL
    FIELDS = ("win_level",)

    def __init__(self, win_level: int, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.win_level = _int("win_level", win_level, 1, 0xFF)

    def _body(self):
        return bytes([self.KEY, self.win_level])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 2)
        return cls(body[1], seq)


class Show(Message):
    """App -> counter transient effects; one subclass per EFFECT (first body byte)."""

    TYPE = MSG_SHOW
    EFFECT = 0


class ShowClear(Show):
    """End any effect (combat over, celebration over)."""

    EFFECT = SHOW_CLEAR

    def __init__(self, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)

    def _body(self):
        return bytes([self.EFFECT])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 1)
        return cls(seq)


class ShowCombat(Show):
    """A combat in progress: who fights, both strengths, and which side is winning."""

    EFFECT = SHOW_COMBAT
    FIELDS = ("fighter", "helper", "players", "monsters", "players_winning")

    def __init__(
        self,
        fighter: int,
        players: int,
        monsters: int,
        players_winning: bool,
        helper: int = NO_SLOT,
        seq: int = 0,
    ) -> None:
        self.seq = _u16("seq", seq)
        self.fighter = _slot("fighter", fighter)
        self.helper = _slot("helper", helper)
        self.players = _i16("players", players)
        self.monsters = _i16("monsters", monsters)
        self.players_winning = bool(players_winning)

    def _body(self):
        return struct.pack(
            "<BBBhhB",
            self.EFFECT,
            self.fighter,
            self.helper,
            self.players,
            self.monsters,
            1 if self.players_winning else 0,
        )

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 8)
        _, fighter, helper, players, monsters, winning = struct.unpack("<BBBhhB", body)
        if winning > 1:
            raise WireError("players_winning must be 0 or 1")
        return cls(fighter, players, monsters, winning == 1, helper, seq)


class ShowRoll(Show):
    """A die roll by ``slot`` (NO_SLOT = the table), landing on ``value``."""

    EFFECT = SHOW_ROLL
    FIELDS = ("slot", "value", "sides")

    def __init__(self, slot: int, value: int, sides: int = 6, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.slot = _slot("slot", slot)
        self.sides = _int("sides", sides, 2, 0xFF)
        self.value = _int("value", value, 1, self.sides)

    def _body(self):
        return bytes([self.EFFECT, self.slot, self.value, self.sides])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 4)
        return cls(body[1], body[2], body[3], seq)


class ShowWin(Show):
    """The winner's celebration."""

    EFFECT = SHOW_WIN
    FIELDS = ("slot",)

    def __init__(self, slot: int, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.slot = _slot("slot", slot)

    def _body(self):
        return bytes([self.EFFECT, self.slot])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 2)
        return cls(body[1], seq)


class ShowIdentify(Show):
    """Blink so people can tell which counter this is; 0 seconds stops it."""

    EFFECT = SHOW_IDENTIFY
    FIELDS = ("duration_s",)

    def __init__(self, duration_s: int = 5, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.duration_s = _u8("duration_s", duration_s)

    def _body(self):
        return bytes([self.EFFECT, self.duration_s])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 2)
        return cls(body[1], seq)


class Button(Message):
    """Counter -> app: a player's request (an intent); the app answers with ACK."""

    TYPE = MSG_BUTTON
    FIELDS = ("intent", "slot")

    def __init__(self, intent: int, slot: int = NO_SLOT, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.intent = _int("intent", intent, INTENT_LEVEL_UP, INTENT_NEXT_TURN)
        self.slot = _slot("slot", slot)

    def _body(self):
        return bytes([self.intent, self.slot])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 2)
        return cls(body[0], body[1], seq)


class Ack(Message):
    """Either way: the message with ``ref_seq`` (of type ``ref_type``) was applied."""

    TYPE = MSG_ACK
    FIELDS = ("ref_seq", "ref_type")

    def __init__(self, ref_seq: int, ref_type: int, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.ref_seq = _u16("ref_seq", ref_seq)
        self.ref_type = _u8("ref_type", ref_type)

    def _body(self):
        return struct.pack("<HB", self.ref_seq, self.ref_type)

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 3)
        return cls(body[0] | body[1] << 8, body[2], seq)


class Ping(Message):
    """Either way: are you there? Answered by PONG with the same token."""

    TYPE = MSG_PING
    FIELDS = ("token",)

    def __init__(self, token: int, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.token = _u32("token", token)

    def _body(self):
        return struct.pack("<I", self.token)

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 4)
        return cls(struct.unpack("<I", body)[0], seq)


class Pong(Message):
    """Answer to PING, with the sender's uptime in seconds."""

    TYPE = MSG_PONG
    FIELDS = ("token", "uptime_s")

    def __init__(self, token: int, uptime_s: int = 0, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.token = _u32("token", token)
        self.uptime_s = _u32("uptime_s", uptime_s)

    def _body(self):
        return struct.pack("<II", self.token, self.uptime_s)

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 8)
        token, uptime = struct.unpack("<II", body)
        return cls(token, uptime, seq)


class Battery(Message):
    """Counter -> app: battery voltage, charge estimate and state flags."""

    TYPE = MSG_BATTERY
    FIELDS = ("millivolts", "percent", "flags")

    def __init__(self, millivolts: int, percent: int, flags: int = 0, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.millivolts = _u16("millivolts", millivolts)
        self.percent = _int("percent", percent, 0, 100)
        self.flags = _int("flags", flags, 0, 0x7)

    def _body(self):
        return struct.pack("<HBB", self.millivolts, self.percent, self.flags)

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 4)
        mv, percent, flags = struct.unpack("<HBB", body)
        return cls(mv, percent, flags, seq)


class Error(Message):
    """Either way: the message ``ref_seq`` was refused; ``detail`` is short ASCII."""

    TYPE = MSG_ERROR
    FIELDS = ("code", "ref_seq", "detail")

    def __init__(self, code: int, ref_seq: int = 0, detail: str = "", seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.code = _int("code", code, 1, 0xFF)
        self.ref_seq = _u16("ref_seq", ref_seq)
        if not isinstance(detail, str) or len(detail) > MAX_DETAIL:
            raise WireError(f"detail is at most {MAX_DETAIL} characters")
        for ch in detail:
            if not 0x20 <= ord(ch) <= 0x7E:
                raise WireError("detail must be printable ASCII")
        self.detail = detail

    def _body(self):
        return struct.pack("<BH", self.code, self.ref_seq) + self.detail.encode()

    @classmethod
    def _decode(cls, seq, body):
        if len(body) < 3:
            raise WireError("error message is too short")
        for byte in body[3:]:
            if not 0x20 <= byte <= 0x7E:
                raise WireError("detail must be printable ASCII")
        return cls(body[0], body[1] | body[2] << 8, bytes(body[3:]).decode(), seq)


class Claim(Message):
    """App -> counter during the claim window: store this token; I am your app now."""

    TYPE = MSG_CLAIM
    FIELDS = ("token",)

    def __init__(self, token: bytes, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.token = _blob("token", token, TOKEN_SIZE)

    def _body(self):
        return self.token

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, TOKEN_SIZE)
        return cls(body, seq)


class ClaimOpen(Message):
    """Counter -> app: someone long-pressed me; a CLAIM is accepted for ``window_s``."""

    TYPE = MSG_CLAIM_OPEN
    FIELDS = ("window_s",)

    def __init__(self, window_s: int = CLAIM_WINDOW_S, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.window_s = _u8("window_s", window_s)

    def _body(self):
        return bytes([self.window_s])

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, 1)
        return cls(body[0], seq)


class Challenge(Message):
    """Counter -> app after HELLO: prove the token over this fresh nonce."""

    TYPE = MSG_CHALLENGE
    FIELDS = ("nonce",)

    def __init__(self, nonce: bytes, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.nonce = _blob("nonce", nonce, NONCE_SIZE)

    def _body(self):
        return self.nonce

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, NONCE_SIZE)
        return cls(body, seq)


class Auth(Message):
    """App -> counter: ``auth_mac(token, nonce, counter_id)`` answering CHALLENGE."""

    TYPE = MSG_AUTH
    FIELDS = ("mac",)

    def __init__(self, mac: bytes, seq: int = 0) -> None:
        self.seq = _u16("seq", seq)
        self.mac = _blob("mac", mac, MAC_SIZE)

    def _body(self):
        return self.mac

    @classmethod
    def _decode(cls, seq, body):
        _body_len(body, MAC_SIZE)
        return cls(body, seq)


MESSAGE_TYPES = {
    MSG_HELLO: Hello,
    MSG_SNAPSHOT: Snapshot,
    MSG_CONFIG: Config,
    MSG_SHOW: Show,
    MSG_BUTTON: Button,
    MSG_ACK: Ack,
    MSG_PING: Ping,
    MSG_PONG: Pong,
    MSG_BATTERY: Battery,
    MSG_ERROR: Error,
    MSG_CLAIM: Claim,
    MSG_CLAIM_OPEN: ClaimOpen,
    MSG_CHALLENGE: Challenge,
    MSG_AUTH: Auth,
}
CONFIG_TYPES = {
    CFG_COLOURS: ConfigColours,
    CFG_BRIGHTNESS: ConfigBrightness,
    CFG_BUDGET: ConfigBudget,
    CFG_SLOT_MAP: ConfigSlotMap,
    CFG_WIN_LEVEL: ConfigWinLevel,
}
SHOW_TYPES = {
    SHOW_CLEAR: ShowClear,
    SHOW_COMBAT: ShowCombat,
    SHOW_ROLL: ShowRoll,
    SHOW_WIN: ShowWin,
    SHOW_IDENTIFY: ShowIdentify,
}
# Messages that change what a counter shows or stores: need an authenticated session.
STATE_CHANGING = (MSG_SNAPSHOT, MSG_CONFIG, MSG_SHOW)


def encode(msg: Message) -> bytes:
    """The bytes of one message (at most MAX_MESSAGE)."""
    if not isinstance(msg, Message) or type(msg) in (Message, Config, Show):
        raise WireError(f"not a message: {msg!r}", ERR_UNKNOWN_TYPE)
    data = msg.encode()
    if len(data) > MAX_MESSAGE:
        raise WireError(f"message is {len(data)} bytes, the limit is {MAX_MESSAGE}")
    return data


def decode(data: bytes) -> Message:
    """One message from its bytes; raises WireError (with an ERR_* code) when invalid."""
    data = bytes(data)
    if len(data) > MAX_MESSAGE:
        raise WireError(f"message is {len(data)} bytes, the limit is {MAX_MESSAGE}", ERR_OVERSIZE)
    if len(data) < HEADER_SIZE:
        raise WireError(f"message is truncated ({len(data)} bytes)")
    cls = MESSAGE_TYPES.get(data[0])
    if cls is None:
        raise WireError(f"unknown message type 0x{data[0]:02x}", ERR_UNKNOWN_TYPE)
    seq = data[1] | data[2] << 8
    body = data[HEADER_SIZE:]
    if cls is Config or cls is Show:
        if not body:
            raise WireError("message is truncated (no sub-type)")
        table = CONFIG_TYPES if cls is Config else SHOW_TYPES
        cls = table.get(body[0])
        if cls is None:
            raise WireError(
                f"unknown sub-type {body[0]} of message 0x{data[0]:02x}", ERR_UNKNOWN_TYPE
            )
    return cls._decode(seq, body)


def peek_type(data: bytes) -> int:
    """The header's message type even of a message that does not decode (0 if empty)."""
    return data[0] if data else 0


def peek_seq(data: bytes) -> int:
    """The header's seq even of a message that does not decode (0 if too short), for ERROR."""
    if len(data) < HEADER_SIZE:
        return 0
    return data[1] | data[2] << 8


# --- serial framing: CRC-16/CCITT-FALSE + COBS + 0x00 ---------------------------


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor)."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1 ^ 4129) & 65535 if crc & 32768 else crc << 1 & 65535
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result contains no 0x00."""
    out = bytearray([0])
    code_at = 0
    code = 1
    for byte in data:
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(byte)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of cobs_encode; raises WireError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            raise WireError("malformed COBS block", ERR_BAD_FRAME)
        out.extend(data[i + 1 : i + code])
        i += code
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def frame(payload: bytes) -> bytes:
    """One serial frame: COBS(payload + CRC-16 little-endian) + 0x00."""
    payload = bytes(payload)
    if len(payload) > MAX_MESSAGE:
        raise WireError(
            f"message is {len(payload)} bytes, the limit is {MAX_MESSAGE}", ERR_OVERSIZE
        )
    crc = crc16(payload)
    return cobs_encode(payload + bytes([crc & 0xFF, crc >> 8])) + b"\x00"


class Deframer:
    """Feed it serial bytes; it returns whole CRC-checked payloads and counts bad frames."""

    def __init__(self) -> None:
        self._buf = bytearray(MAX_FRAME)
        self._len = 0
        self._overflow = False
        self.dropped = 0  # frames thrown away: bad COBS, bad CRC, too long

    def reset(self) -> None:
        """Forget a partial frame (after the carrier reconnects)."""
        self._len = 0
        self._overflow = False

    def feed(self, data: bytes) -> list:
        """All payloads completed by ``data``, in order."""
        out = []
        for byte in data:
            if byte != 0:
                if self._len < MAX_FRAME:
                    self._buf[self._len] = byte
                    self._len += 1
                else:
                    self._overflow = True
                continue
            if self._overflow:
                self.dropped += 1
            elif self._len:
                payload = self._check(bytes(self._buf[: self._len]))
                if payload is None:
                    self.dropped += 1
                else:
                    out.append(payload)
            self._len = 0
            self._overflow = False
        return out

    def _check(self, encoded):
        try:
            raw = cobs_decode(encoded)
        except WireError:
            return None
        if len(raw) < CRC_SIZE or len(raw) > MAX_MESSAGE + CRC_SIZE:
            return None
        payload = raw[:-CRC_SIZE]
        if crc16(payload) != raw[-2] | raw[-1] << 8:
            return None
        return payload


# --- claim and authentication --------------------------------------------------

AUTH_LABEL = b"munchkin-counter-auth-v1"


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    """HMAC-SHA256 (RFC 2104) on hashlib.sha256, which MicroPython also has."""
    key = bytes(key)
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key + bytes(64 - len(key))
    inner = hashlib.sha256(bytes([b ^ 0x36 for b in key]))
    inner.update(bytes(msg))
    outer = hashlib.sha256(bytes([b ^ 0x5C for b in key]))
    outer.update(inner.digest())
    return outer.digest()


def auth_mac(token: bytes, nonce: bytes, counter_id: int) -> bytes:
    """What AUTH carries: HMAC-SHA256(token, label + nonce + counter_id LE32), first 16 bytes."""
    token = _blob("token", token, TOKEN_SIZE)
    nonce = _blob("nonce", nonce, NONCE_SIZE)
    cid = _u32("counter_id", counter_id)
    return hmac_sha256(token, AUTH_LABEL + nonce + struct.pack("<I", cid))[:MAC_SIZE]


def check_auth(token: bytes, nonce: bytes, counter_id: int, mac: bytes) -> bool:
    """True when ``mac`` proves ``token``; compares in constant time."""
    expected = auth_mac(token, nonce, counter_id)
    mac = bytes(mac)
    if len(mac) != len(expected):
        return False
    diff = 0
    for i in range(len(expected)):
        diff |= expected[i] ^ mac[i]
    return diff == 0


def random_bytes(size: int) -> bytes:
    """Unpredictable bytes for tokens and nonces, from the port's ``os.urandom``.

    ESP32 and RP2040 builds draw it from their hardware RNG. A port without it
    raises instead of falling back to a predictable generator: a guessable
    nonce or token would let anyone answer a CHALLENGE.
    """
    import os  # only here: the codec itself needs no more than struct and hashlib

    urandom = getattr(os, "urandom", None)
    if urandom is None:
        raise NotImplementedError("this port has no os.urandom: no safe source for tokens")
    return urandom(size)


def new_token() -> bytes:
    """A fresh claim token for CLAIM."""
    return random_bytes(TOKEN_SIZE)
