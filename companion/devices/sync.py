"""The sync manager: every counter of the table follows the game, and its presses become actions.

`DeviceManager` follows one `Game`, holds one `CounterConnection` per counter,
maps players to counters, and tells each connection what its counter should
show (`projection.table_picture`, worked out once per game state); the
connections deliver it. A button press is applied through the rules engine
(`presses.action_for_press`) and its ACK waits until the action is durable
(`persist`, see docs/devices.md). Any counter reached over any `Link` is
handed over with `add_link`: a virtual one (`companion.devices.sim`) like the rest.

Everything runs on the app's one asyncio loop; nothing here blocks or starts a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from companion.core import Game, GameState, RuleError
from companion.devices import wire
from companion.devices.ble_link import BleBackend
from companion.devices.connection import (
    ACK_TIMEOUT_S,
    PING_INTERVAL_S,
    REFRESH_INTERVAL_S,
    CounterConnection,
    Timing,
)
from companion.devices.discovery import CounterInfo, discover
from companion.devices.link import Link
from companion.devices.links import link_to
from companion.devices.presses import button_press
from companion.devices.projection import (
    ROLL_SHOW_S,
    Part,
    TablePicture,
    default_seats,
    table_picture,
)
from companion.devices.reconnect import Backoff
from companion.devices.session import AUTH_TIMEOUT_S, HELLO_TIMEOUT_S
from companion.devices.status import Access, CounterStatus, Role, counter_key
from companion.devices.tokens import TokenStore
from companion.plumbing.listeners import Listeners
from companion.plumbing.tasks import guarded
from companion.table.outcome import BAD_INPUT_RULE, refused
from companion.table.presses import Persist, PressLog, PressRecord, take_press

_LOGGER = logging.getLogger(__name__)

StatusListener = Callable[[CounterStatus], None]


def table_of(state: GameState) -> tuple[str, ...]:
    """Who plays at a game's table, seat by seat: another table seats its counters again."""
    return tuple(player.name for player in state.players)


class DeviceManager:
    """All counters of this table: connections, player assignment, claims.

    Typical use by the app::

        manager = DeviceManager(persist=lambda seq: store.wait_durable(game_id, seq))
        found = await manager.start(game)
        ...  # manager.statuses(), manager.on_status(cb), manager.add_link(link)
        await manager.stop()

    `persist(sequence)`, if given, is awaited after a counter's press was applied
    and before the press is acknowledged: it returns once the game up to action
    `sequence` is saved. Without it a press is acknowledged as soon as it is applied.
    """

    def __init__(
        self,
        *,
        tokens: TokenStore | None = None,
        backend: BleBackend | None = None,
        backoff: Callable[[], Backoff] | None = None,
        hello_timeout_s: float = HELLO_TIMEOUT_S,
        auth_timeout_s: float = AUTH_TIMEOUT_S,
        ack_timeout_s: float = ACK_TIMEOUT_S,
        ping_interval_s: float = PING_INTERVAL_S,
        refresh_interval_s: float = REFRESH_INTERVAL_S,
        roll_show_s: float = ROLL_SHOW_S,
        persist: Persist | None = None,
    ) -> None:
        self._tokens = tokens
        self.backend = backend
        self._backoff = backoff
        self.timing = Timing(
            hello_timeout_s=hello_timeout_s,
            auth_timeout_s=auth_timeout_s,
            ack_timeout_s=ack_timeout_s,
            ping_interval_s=ping_interval_s,
            refresh_interval_s=refresh_interval_s,
            roll_show_s=roll_show_s,
        )
        self.persist = persist
        #: While True, a counter claimed by another table may be claimed by a long press.
        self.claiming = False
        self.game: Game | None = None
        self.connections: dict[str, CounterConnection] = {}
        # The presses answered, newest last (bounded: an evening never fills it).
        self.presses = PressLog()
        self.assignments: dict[str, tuple[int, ...]] = {}
        #: The counters whose players the user chose (`assign`); the others show defaults.
        self.chosen: set[str] = set()
        self._table: tuple[str, ...] | None = None  # the players of the game followed
        self._unsubscribe: Callable[[], None] | None = None
        self._status_listeners: Listeners[[CounterStatus]] = Listeners()
        self._changed = asyncio.Event()
        self._claiming_timer: asyncio.TimerHandle | None = None
        self._roll_count = 0  # rolls seen while following games: tells two rolls apart
        self._rolls_before = 0  # ... of which seen before the game followed now
        self._last_state: GameState | None = None
        self._picture: TablePicture | None = None  # of the game's latest state

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
        discover_hardware: bool = True,
        serial_ports: Sequence[str] | None = None,
        use_ble: bool = True,
    ) -> list[CounterInfo]:
        """Follow `game` and connect every counter that answers; returns those found.

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
        return found

    async def stop(self) -> None:
        """Close every connection."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        connections = list(self.connections.values())
        self.connections.clear()
        for connection in connections:
            await connection.stop()

    def set_game(self, game: Game) -> None:
        """Follow another game (a new or loaded one); every counter is brought to it.

        A game at another table (other players, or another count of them) seats the
        counters again (`_seat_again`); the same table (the same game followed again, a
        saved one resumed, a new game of the same players) keeps every counter's players.
        """
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.game = game
        self._last_state = None
        # A roll made before the game was followed here (a saved game's) is over.
        self._rolls_before = self._roll_count
        self._picture = None  # the last game's: worked out again below
        self._unsubscribe = game.subscribe(self._on_state)
        table = table_of(game.state)
        if table != self._table:
            self._table = table
            self._seat_again(len(table))
        for connection in self.connections.values():
            self._assign_default(connection)
        self._on_state(game.state)

    def _seat_again(self, players: int) -> None:
        """A new table of `players`: the players a counter shows by default are chosen
        afresh (a board shows the whole table again, trackers take seats 0.. again, in
        the order the counters were added); what the user chose stays while every seat
        it names is still at the table."""
        seats = min(players, wire.MAX_SLOTS)
        for key, shown in list(self.assignments.items()):
            if key not in self.chosen or any(seat >= seats for seat in shown):
                self.unassign(key)

    # -- counters ---------------------------------------------------------------------

    def add_counter(self, info: CounterInfo) -> CounterConnection:
        """Connect to a counter found by discovery."""
        try:
            link = link_to(info.transport, info.address, device=info.device, backend=self.backend)
        except ValueError as exc:
            raise ValueError(f"{info.name}: {exc}") from exc
        return self.add_link(link)

    def add_link(self, link: Link) -> CounterConnection:
        """Connect to a counter over `link` (kept open and resynced until `stop()`)."""
        key = counter_key(link.transport, link.address)
        if key in self.connections:
            return self.connections[key]
        backoff = self._backoff() if self._backoff is not None else None
        connection = CounterConnection(self, link, key=key, backoff=backoff)
        self.connections[key] = connection
        self._desire(connection)
        connection.start()
        self.status_changed(connection)
        return connection

    async def remove(self, key: str) -> None:
        """Disconnect one counter and forget it (a virtual one about to be switched off)."""
        connection = self.connections.pop(key, None)
        self.unassign(key)
        if connection is not None:
            await connection.stop()
        self._changed.set()

    # -- for the UI -------------------------------------------------------------------

    def statuses(self) -> list[CounterStatus]:
        """The status of every counter, in the order they were added."""
        return [connection.status for connection in self.connections.values()]

    def on_status(self, listener: StatusListener) -> Callable[[], None]:
        """Call `listener(status)` whenever a counter's status changes; returns an unregister."""
        return self._status_listeners.add(guarded(listener, "status listener"))

    def assign(self, key: str, players: int | Sequence[int]) -> None:
        """Show these players (seats) on a counter: one for a tracker, several for a board."""
        connection = self.connections[key]
        seats = (players,) if isinstance(players, int) else tuple(players)
        count = len(self.game.state.players) if self.game is not None else wire.MAX_SLOTS
        for seat in seats:
            if not 0 <= seat < min(count, wire.MAX_SLOTS):
                raise ValueError(f"there is no player {seat + 1} at this table")
        if connection.status.role is Role.TRACKER and len(seats) != 1:
            raise ValueError("a tracker shows exactly one player")
        self.assignments[key] = seats
        self.chosen.add(key)
        connection.show_players(seats)
        self._desire(connection)

    def unassign(self, key: str) -> None:
        """Forget whose players a counter shows: it is given the default ones when it is
        next ready (or at once by `set_game`)."""
        self.assignments.pop(key, None)
        self.chosen.discard(key)
        connection = self.connections.get(key)
        if connection is not None:
            connection.show_players(())

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
            access = connection.status.access
            if access is Access.CLAIMED_ELSEWHERE and connection.link.transport == "ble":
                # Left free for its table: a fresh session now, not when the backoff says,
                # and that session may claim it.
                connection.reconnect_now()
            elif access in (Access.CLAIMED_ELSEWHERE, Access.UNCLAIMED):
                connection.start_claim(quiet=True)

    def _close_claiming(self) -> None:
        self.claiming = False

    async def wait_for(self, condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
        """Wait until `condition()` holds; it is checked on every status change and ACK."""
        async with asyncio.timeout(timeout_s):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    def acks_due_by(self, deadline: float) -> bool:
        """True while a counter that is ours owes an acknowledgement its recent round
        trips say should be back by `deadline` (loop time)."""
        for connection in self.connections.values():
            if connection.status.ours:
                due = connection.ack_expected_at()
                if due is not None and due <= deadline:
                    return True
        return False

    async def wait_acks_due(self, budget_s: float) -> bool:
        """Wait, at most `budget_s`, while acknowledgements due within it are still out;
        False at once when none is (nothing was waited for)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget_s
        if not self.acks_due_by(deadline):
            return False
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(deadline):
                while self.acks_due_by(deadline):
                    self._changed.clear()
                    await self._changed.wait()
        return True

    async def wait_ready(self, timeout_s: float = 5.0) -> None:
        """Wait until every counter is connected and ours (or plainly not ours), and synced."""
        settled = (Access.OURS, Access.UNCLAIMED, Access.CLAIMED_ELSEWHERE, Access.VERSION)

        def ready_one(c: CounterConnection) -> bool:
            return c.status.access in settled and (not c.status.ours or c.synced)

        await self.wait_for(lambda: all(map(ready_one, self.connections.values())), timeout_s)

    async def wait_ours(self, timeout_s: float = 5.0) -> None:
        """Wait until every counter is this table's and shows what it should (counters being
        claimed meanwhile, a virtual one by its stand-in for a person)."""

        def ours() -> bool:
            return all(c.status.ours and c.synced for c in self.connections.values())

        await self.wait_for(ours, timeout_s)

    def resync(self) -> None:
        """Send every counter everything it should show again (the periodic refresh, now)."""
        for connection in self.connections.values():
            connection.resync()

    async def wait_synced(self, timeout_s: float = 5.0) -> None:
        """Wait until every counter that is ours acknowledged the current state."""

        def synced() -> bool:
            return all(c.synced for c in self.connections.values() if c.status.ours)

        await self.wait_for(synced, timeout_s)

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
        if self.game is None:
            return
        # Worked out once for the whole table; each counter only adds its own players.
        rolls = self._roll_count if self._roll_count > self._rolls_before else 0
        self._picture = table_picture(state, self.game.sequence, rolls)
        for connection in self.connections.values():
            self._desire(connection)

    def _desire(self, connection: CounterConnection) -> None:
        """Tell `connection` everything its counter should show of the game now."""
        if self._picture is None:
            return
        seats = self.assignments.get(connection.key, ())
        holding = connection.desired(Part.SHOW)
        for part, wanted in self._picture.for_counter(seats, holding).items():
            connection.want(part, wanted)

    def _assign_default(self, connection: CounterConnection) -> None:
        hello = connection.hello
        # A counter that has not said what it is (board or tracker) gets its players
        # when it is ready (`counter_ready`).
        if self.game is None or connection.key in self.assignments or hello is None:
            self._desire(connection)
            return
        taken = {
            seats[0]
            for key, seats in self.assignments.items()
            if key in self.connections and self.connections[key].status.role is Role.TRACKER
        }
        seats = default_seats(
            len(self.game.state.players),
            tracker=connection.status.role is Role.TRACKER,
            positions=hello.slots,
            taken=taken,
        )
        self.assignments[connection.key] = seats
        connection.show_players(seats)
        self._desire(connection)

    # -- what connections ask of their table (`connection.Table`) ---------------------------

    def counter_ready(self, connection: CounterConnection) -> None:
        """A counter became ours: give it its players and everything it should show."""
        self._assign_default(connection)

    def counter_pressed(
        self, connection: CounterConnection, press: wire.Button
    ) -> Awaitable[object] | None:
        """Apply a counter's press to the game; returns what its ACK waits for (the save).

        A press the rules refuse is recorded with the reason, and the counter is sent
        the true state again.
        """
        game = self.game
        record = PressRecord(
            via="counter", who=connection.key, press="", seq=press.seq, intent=press.intent
        )
        seats = self.assignments.get(connection.key, ())
        try:
            asked, player = button_press(press.intent, press.slot, seats)
        except RuleError as err:  # a button this app has no use for, or no player to change
            outcome = refused(err.phrase, BAD_INPUT_RULE)
        else:
            record.press = asked.value
            outcome = take_press(game, asked, player, "counter")
        self.presses.add(record, outcome)
        if outcome.refused:  # the counter is sent the true state again
            connection.note_problem(f"press refused: {outcome.why}")
            connection.refresh()
            return None
        if self.persist is None or game is None:
            return None
        return self.persist(outcome.sequence)

    def status_changed(self, connection: CounterConnection) -> None:
        """Tell the status listeners, and whoever waits for a condition."""
        self._status_listeners.emit(connection.status)
        self._changed.set()

    def counter_synced(self, connection: CounterConnection) -> None:
        """Wake whoever waits for a condition (`wait_for`, `wait_synced`)."""
        self._changed.set()
