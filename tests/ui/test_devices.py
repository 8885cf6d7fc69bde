"""The Devices screen over the real device layer: virtual counters on a pty and on the
virtual BLE radio, started by the app's device service, assigned by taps, following the game."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from companion.devices.link import LinkState
from companion.devices.status import Access, CounterStatus, Role
from tests.devices.helpers import shows
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

WAIT_S = 20.0  # generous: five counters start, connect, claim and sync on a busy 2-core machine


def lit_bar(frame: Any) -> int:
    """LEDs lit on a tracker's bar."""
    return sum(1 for pixel in frame.pixels[: frame.spaces] if any(pixel))


def brightest(frame: Any) -> int:
    """The strongest channel of any LED on a tracker's bar."""
    return max(max(pixel) for pixel in frame.pixels[: frame.spaces])


def lit_space(frame: Any, level: int) -> int:
    """LEDs lit in one level space of a board."""
    first = (level - 1) * frame.positions
    return sum(1 for pixel in frame.pixels[first : first + frame.positions] if any(pixel))


async def test_virtual_counters_are_assigned_and_show_level_changes(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo", "Dev"])
    service = ui.app.devices
    assert service is not None
    running = asyncio.ensure_future(service.run())
    try:
        await ui.until(
            lambda: len(service.statuses) == 5 and all(s.ours for s in service.statuses),
            "a level board and four trackers are connected and claimed",
        )
        await service.manager.wait_synced(timeout_s=WAIT_S)
        ui.nav("devices")
        screen = ui.screen("devices")
        await ui.until(
            lambda: (
                len(screen.rows) == 5 and all(r.frame is not None for r in screen.rows.values())
            ),
            "every counter's LEDs are pictured",
        )
        statuses = {s.key: s for s in service.statuses}
        trackers = [s for s in statuses.values() if s.role is Role.TRACKER]
        (board,) = [s for s in statuses.values() if s.role is Role.BOARD]
        assert sorted(s.players[0] for s in trackers) == [0, 1, 2, 3]
        assert board.players == (0, 1, 2, 3)
        assert {s.transport for s in statuses.values()} == {"serial", "ble"}
        assert "connected" in screen.rows[board.key].detail
        assert "virtual" in screen.rows[board.key].detail  # a fleet's counter, said so

        # Hand Anna's tracker to Bram with a tap.
        annas = next(s for s in trackers if s.players == (0,))
        assert screen.rows[annas.key].players_text.endswith("Anna")
        ui.tap(screen.rows[annas.key].ids.player)
        await ui.until(
            lambda: {s.key: s for s in service.statuses}[annas.key].players == (1,),
            "the tracker shows Bram",
        )
        assert screen.rows[annas.key].players_text.endswith("Bram")

        # Cleo goes up two levels on the table; her tracker and the board show it.
        cleos = next(s for s in trackers if s.players == (2,))
        # The LEDs' pictures come from the virtual counters' process, 15 times a second.
        await ui.until(
            lambda: (
                lit_bar(service.frames[cleos.key]) == 1
                and lit_space(service.frames[board.key], 1) > 0
            ),
            "the pictures show the game as synced",
        )
        assert lit_space(service.frames[board.key], 3) == 0
        ui.nav("table")
        for _ in range(2):
            ui.tap(ui.screen("table").tiles[2].ids.level.ids.plus)
        assert ui.app.session.state.players[2].level == 3
        await ui.until(
            lambda: (
                lit_bar(service.frames[cleos.key]) == 3
                and lit_space(service.frames[board.key], 3) > 0
            ),
            "Cleo's level 3 reaches the LEDs",
        )
        ui.nav("devices")
        await ui.until(
            lambda: (
                screen.rows[cleos.key].ids.leds.frame is not None
                and lit_bar(screen.rows[cleos.key].ids.leds.frame) == 3
            ),
            "the Devices screen pictures the new frame",
        )

        # Dimmer LEDs from the brightness stepper reach the counters.
        before = brightest(service.frames[cleos.key])
        for _ in range(4):
            ui.tap(screen.ids.brightness.ids.minus)
        assert ui.app.settings.led_brightness == 96 - 4 * 16
        await ui.until(
            lambda: 0 < brightest(service.frames[cleos.key]) < before,
            "the tracker's LEDs dim",
        )
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    assert not service.running


async def test_a_new_game_of_another_table_is_on_the_counters_without_a_restart(
    ui: Harness,
) -> None:
    """Four players, then a New game of eight: the level board shows the new table, and
    the virtual trackers grow to one per player; then a game of three: they shrink."""
    ui.start_game(["Ann", "Bob", "Cleo", "Dana"])
    service = ui.app.devices
    assert service is not None
    running = asyncio.ensure_future(service.run())

    def seated(players: int) -> bool:
        """A board and a tracker per player, all ours, the board showing every player it
        has room for and the trackers a player each."""
        statuses = service.statuses
        if len(statuses) != players + 1 or not all(s.ours for s in statuses):
            return False
        (board,) = [s for s in statuses if s.role is Role.BOARD]
        hello = service.manager.connections[board.key].hello
        room = min(players, hello.slots if hello is not None else 0)
        trackers = sorted(s.players for s in statuses if s.role is Role.TRACKER)
        return board.players == tuple(range(room)) and trackers == [(p,) for p in range(players)]

    async def shown(players: int) -> None:
        await ui.until(lambda: seated(players), f"a board and {players} trackers show the table")
        await service.manager.wait_synced(timeout_s=WAIT_S)
        game = ui.app.session.game
        assert len(game.state.players) == players
        (board,) = [s for s in service.statuses if s.role is Role.BOARD]
        # The LEDs' pictures come from the virtual counters' process: every player the
        # board shows stands in level space 1; every tracker shows the new game's Level.
        await ui.until(
            lambda: (
                board.key in service.frames
                and lit_space(service.frames[board.key], 1) == len(board.players)
                and set(service.frames) == {s.key for s in service.statuses}
            ),
            "the board pictures the new table",
        )

    try:
        await shown(4)
        ui.start_game(["Ann", "Bob", "Cleo", "Dana", "Eve", "Finn", "Gus", "Hana"])
        await shown(8)
        assert service.running  # the same run: nothing restarted
        assert len(service.fleet.counters) == 9

        ui.start_game(["Ivo", "Jo", "Kim"])
        await shown(3)
        assert len(service.fleet.counters) == 4
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    assert not service.running


def test_virtual_counters_follow_the_setting_and_the_command_line(ui: Harness) -> None:
    service = ui.app.devices
    assert service is not None and service.virtual_wanted
    ui.nav("devices")
    screen = ui.screen("devices")
    assert "not running" in screen.activity  # nothing runs the loop in this test
    ui.tap(screen.ids.virtual)
    assert ui.app.settings.virtual_counters is False
    assert not service.virtual_wanted
    assert screen.ids.virtual.text.endswith("off")
    ui.tap(screen.ids.virtual)
    assert service.virtual_wanted
    try:
        ui.app.no_virtual = True  # `companion app --no-virtual`
        assert not service.virtual_wanted
        screen.refresh_now()
        assert screen.ids.virtual.text.endswith("off")
    finally:
        ui.app.no_virtual = False


async def test_switching_virtual_counters_off_and_on_again(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    service = ui.app.devices
    assert service is not None
    running = asyncio.ensure_future(service.run())

    def all_ours(count: int) -> bool:
        statuses = service.statuses
        return len(statuses) == count and all(s.ours for s in statuses)

    try:
        await ui.until(lambda: all_ours(3), "a board and a tracker per player are ours")
        ui.nav("devices")
        screen = ui.screen("devices")
        ui.tap(screen.ids.virtual)
        await ui.until(
            lambda: not service.statuses and service.fleet is None,
            "the virtual counters are gone",
        )
        assert screen.rows == {} and "No counters" in screen.count_text
        ui.tap(screen.ids.virtual)
        await ui.until(lambda: all_ours(3), "virtual counters are back")
        await service.manager.wait_synced(timeout_s=WAIT_S)
        assert len(screen.rows) == 3
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)


@contextlib.asynccontextmanager
async def counters_service(
    ui: Harness, tmp_path: Path, *, in_range: Any, scan_s: float
) -> AsyncIterator[tuple[Any, Any]]:
    """The app's counters' service with a Bluetooth adapter of its own that works: it hears
    the counters of `in_range` (a `VirtualFleet` standing for real ones; None: an adapter
    with no counter in range), and a scan listens `scan_s`. Runs it; yields (service,
    manager); stops it."""
    from companion.devices.sim.bumble_backend import VirtualRadio
    from companion.devices.sync import DeviceManager
    from companion.devices.tokens import TokenStore
    from companion.ui.device_service import DeviceService

    adapter = in_range.backend if in_range is not None else VirtualRadio().bleak_backend()
    manager = DeviceManager(tokens=TokenStore(tmp_path / "counters.json"), backend=adapter)
    service = DeviceService(ui.app, manager=manager, scan_timeout_s=scan_s)
    service.game_changed(ui.app.session.game)
    running = asyncio.ensure_future(service.run())
    try:
        yield service, manager
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        if in_range is not None:
            await in_range.stop()
    assert not service.running


async def test_virtual_counters_show_the_game_while_bluetooth_is_still_searched(
    ui: Harness, tmp_path: Path
) -> None:
    """A computer whose Bluetooth works but hears no counter (most laptops): the virtual
    counters do not wait for the seconds a scan takes; they show the game while it runs."""
    ui.start_game(["Anna", "Bram", "Cleo"])
    # A scan far longer than any start: the counters must be up while it still listens.
    async with counters_service(ui, tmp_path, in_range=None, scan_s=600.0) as (service, manager):
        await ui.until(
            lambda: len(service.statuses) == 4 and all(s.ours for s in service.statuses),
            "a level board and three trackers are claimed",
        )
        await manager.wait_synced(timeout_s=WAIT_S)
        assert service.fleet is not None
        assert service.activity == "Looking for counters\u2026"  # the scan goes on
        assert ui.banner() == ""  # nothing to say: no real counter answered


async def test_a_real_counter_that_answers_takes_the_virtual_counters_place(
    ui: Harness, tmp_path: Path
) -> None:
    """The virtual counters started at once; the scan beside them then hears a real
    tracker: the virtual ones stop, the real one shows the game, and the app says so."""
    from companion.devices.sim.fleet import VirtualFleet

    ui.start_game(["Anna", "Bram"])
    # Stands for a tracker in Bluetooth range: its own radio, reached only by a scan.
    in_range = VirtualFleet()
    real = await in_range.add(Role.TRACKER, "ble", claim_on_hello=True)
    # Every list of counters the service published, as it published it (the scan may end
    # before the virtual counters have finished starting on a busy machine).
    virtual_keys: set[str] = set()
    async with counters_service(ui, tmp_path, in_range=in_range, scan_s=1.0) as (
        service,
        manager,
    ):

        def published(_service: object, statuses: list[CounterStatus]) -> None:
            virtual_keys.update(s.key for s in statuses if service.is_virtual(s.key))

        service.bind(statuses=published)
        await the_real_tracker_alone_shows_the_game(ui, service, manager, real)
        assert len(virtual_keys) == 3  # a virtual board and two trackers had started
        assert service.fleet is None and not service.frames
        assert "virtual counters stopped" in ui.banner()
        assert service.statuses[0].players == (0,)  # Anna's


async def test_real_counters_play_when_the_virtual_ones_fail_to_start(
    ui: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The virtual counters' process cannot start them (say, it ended): a real tracker the
    scan beside it heard still shows the game."""
    from companion.devices.sim import remote
    from companion.devices.sim.fleet import VirtualFleet
    from companion.devices.sim.process import HostError

    async def cannot_start(*_args: object) -> None:
        raise HostError("the virtual counters' process ended")

    monkeypatch.setattr(remote.RemoteFleet, "start", cannot_start)
    ui.start_game(["Anna", "Bram"])
    in_range = VirtualFleet()
    real = await in_range.add(Role.TRACKER, "ble", claim_on_hello=True)
    async with counters_service(ui, tmp_path, in_range=in_range, scan_s=0.5) as (
        service,
        manager,
    ):
        await the_real_tracker_alone_shows_the_game(ui, service, manager, real)
        assert service.running and service.fleet is None


async def the_real_tracker_alone_shows_the_game(
    ui: Harness, service: Any, manager: Any, real: Any
) -> None:
    await ui.until(
        lambda: [s.key for s in service.statuses] == [real.key] and service.statuses[0].ours,
        "the real tracker alone is connected and claimed",
    )
    await manager.wait_synced(timeout_s=WAIT_S)
    assert shows(real, ui.app.session.game)


def test_a_counter_that_is_not_the_one_claimed_here_says_so() -> None:
    from companion.ui.screens.devices import status_line

    status = CounterStatus(
        key="ble:C0:00:00:00:00:09",
        transport="ble",
        name="MCounter-1234",
        address="C0:00:00:00:00:09",
        connection=LinkState.OPEN,
        access=Access.MISMATCH,
        last_problem="answers at C0:00:00:00:00:09 but was claimed at C0:00:00:00:00:01",
    )
    assert "not the counter claimed here" in status_line(status)


async def test_the_devices_screen_says_when_another_program_is_on_a_counters_line(
    ui: Harness,
) -> None:
    import os

    from companion.devices import framing, wire

    ui.start_game(["Anna", "Bram"])
    service = ui.app.devices
    assert service is not None
    running = asyncio.ensure_future(service.run())
    intruder = None
    try:
        await ui.until(
            lambda: len(service.statuses) == 3 and all(s.ours for s in service.statuses),
            "a board and a tracker per player are ours",
        )
        ui.nav("devices")
        screen = ui.screen("devices")
        board = next(s for s in service.statuses if s.role is Role.BOARD)
        assert board.transport == "serial"
        assert "disturbed" not in screen.rows[board.key].detail
        # Another program opens the board's port and writes AUTHs with no body: the board
        # answers each with an error about that program's message, not the app's.
        intruder = os.open(board.address, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        sent = [0]

        def disturbed() -> bool:
            sent[0] += 1
            os.write(intruder, framing.frame(bytes([wire.MSG_AUTH, sent[0] % 250 + 1, 0])))
            return "disturbed" in screen.rows[board.key].detail

        await ui.until(disturbed, "the board's row says its line is disturbed")
        status = next(s for s in service.statuses if s.key == board.key)
        assert status.ours and status.reconnects == board.reconnects  # nothing knocked off
    finally:
        if intruder is not None:
            os.close(intruder)
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)


def test_find_dice_without_bluetooth_says_so(ui: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """A phone or computer with no Bluetooth in the app: the tap is answered, not ignored."""
    from companion.ui.screens import devices

    monkeypatch.setattr(devices, "dice_service", lambda app: None)
    ui.app.show("devices")
    ui.pump()
    screen = ui.screen("devices")
    screen.find_dice()
    ui.pump()
    assert "Bluetooth is not available" in ui.banner()


async def test_a_counter_started_in_safe_mode_says_so_and_its_row_fits_a_phone(
    ui: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sentence asking for the firmware again, in long languages, light and dark."""
    import os

    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    from companion.devices.sim import process
    from companion.ui import i18n
    from tests.ui.test_contrast import poor_contrast
    from tests.ui.test_layout_states import problems_on_show

    # The virtual counters in this process, where a board can be started in safe mode.
    monkeypatch.setattr(process, "can_spawn", lambda: False)
    ui.start_game(["Anna", "Bram"])
    service = ui.app.devices
    assert service is not None
    running = asyncio.ensure_future(service.run())
    problems: list[str] = []
    shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
    try:
        await ui.until(
            lambda: len(service.statuses) == 3 and all(s.ours for s in service.statuses),
            "a board and a tracker per player are ours",
        )
        board = next(s for s in service.statuses if s.role is Role.BOARD)
        service.fleet.counter(board.key).start_in_safe_mode(5)
        await ui.until(
            lambda: any(s.safe_mode for s in service.statuses if s.key == board.key),
            "the board reports its safe mode",
        )
        status = next(s for s in service.statuses if s.key == board.key)
        assert not status.ours  # it was, before it restarted in safe mode
        ui.nav("devices")
        for language, theme in (("de", "light"), ("de", "dark"), ("ru", "light"), ("ru", "dark")):
            i18n.set_language(language)
            ui.app.theme.apply(theme)
            ui.pump(frames=4)
            screen = ui.screen("devices")
            row = screen.rows[board.key]
            english = "This counter started in safe mode after {n} failed starts; install the "
            english += "firmware again."
            said = i18n.ngettext(english.replace("starts;", "start;"), english, 5).format(n=5)
            assert row.problem == said != english.format(n=5)  # in the language on show
            parts = [part.strip() for part in row.detail.split("\u00b7")]
            assert not row.ours and i18n._("ours") not in parts
            # It takes no claim, so no Claim button is offered (an install is what helps).
            claim = row.ids.claim
            assert claim.disabled and claim.width == 0 and claim.opacity == 0
            scroller = row.parent
            while not isinstance(scroller, ScrollView):
                scroller = scroller.parent
            scroller.scroll_to(row, animate=False)
            ui.pump(frames=4)
            where = f"safe mode ({language}, {theme})"
            problems += problems_on_show(ui, where)
            problems += [f"{where}: contrast {found}" for found in poor_contrast(ui)]
            if shot:  # pictures to look at: COMPANION_LAYOUT_SHOTS=/some/folder
                Window.screenshot(f"{shot}/devices-safe-mode-{language}-{theme}.png")
    finally:
        i18n.set_language("en")
        ui.app.theme.apply("dark")
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        ui.pump()
    assert not problems, "\n".join(problems)
