"""The cryptography of counter sessions: proofs of the claim token, session keys, message tags.

Like ``wire``, this one module is shared by the app (``companion.devices.seal``)
and the firmware (a top-level ``seal`` module on the board), so it keeps to the
subset of Python that both CPython and MicroPython >= 1.22 run: it imports only
``hashlib`` (SHA-256, which every MicroPython port has) and builds HMAC on it.
It knows nothing of message layouts; ``wire`` does. ``docs/protocol.md`` §3
specifies every value computed here, and ``tests/vectors/sessions.json`` pins them.

A session is opened by the counter's 16-byte nonce (CHALLENGE) and the app's
8-byte nonce (in AUTH). Both sides hash the same *transcript* — both nonces, the
counter's id and the link identity the app sees — under the claim token into
three values: the app's proof (AUTH), the counter's proof (PROOF, which also
names the app as the counter sees it) and the session key. Every later message
carries a 3-byte tag under that key, with the sender's direction, so a party
without the token can neither write nor turn a message round.
"""

import hashlib

TOKEN_SIZE = 16  # bytes of a claim token
COUNTER_NONCE_SIZE = 16  # bytes of the counter's nonce (CHALLENGE)
APP_NONCE_SIZE = 8  # bytes of the app's nonce (in AUTH, beside the app's proof)
PROOF_SIZE = 8  # bytes of each side's proof (AUTH, PROOF)
LINK_ID_SIZE = 6  # bytes of a link identity: a Bluetooth address, or zeros
TAG_SIZE = 3  # bytes of the tag after every sealed message
KEY_SIZE = 32  # bytes of a session key (a whole SHA-256 output)
TRANSCRIPT_SIZE = COUNTER_NONCE_SIZE + APP_NONCE_SIZE + 4 + LINK_ID_SIZE  # 34 bytes
MESSAGE_LIMIT = 20  # bytes: the protocol's message budget, tag included
# A claim token is weak (refused) unless it looks drawn, not made (docs/protocol.md §3):
MIN_TOKEN_SYMBOLS = 12  # distinct byte values (a random token has 15.5 on average)
MIN_TOKEN_STEPS = 12  # distinct differences between neighbouring bytes (mod 256)

TO_COUNTER = 0  # direction byte of what the app sends
TO_APP = 1  # direction byte of what the counter sends

NO_LINK_ID = bytes(LINK_ID_SIZE)  # "this side sees no address" (serial, or a hidden address)

_LABEL_APP = b"munchkin-counter-v2 app proof"
_LABEL_COUNTER = b"munchkin-counter-v2 counter proof"
_LABEL_KEY = b"munchkin-counter-v2 session key"
_BLOCK = 64  # SHA-256 block size: HMAC pads keys to it


class SealError(ValueError):
    """A value of the wrong size or kind was given to the session cryptography."""


def _exact(name, value, size):
    if isinstance(value, str):
        raise SealError(f"{name} must be {size} bytes")
    try:
        value = bytes(value)
    except (TypeError, ValueError):
        raise SealError(f"{name} must be {size} bytes") from None
    if len(value) != size:
        raise SealError(f"{name} must be {size} bytes, not {len(value)}")
    return value


class Hmac:
    """HMAC-SHA256 (RFC 2104) with the key's pads prepared once, for many short messages."""

    def __init__(self, key):
        key = bytes(key)
        if len(key) > _BLOCK:
            key = hashlib.sha256(key).digest()
        key = key + bytes(_BLOCK - len(key))
        self._inner = bytes([b ^ 0x36 for b in key])
        self._outer = bytes([b ^ 0x5C for b in key])

    def digest(self, *parts):
        """HMAC of the concatenated ``parts`` (32 bytes)."""
        inner = hashlib.sha256(self._inner)
        for part in parts:
            inner.update(part)
        outer = hashlib.sha256(self._outer)
        outer.update(inner.digest())
        return outer.digest()


def hmac_sha256(key, message):
    """HMAC-SHA256 of ``message`` under ``key`` (32 bytes)."""
    return Hmac(key).digest(bytes(message))


def equal(a, b):
    """True when ``a`` and ``b`` are the same bytes; the time taken does not depend on where
    they differ."""
    a = bytes(a)
    b = bytes(b)
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


def token_is_strong(token):
    """True for a full-length token that looks drawn from a random source, not made up.

    It needs MIN_TOKEN_SYMBOLS distinct byte values (a repeated byte or pattern has
    few), MIN_TOKEN_STEPS distinct differences between neighbouring bytes (a run or a
    stride has few) and a byte outside printable ASCII (a word or a typed password
    has none). A random token fails about once in 3,000 draws; `new_token` draws again.
    """
    if isinstance(token, str):
        return False
    try:
        token = bytes(token)
    except (TypeError, ValueError):
        return False
    if len(token) != TOKEN_SIZE or len(set(token)) < MIN_TOKEN_SYMBOLS:
        return False
    steps = set([(token[i + 1] - token[i]) & 0xFF for i in range(TOKEN_SIZE - 1)])
    if len(steps) < MIN_TOKEN_STEPS:
        return False
    return any(byte < 0x20 or byte > 0x7E for byte in token)


def new_token(random_bytes):
    """A fresh claim token from ``random_bytes`` (a cryptographic source), never a weak one."""
    while True:
        token = bytes(random_bytes(TOKEN_SIZE))
        if token_is_strong(token):
            return token


_HEX = "0123456789abcdefABCDEF"


def link_id(address):
    """The 6 bytes that stand for a link's address in a transcript.

    A Bluetooth address given as six pairs of hex digits ("C0:98:E5:49:00:01", any
    case, each separator ``:`` or ``-``, mixed too) is its six bytes in the order
    written; bytes are taken as they are; anything else (a serial port, a platform's
    random identifier, a pair with a sign or a space in it) is NO_LINK_ID.
    """
    if address is None:
        return NO_LINK_ID
    if isinstance(address, (bytes, bytearray)):
        return _exact("link id", address, LINK_ID_SIZE)
    text = str(address).replace("-", ":")
    parts = text.split(":")
    if len(parts) != LINK_ID_SIZE:
        return NO_LINK_ID
    out = bytearray(LINK_ID_SIZE)
    for i in range(LINK_ID_SIZE):
        part = parts[i]
        if len(part) != 2 or part[0] not in _HEX or part[1] not in _HEX:
            return NO_LINK_ID  # int() alone would take "+1" or " 1"
        out[i] = int(part, 16)
    return bytes(out)


def transcript(counter_nonce, app_nonce, counter_id, counter_link_id):
    """What both proofs and the session key are computed over (34 bytes).

    ``counter_link_id`` is the counter's address as the app sees it on this link
    (NO_LINK_ID on serial or when the app's platform hides addresses).
    """
    counter_nonce = _exact("counter nonce", counter_nonce, COUNTER_NONCE_SIZE)
    app_nonce = _exact("app nonce", app_nonce, APP_NONCE_SIZE)
    if not isinstance(counter_id, int) or not 0 <= counter_id <= 0xFFFFFFFF:
        raise SealError("counter id must be an integer from 0 to 4294967295")
    cid = bytes([(counter_id >> shift) & 0xFF for shift in (0, 8, 16, 24)])
    return counter_nonce + app_nonce + cid + _exact("link id", counter_link_id, LINK_ID_SIZE)


def app_proof(token, script):
    """What AUTH carries beside the app's nonce: proof that the app holds the token."""
    mac = Hmac(_exact("token", token, TOKEN_SIZE))
    return mac.digest(_LABEL_APP, _exact("transcript", script, TRANSCRIPT_SIZE))[:PROOF_SIZE]


def counter_proof(token, script, app_link_id):
    """What PROOF carries: proof that the counter holds the token, and who it sees as the app.

    ``app_link_id`` is the app's address as the counter sees it (NO_LINK_ID on serial).
    """
    mac = Hmac(_exact("token", token, TOKEN_SIZE))
    peer = _exact("app link id", app_link_id, LINK_ID_SIZE)
    script = _exact("transcript", script, TRANSCRIPT_SIZE)
    return mac.digest(_LABEL_COUNTER, script, peer)[:PROOF_SIZE]


def session_key(token, script):
    """The key of the session this transcript opens (never sent)."""
    mac = Hmac(_exact("token", token, TOKEN_SIZE))
    return mac.digest(_LABEL_KEY, _exact("transcript", script, TRANSCRIPT_SIZE))


class Sealer:
    """One side of one session: tags what it sends, checks what it receives.

    ``direction`` is TO_COUNTER for the app's side and TO_APP for the counter's.
    """

    def __init__(self, key, direction):
        if direction not in (TO_COUNTER, TO_APP):
            raise SealError("direction must be TO_COUNTER or TO_APP")
        self._mac = Hmac(_exact("session key", key, KEY_SIZE))
        self._send = bytes([direction])
        self._receive = bytes([TO_APP if direction == TO_COUNTER else TO_COUNTER])

    def _tag(self, message, direction_byte):
        return self._mac.digest(direction_byte, bytes(message))[:TAG_SIZE]

    def seal(self, message):
        """``message`` with its tag appended; refuses one that would not fit the budget."""
        message = bytes(message)
        if len(message) + TAG_SIZE > MESSAGE_LIMIT:
            room = MESSAGE_LIMIT - TAG_SIZE
            raise SealError(f"a sealed message is at most {room} bytes before its tag")
        return message + self._tag(message, self._send)

    def open(self, data):
        """The message inside ``data`` if its tag is right for the other side, else None."""
        data = bytes(data)
        if len(data) <= TAG_SIZE or len(data) > MESSAGE_LIMIT:
            return None
        message = data[:-TAG_SIZE]
        if not equal(self._tag(message, self._receive), data[-TAG_SIZE:]):
            return None
        return message


def session_sealer(token, script, direction):
    """The Sealer of the side sending in ``direction`` for the session of this transcript."""
    return Sealer(session_key(token, script), direction)
