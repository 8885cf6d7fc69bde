"""End to end: rules engine -> sync manager -> link (pty serial, virtual BLE) -> firmware logic ->
LED frame, and button presses back through the rules engine."""

from __future__ import annotations

import asyncio
import threading

import pytest

from companion.core import EndTurn, GoUpLevel, LoseLevel, SetLevel, StartCombat
from companion.devices import wire
from companion.devices.ble_link import BleLink
from companion.devices.connection import PINGS_MISSED_MAX
from companion.devices.link import LinkState
from companion.devices.reconnect import Backoff
from companion.devices.serial_link import SerialLink
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.counters import BleVirtualCounter, SerialVirtualCounter
from companion.devices.sim.fleet import VirtualFleet, VirtualSetup
from companion.devices.status import Access, CounterStatus, Role
from companion.devices.tokens import TokenStore

from .helpers import bar_lit, board_led, fast_manager, new_game, shows, until, virtual_table

pytestmark = pytest.mark.slow

SERIAL_BOARD = VirtualSetup(boards=1, trackers=0, board_transport="serial", animate=False)
BLE_TRACKERS = VirtualSetup(boards=0, trackers=2, tracker_transport="ble", animate=False)
BOTH = VirtualSetup(
    boards=1, trackers=1, board_transport="ble", tracker_transport="serial", animate=False
)


async def test_a_level_change_lights_the_level_board_over_serial(tmp_path):
    table = await virtual_table(tmp_path, SERIAL_BOARD)
    game, manager = table.game, table.manager
    try:
        board = table.counters[0]
        assert isinstance(board, SerialVirtualCounter)
        assert manager.statuses()[0].access is Access.OURS
        assert any(board_led(board, 1, 0))  # everyone starts on space 1
        assert not any(board_led(board, 3, 0))

        game.apply(GoUpLevel(player=0, levels=2))
        await until(lambda: shows(board, game))

        assert any(board_led(board, 3, 0))  # player 1 moved to space 3
        assert not any(board_led(board, 1, 0))
        assert any(board_led(board, 1, 1))  # player 2 stayed on space 1
        red, green, blue = board_led(board, 3, 0)
        assert red > green and red > blue  # in player 1's colour, #ff0000
        assert board.frame.rev == game.sequence
    finally:
        await table.stop()


async def test_a_level_change_lights_a_tracker_over_virtual_ble(tmp_path):
    table = await virtual_table(tmp_path, BLE_TRACKERS)
    game, manager = table.game, table.manager
    try:
        first, second = table.counters
        assert isinstance(first, BleVirtualCounter)
        assert [s.players for s in manager.statuses()] == [(0,), (1,)]

        game.apply(GoUpLevel(player=1, levels=3))
        await until(lambda: shows(second, game) and shows(first, game))

        assert bar_lit(second) == 4
        assert bar_lit(first) == 1
    finally:
        await table.stop()


async def test_an_undo_reaches_the_counter_although_the_revision_goes_down(tmp_path):
    table = await virtual_table(tmp_path, SERIAL_BOARD)
    game = table.game
    try:
        board = table.counters[0]
        game.apply(GoUpLevel(player=0, levels=4))
        await until(lambda: shows(board, game))
        game.undo()
        await until(lambda: shows(board, game))
        assert any(board_led(board, 1, 0))
    finally:
        await table.stop()


@pytest.mark.parametrize("transport", ["serial", "ble"])
async def test_a_button_press_comes_back_as_a_game_action(tmp_path, transport):
    setup = VirtualSetup(boards=0, trackers=1, tracker_transport=transport, animate=False)
    table = await virtual_table(tmp_path, setup)
    game, manager = table.game, table.manager
    try:
        tracker = table.counters[0]
        tracker.press("plus")
        await until(lambda: game.state.players[0].level == 2)
        await until(lambda: shows(tracker, game))
        assert bar_lit(tracker) == 2
        await until(lambda: bool(tracker.acked_presses))  # the counter heard the app take it
        assert [(p.action, p.refused) for p in manager.presses] == [("go_up_level", "")]
    finally:
        await table.stop()


async def test_a_press_that_breaks_a_rule_is_refused_and_the_counter_shows_the_truth(tmp_path):
    table = await virtual_table(
        tmp_path, VirtualSetup(boards=0, trackers=1, tracker_transport="ble", animate=False)
    )
    game, manager = table.game, table.manager
    try:
        tracker = table.counters[0]
        game.apply(SetLevel(player=0, level=9))
        await until(lambda: shows(tracker, game))
        sequence = game.sequence

        tracker.press("plus")  # a Go Up a Level cannot give the winning level
        await until(lambda: bool(tracker.acked_presses))

        assert game.state.players[0].level == 9
        assert game.sequence == sequence
        assert manager.presses[-1].refused
        assert "press refused" in manager.statuses()[0].last_problem
        await until(lambda: shows(tracker, game))
        assert bar_lit(tracker) == 9
    finally:
        await table.stop()


async def test_next_turn_on_a_board_and_combat_shown_as_an_effect(tmp_path):
    table = await virtual_table(tmp_path, BOTH)
    game = table.game
    try:
        board = next(c for c in table.counters if c.role is Role.BOARD)
        board.press("next")
        await until(lambda: game.state.current == 1)
        game.apply(EndTurn())
        await until(lambda: shows(board, game))
        assert board.counter.state.flags[2] & wire.FLAG_TURN

        game.apply(StartCombat(fighter=2, monsters=({"name": "Slime", "level": 1},)))
        await until(lambda: board.counter.state.effect == wire.SHOW_COMBAT)
        assert board.counter.state.flags[2] & wire.FLAG_FIGHTING
    finally:
        await table.stop()


async def test_a_claim_stores_the_token_and_later_connections_authenticate(tmp_path):
    nobody_presses = VirtualSetup(
        boards=1, trackers=0, board_transport="serial", animate=False, claim_on_hello=False
    )
    table = await virtual_table(tmp_path, nobody_presses)
    game, manager = table.game, table.manager
    try:
        (status,) = manager.statuses()
        assert status.access is Access.UNCLAIMED
        board = table.counters[0]
        assert isinstance(board, SerialVirtualCounter)
        assert not shows(board, game)  # an unclaimed counter gets nothing

        board.open_claim_window()  # the long press on the counter
        await manager.wait_for(lambda: manager.statuses()[0].access is Access.OURS)
        assert TokenStore(tmp_path / "counters.json").get(board.counter_id) == board.counter.token
        await until(lambda: shows(board, game))

        # Pull the cable and plug it in: the new session authenticates by challenge.
        board.unplug()
        await manager.wait_for(lambda: manager.statuses()[0].connection is LinkState.LOST)
        board.plug()
        game.apply(GoUpLevel(player=2))
        await until(lambda: shows(board, game))
        assert manager.statuses()[0].access is Access.OURS
    finally:
        await table.stop()


async def test_an_unauthenticated_write_is_refused_and_changes_nothing(tmp_path):
    table = await virtual_table(tmp_path, SERIAL_BOARD)
    game, manager = table.game, table.manager
    board = table.counters[0]
    path = board.address
    await until(lambda: shows(board, game))
    # The table's app lets go of the counter; a stranger opens the same port.
    for connection in list(manager.connections.values()):
        await connection.stop()
    try:
        async with SerialLink(path) as link, asyncio.timeout(5):
            await link.send(wire.encode(wire.Hello(role=wire.ROLE_APP, seq=1)))
            answers = [wire.decode(await link.recv()) for _ in range(2)]
            assert isinstance(answers[0], wire.Hello) and answers[0].caps & wire.CAP_CLAIMED
            assert isinstance(answers[1], wire.Challenge)
            before = board.frame.rgb
            forged = wire.Snapshot(999, (9, 9, 9), (0, 0, 0), seq=2)
            await link.send(wire.encode(forged))
            # A message without its tag is dropped unanswered: the next thing heard is the
            # answer to a HELLO sent after it.
            await link.send(wire.encode(wire.Hello(role=wire.ROLE_APP, seq=3)))
            assert isinstance(wire.decode(await link.recv()), wire.Hello)
        assert board.frame.rgb == before
        assert board.counter.state.levels[0] == 1
    finally:
        await table.stop()


async def test_another_tables_counter_is_shown_as_such_and_never_taken_over(tmp_path):
    radio = VirtualRadio()
    counter = BleVirtualCounter(Role.TRACKER, radio=radio, claim_on_hello=True)
    await counter.start()
    ours = fast_manager(tmp_path / "ours", backend=radio.bleak_backend())
    theirs = fast_manager(
        tmp_path / "theirs",
        backend=radio.bleak_backend(),
        # It lets the counter go and looks again: not in a tight loop, even in a test.
        backoff=lambda: Backoff(initial_s=0.05, max_s=0.2),
    )
    game = new_game()
    try:
        link = await BleLink.find(counter.address, backend=radio.bleak_backend())
        ours.set_game(game)
        ours.add_link(link)
        await ours.wait_ours(timeout_s=10)
        await ours.stop()
        counter.claim_on_hello = False  # from here on only people claim

        link = await BleLink.find(counter.address, backend=radio.bleak_backend())
        theirs.set_game(new_game())
        theirs.add_link(link)
        elsewhere = Access.CLAIMED_ELSEWHERE
        await theirs.wait_for(lambda: theirs.statuses()[0].access is elsewhere, 10)
        # A BLE counter serves one app at a time: this app leaves it free for its table.
        await until(lambda: not counter.peripheral.is_connected)
        token = counter.counter.token
        (connection,) = theirs.connections.values()
        hello = connection.hello
        counter.open_claim_window()  # a long press: still not taken without the app's consent
        # The moment has passed once the app came back, heard a new HELLO, and let go again.
        await until(
            lambda: connection.hello is not hello and not counter.peripheral.is_connected, 10
        )
        assert theirs.statuses()[0].access is elsewhere
        assert counter.counter.token == token

        theirs.open_claiming()  # "add a counter" in the other app, then a long press
        counter.open_claim_window()
        try:
            await theirs.wait_for(lambda: theirs.statuses()[0].access is Access.OURS, 10)
        except TimeoutError:
            pytest.fail(f"the claim did not happen: {theirs.statuses()[0]}")
        assert counter.counter.token != token
    finally:
        await theirs.stop()
        await counter.stop()
        await radio.close()


@pytest.mark.parametrize("transport", ["serial", "ble"])
async def test_a_link_cut_mid_game_reconnects_with_the_state_restored(tmp_path, transport):
    setup = VirtualSetup(
        boards=1, trackers=0, board_transport=transport, tracker_transport=transport, animate=False
    )
    table = await virtual_table(tmp_path, setup)
    game, manager = table.game, table.manager
    try:
        board = table.counters[0]
        game.apply(GoUpLevel(player=1, levels=2))
        await until(lambda: shows(board, game))

        if isinstance(board, SerialVirtualCounter):
            board.unplug()
        else:
            assert isinstance(board, BleVirtualCounter)
            await board.disconnect()
        await manager.wait_for(lambda: manager.statuses()[0].connection is not LinkState.OPEN)
        game.apply(GoUpLevel(player=0, levels=3))
        game.apply(EndTurn())
        if isinstance(board, SerialVirtualCounter):
            board.plug()

        await until(lambda: shows(board, game), timeout_s=10)
        assert any(board_led(board, 4, 0))
        assert manager.statuses()[0].reconnects >= 1
    finally:
        await table.stop()


async def test_status_reports_battery_link_quality_and_the_counters_own_name(tmp_path):
    table = await virtual_table(
        tmp_path,
        VirtualSetup(boards=0, trackers=1, tracker_transport="ble", animate=False),
        ping_interval_s=0.05,
    )
    manager = table.manager
    try:
        await manager.wait_for(lambda: manager.statuses()[0].rtt_ms is not None)
        status = manager.statuses()[0]
        assert status.battery_percent is not None and 0 <= status.battery_percent <= 100
        assert status.role is Role.TRACKER and status.firmware == "1.0.0"
        assert status.transport == "ble" and status.claimed
        assert status.counter_id is not None
        assert status.name == table.counters[0].name == wire.counter_name(status.counter_id)
        assert status.rtt_ms is not None and status.rtt_ms > 0
    finally:
        await table.stop()


async def test_identify_blinks_the_counter_and_assign_moves_a_tracker(tmp_path):
    table = await virtual_table(tmp_path, BLE_TRACKERS)
    game, manager = table.game, table.manager
    try:
        first = table.counters[0]
        key = manager.statuses()[0].key
        await manager.identify(key, 2)
        await until(lambda: first.counter.state.identify_active)

        manager.assign(key, 2)
        game.apply(GoUpLevel(player=2, levels=4))
        await until(lambda: shows(first, game) and first.counter.state.slot_map[0] == 2)
        assert bar_lit(first) == 5 or first.counter.state.identify_active
        with pytest.raises(ValueError, match="no player 8"):
            manager.assign(key, 7)
    finally:
        await table.stop()


async def test_the_default_virtual_counters_are_taken_like_any_other(tmp_path):
    game = new_game(2)
    manager = fast_manager(tmp_path)
    fleet = VirtualFleet()
    try:
        assert await manager.start(game, serial_ports=[], use_ble=False) == []
        # The app's default when no hardware answers: a serial board, a BLE tracker a player.
        await fleet.start(VirtualSetup(), players=2)
        await fleet.join(manager)
        await manager.wait_ours(timeout_s=10)
        statuses = manager.statuses()
        assert [(s.role, s.transport, s.access) for s in statuses] == [
            (Role.BOARD, "serial", Access.OURS),
            (Role.TRACKER, "ble", Access.OURS),
            (Role.TRACKER, "ble", Access.OURS),
        ]
        assert set(fleet.frames()) == {s.key for s in statuses}
        assert all(fleet.counter(s.key) is not None for s in statuses)
        drawn: list[str] = []
        fleet.on_frame(lambda key, frame: drawn.append(key))
        game.apply(GoUpLevel(player=1))
        await until(lambda: all(shows(c, game) for c in fleet.counters))
        assert drawn
    finally:
        await manager.stop()
        await fleet.stop()
    assert manager.statuses() == []


async def test_a_burst_of_changes_is_one_snapshot_and_no_thread_is_started(tmp_path):
    threads = threading.active_count()
    table = await virtual_table(tmp_path, BOTH)
    game, manager = table.game, table.manager
    try:
        assert threading.active_count() == threads  # serial and BLE both on this one loop
        board = next(c for c in table.counters if c.role is Role.BOARD)
        frames: list[int] = []
        board.on_frame(lambda frame: frames.append(frame.rev))
        for _ in range(25):  # e.g. an undo of many steps, or a loaded game
            game.apply(GoUpLevel(player=0))
            game.apply(LoseLevel(player=0))
        await until(lambda: shows(board, game))
        await manager.wait_synced()
        assert frames == [game.sequence]
    finally:
        await table.stop()


async def test_a_serial_counter_of_another_table_stays_connected_until_claimed_here(tmp_path):
    counter = SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "board", claim_on_hello=True)
    await counter.start()
    first = fast_manager(tmp_path / "first")
    second = fast_manager(tmp_path / "second", ping_interval_s=0.05)
    try:
        first.set_game(new_game())
        first.add_link(SerialLink(counter.address))
        await first.wait_ours(timeout_s=10)
        await first.stop()
        counter.claim_on_hello = False  # from here on only people claim

        game = new_game()
        game.apply(GoUpLevel(player=0, levels=3))
        second.set_game(game)
        second.add_link(SerialLink(counter.address))
        pongs: list[int] = []  # the reconnect count at every answered ping
        rtts: list[float | None] = [None]

        def heard(status: CounterStatus) -> None:
            if status.rtt_ms != rtts[-1]:  # a new round trip was measured
                rtts.append(status.rtt_ms)
                pongs.append(status.reconnects)

        second.on_status(heard)
        elsewhere = Access.CLAIMED_ELSEWHERE
        await second.wait_for(lambda: second.statuses()[0].access is elsewhere and bool(pongs), 10)
        # The other table's session on the counter may take a few tries to end; then the
        # link stays: more pings answered in a row than a silent counter is allowed to miss.
        settled = len(pongs)
        await second.wait_for(lambda: len(pongs) > settled + PINGS_MISSED_MAX, 10)
        assert len(set(pongs[settled:])) == 1, "not let go: the cable is this table's"
        assert second.statuses()[0].connection is LinkState.OPEN
        assert counter.counter.state.levels[0] == 1  # this table's game is not on it

        counter.open_claim_window()  # the long press first, then "add a counter" in the app
        second.open_claiming()
        await second.wait_for(lambda: second.statuses()[0].access is Access.OURS, 10)
        game.apply(GoUpLevel(player=1))
        await until(lambda: shows(counter, game))
    finally:
        await second.stop()
        await counter.stop()
