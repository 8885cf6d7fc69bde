"""The attacks on a table's counters, through the real carriers and the firmware logic.

Each attacker writes the same marked messages (a snapshot of rev 999 with levels
9, 9, 9, a 65535 mA budget, brightness 7, winning level 77, a WIN effect): a
write the counter accepted would show in its state or come back as an ACK.
Every test asserts that none did, and that the table's own app keeps (or gets
back) its counter.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from pathlib import Path

import pytest

from companion.core import GoUpLevel
from companion.devices import seal, wire
from companion.devices.ble_link import BleLink
from companion.devices.connection import CounterConnection
from companion.devices.link import Link, LinkState
from companion.devices.serial_link import SerialLink
from companion.devices.session import SEQ_RESTART
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.counters import BleVirtualCounter, SerialVirtualCounter, VirtualCounter
from companion.devices.sim.faults import ChaosLink, FaultPlan
from companion.devices.sim.virtual_peripheral import VirtualPeripheral
from companion.devices.status import Access, CounterStatus, Role
from companion.devices.sync import DeviceManager
from companion.devices.tokens import TokenStore

from .helpers import InThePath, PortIntruder, fast_manager, new_game, shows, until

pytestmark = pytest.mark.slow

FORGED = (
    wire.Snapshot(999, (9, 9, 9), (1, 1, 1)),
    wire.ConfigBudget(65535),
    wire.ConfigBrightness(7),
    wire.ConfigWinLevel(77),
    wire.ShowWin(0),
)


def forged_accepted(counter: VirtualCounter) -> list[str]:
    """Which of the FORGED marks the counter's state carries (the app sends none of them)."""
    state = counter.counter.state
    marks = []
    if state.rev == 999 or bytes(state.levels[:3]) == b"\x09\x09\x09":
        marks.append("snapshot")
    if state.budget_ma > state.default_budget_ma:
        marks.append("budget")
    if state.brightness == 7:
        marks.append("brightness")
    if state.win_level == 77:
        marks.append("win level")
    if state.effect == wire.SHOW_WIN:
        marks.append("win effect")
    return marks


def forged_payloads(first_seq: int) -> list[bytes]:
    out = []
    for i, message in enumerate(FORGED):
        message.seq = first_seq + i
        out.append(wire.encode(message))
    return out


def connection_of(manager: DeviceManager) -> CounterConnection:
    (connection,) = manager.connections.values()
    return connection


async def started_with(tmp_path: Path, counter: VirtualCounter, link: Link, game=None):
    """The table's app holding `counter` over `link`: claimed (long-pressed for the user), then
    left to people: nobody presses it any more unless a test does."""
    manager = fast_manager(tmp_path)
    game = game or new_game()
    manager.set_game(game)
    counter.claim_on_hello = True
    manager.add_link(link)
    await manager.wait_ours(timeout_s=10)
    counter.claim_on_hello = False
    await until(lambda: shows(counter, game))
    return manager, game


async def a_ping_round(manager: DeviceManager) -> None:
    """Wait for the app to measure one more round trip to its counter: whatever it sent to
    the counter before that PING has been read there."""
    (connection,) = manager.connections.values()
    before = connection.status.rtt_ms
    changed = asyncio.Event()

    def heard(status: CounterStatus) -> None:
        if status.rtt_ms is not None and status.rtt_ms != before:
            changed.set()

    remove = manager.on_status(heard)
    try:
        async with asyncio.timeout(10):
            await changed.wait()
    finally:
        remove()


# -- a second program on the serial port ---------------------------------------------------


async def test_a_program_that_opens_the_port_after_the_app_writes_nothing(tmp_path):
    board = SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "board", animate=False)
    await board.start()
    manager, game = await started_with(tmp_path, board, SerialLink(board.address))
    try:
        await connection_of(manager).stop()  # the app closes the port: serial says nothing
        intruder = PortIntruder(board.address)
        try:
            # While the app's session lasts, messages without its tag are dropped unanswered:
            # the answers to a HELLO before them and one after are all that comes back.
            hello = wire.encode(wire.Hello(wire.ROLE_APP, seq=1))
            intruder.send([hello, *forged_payloads(2), hello])
            await until(lambda: len(intruder.read()) >= 4)
            kinds = [type(m).__name__ for m in intruder.read()]
            assert kinds == ["Hello", "Challenge", "Hello", "Challenge"]
            # Ten quiet seconds later the session is over; writes are refused outright.
            ticks = board.counter.clock
            board.counter.clock = lambda: ticks() + 10_500
            board.counter.poll()
            assert not board.counter.authenticated
            intruder.send(forged_payloads(10))
            await until(lambda: len(intruder.read()) >= 4 + len(FORGED))
            refusals = intruder.read()[4:]
            assert {(type(m).__name__, m.code) for m in refusals} == {("Error", 5)}
            assert intruder.acks() == []
        finally:
            intruder.close()
        assert forged_accepted(board) == []
        assert shows(board, game)
    finally:
        await manager.stop()
        await board.stop()


async def test_a_second_writer_beside_the_app_neither_writes_nor_knocks_it_off(tmp_path):
    board = SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "board", animate=False)
    await board.start()
    manager, game = await started_with(tmp_path, board, SerialLink(board.address))
    connection = connection_of(manager)
    reconnects = connection.status.reconnects
    intruder = PortIntruder(board.address)
    try:
        # HELLOs never end the app's session: only a right AUTH could replace it.
        intruder.send([wire.encode(wire.Hello(wire.ROLE_APP, seq=i)) for i in range(1, 21)])
        intruder.send(forged_payloads(30))
        # The app's next snapshot reaches the counter after all of that (one line, in order).
        game.apply(GoUpLevel(player=1))
        await until(lambda: shows(board, game))
        assert connection.status.access is Access.OURS
        assert connection.status.reconnects == reconnects
        assert intruder.acks() == []
        assert forged_accepted(board) == []
        # A flood of junk can end the session (16 wrong tags); the app opens a new one.
        intruder.send(forged_payloads(40) * 8)
        game.apply(GoUpLevel(player=2))
        await until(lambda: shows(board, game) and connection.status.ours, 15)
        assert intruder.acks() == []
        assert forged_accepted(board) == []
    finally:
        intruder.close()
        await manager.stop()
        await board.stop()


# -- a relay: a fake BLE counter passing the real one's messages on --------------------------


class Relay:
    """A fake counter on the radio that passes everything between the app and a real counter,
    and writes the FORGED messages to the real counter on its own connection."""

    def __init__(self, radio: VirtualRadio, real: BleVirtualCounter) -> None:
        self.radio = radio
        self.real = real
        self.upstream: BleLink | None = None
        self.from_counter: list[bytes] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.peripheral = VirtualPeripheral(
            radio,
            "MCounter-FAKE",
            service_uuid=wire.SERVICE_UUID,
            write_uuid=wire.RX_CHAR_UUID,
            notify_uuid=wire.TX_CHAR_UUID,
            on_write=self._from_app,
        )

    async def start(self) -> None:
        self.upstream = await BleLink.find(self.real.address, backend=self.radio.bleak_backend())
        self.upstream.on_message(self._from_real)
        await self.upstream.open()
        await self.peripheral.start()

    async def _from_app(self, payload: bytes) -> None:
        assert self.upstream is not None
        await self.upstream.send(payload)

    def _from_real(self, payload: bytes) -> None:
        self.from_counter.append(payload)
        task = asyncio.get_running_loop().create_task(self.peripheral.notify(payload))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def forge(self) -> None:
        assert self.upstream is not None
        for payload in forged_payloads(200):
            await self.upstream.send(payload)
            await self.upstream.send(payload + bytes(seal.TAG_SIZE))  # with a made-up tag

    def heard_hello(self, since: int) -> bool:
        """True if the real counter sent a HELLO (to the app, through here) after `since`."""
        return any(p[:1] == bytes([wire.MSG_HELLO]) for p in self.from_counter[since:])

    def acks_to_forgeries(self) -> list[wire.Ack]:
        acks = []
        for payload in self.from_counter:
            with contextlib.suppress(wire.WireError):
                message = wire.decode(payload)
                if isinstance(message, wire.Ack) and message.ref_seq >= 200:
                    acks.append(message)
        return acks

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.upstream is not None:
            await self.upstream.close()
        await self.peripheral.stop()


@pytest.mark.parametrize("hidden", [False, True], ids=["addresses seen", "addresses hidden"])
async def test_a_relay_gets_no_session_no_write_and_is_not_called_ours(tmp_path, hidden):
    radio = VirtualRadio()
    real = BleVirtualCounter(Role.TRACKER, radio=radio, animate=False)
    await real.start()
    backend = radio.bleak_backend()
    relay: Relay | None = None
    manager = None
    try:
        # The table claims its counter where it is...
        direct: Link = await BleLink.find(real.address, backend=backend)
        if hidden:
            direct = InThePath(direct, address="5F3C2A10-8E0B-4C56-9D4E-0123456789AB")
        first, game = await started_with(tmp_path, real, direct)
        before = bytes(real.counter.state.levels)
        await first.stop()
        # ... and later meets a fake that passes the real counter's messages on.
        relay = Relay(radio, real)
        await relay.start()
        manager = fast_manager(tmp_path)  # the same app: the same tokens
        manager.set_game(game)
        fake: Link = await BleLink.find(relay.peripheral.address, backend=backend)
        if hidden:
            fake = InThePath(fake, address="0A1B2C3D-0000-4000-8000-000000000000")
        connection = manager.add_link(fake)
        await manager.wait_for(lambda: connection.status.access is Access.MISMATCH, 10)
        assert "fake" in connection.status.last_problem
        assert not connection.authenticated
        await relay.forge()
        game.apply(GoUpLevel(player=0))
        # The relay passes messages on in order, both ways: once the real counter answered a
        # HELLO the app sent after the change, it has read whatever came before.
        heard = len(relay.from_counter)
        await until(lambda: relay.heard_hello(since=heard), 10)
        assert relay.acks_to_forgeries() == []
        assert forged_accepted(real) == []
        assert bytes(real.counter.state.levels) == before  # nothing reached it, not even ours
        assert not any(s.ours for s in manager.statuses())
    finally:
        if manager is not None:
            await manager.stop()
        if relay is not None:
            await relay.stop()
        await real.stop()
        await radio.close()


async def test_a_fake_that_only_pretends_to_be_a_claimed_counter_is_told_apart(tmp_path):
    radio = VirtualRadio()
    real = BleVirtualCounter(Role.TRACKER, radio=radio, animate=False)
    await real.start()
    backend = radio.bleak_backend()
    impostor = None
    manager = None
    try:
        direct = await BleLink.find(real.address, backend=backend)
        first, game = await started_with(tmp_path, real, direct)
        await first.stop()
        tokens = TokenStore(tmp_path / "counters.json")
        # A counter of its own whose id is the real counter's, and which has its own token.
        impostor = BleVirtualCounter(Role.TRACKER, radio=radio, index=5, animate=False)
        impostor.counter.counter_id = real.counter_id
        impostor.counter.token = seal.new_token(wire.random_bytes)
        await impostor.start()
        assert tokens.get(real.counter_id) is not None
        manager = fast_manager(tmp_path)
        manager.set_game(game)
        connection = manager.add_link(await BleLink.find(impostor.address, backend=backend))
        await manager.wait_for(lambda: connection.status.access is Access.MISMATCH, 10)
        assert not connection.authenticated
        assert impostor.counter.state.rev == 0  # the app sent the fake nothing of the game
    finally:
        if manager is not None:
            await manager.stop()
        if impostor is not None:
            await impostor.stop()
        await real.stop()
        await radio.close()


# -- damage on BLE (no CRC of ours there): presses taken once, with their intent ------------


def press_audit(counter: VirtualCounter, manager: DeviceManager, key: str) -> dict[str, list]:
    """Presses the app took that the counter never sent, took with another intent, or took
    twice, and presses the counter saw acknowledged that the app never took."""
    sent = dict(counter.sent_presses)
    took = [(p.seq, p.intent) for p in manager.presses if p.who == key]
    seqs = [seq for seq, _ in took]
    return {
        "phantom": [seq for seq in seqs if seq not in sent],
        "wrong intent": [(seq, i) for seq, i in took if seq in sent and sent[seq] != i],
        "twice": sorted({seq for seq in seqs if seqs.count(seq) > 1}),
        "acknowledged but lost": [seq for seq in counter.acked_presses if seq not in seqs],
    }


async def test_presses_under_heavy_ble_damage_are_taken_once_with_their_intent(tmp_path):
    radio = VirtualRadio()
    tracker = BleVirtualCounter(Role.TRACKER, radio=radio, animate=False)
    await tracker.start()
    plan = FaultPlan(seed=7)
    manager = None
    try:
        link = ChaosLink(await BleLink.find(tracker.address, backend=radio.bleak_backend()), plan)
        manager, game = await started_with(tmp_path, tracker, link)
        key = connection_of(manager).key
        plan.corrupt_rate = 0.25  # one message in four damaged, both ways
        for i in range(120):
            tracker.press("plus" if i % 2 == 0 else "minus")
            await asyncio.sleep(0.01)
        plan.corrupt_rate = 0.0
        await until(lambda: not tracker.counter.pending_presses, 15)
        await until(lambda: connection_of(manager).synced, 15)
        assert plan.faults["corrupt"] > 20
        assert len(tracker.sent_presses) >= 40 and len(tracker.acked_presses) >= 20
        audit = press_audit(tracker, manager, key)
        assert audit == {
            "phantom": [],
            "wrong intent": [],
            "twice": [],
            "acknowledged but lost": [],
        }
        assert shows(tracker, game)
    finally:
        if manager is not None:
            await manager.stop()
        await tracker.stop()
        await radio.close()


# -- the claim window ----------------------------------------------------------------------------


def blue_frames(counter: VirtualCounter, start_ms: int, span_ms: int = 1000) -> int:
    """How many frames over `span_ms` light every LED of a level board blue and nothing else
    (the claim window's blink; no game picture looks like it)."""
    count = 0
    for t in range(start_ms, start_ms + span_ms, 50):
        rgb = counter.counter.frame(t)
        pixels = [tuple(rgb[i : i + 3]) for i in range(0, len(rgb), 3)]
        if all(r == 0 and g == 0 and b > 0 for r, g, b in pixels):
            count += 1
    return count


async def test_a_stranger_in_the_claim_window_needs_a_full_token_and_is_seen(tmp_path):
    board = SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "board", animate=False)
    await board.start()
    manager, game = await started_with(tmp_path, board, SerialLink(board.address))
    connection = connection_of(manager)
    ours = manager.tokens.get(board.counter_id)
    intruder = PortIntruder(board.address)
    try:
        now = board.counter.clock()
        assert blue_frames(board, now) == 0
        board.press("claim", long=True)  # someone at the table holds the claim button
        assert blue_frames(board, board.counter.clock()) >= 5  # the whole table can see it
        weak = [
            bytes(16),
            bytes([7]) * 16,
            bytes(range(4)) * 4,
            bytes(range(200, 208)) * 2,  # an 8-byte pattern, twice
            b"password12345678",  # typed, not drawn
        ]
        intruder.send([wire.encode(wire.Claim(token, seq=i + 1)) for i, token in enumerate(weak)])
        # The app's next snapshot reaches the counter after the claims (one line, in order).
        game.apply(GoUpLevel(player=0))
        await until(lambda: shows(board, game))
        # It shares the port's answers with the app: whatever it caught is a refusal.
        codes = [
            getattr(m, "code", "ack")
            for m in intruder.read()
            if isinstance(m, wire.Error | wire.Ack)
        ]
        assert set(codes) <= {wire.ERR_WEAK_TOKEN}
        assert board.counter.token == ours
        assert board.counter.state.claim_open(board.counter.clock())  # still the table's window
        # A full-strength claim in the open window takes the counter (that is what the
        # window is for) and ends the table's session at once; the app says so.
        theirs = seal.new_token(wire.random_bytes)
        intruder.send([wire.encode(wire.Claim(theirs, seq=9))])
        await until(lambda: board.counter.token == theirs)
        assert blue_frames(board, board.counter.clock()) == 0  # the window closed
        elsewhere = Access.CLAIMED_ELSEWHERE
        await manager.wait_for(lambda: connection.status.access is elsewhere, 10)
        levels = bytes(board.counter.state.levels)
        game.apply(GoUpLevel(player=1))
        await a_ping_round(manager)
        assert bytes(board.counter.state.levels) == levels  # the old session writes nothing
        assert forged_accepted(board) == []
        # The table takes it back the same way: allow claiming here, long-press the counter.
        manager.open_claiming(5)
        board.press("claim", long=True)
        await manager.wait_for(lambda: connection.status.ours, 10)
        await until(lambda: shows(board, game))
        assert board.counter.token == manager.tokens.get(board.counter_id) != theirs
        assert seal.token_is_strong(board.counter.token)
    finally:
        intruder.close()
        await manager.stop()
        await board.stop()


async def test_forgetting_the_claim_ends_the_session_at_once(tmp_path):
    radio = VirtualRadio()
    tracker = BleVirtualCounter(Role.TRACKER, radio=radio, animate=False)
    await tracker.start()
    manager = None
    try:
        link = await BleLink.find(tracker.address, backend=radio.bleak_backend())
        manager, game = await started_with(tmp_path, tracker, link)
        connection = connection_of(manager)
        tracker.counter.forget()  # a factory reset of the claim, on the counter
        assert not tracker.counter.authenticated
        await manager.wait_for(lambda: connection.status.access is Access.UNCLAIMED, 10)
        levels = bytes(tracker.counter.state.levels)
        game.apply(GoUpLevel(player=0))
        await a_ping_round(manager)
        assert bytes(tracker.counter.state.levels) == levels
    finally:
        if manager is not None:
            await manager.stop()
        await tracker.stop()
        await radio.close()


# -- sequence numbers at their end -------------------------------------------------------


async def test_a_press_flood_past_65535_wraps_and_no_task_dies(tmp_path, caplog):
    tracker = SerialVirtualCounter(Role.TRACKER, link_path=tmp_path / "tracker", animate=False)
    await tracker.start()
    manager, game = await started_with(tmp_path, tracker, SerialLink(tracker.address))
    connection = connection_of(manager)
    key = connection.key
    caplog.set_level(logging.ERROR)
    try:
        # Where some 80,000 presses leave both sides: near the end of their u16 numbers. The
        # app heard none of the counter's on the way, so it meets them again after a reconnect.
        while tracker.counter.next_seq() < 0xFFFF - 120:
            pass
        tracker.unplug()
        await manager.wait_for(lambda: connection.status.connection is LinkState.LOST)
        tracker.plug()
        await manager.wait_ours(10)
        session = connection.session
        assert session is not None
        while session.seq < SEQ_RESTART - 150:
            session.next_seq()
        for i in range(300):
            tracker.press("plus" if i % 2 == 0 else "minus")
            await asyncio.sleep(0.004)
        await until(lambda: not tracker.counter.pending_presses, 15)
        await until(lambda: connection.synced and shows(tracker, game), 15)
        seqs = [seq for seq, _ in tracker.sent_presses]
        assert max(seqs) > 0xFFFF - 10 and min(seqs) < 200  # the counter's numbers wrapped
        # The app opened a fresh session before its numbers ran out.
        assert connection.session is not session
        assert connection.session is not None and connection.session.seq < SEQ_RESTART
        # Pings still go out and come back: the ping task lives.
        connection.status = replace(connection.status, rtt_ms=None)
        await until(lambda: connection.status.rtt_ms is not None, 5)
        # Presses were taken once each with their intent; the numbers repeat after the
        # wrap, so each one is checked against the counter's list in order.
        took = [(p.seq, p.intent) for p in manager.presses if p.who == key]
        assert len(took) >= 250
        assert all(item in tracker.sent_presses for item in took)
        assert len(tracker.acked_presses) >= 250
        problems = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert problems == []
    finally:
        await manager.stop()
        await tracker.stop()


# -- budget writes ---------------------------------------------------------------------------


@pytest.mark.parametrize("pinout", ["levelboard-esp32s3", "levelboard-esp32s3-epic"])
async def test_a_65535_ma_budget_forged_or_honest_leaves_the_board_within_its_supply(
    tmp_path, pinout
):
    board = SerialVirtualCounter(
        Role.BOARD, link_path=tmp_path / "board", pinout=pinout, animate=False
    )
    await board.start()
    manager, _ = await started_with(tmp_path, board, SerialLink(board.address))
    power = board.counter.board.power
    intruder = PortIntruder(board.address)
    try:
        intruder.send(forged_payloads(50))  # forged: dropped, the session is the app's
        session = connection_of(manager).session
        assert session is not None
        # Honest, from the table's own app: the counter takes it, and bounds it.
        for message in (
            wire.ConfigBudget(65535),
            wire.ConfigBrightness(255),
            wire.ShowIdentify(30),  # every LED white: the most current the board can draw
        ):
            answer = await session.request(message, 2.0)
            assert isinstance(answer, wire.Ack)
        now = board.counter.clock()
        worst = 0
        for t in range(0, 1000, 50):
            board.counter.frame(now + t)
            worst = max(worst, board.counter.current_ma)
        # The counter bounds the budget by its own supply, and its LEDs keep to the budget.
        budget_ma = board.counter.state.budget_ma
        assert budget_ma + power["mcu_active_ma"] <= power["supply_ma"]
        assert worst <= budget_ma
        assert intruder.acks() == []
    finally:
        intruder.close()
        await manager.stop()
        await board.stop()


async def test_an_acknowledgement_long_overdue_is_not_waited_for(tmp_path: Path) -> None:
    # The window holds a frame only for answers due within a few ms (`ui.frames`): a
    # counter that went quiet must not hold every frame until it is given up on.
    board = SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "board", animate=False)
    await board.start()
    quiet = False
    path = InThePath(SerialLink(board.address), lambda payload: None if quiet else payload)
    # Neither resent nor pinged within the test: the link stays, the ACK stays owed.
    manager = fast_manager(tmp_path, ack_timeout_s=30.0, ping_interval_s=30.0)
    game = new_game()
    manager.set_game(game)
    board.claim_on_hello = True
    manager.add_link(path)
    connection = connection_of(manager)
    loop = asyncio.get_running_loop()
    try:
        await manager.wait_ours(timeout_s=10)
        await manager.wait_synced(10)
        assert connection.round_trip_s is not None  # learnt from its acknowledgements
        connection.round_trip_s = 0.5  # as if its answers took 0.5 s: a window to look in
        quiet = True  # from now on nothing the counter says reaches the app
        game.apply(GoUpLevel(player=0))
        await until(lambda: connection.ack_expected_at() is not None, 10)
        assert manager.acks_due_by(loop.time() + 10)  # its ACK is due: worth waiting for
        await until(lambda: connection.ack_expected_at() is None, 10)  # never came: late
        assert not manager.acks_due_by(loop.time() + 10)
        started = loop.time()
        assert not await manager.wait_acks_due(1.0)  # a frame is not held for it
        assert loop.time() - started < 0.5
        assert not connection.synced
    finally:
        await manager.stop()
        await board.stop()
