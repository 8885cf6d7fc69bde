"""The sync manager: keeps every connected counter showing the game, and turns presses into actions.

`DeviceManager` holds one `CounterConnection` per counter. Each connection keeps
its link up (`Reconnector`), opens a protocol session on every (re)connect
(HELLO, then AUTH with the stored token, or a CLAIM while the counter's claim
window is open), and then keeps the counter's picture equal to the app's:
the app decides what the counter should show (CONFIG, SNAPSHOT, SHOW), sends
what the counter has not acknowledged yet, and sends it again when an ACK does
not come. A burst of game changes within one turn of the loop becomes one
SNAPSHOT. Button presses are applied through the rules engine; the press is
acknowledged only once the game has taken it (or refused it), and a refused
press is answered with the true state again.

Everything runs on the app's one asyncio loop; nothing here blocks or starts a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import tempfile
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.core import EndTurn, Game, GameState, GoUpLevel, LoseLevel
from companion.devices import wire
from companion.devices.ble_link import BleBackend, BleLink
from companion.devices.discovery import CounterInfo, discover
from companion.devices.link import Link, LinkClosedError, LinkError, LinkState
from companion.devices.reconnect import Backoff, Reconnector
from companion.devices.serial_link import SerialLink
from companion.devices.tasks import cancel_and_wait
from companion.devices.tokens import TokenStore
from companion.devices.virtual import (
    BleVirtualCounter,
    LedFrame,
    SerialVirtualCounter,
    VirtualCounter,
)

_LOGGER = logging.getLogger(__name__)

HELLO_TIMEOUT_S = 2.0  # s: a running counter answers in ms; a board still booting may need a second
AUTH_TIMEOUT_S = 2.0  # s: one HMAC on a microcontroller takes a few ms
ACK_TIMEOUT_S = 0.5  # s: a state change not acknowledged by then is sent again (lost on the way)
REFRESH_INTERVAL_S = 10.0  # s: everything is sent again this often, acknowledged or not, in case
# a message was damaged past the carrier's checks (BLE carries no CRC of ours)
AUTH_ATTEMPTS = 3  # refused AUTHs in a row before the counter is taken as another table's
PING_INTERVAL_S = 2.0  # s: often enough for a live link-quality figure, cheap on the radio
PINGS_MISSED_MAX = 3  # unanswered pings in a row before a silent counter is taken for gone
RECENT_PRESSES = 64  # button seqs remembered per counter, to treat a resent press as the same one
SEQ_RESTART = 0xFF00  # an app session near the end of the u16 seq space starts afresh (§3)
MAX_VIRTUAL_TRACKERS = 8


@dataclass(frozen=True)
class CounterStatus:
    """What the Devices screen shows for one counter; a new object on every change.

    `connection` is "connecting", "connected", "reconnecting" or "stopped";
    `access` is "unknown" (no HELLO yet), "ours" (claimed by this app and
    authenticated), "unclaimed" (long-press it to add it), "claimed_elsewhere"
    (another table's: never taken over without a long press on the counter) or
    "version" (speaks another protocol major: update its firmware).
    """

    key: str
    transport: str
    name: str
    address: str
    virtual: bool = False
    connection: str = "connecting"
    access: str = "unknown"
    role: str | None = None
    firmware: str | None = None
    counter_id: int | None = None
    battery_percent: int | None = None
    battery_mv: int | None = None
    charging: bool = False
    rtt_ms: float | None = None
    errors: int = 0
    reconnects: int = 0
    players: tuple[int, ...] = ()
    last_problem: str = ""

    @property
    def claimed(self) -> bool:
        """True if some app holds this counter (this one or another table's)."""
        return self.access in ("ours", "claimed_elsewhere")


@dataclass(frozen=True)
class VirtualSetup:
    """Which virtual counters the app starts when no hardware answers.

    `trackers` None means one per player (at most 8). Transports are "serial" or "ble".
    """

    boards: int = 1
    trackers: int | None = None
    board_transport: str = "serial"
    tracker_transport: str = "ble"
    animate: bool = True


@dataclass
class _Desired:
    message: wire.Message
    ident: tuple[Any, ...]


@dataclass
class _InFlight:
    key: str
    ident: tuple[Any, ...]
    sent_at: float


@dataclass
class PressRecord:
    """A button press the app acknowledged: applied to the game, or refused by the rules."""

    counter: str
    seq: int
    intent: int
    action: str
    refused: str = ""
    at: float = field(default_factory=time.monotonic)


def _ident(message: wire.Message) -> tuple[Any, ...]:
    return (message.TYPE, type(message).__name__, message.values())


def _rgb(colour: str) -> tuple[int, int, int]:
    text = colour.lstrip("#")
    try:
        return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))
    except (ValueError, IndexError):
        return (200, 200, 200)


def _i16(value: int) -> int:
    return max(-0x8000, min(0x7FFF, value))


def snapshot_of(state: GameState, rev: int) -> wire.Snapshot:
    """The SNAPSHOT of a game state: levels and flags of the first eight seats."""
    levels = []
    flags = []
    combat = state.combat
    for seat, player in enumerate(state.players[: wire.MAX_SLOTS]):
        levels.append(max(1, min(255, player.level)))
        bits = 0
        if seat == state.current:
            bits |= wire.FLAG_TURN
        if combat is not None and seat == combat.fighter:
            bits |= wire.FLAG_FIGHTING
        if combat is not None and seat == combat.helper:
            bits |= wire.FLAG_HELPING
        if player.dead:
            bits |= wire.FLAG_DEAD
        flags.append(bits)
    return wire.Snapshot(rev & 0xFFFF, tuple(levels), tuple(flags))


class CounterConnection:
    """One counter: its link, its protocol session, what it should show and what it acknowledged."""

    def __init__(
        self,
        manager: DeviceManager,
        link: Link,
        *,
        key: str,
        virtual: VirtualCounter | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        self.manager = manager
        self.link = link
        self.key = key
        self.virtual = virtual
        self.hello: wire.Hello | None = None
        self.authenticated = False
        self.status = CounterStatus(
            key=key,
            transport=link.transport,
            name=virtual.name if virtual is not None else link.name,
            address=link.address,
            virtual=virtual is not None,
        )
        self._seq = 0
        self._desired: dict[str, _Desired] = {}
        self._acked: dict[str, tuple[Any, ...]] = {}
        self._in_flight: dict[int, _InFlight] = {}
        self._waiters: dict[int, asyncio.Future[wire.Message]] = {}
        self._handshake: asyncio.Queue[wire.Message] | None = None
        self._wake = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None
        self._pings: dict[int, float] = {}
        self._recent: OrderedDict[int, None] = OrderedDict()
        self._last_counter_seq = -1
        self._opens = 0
        self._auth_failures = 0
        self._claim_window_seen = False
        self._tasks: list[asyncio.Task[None]] = []
        self._spawned: set[asyncio.Task[None]] = set()
        self.reconnector = Reconnector(link, on_open=self._session, backoff=backoff)
        link.on_message(self._on_message)
        link.on_state_change(self._on_link_state)

    # -- life cycle -----------------------------------------------------------------

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.reconnector.start()
        self._tasks = [
            loop.create_task(self._push_loop(), name=f"push {self.key}"),
            loop.create_task(self._ping_loop(), name=f"ping {self.key}"),
            loop.create_task(self._refresh_loop(), name=f"refresh {self.key}"),
        ]

    async def stop(self) -> None:
        await cancel_and_wait(*self._tasks, *self._spawned)
        self._tasks = []
        if self._timer is not None:
            self._timer.cancel()
        await self.reconnector.stop()
        self._update(connection="stopped")

    async def wait_ready(self) -> None:
        """Return once the counter is connected and authenticated (use with a timeout)."""
        while not (self.authenticated and self.link.is_open):
            await self.manager._changed.wait()

    async def wait_synced(self) -> None:
        """Return once the counter acknowledged everything it should show (use with a timeout)."""
        while not self.synced:
            await self.manager._changed.wait()

    @property
    def synced(self) -> bool:
        """True when the counter is ours, connected, and acknowledged all it should show."""
        if not (self.authenticated and self.link.is_open):
            return False
        return all(self._acked.get(key) == want.ident for key, want in self._desired.items())

    # -- what the counter should show -----------------------------------------------

    def set_desired(
        self, key: str, message: wire.Message, ident: tuple[Any, ...] | None = None
    ) -> None:
        ident = ident if ident is not None else _ident(message)
        current = self._desired.get(key)
        if current is not None and current.ident == ident:
            return
        self._desired[key] = _Desired(message, ident)
        self._wake.set()

    def refresh(self) -> None:
        """Send the latest state again even if the counter acknowledged it (after a refusal)."""
        self._acked.pop("snapshot", None)
        self._wake.set()

    def resync(self) -> None:
        """Send everything the counter should show again, acknowledged or not."""
        self._acked.clear()
        self._wake.set()

    # -- session ----------------------------------------------------------------------

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    async def _send(self, message: wire.Message) -> int:
        message.seq = self._next_seq()
        await self.link.send(wire.encode(message))
        return message.seq

    async def _expect(
        self, types: tuple[type[wire.Message], ...], timeout_s: float
    ) -> wire.Message:
        assert self._handshake is not None
        try:
            async with asyncio.timeout(timeout_s):
                while True:
                    message = await self._handshake.get()
                    if isinstance(message, types):
                        return message
        except TimeoutError as exc:
            raise LinkError(f"{self.link.name}: no answer within {timeout_s:g} s") from exc

    async def _request(self, message: wire.Message, timeout_s: float) -> wire.Message:
        """Send and wait for the ACK or ERROR that refers to it."""
        future: asyncio.Future[wire.Message] = asyncio.get_running_loop().create_future()
        seq = self._next_seq()
        message.seq = seq
        self._waiters[seq] = future
        try:
            await self.link.send(wire.encode(message))
            async with asyncio.timeout(timeout_s):
                return await future
        except TimeoutError as exc:
            raise LinkError(f"{self.link.name}: no answer within {timeout_s:g} s") from exc
        finally:
            self._waiters.pop(seq, None)

    async def _session(self, link: Link) -> None:
        """A fresh session after every (re)connect: HELLO, then AUTH or wait for a claim."""
        self.authenticated = False
        self._seq = 0
        self._acked.clear()
        self._in_flight.clear()
        self._pings.clear()
        self._handshake = asyncio.Queue()
        self._claim_window_seen = False
        manager = self.manager
        try:
            await self._send(wire.Hello(role=wire.ROLE_APP))
            hello = await self._expect((wire.Hello,), manager.hello_timeout_s)
            assert isinstance(hello, wire.Hello)
            if hello.major != wire.PROTOCOL_MAJOR:
                self._update(access="version", last_problem="the counter needs a firmware update")
                return
            if hello.seq <= self._last_counter_seq:
                self._recent.clear()  # the counter restarted: its press numbers start again
            self._last_counter_seq = hello.seq
            self.hello = hello
            role = {wire.ROLE_BOARD: "board", wire.ROLE_TRACKER: "tracker"}.get(hello.role)
            self._update(
                role=role,
                firmware=".".join(str(part) for part in hello.firmware),
                counter_id=hello.counter_id,
            )
            if hello.caps & wire.CAP_CLAIMED:
                challenge = await self._expect((wire.Challenge,), manager.hello_timeout_s)
                assert isinstance(challenge, wire.Challenge)
                token = manager.tokens.get(hello.counter_id)
                if token is None:
                    await self._held_elsewhere("claimed by another table")
                    return
                mac = wire.auth_mac(token, challenge.nonce, hello.counter_id)
                answer = await self._request(wire.Auth(mac), manager.auth_timeout_s)
                if isinstance(answer, wire.Error):
                    if answer.code != wire.ERR_AUTH_FAILED:
                        raise LinkError(f"{self.link.name}: authentication refused ({answer.code})")
                    self._auth_failures += 1
                    if self._auth_failures < AUTH_ATTEMPTS:
                        # A damaged challenge or answer fails like a wrong token; only a
                        # refusal that repeats means someone else holds the counter now.
                        raise LinkError(f"{self.link.name}: authentication failed")
                    await self._held_elsewhere("claimed by another table since this app claimed it")
                    return
                self._auth_failures = 0
                self._authenticated()
            else:
                self._update(access="unclaimed", last_problem="long-press the counter to add it")
                if self._claim_window_seen or manager.claiming:
                    # Its claim window may be open already (pressed before we connected).
                    self._update(access="claiming")
                    self._spawn(self._claim(quiet=not self._claim_window_seen))
                elif self.virtual is not None and manager.claim_virtual:
                    self.virtual.open_claim_window()
        finally:
            self._handshake = None

    def _authenticated(self) -> None:
        self.authenticated = True
        self._acked.clear()
        desired_show = self._desired.get("show")
        if desired_show is not None and isinstance(desired_show.message, wire.ShowRoll):
            # A roll is a moment, not a state: a counter that was away does not replay it.
            self._desired["show"] = _Desired(wire.ShowClear(), _ident(wire.ShowClear()))
        self.manager._assign_default(self)
        self._update(access="ours", last_problem="")
        self._wake.set()

    async def _held_elsewhere(self, problem: str) -> None:
        """The counter belongs to another table: claim it only while the user allows it here."""
        self._update(access="claimed_elsewhere", last_problem=problem)
        if self.manager.claiming:
            # The user asked to move counters here; the counter still needs its long press.
            self._update(access="claiming")
            await self._claim(quiet=True)
            if self.authenticated:
                return
            self._update(
                access="claimed_elsewhere",
                last_problem=f"{problem}: long-press it now to move it to this table",
            )
            return
        if self.link.transport == "ble":
            # A BLE counter serves one app at a time: leave it free for its own table
            # and look again later (the reconnect backoff grows to MAX_BACKOFF_S).
            raise LinkError(f"{self.link.name}: {problem}")

    async def _claim(self, *, quiet: bool = False) -> None:
        hello = self.hello
        if hello is None:
            return
        token = wire.new_token()
        try:
            answer = await self._request(wire.Claim(token), self.manager.auth_timeout_s)
        except LinkError as exc:
            self._update(last_problem=f"claim failed: {exc}")
            return
        if isinstance(answer, wire.Error):
            if self.status.access == "claiming":
                self._update(
                    access="unclaimed" if not hello.caps & wire.CAP_CLAIMED else "claimed_elsewhere"
                )
            if not quiet:
                self._update(last_problem="the claim window closed; long-press the counter again")
            return
        self.manager.tokens.put(hello.counter_id, token)
        self._auth_failures = 0
        self._authenticated()

    # -- incoming ---------------------------------------------------------------------

    def _on_message(self, payload: bytes) -> None:
        try:
            message = wire.decode(payload)
        except wire.WireError:
            self._update(errors=self.status.errors + 1)
            return
        if isinstance(message, wire.Ack | wire.Error):
            ref = message.ref_seq
            waiter = self._waiters.pop(ref, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)
                return
        if isinstance(message, wire.Ack):
            flight = self._in_flight.pop(message.ref_seq, None)
            if flight is not None:
                self._acked[flight.key] = flight.ident
                if self.synced:
                    self.manager._notify_changed()
            return
        if isinstance(message, wire.Error):
            self._on_error(message)
            return
        if isinstance(message, wire.Pong):
            sent = self._pings.pop(message.token, None)
            if sent is not None:
                self._pings.clear()  # any answer proves the counter alive; older pings were lost
                self._update(rtt_ms=(time.monotonic() - sent) * 1000)
            return
        if isinstance(message, wire.Battery):
            self._update(
                battery_percent=message.percent,
                battery_mv=message.millivolts,
                charging=bool(message.flags & wire.BATTERY_CHARGING),
            )
            return
        if isinstance(message, wire.Button):
            self._on_button(message)
            return
        if isinstance(message, wire.ClaimOpen):
            self._on_claim_open()
            return
        if self._handshake is not None:
            self._handshake.put_nowait(message)

    def _on_error(self, message: wire.Error) -> None:
        self._update(errors=self.status.errors + 1)
        if self.authenticated and message.code in (wire.ERR_NOT_AUTHENTICATED, wire.ERR_REPLAY):
            # The counter and the app disagree about the session (a reset, or a damaged
            # sequence number): start a fresh one rather than talk past each other.
            self.authenticated = False
            self._spawn(self.link.drop(f"session out of step (error {message.code})"))

    def _on_claim_open(self) -> None:
        access = self.status.access
        if self._handshake is not None:
            self._claim_window_seen = True  # act on it once the HELLO says who it is
            return
        if access == "unclaimed" or (access == "claimed_elsewhere" and self.manager.claiming):
            self._update(access="claiming")
            self._spawn(self._claim())
        elif access == "claimed_elsewhere":
            self._update(
                last_problem="claimed by another table: allow claiming in the app, then long-press"
            )

    def _on_button(self, message: wire.Button) -> None:
        if not self.authenticated:
            return
        if message.seq in self._recent:
            self._spawn(self._ack(message))  # the counter resent a press the app already took
            return
        self._recent[message.seq] = None
        while len(self._recent) > RECENT_PRESSES:
            self._recent.popitem(last=False)
        self.manager._apply_press(self, message)
        self._spawn(self._ack(message))

    async def _ack(self, message: wire.Message) -> None:
        with contextlib.suppress(LinkError):
            await self._send(wire.Ack(message.seq, message.TYPE))

    def _on_link_state(self, state: LinkState) -> None:
        if state is LinkState.OPEN:
            self._opens += 1
            self._update(connection="connected", reconnects=self._opens - 1)
        elif state is LinkState.LOST:
            self.authenticated = False
            self._update(connection="reconnecting")
        elif state is LinkState.CLOSED and self.status.connection != "stopped":
            self.authenticated = False
            if self.reconnector.running:
                self._update(connection="reconnecting")
        for waiter in self._waiters.values():
            if not waiter.done():
                waiter.set_exception(LinkClosedError(f"{self.link.name} went away"))
        self._waiters.clear()

    # -- outgoing ---------------------------------------------------------------------

    async def _push_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not (self.authenticated and self.link.is_open):
                continue
            if self._seq >= SEQ_RESTART:
                await self.link.drop("sequence numbers used up: a fresh session")
                continue
            now = loop.time()
            waiting = {f.key: f for f in self._in_flight.values()}
            try:
                for key, want in list(self._desired.items()):
                    if self._acked.get(key) == want.ident:
                        continue
                    flight = waiting.get(key)
                    if (
                        flight is not None
                        and flight.ident == want.ident
                        and now - flight.sent_at < self.manager.ack_timeout_s
                    ):
                        continue
                    for seq in [s for s, f in self._in_flight.items() if f.key == key]:
                        del self._in_flight[seq]
                    seq = await self._send(want.message)
                    self._in_flight[seq] = _InFlight(key, want.ident, now)
            except LinkError:
                continue  # lost mid-send: the resync after the reconnect covers it
            if self._in_flight:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = loop.call_later(self.manager.ack_timeout_s, self._wake.set)

    async def _refresh_loop(self) -> None:
        while True:
            await asyncio.sleep(self.manager.refresh_interval_s)
            self.resync()

    async def _ping_loop(self) -> None:
        while True:
            await asyncio.sleep(self.manager.ping_interval_s)
            if not self.link.is_open or self._handshake is not None:
                continue
            if len(self._pings) >= PINGS_MISSED_MAX:
                self._pings.clear()
                await self.link.drop("the counter stopped answering")
                continue
            token = secrets.randbits(32)
            self._pings[token] = time.monotonic()
            with contextlib.suppress(LinkError):
                await self._send(wire.Ping(token))

    async def identify(self, seconds: int = 5) -> None:
        """Blink the counter so the table can tell which one it is."""
        if self.authenticated and self.link.is_open:
            with contextlib.suppress(LinkError):
                await self._send(wire.ShowIdentify(max(0, min(255, seconds))))

    # -- helpers ----------------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    def _update(self, **changes: Any) -> None:
        self.status = replace(self.status, **changes)
        self.manager._status_changed(self)


StatusListener = Callable[[CounterStatus], None]
FrameCallback = Callable[[str, LedFrame], None]


class DeviceManager:
    """All counters of this table: connections, player assignment, claims, virtual counters.

    Typical use by the app::

        manager = DeviceManager()
        await manager.start(game, virtual_when_empty=True)
        ...  # manager.statuses(), manager.on_status(cb), manager.frames()
        await manager.stop()
    """

    def __init__(
        self,
        *,
        tokens: TokenStore | None = None,
        backend: BleBackend | None = None,
        virtual: VirtualSetup | None = None,
        backoff: Callable[[], Backoff] | None = None,
        hello_timeout_s: float = HELLO_TIMEOUT_S,
        auth_timeout_s: float = AUTH_TIMEOUT_S,
        ack_timeout_s: float = ACK_TIMEOUT_S,
        ping_interval_s: float = PING_INTERVAL_S,
        refresh_interval_s: float = REFRESH_INTERVAL_S,
        claim_virtual: bool = True,
    ) -> None:
        self._tokens = tokens
        self.backend = backend
        self.virtual_setup = virtual or VirtualSetup()
        self._backoff = backoff
        self.hello_timeout_s = hello_timeout_s
        self.auth_timeout_s = auth_timeout_s
        self.ack_timeout_s = ack_timeout_s
        self.ping_interval_s = ping_interval_s
        self.refresh_interval_s = refresh_interval_s
        self.claim_virtual = claim_virtual
        #: While True, a counter claimed by another table may be claimed by a long press.
        self.claiming = False
        self.game: Game | None = None
        self.connections: dict[str, CounterConnection] = {}
        self.virtual_counters: list[VirtualCounter] = []
        self.presses: list[PressRecord] = []
        self.assignments: dict[str, tuple[int, ...]] = {}
        self._unsubscribe: Callable[[], None] | None = None
        self._status_listeners: dict[object, StatusListener] = {}
        self._frame_listeners: dict[object, FrameCallback] = {}
        self._changed = _Pulse()
        self._radio: Any = None
        self._pty_dir: Path | None = None
        self._claiming_timer: asyncio.TimerHandle | None = None
        self._roll_count = 0
        self._last_state: GameState | None = None

    @property
    def tokens(self) -> TokenStore:
        """The claim tokens (in the user's data folder unless another store was given)."""
        if self._tokens is None:
            self._tokens = TokenStore()
        return self._tokens

    # -- the one call the app makes -----------------------------------------------------

    async def start(
        self,
        game: Game,
        *,
        virtual_when_empty: bool = True,
        discover_hardware: bool = True,
        serial_ports: Sequence[str] | None = None,
        use_ble: bool = True,
    ) -> None:
        """Follow `game`, connect every counter that answers, or start virtual ones if none does.

        Returns once the counters are found and their connections started (not
        yet synced). Never raises for missing hardware or Bluetooth.
        """
        self.set_game(game)
        found: list[CounterInfo] = []
        if discover_hardware:
            try:
                found = await discover(
                    backend=self.backend, serial_ports=serial_ports, use_ble=use_ble
                )
            except Exception as exc:  # a broken Bluetooth stack must not stop the app
                _LOGGER.warning("looking for counters failed: %s", exc)
        for info in found:
            self.add_counter(info)
        if not found and virtual_when_empty:
            await self.start_virtual()

    async def stop(self) -> None:
        """Close every connection and switch the virtual counters off."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        connections = list(self.connections.values())
        self.connections.clear()
        for connection in connections:
            await connection.stop()
        for counter in self.virtual_counters:
            await counter.stop()
        self.virtual_counters.clear()
        if self._radio is not None:
            await self._radio.close()
            self._radio = None
        if self._pty_dir is not None:
            shutil.rmtree(self._pty_dir, ignore_errors=True)
            self._pty_dir = None

    def set_game(self, game: Game) -> None:
        """Follow another game (a new or loaded one); every counter is brought to it."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.game = game
        self._last_state = None
        self._unsubscribe = game.subscribe(self._on_state)
        for connection in self.connections.values():
            self._assign_default(connection)
        self._on_state(game.state)

    # -- counters ---------------------------------------------------------------------

    def add_counter(self, info: CounterInfo) -> CounterConnection:
        """Connect to a counter found by discovery."""
        link: Link
        if info.transport == "ble":
            device = info.device
            if device is None:
                raise ValueError(f"{info.name}: a BLE counter needs the device found by the scan")
            link = BleLink(device, backend=self.backend)
        else:
            link = SerialLink(info.address)
        return self.add_link(link)

    def add_link(self, link: Link, *, virtual: VirtualCounter | None = None) -> CounterConnection:
        """Connect to a counter over `link` (kept open and resynced until `stop()`)."""
        key = f"{link.transport}:{link.address}"
        if key in self.connections:
            return self.connections[key]
        backoff = self._backoff() if self._backoff is not None else None
        connection = CounterConnection(self, link, key=key, virtual=virtual, backoff=backoff)
        self.connections[key] = connection
        if virtual is not None:
            virtual.on_frame(lambda frame, key=key: self._frame(key, frame))
        if self.game is not None:
            self._desire(connection, self.game.state)
        connection.start()
        self._status_changed(connection)
        return connection

    async def start_virtual(self, setup: VirtualSetup | None = None) -> list[VirtualCounter]:
        """Start virtual counters (default: `self.virtual_setup`) and connect to them."""
        setup = setup or self.virtual_setup
        players = len(self.game.state.players) if self.game is not None else 4
        trackers = setup.trackers if setup.trackers is not None else players
        trackers = min(trackers, MAX_VIRTUAL_TRACKERS)
        plan = [("board", setup.board_transport, i) for i in range(setup.boards)]
        plan += [("tracker", setup.tracker_transport, i) for i in range(trackers)]
        started = []
        for role, transport, index in plan:
            counter = await self._new_virtual(role, transport, index, setup.animate)
            started.append(counter)
        for counter in started:
            link: Link
            if isinstance(counter, BleVirtualCounter):
                link = await BleLink.find(counter.address, backend=self._radio.bleak_backend())
            else:
                link = SerialLink(counter.address)
            self.add_link(link, virtual=counter)
        return started

    async def _new_virtual(
        self, role: str, transport: str, index: int, animate: bool
    ) -> VirtualCounter:
        counter: VirtualCounter
        if transport == "ble":
            if self._radio is None:
                from companion.devices.bumble_backend import VirtualRadio

                self._radio = VirtualRadio()
            counter = BleVirtualCounter(role, radio=self._radio, index=index, animate=animate)
        elif transport == "serial":
            if self._pty_dir is None:
                self._pty_dir = Path(tempfile.mkdtemp(prefix="companion-counters-"))
                # Removed by stop(); and at the latest when the program ends, should a
                # stop be cut short (the app gives it a few seconds on exit).
                weakref.finalize(self, shutil.rmtree, self._pty_dir, ignore_errors=True)
            name = f"{role}-{index}"
            counter = SerialVirtualCounter(
                role, link_path=self._pty_dir / name, index=index, animate=animate
            )
        else:
            raise ValueError(f"a virtual counter runs on serial or ble, not {transport!r}")
        await counter.start()
        self.virtual_counters.append(counter)
        return counter

    # -- for the UI -------------------------------------------------------------------

    def statuses(self) -> list[CounterStatus]:
        """The status of every counter, in the order they were added."""
        return [connection.status for connection in self.connections.values()]

    def on_status(self, listener: StatusListener) -> Callable[[], None]:
        """Call `listener(status)` whenever a counter's status changes; returns an unregister."""
        key = object()
        self._status_listeners[key] = listener
        return lambda: self._status_listeners.pop(key, None) and None

    def frames(self) -> dict[str, LedFrame]:
        """The latest LED frame of every virtual counter, by counter key."""
        return {
            key: connection.virtual.frame
            for key, connection in self.connections.items()
            if connection.virtual is not None
        }

    def on_frame(self, listener: FrameCallback) -> Callable[[], None]:
        """Call `listener(key, frame)` on every new frame of a virtual counter."""
        key = object()
        self._frame_listeners[key] = listener
        return lambda: self._frame_listeners.pop(key, None) and None

    def assign(self, key: str, players: int | Sequence[int]) -> None:
        """Show these players (seats) on a counter: one for a tracker, several for a board."""
        connection = self.connections[key]
        seats = (players,) if isinstance(players, int) else tuple(players)
        count = len(self.game.state.players) if self.game is not None else wire.MAX_SLOTS
        for seat in seats:
            if not 0 <= seat < min(count, wire.MAX_SLOTS):
                raise ValueError(f"there is no player {seat + 1} at this table")
        if connection.status.role == "tracker" and len(seats) != 1:
            raise ValueError("a tracker shows exactly one player")
        self.assignments[key] = seats
        connection._update(players=seats)
        if self.game is not None:
            self._desire(connection, self.game.state)

    async def identify(self, key: str, seconds: int = 5) -> None:
        """Blink one counter, to match it with a player."""
        await self.connections[key].identify(seconds)

    def open_claiming(self, seconds: float = wire.CLAIM_WINDOW_S) -> None:
        """For `seconds`, a long press may move a counter from another table to this one."""
        self.claiming = True
        if self._claiming_timer is not None:
            self._claiming_timer.cancel()
        self._claiming_timer = asyncio.get_running_loop().call_later(seconds, self._close_claiming)
        for connection in self.connections.values():
            if (
                connection.status.access == "claimed_elsewhere"
                and connection.link.transport == "ble"
            ):
                # Left free for its table: a fresh session now, not when the backoff says,
                # and that session may claim it.
                connection._spawn(self._reconnect_now(connection))
            elif connection.status.access in ("claimed_elsewhere", "unclaimed"):
                connection._spawn(connection._claim(quiet=True))

    def _close_claiming(self) -> None:
        self.claiming = False

    async def _reconnect_now(self, connection: CounterConnection) -> None:
        reconnector = connection.reconnector
        await reconnector.stop()
        reconnector.backoff.reset()
        reconnector.start()

    async def wait_for(self, condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
        """Wait until `condition()` holds; it is checked on every status change and ACK."""
        async with asyncio.timeout(timeout_s):
            while not condition():
                await self._changed.wait()

    async def wait_ready(self, timeout_s: float = 5.0) -> None:
        """Wait until every counter is connected and ours (or plainly not ours), and synced."""
        settled = ("ours", "unclaimed", "claimed_elsewhere", "version")

        def ready_one(c: CounterConnection) -> bool:
            if c.virtual is not None and self.claim_virtual:
                return c.status.access == "ours" and c.synced  # claimed by the app itself
            return c.status.access in settled and (c.status.access != "ours" or c.synced)

        def ready() -> bool:
            return all(ready_one(c) for c in self.connections.values())

        await self.wait_for(ready, timeout_s)

    def resync(self) -> None:
        """Send every counter everything it should show again (the periodic refresh, now)."""
        for connection in self.connections.values():
            connection.resync()

    async def wait_synced(self, timeout_s: float = 5.0) -> None:
        """Wait until every counter that is ours acknowledged the current state."""
        async with asyncio.timeout(timeout_s):
            while not all(c.synced for c in self.connections.values() if c.status.access == "ours"):
                await self._changed.wait()

    # -- game -> counters -------------------------------------------------------------

    def _on_state(self, state: GameState) -> None:
        previous, self._last_state = self._last_state, state
        if (
            previous is not None
            and state.last_roll is not None
            and state.last_roll is not previous.last_roll
            and state.revision > previous.revision
        ):
            self._roll_count += 1
        for connection in self.connections.values():
            self._desire(connection, state)

    def _show_of(self, state: GameState) -> tuple[wire.Message, tuple[Any, ...]]:
        if state.winners:
            show: wire.Message = wire.ShowWin(min(state.winners[0], wire.MAX_SLOTS - 1))
        elif state.combat is not None:
            combat = state.combat
            helper = combat.helper if combat.helper is not None else wire.NO_SLOT
            show = wire.ShowCombat(
                min(combat.fighter, wire.MAX_SLOTS - 1),
                _i16(combat.players_strength),
                _i16(combat.monsters_strength),
                combat.fighters_winning,
                helper if helper < wire.MAX_SLOTS else wire.NO_SLOT,
            )
        elif self._roll_count and state.last_roll is not None:
            roll = state.last_roll
            slot = roll.player if roll.player is not None and roll.player < 8 else wire.NO_SLOT
            show = wire.ShowRoll(slot, max(1, min(6, roll.value)))
            return show, (*_ident(show), self._roll_count)
        else:
            show = wire.ShowClear()
        return show, _ident(show)

    def _desire(self, connection: CounterConnection, state: GameState) -> None:
        if self.game is None:
            return
        connection.set_desired("snapshot", snapshot_of(state, self.game.sequence))
        colours = [_rgb(p.colour) for p in state.players[: wire.MAX_SLOTS]]
        for first in range(0, len(colours), 5):
            connection.set_desired(
                f"colours{first}", wire.ConfigColours(first, tuple(colours[first : first + 5]))
            )
        connection.set_desired("win", wire.ConfigWinLevel(min(255, state.winning_level)))
        seats = self.assignments.get(connection.key)
        if seats:
            connection.set_desired("slots", wire.ConfigSlotMap(seats))
        show, ident = self._show_of(state)
        current = connection._desired.get("show")
        if (
            isinstance(show, wire.ShowClear)
            and current is not None
            and isinstance(current.message, wire.ShowRoll)
        ):
            return  # a roll ends by itself on the counter; no CLEAR cuts it short
        connection.set_desired("show", show, ident)

    def _assign_default(self, connection: CounterConnection) -> None:
        if self.game is None or connection.key in self.assignments:
            if self.game is not None:
                self._desire(connection, self.game.state)
            return
        players = min(len(self.game.state.players), wire.MAX_SLOTS)
        hello = connection.hello
        if hello is not None and hello.role == wire.ROLE_TRACKER:
            taken = {
                seats[0]
                for key, seats in self.assignments.items()
                if key in self.connections and self.connections[key].status.role == "tracker"
            }
            free = [seat for seat in range(players) if seat not in taken]
            seats: tuple[int, ...] = (free[0] if free else 0,)
        else:
            positions = hello.slots if hello is not None and hello.slots else wire.MAX_SLOTS
            seats = tuple(range(min(players, positions)))
        self.assignments[connection.key] = seats
        connection._update(players=seats)
        self._desire(connection, self.game.state)

    # -- counters -> game -------------------------------------------------------------

    def _apply_press(self, connection: CounterConnection, message: wire.Button) -> None:
        game = self.game
        seats = self.assignments.get(connection.key, ())
        record = PressRecord(
            counter=connection.key, seq=message.seq, intent=message.intent, action=""
        )
        if game is None:
            record.refused = "no game is running"
            self.presses.append(record)
            return
        player = (
            message.slot
            if message.slot != wire.NO_SLOT
            else (seats[0] if len(seats) == 1 else None)
        )
        try:
            if message.intent == wire.INTENT_NEXT_TURN:
                action: Any = EndTurn()
            elif player is None or player >= len(game.state.players):
                raise ValueError("this counter shows no player to change")
            elif message.intent == wire.INTENT_LEVEL_UP:
                action = GoUpLevel(player=player)
            elif message.intent == wire.INTENT_LEVEL_DOWN:
                if game.state.players[player].level <= 1:
                    # The engine would log a loss that changes nothing; a press asks for a change.
                    raise ValueError("A Level is never below 1")
                action = LoseLevel(player=player)
            else:
                raise ValueError(f"unknown button intent {message.intent}")
            record.action = action.type
            game.apply(action)
        except (
            ValueError
        ) as err:  # RuleError and bad requests: refused, the counter shows the truth
            record.refused = str(err)
            connection._update(last_problem=f"press refused: {err}")
            connection.refresh()
        self.presses.append(record)

    # -- notifications ----------------------------------------------------------------

    def _status_changed(self, connection: CounterConnection) -> None:
        for listener in list(self._status_listeners.values()):
            try:
                listener(connection.status)
            except Exception:
                _LOGGER.exception("status listener failed")
        self._notify_changed()

    def _notify_changed(self) -> None:
        self._changed.fire()

    def _frame(self, key: str, frame: LedFrame) -> None:
        for listener in list(self._frame_listeners.values()):
            try:
                listener(key, frame)
            except Exception:
                _LOGGER.exception("frame listener failed")


class _Pulse:
    """Wakes everyone waiting at the moment it fires (an Event that resets itself)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self) -> None:
        await self._event.wait()
