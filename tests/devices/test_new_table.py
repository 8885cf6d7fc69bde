"""A new game at another table: the counters show its players without a restart.

A level board on a pty and a tracker per player on the virtual BLE radio, as the app
starts them; the game they follow is replaced by one of other players, or of another
count of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core import CLASSIC, Game, GameSetup, GoUpLevel, PlayerSetup, Sex
from companion.devices.sim.counters import VirtualCounter
from companion.devices.sim.fleet import VirtualSetup
from companion.devices.status import Role
from tests.devices.helpers import COLOURS, READY_S, VirtualTable, new_game, shows, virtual_table

pytestmark = pytest.mark.slow

# The app's own virtual counters (a board on a pty, a BLE tracker per player), not animated.
APP_SETUP = VirtualSetup(animate=False)


def game_of(*names: str) -> Game:
    players = tuple(
        PlayerSetup(name=name, colour=COLOURS[i], sex=Sex.NONE) for i, name in enumerate(names)
    )
    return Game(GameSetup(players=players, edition=CLASSIC))


def board_shows(table: VirtualTable) -> tuple[int, ...]:
    """The seats the level board's firmware shows, in its positions' order."""
    (board,) = [c for c in table.counters if c.role is Role.BOARD]
    state = board.counter.state
    return tuple(state.slot_map[: state.slot_count])


def board_positions(table: VirtualTable) -> int:
    """How many players the level board has room for (its HELLO says)."""
    (board,) = [c for c in table.counters if c.role is Role.BOARD]
    hello = table.manager.connections[board.key].hello
    assert hello is not None
    return hello.slots


def trackers(table: VirtualTable) -> list[VirtualCounter]:
    return [c for c in table.counters if c.role is Role.TRACKER]


def tracker_seats(table: VirtualTable) -> list[int]:
    """The seat each tracker's firmware shows, sorted."""
    return sorted(c.counter.state.slot_map[0] for c in trackers(table))


async def follow(table: VirtualTable, game: Game) -> None:
    """Open `game` on the table and wait until every counter holds it."""
    table.game = game
    table.manager.set_game(game)
    await table.manager.wait_synced(READY_S)
    await table.manager.wait_for(lambda: all(shows(c, game) for c in table.counters), READY_S)


async def test_an_eight_player_game_after_a_four_player_one_is_on_the_counters(tmp_path: Path):
    table = await virtual_table(tmp_path, APP_SETUP, players=4)
    manager = table.manager
    try:
        await manager.wait_synced(READY_S)
        assert board_shows(table) == (0, 1, 2, 3)
        assert tracker_seats(table) == [0, 1, 2, 3]

        await follow(table, new_game(8))  # a New game of eight, no restart
        room = min(8, board_positions(table))
        assert room > 4
        assert board_shows(table) == tuple(range(room)), "the board shows the new table"
        assert tracker_seats(table) == [0, 1, 2, 3]

        # Trackers for the four newcomers (the app's service starts them): the first seats
        # no tracker shows, so every player has a tracker.
        more = await table.fleet.start(VirtualSetup(boards=0, trackers=4, animate=False), 8)
        await table.fleet.join(manager, more)
        await manager.wait_ours(READY_S)
        await manager.wait_synced(READY_S)
        assert tracker_seats(table) == list(range(8))  # a tracker each
        assert board_shows(table) == tuple(range(room))
    finally:
        await table.stop()


async def test_a_smaller_table_is_seated_from_the_first_player_again(tmp_path: Path):
    table = await virtual_table(tmp_path, APP_SETUP, players=5)
    manager = table.manager
    try:
        await manager.wait_synced(READY_S)
        await follow(table, game_of("Ann", "Bob"))
        assert board_shows(table) == (0, 1)
        # The first two trackers show the two players; the others are spare (the app's
        # service switches its own virtual ones off) and show no one beyond the table.
        seats = [manager.assignments[c.key] for c in trackers(table)]
        assert seats[:2] == [(0,), (1,)]
        assert all(seat in ((0,), (1,)) for seat in seats)
    finally:
        await table.stop()


async def test_what_the_user_chose_stays_while_its_players_are_at_the_table(tmp_path: Path):
    table = await virtual_table(tmp_path, APP_SETUP, players=4)
    manager, game = table.manager, table.game
    try:
        await manager.wait_synced(READY_S)
        by_seat = {manager.assignments[c.key][0]: c.key for c in trackers(table)}
        (board_key,) = [c.key for c in table.counters if c.role is Role.BOARD]
        manager.assign(by_seat[0], 1)  # Bram's tracker now, and the fourth player's
        manager.assign(by_seat[1], 3)
        manager.assign(board_key, (0, 2))
        chosen = dict(manager.assignments)

        # Undone, resumed, or a new game of the same players: nothing moves.
        game.apply(GoUpLevel(player=1, levels=2))
        game.undo()
        manager.set_game(game)
        await follow(table, new_game(4))
        assert manager.assignments == chosen

        # Three players: a choice naming the fourth goes; the others stay, and the
        # trackers nobody chose take the seats left, from the first.
        await follow(table, new_game(3))
        assert manager.assignments[by_seat[0]] == (1,)
        assert manager.assignments[board_key] == (0, 2)
        assert board_shows(table) == (0, 2)
        assert by_seat[1] not in manager.chosen
        defaults = {manager.assignments[by_seat[seat]] for seat in (1, 2, 3)}
        assert defaults == {(0,), (2,)}  # and one spare, on the first player again
        assert set(tracker_seats(table)) == {0, 1, 2}
    finally:
        await table.stop()
