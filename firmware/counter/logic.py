"""The counter's brain: protocol sessions, claim/auth, state, buttons -> intents, persistence.

``Counter`` takes its hardware injected (clock, flash store, randomness), so the
same code runs on a board, under CPython as a virtual counter, and in the
MicroPython VM of the tests. Links feed it payloads with ``handle`` and send
what it returns; the LED task calls ``frame``.
"""

import struct

import wire
from micropython import const

from counter import timebase
from counter.render import Renderer
from counter.session import NO_LINK_ID, Session, crypto
from counter.store import MemoryStore

FIRMWARE_VERSION = (1, 0, 0)
_STATE_FILE = "state.bin"
_TOKEN_FILE = "token.bin"
_STATE_FORMAT = 1
_SAVE_QUIET_MS = const(5000)  # wait until the table stops changing ...
_SAVE_MIN_INTERVAL_MS = const(30000)  # ... and never write flash more often than this
_RESEND_MS = const(1000)  # an unacknowledged BUTTON is sent again after this
_RESEND_TRIES = const(3)
_MAX_PENDING = const(4)
_IDENTIFY_MS = const(5000)  # how long a local long press blinks when nothing else asks
_LOW_BATTERY_PERCENT = const(10)
# No app has spoken to a tracker for this long: its buttons count levels on their own.
OFFLINE_AFTER_MS = const(15000)
_OFFLINE_SHOW_MS = const(600)  # how long a press with no app blinks "not connected"
# What an app seals on a session: without one, a malformed one of these is NOT_AUTHENTICATED.
_SEALED_FROM_APP = (wire.MSG_SNAPSHOT, wire.MSG_CONFIG, wire.MSG_SHOW, wire.MSG_ACK, wire.MSG_PING)
# The LED budget never goes above the supply's fuse share minus the MCU's own draw ...
_FUSE_SHARE_PERCENT = const(85)
# ... nor below the dark LEDs' idle draw plus this, so the level always stays visible.
BUDGET_FLOOR_MA = const(50)

DEFAULT_COLOURS = (
    (230, 30, 30),
    (30, 90, 230),
    (30, 200, 60),
    (240, 200, 20),
    (170, 40, 220),
    (240, 110, 20),
    (20, 200, 200),
    (240, 90, 160),
)


class State:
    """Everything the LEDs show; kept in preallocated buffers."""

    def __init__(self, board):
        self.rev = 0
        self.levels = bytearray(wire.MAX_SLOTS)
        self.flags = bytearray(wire.MAX_SLOTS)
        self.colours = bytearray(3 * wire.MAX_SLOTS)
        for i in range(wire.MAX_SLOTS):
            for c in range(3):
                self.colours[3 * i + c] = DEFAULT_COLOURS[i][c]
        power = board.power
        self.brightness = power.get("default_brightness", 128)
        # A tracker on its cell scales what the app asks so that the app's default lasts the
        # night (12 h); the app's slider still dims and brightens it across its range.
        self.brightness_scale = power.get("brightness_scale", 255)
        self.max_budget_ma, self.min_budget_ma = budget_limits(board)
        self.default_budget_ma = self.clamp_budget(power.budget_ma)
        self.budget_ma = self.default_budget_ma
        self.win_level = 10
        self.slot_map = bytearray(wire.MAX_SLOTS)
        self.slot_count = board.positions if board.positions <= wire.MAX_SLOTS else wire.MAX_SLOTS
        for i in range(wire.MAX_SLOTS):
            self.slot_map[i] = i if i < self.slot_count else wire.NO_SLOT
        if board.role == "tracker":
            self.slot_map[0] = 0
        # The effect on show: wire.SHOW_* number, its slot, a value, when it started.
        self.effect = wire.SHOW_CLEAR
        self.effect_slot = wire.NO_SLOT
        self.effect_value = 0
        self.effect_start = 0
        self.identify_until = 0
        self.identify_active = False
        self.claim_until = 0
        self.claim_active = False
        self.low_battery = False
        self.battery_percent = 100  # the last reading (mains-powered boards stay at 100)

    def clamp_budget(self, budget_ma):
        """``budget_ma`` held between the floor and what the supply can give the LEDs."""
        if budget_ma > self.max_budget_ma:
            return self.max_budget_ma
        if budget_ma < self.min_budget_ma:
            return self.min_budget_ma
        return budget_ma

    def identifying(self, now):
        if self.identify_active and timebase.ticks_diff(self.identify_until, now) <= 0:
            self.identify_active = False
        return self.identify_active or self.claim_open(now)

    def claim_open(self, now):
        if self.claim_active and timebase.ticks_diff(self.claim_until, now) <= 0:
            self.claim_active = False
        return self.claim_active

    def effect_elapsed(self, now):
        return timebase.ticks_diff(now, self.effect_start)

    # -- flash image ---------------------------------------------------------------

    def pack(self):
        head = struct.pack(
            "<BHBHBB",
            _STATE_FORMAT,
            self.rev,
            self.brightness,
            self.budget_ma,
            self.win_level,
            self.slot_count,
        )
        return (
            head
            + bytes(self.levels)
            + bytes(self.flags)
            + bytes(self.colours)
            + bytes(self.slot_map)
        )

    def unpack(self, data):
        size = 8 + 2 * wire.MAX_SLOTS + 3 * wire.MAX_SLOTS + wire.MAX_SLOTS
        if data is None or len(data) != size or data[0] != _STATE_FORMAT:
            return False
        _, self.rev, self.brightness, budget_ma, self.win_level, count = struct.unpack(
            "<BHBHBB", data[:8]
        )
        self.budget_ma = self.clamp_budget(budget_ma)
        if count <= wire.MAX_SLOTS:
            self.slot_count = count
        n = wire.MAX_SLOTS
        self.levels[:] = data[8 : 8 + n]
        self.flags[:] = data[8 + n : 8 + 2 * n]
        self.colours[:] = data[8 + 2 * n : 8 + 5 * n]
        self.slot_map[:] = data[8 + 5 * n : 8 + 6 * n]
        return True


def budget_limits(board):
    """(highest, lowest) LED budget in mA this board's supply allows, like WLED's limiter.

    The fuse is sized below 85 % of the supply's rating (hardware/tools/power_budget.py),
    and the MCU draws from the same supply; the floor keeps lit LEDs above their idle draw.
    """
    power = board.power
    supply = power.get("supply_ma", power.budget_ma)
    highest = supply * _FUSE_SHARE_PERCENT // 100 - power.get("mcu_active_ma", 0)
    idle = 0
    for section, _ in board.led_chains():
        idle += int(section.count * section.get("idle_ma_per_led", 0))
    lowest = idle + BUDGET_FLOOR_MA
    if highest < lowest:
        highest = lowest
    return highest, lowest


class Counter:
    """A level counter's logic (see "Running the firmware logic on a computer" in docs)."""

    def __init__(
        self,
        board,
        store=None,
        clock=None,
        random_bytes=None,
        counter_id=None,
        links=("serial",),
    ):
        self.board = board
        self.store = store if store is not None else MemoryStore()
        self.clock = clock if clock is not None else timebase.ticks_ms
        self.random_bytes = random_bytes if random_bytes is not None else wire.random_bytes
        if counter_id is None:
            counter_id = struct.unpack("<I", self.random_bytes(4))[0]
        self.counter_id = counter_id
        self.state = State(board)
        self.renderer = Renderer(board)
        self.session = Session()  # the default session, for callers with one link
        self.sessions = [self.session]
        self.token = None
        self._seq = 0
        self._pending = []  # [seq, payload, sent_at, tries] of BUTTONs awaiting ACK
        self._dirty = False
        self._changed_at = 0
        self._saved_at = None  # no state written since start-up
        self._started = self.clock()
        self._app_seen = self._started  # when an authenticated app last spoke to us
        self.offline_steps = 0  # levels counted on the buttons with no app, not yet sent
        self.caps = self._caps(links)
        self.flash_writes = 0
        token = self.store.read(_TOKEN_FILE)
        if token is not None and len(token) == wire.TOKEN_SIZE:
            self.token = bytes(token)
        self.state.unpack(self.store.read(_STATE_FILE))

    def _caps(self, links):
        b = self.board
        caps = 0
        if b.strip is not None:
            caps |= wire.CAP_STRIP
        if b.digits:
            caps |= wire.CAP_SEGMENTS
        if b.display is not None and b.display.kind == "ledbar":
            caps |= wire.CAP_LEDBAR
        if b.status_led is not None:
            caps |= wire.CAP_STATUS_LED
        if b.battery is not None:
            caps |= wire.CAP_BATTERY
        if "ble" in links:
            caps |= wire.CAP_BLE
        if "serial" in links:
            caps |= wire.CAP_SERIAL
        if "plus" in b.buttons and "minus" in b.buttons:
            caps |= wire.CAP_LEVEL_BUTTONS
        if "next" in b.buttons:
            caps |= wire.CAP_NEXT_BUTTON
        return caps

    # -- outgoing ---------------------------------------------------------------

    @property
    def claimed(self):
        return self.token is not None

    def next_seq(self):
        self._seq = self._seq + 1 if self._seq < 0xFFFF else 1
        return self._seq

    def hello(self):
        """This counter's HELLO (CAP_CLAIMED tells the app whether to expect a CHALLENGE)."""
        caps = self.caps | (wire.CAP_CLAIMED if self.claimed else 0)
        role = wire.ROLE_BOARD if self.board.role == "board" else wire.ROLE_TRACKER
        slots = self.state.slot_count if role == wire.ROLE_BOARD else 1
        return wire.Hello(
            role,
            FIRMWARE_VERSION,
            slots,
            self.board.led_count,
            caps,
            self.counter_id,
            seq=self.next_seq(),
        )

    def _error(self, code, ref_seq, detail=""):
        return wire.encode(wire.Error(code, ref_seq, detail, seq=self.next_seq()))

    def _ack(self, msg):
        return wire.encode(wire.Ack(msg.seq, msg.TYPE, seq=self.next_seq()))

    # -- incoming ---------------------------------------------------------------

    def open_session(self, link_id=NO_LINK_ID, peer_id=NO_LINK_ID):
        """A new Session for another link (serial and BLE can both be connected).

        On BLE, ``link_id`` is this counter's own address and ``peer_id`` the app's.
        """
        session = Session(link_id, peer_id)
        self.sessions.append(session)
        return session

    def close_session(self, session):
        """Forget a link's session for good."""
        if session in self.sessions and session is not self.session:
            self.sessions.remove(session)

    def disconnect(self, session=None):
        """The app on ``session``'s link went away: it must authenticate again."""
        session = session if session is not None else self.session
        session.end()
        session.greeted = False

    def revoke(self):
        """End every session on every link (the claim changed): each app must authenticate."""
        for session in self.sessions:
            session.end()

    def handle(self, payload, session=None):
        """One incoming message -> the list of reply messages (payload bytes, sealed as the
        session needs)."""
        session = session if session is not None else self.session
        had_session = session.authenticated
        message = session.open(payload, self.clock())
        if message is None:  # a wrong tag: dropped, and perhaps the session's last straw
            if had_session and not session.authenticated:
                return [self._error(wire.ERR_NOT_AUTHENTICATED, wire.peek_seq(payload), "ended")]
            return []
        return [session.out(reply) for reply in self._handle(message, session)]

    def _handle(self, payload, session):
        try:
            msg = wire.decode(payload)
        except wire.WireError as exc:
            code = exc.code
            if (
                code == wire.ERR_MALFORMED
                and len(payload) >= wire.HEADER_SIZE
                and not session.authenticated
                and payload[0] in _SEALED_FROM_APP
            ):
                # With no session, what an app seals is refused whatever its body: it may be
                # sealed for a session that has ended (its keep-alive PING included), and its
                # app should learn why.
                return [
                    self._error(wire.ERR_NOT_AUTHENTICATED, wire.peek_seq(payload), "auth first")
                ]
            return [self._error(code, wire.peek_seq(payload), _detail(exc))]
        t = msg.TYPE
        if session.authenticated:
            self._app_seen = self.clock()
        if t == wire.MSG_HELLO:
            return self._on_hello(msg, session)
        if t == wire.MSG_CLAIM:
            return self._on_claim(msg, session)
        if t == wire.MSG_AUTH:
            return self._on_auth(msg, session)
        if t in (wire.MSG_ERROR, wire.MSG_PONG):
            return []  # never answer an answer: no loops
        if t == wire.MSG_PING and not session.authenticated:
            return [self._pong(msg)]  # allowed before authentication; changes nothing
        if t not in wire.STATE_CHANGING and t not in (wire.MSG_ACK, wire.MSG_PING):
            return [self._error(wire.ERR_UNEXPECTED, msg.seq, "not for me")]
        if not session.authenticated:
            if t == wire.MSG_ACK:
                return []  # only the session's app may acknowledge presses
            return [self._error(wire.ERR_NOT_AUTHENTICATED, msg.seq, "auth first")]
        if msg.seq <= session.last_seq:
            return [self._error(wire.ERR_REPLAY, msg.seq, "old seq")]
        session.last_seq = msg.seq
        if t == wire.MSG_PING:
            return [self._pong(msg)]
        if t == wire.MSG_ACK:
            self._pending = [p for p in self._pending if p[0] != msg.ref_seq]
            return []
        self._apply(msg)
        return [self._ack(msg)]

    def _pong(self, msg):
        uptime_s = timebase.ticks_diff(self.clock(), self._started) // 1000
        pong = wire.Pong(msg.token, uptime_s if uptime_s > 0 else 0, seq=self.next_seq())
        return wire.encode(pong)

    def _on_hello(self, msg, session):
        if msg.role != wire.ROLE_APP:
            return [self._error(wire.ERR_UNEXPECTED, msg.seq, "not an app")]
        # A live session goes on: only an AUTH answering this HELLO's challenge replaces it.
        session.greeted = True
        out = [wire.encode(self.hello())]
        if self.claimed:
            nonce = bytes(self.random_bytes(wire.NONCE_SIZE))
            session.challenge(msg.seq, nonce)
            out.append(wire.encode(wire.Challenge(nonce, seq=self.next_seq())))
        else:
            session.end()
        return out

    def _on_claim(self, msg, session):
        if not self.state.claim_open(self.clock()):
            return [self._error(wire.ERR_NOT_CLAIMING, msg.seq, "long-press me")]
        if not crypto().token_is_strong(msg.token):
            return [self._error(wire.ERR_WEAK_TOKEN, msg.seq, "weak token")]
        self.token = msg.token
        self.store.write(_TOKEN_FILE, msg.token)
        self.flash_writes += 1
        self.state.claim_active = False
        self.state.identify_active = False
        self.revoke()  # nobody keeps a session made under the old token
        return [self._ack(msg)]

    def _on_auth(self, msg, session):
        pending = session.nonce is not None
        proof = session.answer(self.token, self.counter_id, msg, self.clock())
        if proof is None:
            detail = "wrong proof" if pending and self.token is not None else "no challenge"
            return [self._error(wire.ERR_AUTH_FAILED, msg.seq, detail)]
        self._app_seen = self.clock()
        return [wire.encode(wire.Proof(proof, session.peer_id, seq=self.next_seq()))]

    def _apply(self, msg):
        s = self.state
        now = self.clock()
        t = msg.TYPE
        if t == wire.MSG_SNAPSHOT or t == wire.MSG_CONFIG:
            before = s.pack()
            if t == wire.MSG_CONFIG:
                self._configure(msg)
            else:
                self._snapshot(msg)
            # An app sends the whole table again on every reconnect: an unchanged one
            # is no reason to write the flash.
            if s.pack() != before:
                self._dirty = True
                self._changed_at = now
            return
        effect = msg.KEY
        if effect == wire.SHOW_IDENTIFY:
            s.identify_active = msg.duration_s > 0
            s.identify_until = timebase.ticks_add(now, msg.duration_s * 1000)
            return
        s.effect = effect
        s.effect_start = now
        s.effect_slot = wire.NO_SLOT
        s.effect_value = 0
        if effect == wire.SHOW_COMBAT:
            s.effect_slot = msg.fighter
            s.effect_value = 1 if msg.players_winning else 0
        elif effect == wire.SHOW_ROLL:
            s.effect_slot = msg.slot
            s.effect_value = msg.value
        elif effect == wire.SHOW_WIN:
            s.effect_slot = msg.slot
        # effects are not worth a flash write

    def _snapshot(self, msg):
        s = self.state
        s.rev = msg.rev
        for i in range(wire.MAX_SLOTS):
            s.levels[i] = msg.levels[i]
            s.flags[i] = msg.flags[i]

    def _configure(self, msg):
        s = self.state
        key = msg.KEY
        if key == wire.CFG_COLOURS:
            for i in range(len(msg.colours)):
                for c in range(3):
                    s.colours[3 * (msg.first + i) + c] = msg.colours[i][c]
        elif key == wire.CFG_BRIGHTNESS:
            s.brightness = msg.brightness * s.brightness_scale // 255
        elif key == wire.CFG_BUDGET:
            budget = msg.budget_ma
            s.budget_ma = s.clamp_budget(budget) if budget else s.default_budget_ma
        elif key == wire.CFG_SLOT_MAP:
            n = len(msg.slots)
            if n > self.board.positions:
                n = self.board.positions
            s.slot_count = n
            for i in range(wire.MAX_SLOTS):
                s.slot_map[i] = msg.slots[i] if i < n else wire.NO_SLOT
        elif key == wire.CFG_WIN_LEVEL:
            s.win_level = msg.win_level

    # -- buttons ----------------------------------------------------------------

    def press(self, button, long=False):
        """A debounced press of ``button`` (plus, minus, next, claim) -> messages to send."""
        now = self.clock()
        if button == "claim":
            if not long:
                return []
            self.state.claim_active = True
            self.state.claim_until = timebase.ticks_add(now, wire.CLAIM_WINDOW_S * 1000)
            return [wire.encode(wire.ClaimOpen(wire.CLAIM_WINDOW_S, seq=self.next_seq()))]
        if button == "plus":
            intent = wire.INTENT_LEVEL_UP
        elif button == "minus":
            intent = wire.INTENT_LEVEL_DOWN
        elif button == "next":
            intent = wire.INTENT_NEXT_TURN
        else:
            return []
        offline = self.offline(now)
        if offline or not self.authenticated:
            if offline and intent != wire.INTENT_NEXT_TURN:
                self._count_offline(1 if intent == wire.INTENT_LEVEL_UP else -1)
                return []
            # Nobody may act on it; show the player the counter is not connected.
            self.state.identify_active = True
            self.state.identify_until = timebase.ticks_add(now, _OFFLINE_SHOW_MS)
            return []
        return [self._intent(intent, now)]

    def _intent(self, intent, now):
        slot = self.state.slot_map[0] if self.board.role == "tracker" else wire.NO_SLOT
        payload = wire.encode(wire.Button(intent, slot, seq=self.next_seq()))
        if len(self._pending) >= _MAX_PENDING:
            self._pending.pop(0)
        self._pending.append([wire.peek_seq(payload), payload, now, 1])
        return payload

    # -- offline ----------------------------------------------------------------

    def offline(self, now=None):
        """True on a tracker no authenticated app has spoken to for OFFLINE_AFTER_MS.

        Silence counts, not the session flag: a USB cable pulled from a tracker on its
        cell leaves no trace on the serial line.
        """
        if self.board.role != "tracker":
            return False
        now = self.clock() if now is None else now
        return timebase.ticks_diff(now, self._app_seen) >= OFFLINE_AFTER_MS

    def _count_offline(self, step):
        """+ or - with no app: the tracker counts its own level (1 .. winning level)."""
        s = self.state
        slot = s.slot_map[0] if s.slot_map[0] < wire.MAX_SLOTS else 0
        level = s.levels[slot] if s.levels[slot] else 1
        level += step
        if level < 1 or level > s.win_level:
            return
        s.levels[slot] = level
        self.offline_steps += step
        self._dirty = True
        self._changed_at = self.clock()

    def _offline_intents(self, now):
        """Levels counted offline, as the BUTTON intents the app adopts through its rules."""
        out = []
        while self.offline_steps and len(self._pending) < _MAX_PENDING:
            up = self.offline_steps > 0
            self.offline_steps += -1 if up else 1
            out.append(self._intent(wire.INTENT_LEVEL_UP if up else wire.INTENT_LEVEL_DOWN, now))
        return out

    @property
    def pending_presses(self):
        """The seqs of the BUTTONs sent and not yet acknowledged by the app, oldest first."""
        return tuple([entry[0] for entry in self._pending])

    @property
    def authenticated(self):
        """True while at least one connected app has proved the token."""
        for session in self.sessions:
            if session.authenticated:
                return True
        return False

    # -- battery ----------------------------------------------------------------

    def battery(self, millivolts, charging=False):
        """A battery reading -> the BATTERY message to send (None when mains-powered)."""
        b = self.board.battery
        if b is None:
            return None
        span = b.full_mv - b.empty_mv
        percent = (millivolts - b.empty_mv) * 100 // span if span > 0 else 0
        percent = 0 if percent < 0 else 100 if percent > 100 else percent
        self.state.battery_percent = percent
        flags = wire.BATTERY_CHARGING if charging else 0
        self.state.low_battery = percent < _LOW_BATTERY_PERCENT and not charging
        if self.state.low_battery:
            flags |= wire.BATTERY_LOW
        mv = millivolts if 0 <= millivolts <= 0xFFFF else 0
        return wire.encode(wire.Battery(mv, percent, flags, seq=self.next_seq()))

    # -- time -------------------------------------------------------------------

    def poll(self):
        """Housekeeping, called about once a second: resends, sessions whose app went quiet,
        sparing flash writes."""
        now = self.clock()
        for session in self.sessions:
            session.expired(now)
        s = self.state
        if s.effect == wire.SHOW_ROLL and s.effect_elapsed(now) >= wire.ROLL_SHOW_MS:
            s.effect = wire.SHOW_CLEAR
        out = []
        keep = []
        for entry in self._pending:
            if timebase.ticks_diff(now, entry[2]) >= _RESEND_MS:
                if entry[3] >= _RESEND_TRIES:
                    continue
                entry[2] = now
                entry[3] += 1
                out.append(entry[1])
            keep.append(entry)
        self._pending = keep
        if self.offline_steps and self.authenticated and not self.offline(now):
            out += self._offline_intents(now)
        if (
            self._dirty
            and timebase.ticks_diff(now, self._changed_at) >= _SAVE_QUIET_MS
            and (
                self._saved_at is None
                or timebase.ticks_diff(now, self._saved_at) >= _SAVE_MIN_INTERVAL_MS
            )
        ):
            self.save()
        return out

    def save(self):
        """Write the table to flash now (also called before a planned reset)."""
        self.store.write(_STATE_FILE, self.state.pack())
        self.flash_writes += 1
        self._dirty = False
        self._saved_at = self.clock()

    def forget(self):
        """Factory reset of the claim: the next app must claim again; every session ends."""
        self.token = None
        self.store.remove(_TOKEN_FILE)
        self.revoke()

    def factory_reset(self):
        """Forget the claim and every setting (colours, brightness, budget, table), as shipped."""
        self.forget()
        self.store.remove(_STATE_FILE)
        self.state = State(self.board)
        self.offline_steps = 0
        self._pending = []
        self._dirty = False
        for session in self.sessions:
            self.disconnect(session)
        # Blink for a moment so the person holding the buttons sees it happened.
        self.state.identify_active = True
        self.state.identify_until = timebase.ticks_add(self.clock(), _IDENTIFY_MS)

    # -- display ----------------------------------------------------------------

    def frame(self, now=None):
        """Render and return the LED frame: a bytearray of R, G, B per LED (reused)."""
        return self.renderer.render(self.state, self.clock() if now is None else now)

    def digits(self):
        """The 7-segment patterns of the last frame (a tracker with digits), left to right."""
        return self.renderer.digits

    def display_text(self):
        """The digits as text (" 7", "--", "d5", "CL", "id"), for virtual displays."""
        out = ""
        for pattern in self.renderer.digits:
            out += _SEGMENT_TEXT.get(pattern & 0x7F, "?")
        return out

    @property
    def current_ma(self):
        """The limiter's estimate of the LED current of the last frame."""
        return self.renderer.current_ma


def _detail(exc):
    """A short fixed text per error code (the codec's own messages are too long)."""
    if exc.code == wire.ERR_VERSION:
        return "need %d.x" % wire.PROTOCOL_MAJOR
    if exc.code == wire.ERR_UNKNOWN_TYPE:
        return "unknown type"
    if exc.code == wire.ERR_OVERSIZE:
        return "over 20 bytes"
    return "malformed"


def _segment_text():
    from counter import segments

    table = {
        segments.BLANK: " ",
        segments.DASH: "-",
        segments.LETTER_C: "C",
        segments.LETTER_D: "d",
    }
    table[segments.LETTER_I] = "i"
    table[segments.LETTER_L] = "L"
    for i in range(10):
        table[segments.DIGITS[i]] = str(i)
    for pattern in segments.SPIN:
        if pattern not in table:
            table[pattern] = "o"
    return table


_SEGMENT_TEXT = _segment_text()
