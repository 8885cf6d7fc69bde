"""Wire protocol of the LED level counters: messages, and random tokens.

This one module is shared by the app (``companion.devices.wire``) and the
firmware (a top-level ``wire`` module on the board), so it is written in the
subset of Python that both CPython and MicroPython >= 1.22 run: it imports only
``struct`` and ``os`` (for random tokens and nonces), and uses plain classes,
bytes and ints. Its neighbours are ``seal`` (the session cryptography: proofs,
keys, tags) and ``framing`` (how a message travels on a serial line).
``docs/protocol.md`` is the specification; the vectors in ``tests/vectors/``
pin its bytes.
"""

import struct

# True only for a type checker (mypy treats the name so): MicroPython has no `typing`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# --- versions, sizes ----------------------------------------------------------

PROTOCOL_MAJOR = 2  # bumped when an existing layout changes; peers must match
PROTOCOL_MINOR = 1  # bumped when messages or fields are only added (1: safe mode, STATUS)
MAX_MESSAGE = 20  # bytes: one default BLE ATT payload (MTU 23 - 3)
HEADER_SIZE = 3  # type u8 + seq u16
MAX_BODY = MAX_MESSAGE - HEADER_SIZE
MAX_SLOTS = 8  # player slots in a SNAPSHOT
NO_SLOT = 0xFF  # "no player" in slot fields

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
MSG_PROOF = 0x0F
MSG_STATUS = 0x10  # 2.1

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
# 2.1, state too: the counter started in safe mode (serial line and installer only).
CAP_SAFE_MODE = 0x4000
MODE_SAFE = 1  # STATUS mode: started in safe mode after failed starts

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
ROLL_SHOW_MS = 4200  # ms: a counter plays a ROLL this long (spin, then value), then ends it

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
ERR_WEAK_TOKEN = 11

TOKEN_SIZE = 16
NONCE_SIZE = 16  # the counter's nonce (CHALLENGE)
APP_NONCE_SIZE = 8  # the app's nonce (AUTH)
PROOF_SIZE = 8  # each side's proof of the token (AUTH, PROOF)
LINK_ID_SIZE = 6  # an address in PROOF: six bytes, or zeros
TAG_SIZE = 3  # the tag after every sealed message
CLAIM_WINDOW_S = 30
MAX_DETAIL = MAX_BODY - 3  # ERROR: code u8 + ref_seq u16 + detail text


class WireError(ValueError):
    """The codec's one error type; ``code`` is the ERR_* number a counter reports back."""

    def __init__(self, message: str, code: int = ERR_MALFORMED) -> None:
        super().__init__(message)
        self.code = code


# --- field kinds: how one field is checked, packed and read back ------------------


def _int(name, value, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or value < low or value > high:
        raise WireError(f"{name} must be an integer from {low} to {high}")
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


def _take(body, at, size):
    if at + size > len(body):
        raise WireError("message is truncated")
    return at + size


class Int:
    """An integer from ``low`` to ``high``, packed with the struct code ``code``."""

    def __init__(self, code, low, high):
        self.code = "<" + code
        self.size = struct.calcsize(self.code)
        self.low = low
        self.high = high

    def check(self, name, value):
        return _int(name, value, self.low, self.high)

    def pack(self, value):
        return struct.pack(self.code, value)

    def unpack(self, body, at):
        end = _take(body, at, self.size)
        return struct.unpack_from(self.code, body, at)[0], end


class Slot(Int):
    """A player slot 0..7, or NO_SLOT."""

    def __init__(self):
        Int.__init__(self, "B", 0, MAX_SLOTS - 1)

    def check(self, name, value):
        return value if value == NO_SLOT else Int.check(self, name, value)


class Flag(Int):
    """True or False, one byte that must be 0 or 1."""

    def __init__(self):
        Int.__init__(self, "B", 0, 1)

    def check(self, name, value):
        return bool(value)

    def unpack(self, body, at):
        value, at = Int.unpack(self, body, at)
        return bool(Int.check(self, "a flag byte", value)), at


class Blob:
    """Exactly ``size`` bytes (tokens, nonces, MACs)."""

    def __init__(self, size):
        self.size = size

    def check(self, name, value):
        return _blob(name, value, self.size)

    def pack(self, value):
        return value

    def unpack(self, body, at):
        end = _take(body, at, self.size)
        return bytes(body[at:end]), end


class Items:
    """A tuple of ``item`` fields: ``low``..``high`` of them, padded to ``pad`` (0 = no padding).

    With ``rest`` it takes the rest of the body; otherwise it always holds ``high``.
    """

    def __init__(self, item, low, high, pad=0, rest=False):
        self.item = item
        self.low = low
        self.high = high
        self.pad = pad
        self.rest = rest

    def check(self, name, value):
        try:
            value = tuple(value)
        except TypeError:
            raise WireError(f"{name} must be a list") from None
        if not self.low <= len(value) <= self.high:
            raise WireError(f"{name} holds {self.low} to {self.high} items")
        value = tuple([self.item.check(name, v) for v in value])
        if self.pad:
            value = value + (0,) * (self.pad - len(value))
        return value

    def pack(self, value):
        return b"".join([self.item.pack(v) for v in value])

    def unpack(self, body, at):
        count = self.high
        if self.rest:
            size = _item_size(self.item)
            if (len(body) - at) % size:
                raise WireError("a list field has a bad length")
            count = (len(body) - at) // size
        out = []
        for _ in range(count):
            value, at = self.item.unpack(body, at)
            out.append(value)
        return tuple(out), at


def _item_size(item):
    return item.size if hasattr(item, "size") else item.item.size * item.high


class Nibbles(Items):
    """MAX_SLOTS values 0..15, two to a byte (the low nibble first)."""

    def __init__(self):
        Items.__init__(self, Int("B", 0, 0xF), 0, MAX_SLOTS, MAX_SLOTS)

    def pack(self, value):
        packed = bytearray(MAX_SLOTS // 2)
        for i in range(MAX_SLOTS):
            packed[i >> 1] |= value[i] << (4 * (i & 1))
        return bytes(packed)

    def unpack(self, body, at):
        end = _take(body, at, MAX_SLOTS // 2)
        packed = body[at:end]
        return tuple([(packed[i >> 1] >> (4 * (i & 1))) & 0xF for i in range(MAX_SLOTS)]), end


class Text:
    """Printable ASCII, at most ``size`` characters, to the end of the body."""

    def __init__(self, size):
        self.size = size

    def check(self, name, value):
        if not isinstance(value, str) or len(value) > self.size:
            raise WireError(f"{name} is at most {self.size} characters")
        for ch in value:
            if not 0x20 <= ord(ch) <= 0x7E:
                raise WireError(f"{name} must be printable ASCII")
        return value

    def pack(self, value):
        return value.encode()

    def unpack(self, body, at):
        for byte in body[at:]:
            if not 0x20 <= byte <= 0x7E:
                raise WireError("text must be printable ASCII")
        return bytes(body[at:]).decode(), len(body)


U8 = Int("B", 0, 0xFF)
U16 = Int("H", 0, 0xFFFF)
I16 = Int("h", -0x8000, 0x7FFF)
U32 = Int("I", 0, 0xFFFFFFFF)
SLOT = Slot()
RGB = Items(U8, 3, 3)


# --- messages: each one a table of fields --------------------------------------


class Message:
    """Base of all messages: ``seq`` (u16) is in every header; FIELDS are the body.

    FIELDS lists (name, kind) in byte order. The constructor takes the fields in
    ARGS order (FIELDS order when ARGS is empty), then ``seq``; DEFAULTS holds
    the optional ones. Messages with a sub-type (CONFIG, SHOW) carry it as KEY,
    the body's first byte.
    """

    TYPE = 0
    KEY = -1
    FIELDS: tuple = ()
    ARGS: tuple = ()
    DEFAULTS: tuple = ()
    seq = 0

    if TYPE_CHECKING:
        # The fields are set from FIELDS at run time, which a type checker cannot follow.
        def __getattr__(self, name: str) -> "Any": ...

    def __init__(self, *args, **kwargs):
        names = self.ARGS or [name for name, _ in self.FIELDS]
        if len(args) > len(names) + 1:
            raise TypeError(f"{type(self).__name__} takes at most {len(names) + 1} arguments")
        values = dict(self.DEFAULTS)
        for i in range(len(args)):
            values[names[i] if i < len(names) else "seq"] = args[i]
        positional = names[: len(args)]
        for name in kwargs:
            if name in positional or (name == "seq" and len(args) > len(names)):
                raise TypeError(f"{type(self).__name__} got {name} twice")
            values[name] = kwargs[name]
        self.seq = U16.check("seq", values.pop("seq", 0))
        for name, kind in self.FIELDS:
            if name not in values:
                raise TypeError(f"{type(self).__name__} needs {name}")
            setattr(self, name, kind.check(name, values.pop(name)))
        if values:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(values))}")
        self._check()

    def _check(self):
        """Rules between fields (none unless a message says so)."""

    def values(self) -> tuple:
        return tuple([getattr(self, name) for name, _ in self.FIELDS])

    def to_dict(self) -> dict:
        """Plain JSON-friendly values (bytes as lists of ints), as in the test vectors."""
        out = {"type": type(self).__name__, "seq": self.seq}
        for name, _ in self.FIELDS:
            out[name] = _plain(getattr(self, name))
        return out

    def encode(self) -> bytes:
        body = b"".join([kind.pack(getattr(self, name)) for name, kind in self.FIELDS])
        head = bytes([self.TYPE, self.seq & 0xFF, self.seq >> 8])
        return head + (bytes([self.KEY]) if self.KEY >= 0 else b"") + body

    @classmethod
    def _decode(cls, seq, body):
        return _decode_fields(cls, seq, body)

    def __eq__(self, other):
        return (
            type(self) is type(other) and self.seq == other.seq and self.values() == other.values()
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.TYPE, self.KEY, self.seq, self.values()))

    def __repr__(self):
        parts = [f"seq={self.seq!r}"]
        for name, _ in self.FIELDS:
            parts.append(f"{name}={getattr(self, name)!r}")
        return type(self).__name__ + "(" + ", ".join(parts) + ")"


def _decode_fields(cls, seq, body):
    at = 1 if cls.KEY >= 0 else 0
    values = {"seq": seq}
    for name, kind in cls.FIELDS:
        values[name], at = kind.unpack(body, at)
    if at != len(body):
        raise WireError(f"message body is {len(body)} bytes, expected {at}")
    return cls(**values)


def _plain(value):
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


class Hello(Message):
    """Both ways at the start of a session: who I am and what I can do.

    ``Hello(role, firmware=(0, 0, 0), slots=0, led_count=0, caps=0, counter_id=0)``
    """

    TYPE = MSG_HELLO
    FIELDS = (
        ("major", U8),
        ("minor", U8),
        ("firmware", Items(U8, 3, 3)),
        ("role", Int("B", ROLE_APP, ROLE_TRACKER)),
        ("slots", Int("B", 0, MAX_SLOTS)),
        ("led_count", U16),
        ("caps", U16),
        ("counter_id", U32),
    )
    ARGS = ("role", "firmware", "slots", "led_count", "caps", "counter_id", "major", "minor")
    DEFAULTS = (
        ("firmware", (0, 0, 0)),
        ("slots", 0),
        ("led_count", 0),
        ("caps", 0),
        ("counter_id", 0),
        ("major", PROTOCOL_MAJOR),
        ("minor", PROTOCOL_MINOR),
    )

    @classmethod
    def _decode(cls, seq, body):
        # The major version is read before anything else, so that a peer speaking a
        # later major (with a longer or shorter HELLO) hears ERR_VERSION, not ERR_MALFORMED.
        if body and body[0] != PROTOCOL_MAJOR:
            minor = body[1] if len(body) > 1 else 0
            raise WireError(
                f"protocol version {body[0]}.{minor} is not supported (need {PROTOCOL_MAJOR}.x)",
                ERR_VERSION,
            )
        return _decode_fields(cls, seq, body)


class Snapshot(Message):
    """App -> counter: the whole table, absolute and idempotent. Level 0 = empty slot.

    ``Snapshot(rev, levels=(), flags=())``: up to 8 of each, padded with zeros.
    """

    TYPE = MSG_SNAPSHOT
    FIELDS = (("rev", U16), ("levels", Items(U8, 0, MAX_SLOTS, MAX_SLOTS)), ("flags", Nibbles()))
    DEFAULTS = (("levels", ()), ("flags", ()))


class Config(Message):
    """App -> counter settings; one subclass per KEY (the first body byte)."""

    TYPE = MSG_CONFIG


class ConfigColours(Config):
    """Colours of up to 4 consecutive player slots, starting at ``first``: ``(first, colours)``.

    Four, so that the message still fits the budget with its tag (§8).
    """

    KEY = CFG_COLOURS
    MAX_COLOURS = 4
    FIELDS = (
        ("first", Int("B", 0, MAX_SLOTS - 1)),
        ("colours", Items(RGB, 1, MAX_COLOURS, rest=True)),
    )

    def _check(self):
        if self.first + len(self.colours) > MAX_SLOTS:
            raise WireError("1 to 4 colours for slots 0..7")


class ConfigBrightness(Config):
    """Master brightness 0..255, before the current limiter."""

    KEY = CFG_BRIGHTNESS
    FIELDS = (("brightness", U8),)


class ConfigBudget(Config):
    """LED current budget in milliamps; 0 restores the board's default."""

    KEY = CFG_BUDGET
    FIELDS = (("budget_ma", U16),)


class ConfigSlotMap(Config):
    """Which player slot each physical position shows (NO_SLOT = none).

    A tracker has one position (the player it belongs to); a level board has
    one position per LED of a level space.
    """

    KEY = CFG_SLOT_MAP
    FIELDS = (("slots", Items(SLOT, 1, MAX_SLOTS, rest=True)),)


class ConfigWinLevel(Config):
    """The winning level of this game (10, or 20 in Epic): the top of the track."""

    KEY = CFG_WIN_LEVEL
    FIELDS = (("win_level", Int("B", 1, 0xFF)),)


class Show(Message):
    """App -> counter transient effects; one subclass per KEY (the effect, first body byte)."""

    TYPE = MSG_SHOW


class ShowClear(Show):
    """End any effect (combat over, celebration over)."""

    KEY = SHOW_CLEAR


class ShowCombat(Show):
    """A combat in progress: who fights, both strengths, and which side is winning.

    ``ShowCombat(fighter, players, monsters, players_winning, helper=NO_SLOT)``
    """

    KEY = SHOW_COMBAT
    FIELDS = (
        ("fighter", SLOT),
        ("helper", SLOT),
        ("players", I16),
        ("monsters", I16),
        ("players_winning", Flag()),
    )
    ARGS = ("fighter", "players", "monsters", "players_winning", "helper")
    DEFAULTS = (("helper", NO_SLOT),)


class ShowRoll(Show):
    """A die roll by ``slot`` (NO_SLOT = the table) landing on ``value``.

    ``ShowRoll(slot, value, sides=6)``
    """

    KEY = SHOW_ROLL
    FIELDS = (("slot", SLOT), ("value", Int("B", 1, 0xFF)), ("sides", Int("B", 2, 0xFF)))
    DEFAULTS = (("sides", 6),)

    def _check(self):
        if self.value > self.sides:
            raise WireError(f"value must be an integer from 1 to {self.sides}")


class ShowWin(Show):
    """The winner's celebration."""

    KEY = SHOW_WIN
    FIELDS = (("slot", SLOT),)


class ShowIdentify(Show):
    """Blink so people can tell which counter this is; 0 seconds stops it."""

    KEY = SHOW_IDENTIFY
    FIELDS = (("duration_s", U8),)
    DEFAULTS = (("duration_s", 5),)


class Button(Message):
    """Counter -> app: a player's request (an intent); the app answers with ACK."""

    TYPE = MSG_BUTTON
    FIELDS = (("intent", Int("B", INTENT_LEVEL_UP, INTENT_NEXT_TURN)), ("slot", SLOT))
    DEFAULTS = (("slot", NO_SLOT),)


class Ack(Message):
    """Either way: the message with ``ref_seq`` (of type ``ref_type``) was applied."""

    TYPE = MSG_ACK
    FIELDS = (("ref_seq", U16), ("ref_type", U8))


class Ping(Message):
    """Either way: are you there? Answered by PONG with the same token."""

    TYPE = MSG_PING
    FIELDS = (("token", U32),)


class Pong(Message):
    """Answer to PING, with the sender's uptime in seconds."""

    TYPE = MSG_PONG
    FIELDS = (("token", U32), ("uptime_s", U32))
    DEFAULTS = (("uptime_s", 0),)


class Battery(Message):
    """Counter -> app: battery voltage, charge estimate and state flags (BATTERY_*)."""

    TYPE = MSG_BATTERY
    FIELDS = (("millivolts", U16), ("percent", Int("B", 0, 100)), ("flags", U8))
    DEFAULTS = (("flags", 0),)


class Error(Message):
    """Either way: the message ``ref_seq`` was refused; ``detail`` is short ASCII."""

    TYPE = MSG_ERROR
    FIELDS = (("code", Int("B", 1, 0xFF)), ("ref_seq", U16), ("detail", Text(MAX_DETAIL)))
    DEFAULTS = (("ref_seq", 0), ("detail", ""))


class Claim(Message):
    """App -> counter during the claim window: store this token; I am your app now."""

    TYPE = MSG_CLAIM
    FIELDS = (("token", Blob(TOKEN_SIZE)),)


class ClaimOpen(Message):
    """Counter -> app: someone long-pressed me; a CLAIM is accepted for ``window_s``."""

    TYPE = MSG_CLAIM_OPEN
    FIELDS = (("window_s", U8),)
    DEFAULTS = (("window_s", CLAIM_WINDOW_S),)


class Challenge(Message):
    """Counter -> app after HELLO: prove the token over this fresh nonce."""

    TYPE = MSG_CHALLENGE
    FIELDS = (("nonce", Blob(NONCE_SIZE)),)


class Auth(Message):
    """App -> counter answering CHALLENGE: the app's nonce and its proof of the token.

    ``Auth(app_nonce, proof)``; the proof is ``seal.app_proof`` over the session's transcript.
    """

    TYPE = MSG_AUTH
    FIELDS = (("app_nonce", Blob(APP_NONCE_SIZE)), ("proof", Blob(PROOF_SIZE)))


class Proof(Message):
    """Counter -> app after a right AUTH: its own proof of the token, and the app's address
    as the counter sees it (zeros on serial). ``Proof(proof, app_link_id)``
    """

    TYPE = MSG_PROOF
    FIELDS = (("proof", Blob(PROOF_SIZE)), ("app_link_id", Blob(LINK_ID_SIZE)))


class Status(Message):
    """Counter -> app (2.1), after its HELLO to an app of 2.1 or later: how this start went.

    ``mode`` 1 is safe mode, after ``failed_starts`` starts in a row that never reached a
    working state; such a counter opens no session and wants its firmware installed again.
    """

    TYPE = MSG_STATUS
    FIELDS = (("mode", Int("B", MODE_SAFE, MODE_SAFE)), ("failed_starts", Int("B", 1, 0xFF)))


_ALL = (
    Hello,
    Snapshot,
    Config,
    Show,
    Button,
    Ack,
    Ping,
    Pong,
    Battery,
    Error,
    Claim,
    ClaimOpen,
    Challenge,
    Auth,
    Proof,
    Status,
)
MESSAGE_TYPES = {cls.TYPE: cls for cls in _ALL}
CONFIG_TYPES = {
    cls.KEY: cls
    for cls in (ConfigColours, ConfigBrightness, ConfigBudget, ConfigSlotMap, ConfigWinLevel)
}
SHOW_TYPES = {cls.KEY: cls for cls in (ShowClear, ShowCombat, ShowRoll, ShowWin, ShowIdentify)}
# Messages that change what a counter shows or stores: need an authenticated session.
STATE_CHANGING = (MSG_SNAPSHOT, MSG_CONFIG, MSG_SHOW)
# Messages that carry a tag on an authenticated session (§8); the others never do.
SEALED = (
    MSG_SNAPSHOT,
    MSG_CONFIG,
    MSG_SHOW,
    MSG_BUTTON,
    MSG_ACK,
    MSG_PING,
    MSG_PONG,
    MSG_BATTERY,
)


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


# --- randomness for tokens and nonces ---------------------------------------------


def random_bytes(size: int) -> bytes:
    """Unpredictable bytes for tokens and nonces, from the port's ``os.urandom``.

    ESP32 and RP2040 builds draw it from their hardware RNG. A port without it
    raises instead of falling back to a predictable generator: a guessable
    nonce or token would let anyone answer a CHALLENGE.
    """
    import os  # only here: the codec itself needs no more than struct

    urandom = getattr(os, "urandom", None)
    if urandom is None:
        raise NotImplementedError("this port has no os.urandom: no safe source for tokens")
    return urandom(size)
