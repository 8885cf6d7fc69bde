"""One counter's connection: its link kept up, a session per connect, its picture delivered.

A `CounterConnection` keeps its link open (`Reconnector`), opens a protocol
session on every (re)connect (HELLO, then AUTH with the stored token, or a
CLAIM while the counter's claim window is open), and then keeps the counter's
picture equal to what its table wants shown: it sends what the counter has
not acknowledged yet, and sends it again when an ACK does not come. A burst of
changes within one turn of the loop goes out once. Button presses go to the
table (`Table.counter_pressed`), and each is acknowledged once the table says
it is taken for good (its action saved).

The connection knows its table only through the small `Table` protocol; the
table (`DeviceManager`) drives it through public methods.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from companion.devices import seal, wire
from companion.devices.link import Link, LinkClosedError, LinkError, LinkState
from companion.devices.presses import PressVerdict, PressWindow
from companion.devices.projection import (
    ROLL_SHOW_S,
    Desired,
    Part,
    after_absence,
    desired,
    is_moment,
)
from companion.devices.reconnect import Backoff, Reconnector
from companion.devices.session import (
    AUTH_TIMEOUT_S,
    HELLO_TIMEOUT_S,
    CounterVersionError,
    ImpostorError,
    Session,
    firmware_outdated,
    update_advice,
)
from companion.devices.status import (
    DISTURBANCES_MIN,
    Access,
    CounterStatus,
    Disturbances,
    Role,
    disturbance_signs,
)
from companion.devices.tokens import TokenStore
from companion.plumbing.tasks import TaskSet

_LOGGER = logging.getLogger(__name__)

ACK_TIMEOUT_S = 0.5  # s: a state change not acknowledged by then is sent again (lost on the way)
REFRESH_INTERVAL_S = 10.0  # s: everything is sent again this often, acknowledged or not, in case
# a message was damaged past the carrier's checks (BLE carries no CRC of ours)
AUTH_ATTEMPTS = 3  # refused AUTHs in a row before the counter is taken as another table's
PING_INTERVAL_S = 2.0  # s: often enough for a live link-quality figure, cheap on the radio
PINGS_MISSED_MAX = 3  # unanswered pings in a row before a silent counter is taken for gone
# A CHALLENGE after a HELLO saying "unclaimed": that HELLO was damaged; a new session asks again.
HELLO_CONTRADICTED = "it said it was unclaimed, then challenged the app: asking again"
SAFE_MODE_PROBLEM = "it started in safe mode after failed starts: install the firmware again"
VERSION_CHECKS = 2  # HELLOs in a row that must tell of another version before the app believes
# them: one damaged on the way (BLE carries no CRC of ours) would otherwise disable the counter
MAX_BAD_TAGS = 16  # wrong tags in one session before the app opens a new one (as the counter does)
PENALTY_FIRST_S = 0.25  # s: the wait before a new session after one that ended out of step ...
PENALTY_MAX_S = 8.0  # s: ... doubling each time in a row up to this: a forger's tries stay slow
SETTLED_S = 30.0  # s: a session that lasted this long resets that wait
TASK_RESTART_S = 1.0  # s: a task that keeps failing is started again once a second, not in a spin


@dataclass(frozen=True)
class Timing:
    """How long a connection waits for each answer, and how often it checks on its counter."""

    hello_timeout_s: float = HELLO_TIMEOUT_S
    auth_timeout_s: float = AUTH_TIMEOUT_S
    ack_timeout_s: float = ACK_TIMEOUT_S
    ping_interval_s: float = PING_INTERVAL_S
    refresh_interval_s: float = REFRESH_INTERVAL_S
    roll_show_s: float = ROLL_SHOW_S  # as long as the counter plays a roll (tests shorten it)


class Table(Protocol):
    """What a connection asks of the table it serves (the `DeviceManager` is one)."""

    @property
    def tokens(self) -> TokenStore:
        """The claim tokens of this table's counters."""
        ...

    @property
    def claiming(self) -> bool:
        """True while the user allows moving counters from another table to this one."""
        ...

    @property
    def timing(self) -> Timing:
        """Timeouts and intervals of every connection."""
        ...

    def counter_ready(self, connection: CounterConnection) -> None:
        """The counter is ours and authenticated: tell it (`want`) what to show."""

    def counter_pressed(
        self, connection: CounterConnection, press: wire.Button
    ) -> Awaitable[object] | None:
        """A new button press: apply it now; the press is acknowledged once the returned
        awaitable is done (at once for None)."""

    def status_changed(self, connection: CounterConnection) -> None:
        """The counter's `status` changed."""

    def counter_synced(self, connection: CounterConnection) -> None:
        """The counter acknowledged everything it should show."""


@dataclass
class _InFlight:
    part: Part
    ident: tuple[Any, ...]
    sent_at: float


@dataclass
class _Remembered:
    """What a connection keeps across the sessions of its counter."""

    window_seen: bool = False  # a CLAIM_OPEN came while the session was opening
    auth_failures: int = 0  # refused AUTHs in a row
    version_mismatches: int = 0  # HELLOs in a row that told of another version
    #: Which presses were taken, by the counter's numbers (they carry across sessions).
    presses: PressWindow = field(default_factory=PressWindow)


class CounterConnection:
    """One counter: its link, its protocol session, what it should show and what it acknowledged."""

    def __init__(
        self,
        table: Table,
        link: Link,
        *,
        key: str,
        backoff: Backoff | None = None,
    ) -> None:
        self.table = table
        self.link = link
        self.key = key
        self.hello: wire.Hello | None = None
        self.authenticated = False
        self.session: Session | None = None
        self.status = CounterStatus(
            key=key, transport=link.transport, name=link.name, address=link.address
        )
        self._desired: dict[Part, Desired] = {}
        self._acked: dict[Part, tuple[Any, ...]] = {}
        self._in_flight: dict[int, _InFlight] = {}
        # The latest effect that is a moment (a roll) this counter was given, by its ident,
        # and when (loop time) that moment is over on the counter: None until it is sent.
        self._moment: tuple[Any, ...] | None = None
        self._moment_ends: float | None = None
        # s: how long this counter's acknowledgements have taken lately (smoothed; None
        # until one came back). Tells the window whether an ACK is worth a frame's wait.
        self.round_trip_s: float | None = None
        self._wake = asyncio.Event()
        self._changed = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None
        self._pings: dict[int, tuple[float, int]] = {}  # token -> (when sent, its seq)
        self._failed_starts = 0  # what a STATUS said since the last HELLO went out
        self._remembered = _Remembered()
        self._opens = 0
        self._early_ends = 0  # sessions in a row that ended out of step soon after opening
        self._penalty_s = 0.0  # the wait before the next session's HELLO
        self._since = 0.0  # when the current session was proved (loop time)
        self._disturbances = Disturbances()
        self._calm_timer: asyncio.TimerHandle | None = None
        self._tasks = TaskSet(f"counter {key}", on_error=self._task_failed)
        self.reconnector = Reconnector(link, on_open=self._open_session, backoff=backoff)
        link.on_message(self._on_message)
        link.on_state_change(self._on_link_state)
        link.on_junk(lambda _count: self._disturbed())

    # -- life cycle -----------------------------------------------------------------

    def start(self) -> None:
        """Connect, and keep the counter connected and showing its picture until `stop()`."""
        self.reconnector.start()
        for name, loop in self._loops().items():
            self._tasks.spawn(loop(), name)

    def _loops(self) -> dict[str, Callable[[], Coroutine[Any, Any, None]]]:
        """The tasks that run for the connection's whole life, by name."""
        return {"push": self._push_loop, "ping": self._ping_loop, "refresh": self._refresh_loop}

    def _task_failed(self, name: str, exc: BaseException) -> None:
        """A task of this connection failed (the `TaskSet` logged it): a life-long one is
        started again, and the counter gets a fresh session, since the failure may have
        left the old one out of step."""
        short_name = name.rsplit(": ", 1)[-1]
        loop = self._loops().get(short_name)
        if loop is None:
            return
        self._tasks.spawn(self._restart(loop), short_name)
        if self.link.is_open:
            self._tasks.spawn(self.link.drop(f"a task failed: {exc}"), "drop")

    async def _restart(self, loop: Callable[[], Coroutine[Any, Any, None]]) -> None:
        await asyncio.sleep(TASK_RESTART_S)
        await loop()

    async def stop(self) -> None:
        """Stop every task of this connection and close its link."""
        await self._tasks.cancel_all()
        for timer in (self._timer, self._calm_timer):
            if timer is not None:
                timer.cancel()
        await self.reconnector.stop()
        self._update(connection=LinkState.CLOSED)

    async def wait_ready(self) -> None:
        """Return once the counter is connected and authenticated (use with a timeout)."""
        await self._wait(lambda: self.authenticated and self.link.is_open)

    async def wait_synced(self) -> None:
        """Return once the counter acknowledged everything it should show (use with a timeout)."""
        await self._wait(lambda: self.synced)

    def ack_expected_at(self) -> float | None:
        """When (loop time) the acknowledgement of the last state sent should be back, by
        this counter's recent round trips; None when none is awaited, none is known, or
        it is late by more than a round trip (lost, or a counter gone quiet: resent after
        `ack_timeout_s`, and not worth a frame's wait meanwhile)."""
        trip = self.round_trip_s
        if not self._in_flight or trip is None:
            return None
        due = max(flight.sent_at for flight in self._in_flight.values()) + trip
        if asyncio.get_running_loop().time() > due + trip:
            return None
        return due

    @property
    def synced(self) -> bool:
        """True when the counter is ours, connected, and acknowledged all it should show."""
        if not (self.authenticated and self.link.is_open):
            return False
        return all(self._acked.get(part) == want.ident for part, want in self._desired.items())

    # -- what the counter should show -----------------------------------------------

    def set_desired(
        self, part: Part, message: wire.Message, ident: tuple[Any, ...] | None = None
    ) -> None:
        """The counter should hold `message` as `part` (sent unless it already holds it)."""
        self.want(part, desired(message, ident))

    def want(self, part: Part, wanted: Desired) -> None:
        """The counter should hold `wanted` as `part` (sent unless it already holds it)."""
        current = self._desired.get(part)
        if current is not None and current.ident == wanted.ident:
            return
        if is_moment(wanted.message):
            if wanted.ident == self._moment:
                return  # a moment plays once: this one was played, or passed while away
            self._moment, self._moment_ends = wanted.ident, None
        self._desired[part] = wanted
        self._wake.set()

    def desired(self, part: Part) -> wire.Message | None:
        """The message the counter should hold as `part`, if any."""
        want = self._desired.get(part)
        return want.message if want is not None else None

    def refresh(self) -> None:
        """Send the latest state again even if the counter acknowledged it (after a refusal)."""
        self._acked.pop(Part.SNAPSHOT, None)
        self._wake.set()

    def resync(self) -> None:
        """Send everything the counter should show again, acknowledged or not: the game's
        state. An effect that is a moment is never sent again: one still playing is left to
        end, and one over gives way to what the game shows under it."""
        self._end_moment()
        playing = self._desired.get(Part.SHOW)
        kept = self._acked.get(Part.SHOW)
        self._acked.clear()
        if playing is not None and kept == playing.ident and is_moment(playing.message):
            self._acked[Part.SHOW] = kept
        self._wake.set()

    def _end_moment(self) -> None:
        """Once the counter's moment of an effect is over (a roll ends by itself there), hold
        what the game shows under it, as the counter does by then."""
        playing = self._desired.get(Part.SHOW)
        ends = self._moment_ends
        if playing is None or playing.ident != self._moment or ends is None:
            return
        if asyncio.get_running_loop().time() < ends:
            return
        after = after_absence(playing.message)
        if after is None:
            return
        if self._acked.get(Part.SHOW) == playing.ident:
            self._acked[Part.SHOW] = after.ident  # it ended there by itself: nothing to send
        self._desired[Part.SHOW] = after

    def show_players(self, seats: tuple[int, ...]) -> None:
        """Record which players (seats) the counter shows, for its status."""
        self._update(players=seats)

    def note_problem(self, problem: str) -> None:
        """Show `problem` as the counter's latest problem."""
        self._update(last_problem=problem)

    async def identify(self, seconds: int = 5) -> None:
        """Blink the counter so the table can tell which one it is."""
        session = self.session
        if self.authenticated and self.link.is_open and session is not None:
            with contextlib.suppress(LinkError):
                await self._send(session, wire.ShowIdentify(max(0, min(255, seconds))))

    # -- claiming, on the table's behalf ------------------------------------------------

    def start_claim(self, *, quiet: bool = False) -> None:
        """Try to claim the counter now (it takes the claim only while its window is open)."""
        self._tasks.spawn(self._claim(quiet=quiet), "claim")

    def reconnect_now(self) -> None:
        """A fresh connection now, not when the backoff says (and its session may claim)."""
        self._tasks.spawn(self._reconnect_now(), "reconnect")

    async def _reconnect_now(self) -> None:
        reconnector = self.reconnector
        await reconnector.stop()
        reconnector.backoff.reset()
        reconnector.start()

    # -- session ----------------------------------------------------------------------

    async def _open_session(self, link: Link) -> None:
        """A fresh session after every (re)connect: HELLO, then AUTH or wait for a claim."""
        self.authenticated = False
        self._acked.clear()
        self._in_flight.clear()
        self._pings.clear()
        self._failed_starts = 0
        if self.session is not None:
            self.session.end(LinkClosedError(f"{link.name}: a new session began"))
        if self._penalty_s:
            await asyncio.sleep(self._penalty_s)
            self._penalty_s = 0.0
        session = self.session = Session(link)
        claim = self._remembered
        claim.window_seen = False
        table = self.table
        try:
            hello = await session.start(table.timing.hello_timeout_s)
            if not claim.presses.follows(hello.seq):
                claim.presses.restart()  # the counter restarted: its numbers start again
            self.hello = hello
            self._update(
                role=Role.of_hello(hello.role),
                name=wire.counter_name(hello.counter_id),
                firmware=".".join(str(part) for part in hello.firmware),
                counter_id=hello.counter_id,
                safe_mode=bool(hello.caps & wire.CAP_SAFE_MODE),
            )
            if hello.caps & wire.CAP_SAFE_MODE:
                # Its firmware kept failing to start: it opens no session and takes no claim,
                # and only an install helps (its STATUS says how many starts failed). Nor is it
                # ours any more, though it was before it restarted so.
                self._update(
                    access=Access.UNKNOWN,
                    last_problem=SAFE_MODE_PROBLEM,
                    failed_starts=self._failed_starts,
                )
                return
            if firmware_outdated(hello):
                # Not a protocol error: it answered, but the app will not drive it.
                self._version_mismatch(update_advice(hello))
            claim.version_mismatches = 0
            if hello.caps & wire.CAP_CLAIMED:
                await self._authenticate(session, hello)
            else:
                if session.challenged:
                    raise LinkError(f"{link.name}: {HELLO_CONTRADICTED}")
                self._update(
                    access=Access.UNCLAIMED, last_problem="long-press the counter to add it"
                )
                if claim.window_seen or table.claiming:
                    # Its claim window may be open already (pressed before we connected).
                    self._update(access=Access.CLAIMING)
                    self.start_claim(quiet=not claim.window_seen)
        except CounterVersionError:
            self._version_mismatch("the counter needs a firmware update")
        finally:
            session.opened()

    def _version_mismatch(self, problem: str) -> None:
        """The HELLO tells of another version. Believed only once the next HELLO (after the
        reconnect backoff) says so too; the counter is asked again now and then either way,
        since whatever else it may be, one damaged byte must not disable it for good."""
        claim = self._remembered
        claim.version_mismatches += 1
        if claim.version_mismatches >= VERSION_CHECKS:
            self._update(access=Access.VERSION, last_problem=problem)
        raise LinkError(f"{self.link.name}: {problem}; asking it again later")

    async def _authenticate(self, session: Session, hello: wire.Hello) -> None:
        table = self.table
        challenge = await session.challenge(table.timing.hello_timeout_s)
        token = table.tokens.get(hello.counter_id)
        if token is None:
            await self._held_elsewhere("claimed by another table")
            return
        place = self._place()
        claimed_at = table.tokens.place(hello.counter_id)
        elsewhere = claimed_at is not None and place is not None and claimed_at != place
        try:
            accepted = await session.answer(token, challenge, table.timing.auth_timeout_s)
        except ImpostorError as exc:
            await self._mismatch(str(exc))
            return
        if elsewhere and (not accepted or seal.link_id(self.link.address) == seal.NO_LINK_ID):
            # Where this platform hides addresses, a proof cannot tell a relay from the
            # counter itself, so a counter found elsewhere is not used without a new claim.
            where = claimed_at.split(":", 1)[1] if claimed_at else "?"
            await self._mismatch(
                f"answers at {self.link.address} but was claimed at {where}: it may be a fake "
                "passing messages on, so nothing is sent to it"
            )
            return
        if accepted and elsewhere and place is not None:
            table.tokens.moved(hello.counter_id, place)  # it proved the token at its new address
        claim = self._remembered
        if not accepted:
            claim.auth_failures += 1
            if claim.auth_failures < AUTH_ATTEMPTS:
                # A damaged challenge or answer fails like a wrong token; only a
                # refusal that repeats means someone else holds the counter now.
                raise LinkError(f"{self.link.name}: authentication failed")
            await self._held_elsewhere("claimed by another table since this app claimed it")
            return
        claim.auth_failures = 0
        self._authenticated()

    def _place(self) -> str | None:
        """Where this link reaches its counter, as remembered with a claim (BLE only: a
        serial port's path changes with the order of plugging in)."""
        return f"ble:{self.link.address}" if self.link.transport == "ble" else None

    async def _mismatch(self, problem: str) -> None:
        """Not the counter claimed here (or not only it): tell the user, and never use it."""
        session = self.session
        if session is not None:
            session.sealer = None  # nothing more goes out under this session's key
        self.authenticated = False
        self._update(access=Access.MISMATCH, last_problem=problem)
        if self.link.transport == "ble":
            raise LinkError(f"{self.link.name}: {problem}")  # free the radio; look again later

    def _authenticated(self) -> None:
        self._since = asyncio.get_running_loop().time()
        self.authenticated = True
        self._acked.clear()
        replacement = after_absence(self.desired(Part.SHOW))
        if replacement is not None:
            self._desired[Part.SHOW] = replacement
        self.table.counter_ready(self)
        self._update(access=Access.OURS, last_problem="")
        self._wake.set()

    async def _held_elsewhere(self, problem: str) -> None:
        """The counter belongs to another table: claim it only while the user allows it here."""
        self._update(access=Access.CLAIMED_ELSEWHERE, last_problem=problem)
        if self.table.claiming:
            # The user asked to move counters here; the counter still needs its long press.
            self._update(access=Access.CLAIMING)
            await self._claim(quiet=True)
            if self.authenticated:
                return
            self._update(
                access=Access.CLAIMED_ELSEWHERE,
                last_problem=f"{problem}: long-press it now to move it to this table",
            )
            return
        if self.link.transport == "ble":
            # A BLE counter serves one app at a time: leave it free for its own table
            # and look again later (the reconnect backoff grows to MAX_BACKOFF_S).
            raise LinkError(f"{self.link.name}: {problem}")

    async def _claim(self, *, quiet: bool = False) -> None:
        hello, session = self.hello, self.session
        if hello is None or session is None:
            return
        token = seal.new_token(wire.random_bytes)
        try:
            taken = await session.claim(token, self.table.timing.auth_timeout_s)
        except LinkError as exc:
            self._update(last_problem=f"claim failed: {exc}")
            return
        if not taken:
            if self.status.access is Access.CLAIMING:
                held = hello.caps & wire.CAP_CLAIMED
                self._update(access=Access.CLAIMED_ELSEWHERE if held else Access.UNCLAIMED)
            if not quiet:
                self._update(last_problem="the claim window closed; long-press the counter again")
            return
        self.table.tokens.put(
            hello.counter_id, token, place=self._place(), save=not self.link.forgets_claims
        )
        self._remembered.auth_failures = 0
        # The claim ended every session on the counter: open one under the new token.
        await self._open_session(self.link)

    # -- incoming ---------------------------------------------------------------------

    def _on_message(self, payload: bytes) -> None:
        session = self.session
        # Under the session's seal (and its tag checked): the counter's own, of this session.
        sealed = session is not None and session.sealed and wire.peek_type(payload) in wire.SEALED
        if session is None:
            try:
                message: wire.Message | wire.WireError | None = wire.decode(payload)
            except wire.WireError as exc:
                message = exc
        else:
            message = session.receive(payload)
        if message is None:
            # A wrong tag: damage on the way, or someone else's message. Dropped.
            self._update(errors=self.status.errors + 1)
            self._disturbed()
            if session is not None and session.bad_tags == MAX_BAD_TAGS:
                self._out_of_step("too many damaged messages")
            return
        if isinstance(message, wire.WireError):
            if session is None or not session.take(message):
                self._update(errors=self.status.errors + 1)
                self._disturbed()
            return
        if isinstance(message, wire.Status):
            # Unsealed, right after the HELLO of a counter in safe mode (perhaps read before
            # that HELLO is looked at): how many starts failed. Believed only with that HELLO.
            self._failed_starts = message.failed_starts
            if self.status.safe_mode:
                self._update(failed_starts=message.failed_starts)
            return
        if session is not None and session.take(message):
            return
        if isinstance(message, wire.Button):
            if sealed:
                self._on_button(message)
            return
        if sealed:
            self._remembered.presses.heard(message.seq)
        if isinstance(message, wire.Ack):
            flight = self._in_flight.pop(message.ref_seq, None)
            if flight is not None:
                trip = asyncio.get_running_loop().time() - flight.sent_at
                smooth = self.round_trip_s
                self.round_trip_s = trip if smooth is None else smooth + (trip - smooth) / 4
                self._acked[flight.part] = flight.ident
                if self.synced:
                    self._changed.set()
                    self.table.counter_synced(self)
            return
        if isinstance(message, wire.Error):
            self._on_error(message)
            return
        if isinstance(message, wire.Pong):
            ping = self._pings.pop(message.token, None)
            if ping is not None:
                self._pings.clear()  # any answer proves the counter alive; older pings were lost
                sent, seq = ping
                if session is not None:
                    session.answered(seq)
                self._update(rtt_ms=(time.monotonic() - sent) * 1000)
            return
        if isinstance(message, wire.Battery):
            self._update(
                battery_percent=message.percent,
                battery_mv=message.millivolts,
                charging=bool(message.flags & wire.BATTERY_CHARGING),
                battery_low=bool(message.flags & wire.BATTERY_LOW),
            )
            return
        if isinstance(message, wire.ClaimOpen):
            self._on_claim_open()
        elif isinstance(message, wire.Hello):
            # A HELLO when no session is opening: the counter answering another program's
            # HELLO on its line (a second program, or a flood of them). A sign, as junk is.
            self._disturbed()
        elif isinstance(message, wire.Challenge) and self.status.access in (
            Access.UNCLAIMED,
            Access.CLAIMING,
        ):
            self._tasks.spawn(self.link.drop(HELLO_CONTRADICTED), "drop")

    def _on_error(self, message: wire.Error) -> None:
        self._update(errors=self.status.errors + 1)
        session = self.session
        if session is None or not session.awaits(message.ref_seq):
            # About no message of ours (errors are not sealed): the counter answering another
            # program on its line, or a copy from someone in the path. Not our session's end.
            # A counter's report of junk it dropped counts each dropped frame as a sign.
            for _ in range(min(DISTURBANCES_MIN, disturbance_signs(message))):
                self._disturbed()
            return
        out_of_step = (wire.ERR_NOT_AUTHENTICATED, wire.ERR_REPLAY, wire.ERR_MALFORMED)
        if self.authenticated and message.code in out_of_step:
            # The counter and the app disagree about the session (it ended on the counter:
            # its app was quiet too long, a claim, too many wrong tags; or a reset): start
            # a fresh one rather than talk past each other.
            self._out_of_step(f"session out of step (error {message.code})")

    def _out_of_step(self, reason: str) -> None:
        """End this session and open another, after a wait that doubles while it keeps happening."""
        if not self.authenticated:
            return
        self.authenticated = False
        now = asyncio.get_running_loop().time()
        self._early_ends = 1 if now - self._since >= SETTLED_S else self._early_ends + 1
        self._penalty_s = min(PENALTY_MAX_S, PENALTY_FIRST_S * 2 ** (self._early_ends - 1))
        self._tasks.spawn(self.link.drop(reason), "drop")

    def _on_claim_open(self) -> None:
        access = self.status.access
        session = self.session
        if session is not None and session.handshaking:
            self._remembered.window_seen = True  # act on it once the HELLO says who it is
            return
        elsewhere = access is Access.CLAIMED_ELSEWHERE
        if access is Access.UNCLAIMED or (elsewhere and self.table.claiming):
            self._update(access=Access.CLAIMING)
            self.start_claim()
        elif elsewhere:
            self._update(
                last_problem="claimed by another table: allow claiming in the app, then long-press"
            )

    def _on_button(self, message: wire.Button) -> None:
        if not self.authenticated:
            return
        presses = self._remembered.presses
        verdict = presses.verdict(message.seq)
        if verdict is PressVerdict.AGAIN:
            # A resent press the app already took: acknowledged when the first one is.
            self._tasks.spawn(self._ack(message, presses.durable(message.seq)), "ack")
            return
        if verdict is PressVerdict.OLD:
            # Numbered long before the counter's newest message: a copy someone in the path
            # kept, or a press the counter gave up on. Never taken now.
            self._disturbed()
            return
        taken = self.table.counter_pressed(self, message)
        durable = asyncio.ensure_future(taken) if taken is not None else None
        presses.take(message.seq, durable)
        self._tasks.spawn(self._ack(message, durable), "ack")

    async def _ack(self, message: wire.Message, after: asyncio.Future[object] | None) -> None:
        if after is not None:
            await asyncio.shield(after)  # a stop cancels this ACK, not the table's save
        session = self.session
        if session is None:
            return
        with contextlib.suppress(LinkError):
            await self._send(session, wire.Ack(message.seq, message.TYPE))

    def _on_link_state(self, state: LinkState) -> None:
        if state is LinkState.OPEN:
            self._opens += 1
            self._update(connection=LinkState.OPEN, reconnects=self._opens - 1)
        elif state is LinkState.LOST:
            self.authenticated = False
            self._update(connection=LinkState.LOST)
        elif state is LinkState.CLOSED and self.status.connection is not LinkState.CLOSED:
            self.authenticated = False
            if self.reconnector.running:
                # Closed on the way to a new connection: away, and coming back.
                self._update(connection=LinkState.LOST)
        session = self.session
        if session is not None and state is not LinkState.OPEN:
            session.end(LinkClosedError(f"{self.link.name} went away"))

    # -- outgoing ---------------------------------------------------------------------

    async def _push_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            session = self.session
            if not (self.authenticated and self.link.is_open) or session is None:
                continue
            if session.worn_out:
                await self._renew_session()
                continue
            now = loop.time()
            self._end_moment()
            waiting = {f.part: f for f in self._in_flight.values()}
            ack_timeout_s = self.table.timing.ack_timeout_s
            try:
                for part, want in list(self._desired.items()):
                    if self._acked.get(part) == want.ident:
                        continue
                    flight = waiting.get(part)
                    if (
                        flight is not None
                        and flight.ident == want.ident
                        and now - flight.sent_at < ack_timeout_s
                    ):
                        continue
                    if flight is not None and flight.ident == want.ident:
                        self._disturbed()  # sent, and no ACK in time: lost on the way
                    for seq in [s for s, f in self._in_flight.items() if f.part == part]:
                        del self._in_flight[seq]
                    if want.ident == self._moment and self._moment_ends is None:
                        self._moment_ends = now + self.table.timing.roll_show_s
                    seq = await self._send(session, want.message)
                    self._in_flight[seq] = _InFlight(part, want.ident, now)
            except LinkError:
                continue  # lost mid-send: the resync after the reconnect covers it
            if self._in_flight:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = loop.call_later(ack_timeout_s, self._wake.set)

    async def _refresh_loop(self) -> None:
        while True:
            await asyncio.sleep(self.table.timing.refresh_interval_s)
            self.resync()

    async def _ping_loop(self) -> None:
        while True:
            await asyncio.sleep(self.table.timing.ping_interval_s)
            session = self.session
            if not self.link.is_open or session is None or session.handshaking:
                continue
            if self._pings:
                self._disturbed()  # the last ping went unanswered
            if len(self._pings) >= PINGS_MISSED_MAX:
                self._pings.clear()
                await self.link.drop("the counter stopped answering")
                continue
            token = secrets.randbits(32)
            self._pings[token] = (time.monotonic(), session.seq + 1)
            with contextlib.suppress(LinkError):
                await self._send(session, wire.Ping(token))

    async def _send(self, session: Session, message: wire.Message) -> int:
        """Send on `session`; once it nears the end of its seq space, the sender renews it."""
        seq = await session.send(message)
        if session.worn_out:
            self._wake.set()
        return seq

    async def _renew_session(self) -> None:
        """A fresh session on the same link before the seq numbers run out (protocol §3):
        a new HELLO and AUTH, then everything the counter should show again."""
        try:
            await self._open_session(self.link)
        except LinkError as exc:
            await self.link.drop(f"a fresh session failed: {exc}")

    # -- helpers ----------------------------------------------------------------------

    async def _wait(self, condition: Any) -> None:
        while not condition():
            self._changed.clear()
            await self._changed.wait()

    def _disturbed(self) -> None:
        """A sign that something else is on the line (see `status.Disturbances`)."""
        now = asyncio.get_running_loop().time()
        self._disturbances.seen(now)
        self._check_calm()

    def _check_calm(self) -> None:
        """Say whether the line is disturbed now, and look again when that may change."""
        loop = asyncio.get_running_loop()
        disturbed = self._disturbances.disturbed(loop.time())
        if disturbed != self.status.disturbed:
            self._update(disturbed=disturbed)
        if self._calm_timer is not None:
            self._calm_timer.cancel()
            self._calm_timer = None
        if disturbed:
            self._calm_timer = loop.call_at(self._disturbances.calm_at(), self._check_calm)

    def _update(self, **changes: Any) -> None:
        self.status = replace(self.status, **changes)
        self._changed.set()
        self.table.status_changed(self)
