"""The USB serial carrier: COBS frames on stdin/stdout, with Ctrl-C disabled while it runs."""

import sys

import framing
import wire
from micropython import const

from counter import timebase
from counter.timebase import ticks_diff

# 33 non-zero bytes: longer than any frame, so a stream of valid frames never
# contains it. `firmware/deploy.py --repl` sends it; see docs/firmware.md.
REPL_ESCAPE = b"\x03\x03\x03 counter: back to the REPL \x03\x03\x03"
# Every frame goes out after a delimiter: text on the line before it (MicroPython's
# "MPY: soft reboot", an ESP32's boot lines) then ends as a frame of its own, which the
# app drops, instead of spoiling this one.
DELIMITER = b"\x00"
_IDLE_MS = const(5)
# A serial line cannot tell that the app closed the port, so a line that has carried no
# message (a frame whose CRC holds) for this long has gone quiet: its session ends and
# its HELLO is forgotten (no more claim prompts). An app keeps it from going quiet with
# a PING every 2 s, sealed in a session and unsealed while it waits for a long press;
# a program that opens the port later must say HELLO and prove the token again.
SESSION_IDLE_MS = const(10000)
# Frames the counter had to drop (junk from another program on the port) are told to
# the app as an unsealed ERROR BAD_FRAME, at most this often: the app cannot see what
# reaches only the counter, and its Devices screen should say the line is disturbed.
NOISE_REPORT_MS = const(1000)


class ReplRequested(Exception):
    """Someone sent REPL_ESCAPE: stop the protocol and hand the port back to the REPL."""


def _fallbacks(pattern):
    """For each matched length, how much of the pattern still matches after a mismatch.

    The escape starts with 03 03 03, so a stray 0x03 before it (or a frame ending in
    03 bytes) must not throw away the 03s that do belong to it.
    """
    table = bytearray(len(pattern) + 1)
    k = 0
    for i in range(1, len(pattern)):
        while k and pattern[i] != pattern[k]:
            k = table[k]
        if pattern[i] == pattern[k]:
            k += 1
        table[i + 1] = k
    return table


_FALLBACK = _fallbacks(REPL_ESCAPE)


class SerialProtocol:
    """Bytes in -> frames out, for one counter session; no I/O, so it is testable anywhere."""

    def __init__(self, counter):
        self.counter = counter
        self.session = counter.open_session()
        self.deframer = framing.Deframer()
        self._matched = 0
        self._reported = 0  # dropped frames already told to the app
        self._reported_at = None
        self.heard_at = timebase.ticks_ms()  # when the last message came (junk does not count)

    def close(self):
        """The carrier stops: its session goes (a restarted carrier opens a new one)."""
        self.counter.close_session(self.session)

    def feed(self, data):
        """Frames (bytes) to write back for the bytes received; raises ReplRequested."""
        out = []
        matched = self._matched
        for byte in data:
            while matched and byte != REPL_ESCAPE[matched]:
                matched = _FALLBACK[matched]
            if byte == REPL_ESCAPE[matched]:
                matched += 1
                if matched == len(REPL_ESCAPE):
                    self._matched = 0
                    raise ReplRequested()
        self._matched = matched
        for payload in self.deframer.feed(data):
            self.heard_at = timebase.ticks_ms()
            for reply in self.answer(payload):
                out.append(DELIMITER + framing.frame(reply))
        noise = self.noise(timebase.ticks_ms())
        if noise is not None:
            out.append(noise)
        return out

    def answer(self, payload):
        """The counter's replies (sealed payloads) to one message received on this line."""
        return self.counter.handle(payload, self.session)

    def noise(self, now):
        """An ERROR BAD_FRAME frame when frames were dropped since the last report, or None.

        Unsealed and referring to no message (ref_seq 0), so it changes nothing in a
        session; sent to a greeted app only, and at most once per NOISE_REPORT_MS. Its
        detail says how many frames were dropped since the last report.
        """
        dropped = self.deframer.dropped
        if dropped == self._reported or not self.session.greeted:
            return None
        last = self._reported_at
        if last is not None and ticks_diff(now, last) < NOISE_REPORT_MS:
            return None
        detail = "dropped %d" % (dropped - self._reported)
        self._reported = dropped
        self._reported_at = now
        error = wire.Error(wire.ERR_BAD_FRAME, 0, detail, seq=self.counter.next_seq())
        return DELIMITER + framing.frame(wire.encode(error))

    def expire(self, now, last_heard=None):
        """End the session, and forget the HELLO, once the line has been quiet for
        SESSION_IDLE_MS (by default since the last message)."""
        last_heard = self.heard_at if last_heard is None else last_heard
        if self.session.greeted and ticks_diff(now, last_heard) >= SESSION_IDLE_MS:
            self.counter.disconnect(self.session)

    def tick(self, now):
        """What the carrier checks on every turn, bytes or none: the line gone quiet, and
        dropped frames not yet told (junk followed by silence is told too). Returns the
        frames to write."""
        self.expire(now)
        noise = self.noise(now)
        return [noise] if noise is not None else []

    def deliver(self, kind, payload):
        """An outbox entry as a frame, or None when nobody on this line may hear it.

        A claim prompt ("all") goes only to an app that said HELLO and is still there:
        one queued while nobody listened must not reach whoever connects later.
        """
        session = self.session
        if session.authenticated or (kind == "all" and session.greeted):
            return DELIMITER + framing.frame(session.out(payload))
        return None

    def frames(self, payloads):
        """Outgoing payloads (buttons, battery) as frames, if this session may hear them."""
        if not self.session.authenticated:
            return []
        return [DELIMITER + framing.frame(self.session.out(p)) for p in payloads]


async def run(counter, outbox, stdin=None, stdout=None):
    """Serve the protocol on USB serial until REPL_ESCAPE; ``outbox`` holds payloads to send."""
    import select

    import micropython

    from counter.timebase import sleep_ms, ticks_ms

    proto = SerialProtocol(counter)
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    poller = select.poll()
    poller.register(stdin, select.POLLIN)
    # ipoll does not allocate a result list on every idle turn (MicroPython only).
    ready = getattr(poller, "ipoll", poller.poll)
    one = bytearray(1)
    readinto = getattr(stdin, "readinto", None)
    # A 0x03 inside a frame must not stop the firmware (main.py switched it off already;
    # this covers a counter started from the REPL).
    micropython.kbd_intr(-1)
    try:
        while True:
            got = False
            for _ in ready(0):
                if readinto is not None:
                    n = readinto(one)
                else:  # a port whose stdin has no readinto
                    data = stdin.read(1)
                    n = len(data) if data else 0
                    if n:
                        one[0] = data[0]
                if n:
                    got = True
                    for frame in proto.feed(one):
                        stdout.write(frame)
            for frame in proto.tick(ticks_ms()):
                stdout.write(frame)
            while outbox.has("serial"):
                frame = proto.deliver(*outbox.pop("serial"))
                if frame is not None:
                    stdout.write(frame)
            # Give the LED and button tasks a turn even while bytes keep coming.
            await sleep_ms(0 if got else _IDLE_MS)
    finally:
        # Ctrl-C stays off: a board resets after the escape (counter/start.py), and bytes
        # arriving meanwhile must not stop that; the REPL gets it back from main.py.
        proto.close()
