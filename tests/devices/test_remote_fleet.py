"""Virtual counters in a process of their own (`sim.host`), reached by the app's real links:
the board over the pseudo-terminal the host opened, the trackers through bleak over the pipe."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.core import Game, GoUpLevel
from companion.devices.link import LinkState
from companion.devices.sim.fleet import VirtualSetup
from companion.devices.sim.frames import LedFrame
from companion.devices.sim.process import HostError, HostProcess
from companion.devices.sim.remote import RemoteCounter, RemoteFleet
from companion.devices.status import Access, Role
from companion.devices.sync import DeviceManager
from tests.devices.helpers import READY_S, fast_manager, new_game, until

pytestmark = pytest.mark.slow

EXIT_S = 20.0  # s: a host ends in milliseconds once told; generous on a busy machine


def lit_bar(frame: LedFrame) -> int:
    return sum(1 for pixel in frame.pixels[: frame.spaces] if any(pixel))


async def ended(process: subprocess.Popen[bytes]) -> int:
    loop = asyncio.get_running_loop()
    return await asyncio.wait_for(loop.run_in_executor(None, process.wait), EXIT_S)


@dataclass
class RemoteTable:
    game: Game
    manager: DeviceManager
    fleet: RemoteFleet
    counters: list[RemoteCounter]


@contextlib.asynccontextmanager
async def remote_table(
    tmp_path: Path, players: int, setup: VirtualSetup, fleet: RemoteFleet | None = None
) -> AsyncIterator[RemoteTable]:
    """A game of `players`, the app's manager following it, and `setup`'s counters in their
    own process (`fleet`, else a new one): claimed and showing the game; stopped after."""
    game = new_game(players)
    manager = fast_manager(tmp_path)
    manager.set_game(game)
    fleet = fleet if fleet is not None else RemoteFleet()
    try:
        counters = await fleet.start(setup, players)
        await fleet.join(manager)
        await manager.wait_ours(READY_S)
        await manager.wait_synced(timeout_s=READY_S)
        yield RemoteTable(game, manager, fleet, counters)
    finally:
        await manager.stop()
        await fleet.stop()


async def test_counters_in_their_own_process_are_claimed_and_follow_the_game(tmp_path: Path):
    game = new_game(3)
    manager = fast_manager(tmp_path)
    manager.set_game(game)
    fleet = RemoteFleet()
    frames: dict[str, LedFrame] = {}
    fleet.on_frame(frames.__setitem__)
    try:
        counters = await fleet.start(VirtualSetup(animate=False), 3)
        assert [c.role for c in counters] == [Role.BOARD, Role.TRACKER, Role.TRACKER, Role.TRACKER]
        assert {c.transport for c in counters} == {"serial", "ble"}
        assert fleet.host.process.pid != os.getpid()
        await fleet.join(manager)
        await manager.wait_ours(READY_S)
        await manager.wait_synced(timeout_s=READY_S)
        assert {s.key for s in manager.statuses()} == {c.key for c in counters}
        assert all(s.access is Access.OURS for s in manager.statuses())

        # Trackers take seats in the order they become ours, which a busy machine decides.
        tracker = next(
            c for c in counters if c.role is Role.TRACKER and manager.assignments[c.key] == (0,)
        )
        assert fleet.counter(tracker.key) is tracker
        game.apply(GoUpLevel(player=0, levels=2))
        await manager.wait_synced(timeout_s=READY_S)
        # The pictures of the LEDs come from the other process too, each with its state.
        await until(lambda: tracker.key in frames and lit_bar(frames[tracker.key]) == 3)
        assert frames[tracker.key].rev == game.sequence
        assert set(fleet.frames()) == {c.key for c in counters}
    finally:
        await manager.stop()
        await fleet.stop()
    assert await ended(fleet.host.process) == 0
    assert not fleet.counters


async def test_the_hosts_trackers_grow_and_shrink_with_the_table(tmp_path: Path):
    frames: dict[str, LedFrame] = {}
    fleet = RemoteFleet()
    fleet.on_frame(frames.__setitem__)
    async with remote_table(tmp_path, 2, VirtualSetup(animate=False), fleet) as table:
        manager = table.manager
        four = new_game(4)
        manager.set_game(four)  # a New game of four: two more trackers
        more = await fleet.start(VirtualSetup(boards=0, trackers=2, animate=False), 4)
        assert [c.role for c in more] == [Role.TRACKER, Role.TRACKER]
        await fleet.join(manager, more)
        await manager.wait_ours(READY_S)
        await manager.wait_synced(timeout_s=READY_S)
        assert sorted(manager.assignments[c.key] for c in fleet.counters[1:]) == [
            (0,),
            (1,),
            (2,),
            (3,),
        ]
        await until(lambda: set(frames) == {c.key for c in fleet.counters})

        manager.set_game(new_game(3))  # then of three: the tracker to spare is switched off
        *_first, spare = [c for c in fleet.counters[1:] if manager.assignments[c.key] == (0,)]
        await manager.remove(spare.key)
        await fleet.remove(spare)
        assert fleet.counter(spare.key) is None and spare.key not in manager.connections
        with pytest.raises(HostError, match="no virtual counter"):
            await fleet.host.request("press", key=spare.key, button="plus")
        with pytest.raises(HostError, match="no virtual counter"):
            await fleet.host.request("remove", key=spare.key)
        await manager.wait_synced(timeout_s=READY_S)
        assert len(manager.statuses()) == 4
        assert sorted(manager.assignments[c.key] for c in fleet.counters[1:]) == [
            (0,),
            (1,),
            (2,),
        ]


async def test_a_counter_waits_for_its_long_press_which_the_app_makes_over_the_pipe(
    tmp_path: Path,
):
    manager = fast_manager(tmp_path)
    manager.set_game(new_game(2))
    fleet = RemoteFleet()
    try:
        (tracker,) = await fleet.start(
            VirtualSetup(boards=0, trackers=1, animate=False, claim_on_hello=False), 2
        )
        await fleet.join(manager)
        await manager.wait_ready(READY_S)
        assert manager.statuses()[0].access is not Access.OURS  # nobody pressed it
        manager.open_claiming()
        tracker.open_claim_window()  # the person's long press, made in the host
        await manager.wait_ours(READY_S)
    finally:
        await manager.stop()
        await fleet.stop()


async def test_counters_started_ahead_are_the_ones_the_app_gets(tmp_path: Path):
    host = HostProcess.spawn(prestart=True)  # as `companion app` starts it, first thing
    fleet = RemoteFleet(host)
    manager = fast_manager(tmp_path)
    manager.set_game(new_game(2))
    frames: dict[str, LedFrame] = {}
    fleet.on_frame(frames.__setitem__)
    try:
        counters = await fleet.start(VirtualSetup(), 2)  # the app's own setup: a board, 2 trackers
        assert [c.role for c in counters] == [Role.BOARD, Role.TRACKER, Role.TRACKER]
        await fleet.join(manager)
        await manager.wait_synced(timeout_s=READY_S)
        assert len(manager.statuses()) == 3
        await until(lambda: set(frames) == {c.key for c in counters})
        # Those it started for a larger table and the app did not take are off the air.
        assert set(frames) <= {c.key for c in counters}
    finally:
        await manager.stop()
        await fleet.stop()


async def test_a_host_that_dies_is_said_and_its_counters_are_lost(tmp_path: Path):
    manager = fast_manager(tmp_path)
    manager.set_game(new_game(2))
    fleet = RemoteFleet()
    gone: list[str] = []
    fleet.on_gone(gone.append)
    try:
        await fleet.start(VirtualSetup(animate=False), 2)
        await fleet.join(manager)
        await manager.wait_synced(timeout_s=READY_S)
        fleet.host.process.kill()
        await until(lambda: bool(gone))
        assert "status" in gone[0]  # "it ended with status -9"
        await until(
            lambda: all(c.link.state is not LinkState.OPEN for c in manager.connections.values())
        )
        with pytest.raises(HostError):
            await fleet.host.request("press", key="x", button="plus")
    finally:
        await manager.stop()
        await fleet.stop()
    assert gone and len(gone) == 1  # stopping it afterwards is not said again


async def test_the_host_refuses_what_is_not_a_request_and_ends_with_the_app():
    host = HostProcess.spawn()
    await host.attach()
    assert host.process.stdin is not None
    try:
        with pytest.raises(HostError, match="unknown request"):
            await host.request("format the disk")
        with pytest.raises(HostError, match="no virtual counter"):
            await host.request("press", key="serial:/nowhere", button="plus")
        # A line that is not a message is ignored; the host still answers after it.
        os.write(host.process.stdin.fileno(), b"not json\n[1, 2]\n")
        assert await host.request("animate", on=False) == {"re": 3}
    finally:
        await host.stop()
    assert host.process.returncode == 0
    # The app ends without a word (killed, crashed): the host's input closes, and it ends.
    orphan = HostProcess.spawn(prestart=True)
    assert orphan.process.stdin is not None
    orphan.process.stdin.close()
    assert await ended(orphan.process) == 0
    assert orphan.process.stdout is not None
    orphan.process.stdout.close()


def test_the_early_host_is_started_only_when_virtual_counters_may_be_wanted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.commands.app import start_counters_early
    from companion.devices.sim import process

    spawned: list[bool] = []

    class Spawned:
        def __init__(self) -> None:
            self.process = subprocess.Popen([sys.executable, "-c", "pass"], stdin=subprocess.PIPE)

    def spawn(*, prestart: bool = False) -> Spawned:
        spawned.append(prestart)
        return Spawned()

    monkeypatch.setattr(process.HostProcess, "spawn", spawn)
    monkeypatch.setattr(process, "_early", None)
    start_counters_early(tmp_path, no_virtual=True)
    assert spawned == []
    (tmp_path / "settings.json").write_text('{"virtual_counters": false}')
    start_counters_early(tmp_path, no_virtual=False)
    assert spawned == []
    (tmp_path / "settings.json").write_text("{damaged")
    start_counters_early(tmp_path, no_virtual=False)  # the full load says what was wrong
    assert spawned == [True]
    process.discard_early()  # real counters answered: it goes
    assert process._early is None


async def test_virtual_counters_claims_are_not_written_to_the_tokens_file(tmp_path: Path):
    # A virtual counter forgets its claim when it stops (its flash is memory): writing its
    # token at every start would cost two synced writes per counter and keep nothing.
    async with remote_table(tmp_path, 2, VirtualSetup(animate=False)) as table:
        manager = table.manager
        assert len(manager.statuses()) == 3
        ids = [c.hello.counter_id for c in manager.connections.values() if c.hello]
        assert len(ids) == 3 and all(manager.tokens.get(i) is not None for i in ids)
    assert not (tmp_path / "counters.json").exists()


async def test_counters_asked_for_ahead_are_connected_while_the_app_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from companion.devices.sim import process

    # As `companion app` starts them, then asks for its table's counters before it loads
    # its device layer: the host answers and connects its adapter to them meanwhile.
    monkeypatch.setattr(process, "_early", HostProcess.spawn(prestart=True))
    await process.start_counters_ahead(2)
    fleet = RemoteFleet()  # takes the early host
    manager = fast_manager(tmp_path)
    manager.set_game(new_game(2))
    try:
        counters = await fleet.start(VirtualSetup(), 2)  # the answer sent ahead
        assert [c.role for c in counters] == [Role.BOARD, Role.TRACKER, Role.TRACKER]
        other = await fleet.host.take_ahead("start", players=2, setup={}, connect_ahead=True)
        assert other is None  # taken once
        await fleet.join(manager)
        await manager.wait_ours(READY_S)
        await manager.wait_synced(timeout_s=READY_S)
        assert all(s.access is Access.OURS for s in manager.statuses())
    finally:
        await manager.stop()
        await fleet.stop()


async def test_an_answer_sent_ahead_is_taken_only_for_the_same_request():
    host = HostProcess.spawn()
    try:
        await host.ask_ahead("animate", on=False)  # before the host even says it is ready
        assert await host.take_ahead("animate", on=True) is None  # another request
        await host.ask_ahead("animate", on=False)
        assert await host.take_ahead("animate", on=False) == {"re": 2}
    finally:
        await host.stop()


async def test_a_request_asked_ahead_twice_is_sent_once():
    # The app asks from its cover, and its counters' service asks again once it runs.
    host = HostProcess.spawn()
    try:
        await host.ask_ahead("animate", on=False)
        await host.ask_ahead("animate", on=False)
        assert host.asked_ahead("animate") == {"on": False}
        assert await host.take_ahead("animate", on=False) == {"re": 1}
        assert host.asked_ahead("animate") is None
        assert await host.request("animate", on=True) == {"re": 2}  # nothing else was sent
    finally:
        await host.stop()


async def test_the_leds_animate_only_while_the_app_shows_them(tmp_path: Path):
    fleet = RemoteFleet()
    heard: list[tuple[str, LedFrame]] = []
    fleet.on_frame(lambda key, frame: heard.append((key, frame)))
    async with remote_table(tmp_path, 2, VirtualSetup(), fleet) as table:  # animated
        game, tracker = table.game, table.counters[1].key
        fleet.animate(True)  # the Devices screen is open: frame after frame
        start = len(heard)
        await until(lambda: sum(1 for key, _f in heard[start:] if key == tracker) >= 5)

        fleet.animate(False)  # it closed: no picture is drawn for nobody
        await fleet.host.request("animate", on=False)  # a round trip: it was taken

        # Each change of state is pictured all the same, and nothing is drawn between two:
        # the frame numbers of one tracker's pictures of two changes are one apart.
        def shown(level: int) -> LedFrame | None:
            return next(
                (
                    f
                    for _key, f in reversed(heard)
                    if f.role is Role.TRACKER and lit_bar(f) == level
                ),
                None,
            )

        game.apply(GoUpLevel(player=1, levels=1))
        await until(lambda: shown(2) is not None)
        first = shown(2)
        assert first is not None
        game.apply(GoUpLevel(player=1, levels=1))
        await until(lambda: shown(3) is not None)
        second = shown(3)
        assert second is not None and second.name == first.name
        assert second.number == first.number + 1, "no animation while nobody looks"


async def test_the_window_waits_only_for_acknowledgements_due_within_its_wait(tmp_path: Path):
    # The frame after a change may hold a few ms for the counters' ACKs (`ui.frames`):
    # only for those their recent round trips say are due by then.
    async with remote_table(tmp_path, 2, VirtualSetup(animate=False)) as table:
        manager = table.manager
        assert not await manager.wait_acks_due(1.0)  # nothing out: no wait at all
        trips = [c.round_trip_s for c in manager.connections.values()]
        assert all(trip is not None and trip > 0 for trip in trips)
        table.game.apply(GoUpLevel(player=0, levels=1))
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(READY_S):
            while not manager.acks_due_by(loop.time() + READY_S):
                await asyncio.sleep(0)  # looked at every turn of the loop: the pictures go out
        assert await manager.wait_acks_due(READY_S)  # held until they came
        await manager.wait_synced(timeout_s=READY_S)  # (a slow machine: at last)
        assert not manager.acks_due_by(loop.time() + READY_S)


@pytest.mark.parametrize("given", ["nothing", "a file of requests"])
async def test_the_host_ends_with_an_input_it_cannot_watch(tmp_path: Path, given: str):
    # Started by hand with /dev/null or a file for input (Linux cannot poll either), it
    # answers what the input holds and ends with it, cleanly even mid-start.
    requests = tmp_path / "requests"
    requests.write_text('{"id": 1, "op": "echo", "names": ["E"]}\n' if given != "nothing" else "")
    with requests.open("rb") if given != "nothing" else open(os.devnull, "rb") as source:
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "companion.devices.sim.host", "--prestart"],
            stdin=source,
            capture_output=True,
            text=True,
            timeout=EXIT_S,
        )
    assert done.returncode == 0
    assert '"ev":"ready"' in done.stdout
    assert ('"re":1' in done.stdout) == (given != "nothing")
    assert "Traceback" not in done.stderr
