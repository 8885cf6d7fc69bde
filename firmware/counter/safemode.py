"""Safe mode: the serial line and the installer only, after starts that kept failing.

counter/start.py comes here when starts in a row never reached a working state
(docs/firmware.md, "Faults"). The LEDs already show the safe-mode picture. What runs
is as little as can serve an app and an install: no watchdog, no Bluetooth, no
tasks, none of the counter's logic (which may be what fails). The serial carrier
answers an app's HELLO with the safe-mode bit (protocol 2.1) and a STATUS saying how
many starts failed, answers PING, refuses everything else, and hands the line to
the REPL on the escape, as a running counter does, so firmware/deploy.py installs
as it always does.
"""

import wire

from counter import timebase

# counter.logic.FIRMWARE_VERSION (a test checks), without importing the logic here.
FIRMWARE_VERSION = (1, 0, 0)
DETAIL = "safe mode"


class Line:
    """A serial line in safe mode: an app may greet it; no session is ever opened."""

    authenticated = False

    def __init__(self):
        self.greeted = False

    def out(self, payload):
        return payload

    def end(self):
        pass


class SafeCounter:
    """What the serial carrier needs of a counter, in safe mode."""

    def __init__(self, board, failed_starts, counter_id, clock=None):
        self.board = board
        self.failed_starts = failed_starts if 0 < failed_starts < 256 else 255
        self.counter_id = counter_id
        self.clock = clock if clock is not None else timebase.ticks_ms
        self._started = self.clock()
        self._seq = 0

    def next_seq(self):
        self._seq = self._seq + 1 if self._seq < 0xFFFF else 1
        return self._seq

    def open_session(self, link_id=None, peer_id=None):
        return Line()

    def close_session(self, session):
        pass

    def disconnect(self, session):
        session.greeted = False

    def hello(self):
        role = wire.ROLE_BOARD if self.board.role == "board" else wire.ROLE_TRACKER
        slots = self.board.positions if role == wire.ROLE_BOARD else 1
        if slots > wire.MAX_SLOTS:
            slots = wire.MAX_SLOTS
        caps = wire.CAP_SERIAL | wire.CAP_SAFE_MODE
        return wire.Hello(
            role,
            FIRMWARE_VERSION,
            slots,
            self.board.led_count,
            caps,
            self.counter_id,
            seq=self.next_seq(),
        )

    def _error(self, code, ref_seq):
        return wire.encode(wire.Error(code, ref_seq, DETAIL, seq=self.next_seq()))

    def handle(self, payload, session):
        """One message in, the replies out (never sealed: safe mode has no sessions)."""
        try:
            msg = wire.decode(payload)
        except wire.WireError as exc:
            return [self._error(exc.code, wire.peek_seq(payload))]
        t = msg.TYPE
        if t == wire.MSG_HELLO:
            if msg.role != wire.ROLE_APP:
                return [self._error(wire.ERR_UNEXPECTED, msg.seq)]
            session.greeted = True
            out = [wire.encode(self.hello())]
            if msg.minor >= 1:  # a 2.0 app knows no STATUS; the HELLO's bit is all it gets
                status = wire.Status(wire.MODE_SAFE, self.failed_starts, seq=self.next_seq())
                out.append(wire.encode(status))
            return out
        if t == wire.MSG_PING:
            uptime_s = timebase.ticks_diff(self.clock(), self._started) // 1000
            pong = wire.Pong(msg.token, uptime_s if uptime_s > 0 else 0, seq=self.next_seq())
            return [wire.encode(pong)]
        if t in (wire.MSG_ERROR, wire.MSG_PONG, wire.MSG_ACK):
            return []
        if t == wire.MSG_CLAIM:
            return [self._error(wire.ERR_NOT_CLAIMING, msg.seq)]
        if t == wire.MSG_AUTH:
            return [self._error(wire.ERR_AUTH_FAILED, msg.seq)]
        if t in wire.STATE_CHANGING:
            return [self._error(wire.ERR_NOT_AUTHENTICATED, msg.seq)]
        return [self._error(wire.ERR_UNEXPECTED, msg.seq)]


class _NoOutbox:
    """Safe mode queues nothing of its own: no buttons, no battery reports."""

    def has(self, link):
        return False


def run(board, failed_starts, counter_id, stdin=None, stdout=None):
    """Serve the serial line until the REPL escape; returns "repl" then."""
    import asyncio

    from counter import serial_link

    counter = SafeCounter(board, failed_starts, counter_id)
    try:
        asyncio.run(serial_link.run(counter, _NoOutbox(), stdin, stdout))
    except serial_link.ReplRequested:
        return "repl"
    return "ended"
