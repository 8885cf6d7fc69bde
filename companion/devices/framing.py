"""Serial framing of the counters' messages: CRC-16/CCITT-FALSE, then COBS, then a 0x00.

A byte stream (USB serial) has no message boundaries; each message travels as
one frame (``docs/protocol.md`` §2). Like ``wire`` and ``seal``, this one module
is shared by the app (``companion.devices.framing``) and the firmware (a
top-level ``framing`` module on the board), so it keeps to the subset of Python
both CPython and MicroPython >= 1.22 run and imports nothing. It knows nothing
of what a message means; the BLE carrier never uses it (one message per GATT
write). ``tests/vectors/messages.json`` pins its bytes.
"""

MAX_PAYLOAD = 20  # bytes: the protocol's message budget (``wire.MAX_MESSAGE``)
CRC_SIZE = 2
# A COBS frame of the largest message: one code byte more than its data.
MAX_FRAME = MAX_PAYLOAD + CRC_SIZE + 1


class FrameError(ValueError):
    """A payload too long to frame, or a COBS block that does not decode."""


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
    """Inverse of cobs_encode; raises FrameError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            raise FrameError("malformed COBS block")
        out.extend(data[i + 1 : i + code])
        i += code
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def frame(payload: bytes) -> bytes:
    """One serial frame: COBS(payload + CRC-16 little-endian) + 0x00."""
    payload = bytes(payload)
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"message is {len(payload)} bytes, the limit is {MAX_PAYLOAD}")
    crc = crc16(payload)
    return cobs_encode(payload + bytes([crc & 0xFF, crc >> 8])) + b"\x00"


class Deframer:
    """Feed it serial bytes; it returns whole CRC-checked payloads and counts bad frames.

    Text a board printed with no delimiter after it ("MPY: soft reboot", a boot log)
    runs into the next frame. So the newest MAX_FRAME bytes are kept (a ring), and
    when they fail as a whole, what follows each line end (0x0A) in them is tried.
    """

    def __init__(self) -> None:
        self._buf = bytearray(MAX_FRAME)
        self._len = 0  # bytes since the last delimiter (counted up to MAX_FRAME + 1)
        self._pos = 0  # where the next byte goes in the ring
        self.dropped = 0  # frames thrown away: bad COBS, bad CRC, too long

    def reset(self) -> None:
        """Forget a partial frame (after the carrier reconnects)."""
        self._len = 0
        self._pos = 0

    def feed(self, data: bytes) -> list:
        """All payloads completed by ``data``, in order."""
        out = []
        buf = self._buf
        for byte in data:
            if byte != 0:
                buf[self._pos] = byte
                self._pos = (self._pos + 1) % MAX_FRAME
                if self._len <= MAX_FRAME:
                    self._len += 1
                continue
            if self._len:
                if self._len > MAX_FRAME:  # too long for one frame: its newest bytes
                    kept = bytes(buf[self._pos :]) + bytes(buf[: self._pos])
                else:
                    kept = bytes(buf[: self._len])
                payload = self._check(kept)
                start = kept.find(b"\n")
                while payload is None and start >= 0:
                    payload = self._check(kept[start + 1 :])
                    start = kept.find(b"\n", start + 1)
                if payload is None:
                    self.dropped += 1
                else:
                    out.append(payload)
            self.reset()
        return out

    def _check(self, encoded: bytes) -> "bytes | None":
        try:
            raw = cobs_decode(encoded)
        except FrameError:
            return None
        if len(raw) < CRC_SIZE or len(raw) > MAX_PAYLOAD + CRC_SIZE:
            return None
        payload = raw[:-CRC_SIZE]
        if crc16(payload) != raw[-2] | raw[-1] << 8:
            return None
        return payload
