"""The app's side of the device layer: runs the `DeviceManager` beside the UI, on the same loop.

The service starts with the app: it looks for counters and starts virtual ones unless
they are switched off (in Settings or by `--no-virtual`; a `VirtualFleet` beside the
manager, whose links the manager takes like any other). Where a real counter was claimed
before, the virtual ones start only when no hardware answers; elsewhere they start at
once, and a real counter that answers takes their place. It follows whichever game is
open (a game at another table seats the counters again, and the virtual trackers grow
or shrink to one per player), and publishes what the Devices screen shows as Kivy
properties. Bursts of LED frames (virtual counters animate at 30 frames a second) are
coalesced into at most `FRAME_RATE_HZ` updates of the screen.

The device layer is imported only when the service runs, so starting the app stays quick.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kivy.app import App
from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, DictProperty, ListProperty, StringProperty

from companion.core.phrase import Phrase
from companion.plumbing.tasks import TaskSet
from companion.ui.android_permissions import ask_android_permissions
from companion.ui.dice_service import DiceService
from companion.ui.i18n import _, tr

if TYPE_CHECKING:
    from companion.core import Game
    from companion.store import Settings

log = logging.getLogger(__name__)

FRAME_RATE_HZ = 15  # LED pictures redraw this often at most: smooth enough, cheap on a phone
IDENTIFY_S = 5  # how long a counter blinks when the table asks "which one is this?"
FIRST_FRAME_WAIT_S = 2.0  # s: a window that has not drawn by then is not coming soon
STOP_TIMEOUT_S = 2.0  # s: closing every link takes milliseconds; past this the app quits anyway


class DeviceHost(Protocol):
    """What the counters' service needs of the app (the app is the one real host)."""

    settings: Settings
    # `companion app --no-virtual`: do not start virtual counters.
    no_virtual: bool
    # Where the claim tokens are kept (None: the platform's data folder).
    data_dir: Path | None

    def notify(self, text: str, error: bool = False) -> None:
        """Show a short message across the top; errors in red."""


class DeviceService(EventDispatcher):
    """Owns the `DeviceManager` for the app's lifetime; screens read its properties."""

    # CounterStatus objects, in the order the counters were added.
    statuses = ListProperty([])
    # Counter key -> latest LedFrame (virtual counters only).
    frames = DictProperty({})
    # CounterInfo objects of the last scan that are not connected yet.
    found = ListProperty([])
    running = BooleanProperty(False)
    scanning = BooleanProperty(False)
    # A sentence for the Devices screen about what the service is doing.
    activity = StringProperty("")
    # Counter key -> `InstallView` of a firmware install going on or just ended.
    installs = DictProperty({})
    # Boards with no MicroPython yet (`bare.BareBoard`), from the last look for them.
    bare = ListProperty([])
    looking_bare = BooleanProperty(False)

    def __init__(
        self,
        app: DeviceHost,
        manager: Any = None,
        durable: Callable[[int], Awaitable[object]] | None = None,
        scan_timeout_s: float | None = None,
    ) -> None:
        super().__init__()
        self.app = app
        self.manager: Any = manager
        # How long a look for counters listens on Bluetooth (None: `discovery`'s default).
        self.scan_timeout_s = scan_timeout_s
        # A counter's press is acknowledged once this finishes for the open game's change
        # (the game recorder's `wait_durable`); None: as soon as it is applied.
        self._durable = durable
        # The virtual counters (a `VirtualFleet`) while they run, else None.
        self.fleet: Any = None
        # Held while virtual counters start, stop or are fitted to the table (made anew by
        # every run: a lock waited on belongs to its loop).
        self._fleet_lock = asyncio.Lock()
        # True while a screen shows the counters' LEDs (`show_leds`).
        self._leds_shown = False
        self._injected = manager is not None
        self._game: Game | None = None
        self._pending_frames: dict[str, Any] = {}
        self._frames_trigger = Clock.create_trigger(self._publish_frames, 1 / FRAME_RATE_HZ)
        self._statuses_trigger = Clock.create_trigger(self._publish_statuses)
        self._tasks = TaskSet("counters", on_error=self._task_failed)
        self._unsubscribe: list[Callable[[], None]] = []
        # False on an Android phone whose user refused the Bluetooth permissions.
        self.ble_allowed = True
        # Counter key -> its name, for the rows of installs (the counter is away meanwhile).
        self._install_names: dict[str, str] = {}
        # Bare board key -> the counter (pin map) it becomes, and whether it is erased first.
        self.bare_becomes: dict[str, str] = {}
        self.bare_erase: dict[str, bool] = {}
        # Smart dice, beside the counters (connected only when the table asks for them).
        self.dice = DiceService(app)

    # -- what the app calls ---------------------------------------------------------------
    async def run(self) -> None:
        """Find counters (or start virtual ones), then keep them in step until cancelled."""
        # The table comes first: the device layer (bleak, Bumble, pyserial) is imported and
        # the counters are looked for only once the window has drawn its first frame.
        await _first_frame()
        if self.virtual_wanted and self._game is not None:
            # In case no hardware answers: the virtual counters' process connects to them
            # while the device layer loads here (it ends if real counters answer).
            from companion.devices.sim.process import start_counters_ahead

            await start_counters_ahead(len(self._game.state.players))
        manager = self.manager
        if manager is None or not self._injected:
            manager = self.manager = self._new_manager()  # a fresh one for every run
        self._fleet_lock = asyncio.Lock()
        self._unsubscribe = [manager.on_status(lambda _status: self._statuses_trigger())]
        self.running = True
        try:
            if self._game is not None:
                manager.set_game(self._game)
            self.activity = _("Looking for counters\u2026")
            # Started apart and awaited through a shield: a cancellation that reaches a BLE
            # connect in progress can be lost inside the stack, but ours must not be.
            starting = self._tasks.spawn(
                self._connect_all(virtual=self.virtual_wanted), "looking for counters"
            )
            await asyncio.shield(starting)
            self.activity = ""
            await asyncio.Event().wait()  # until the app cancels the service
        finally:
            self.running = False
            for unsubscribe in self._unsubscribe:
                unsubscribe()
            for task in self._tasks:
                task.cancel()
            # Bounded: a connection caught half-open must not keep the window from closing.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(manager.stop()), STOP_TIMEOUT_S)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._stop_virtual()), STOP_TIMEOUT_S)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.dice.close()), STOP_TIMEOUT_S)
            self._pending_frames = {}
            if App.get_running_app() is not None:
                # Nothing runs now: the screens show no counter that is gone, nor its last
                # LEDs. After a quit the app is gone, and with it every screen to tell.
                self.statuses = []
                self.frames = {}

    async def wait_acks_due(self, budget_s: float) -> bool:
        """Wait, at most `budget_s`, for the counters' acknowledgements due within it (see
        `frames`); False at once when none is."""
        manager = self.manager
        if not self.running or manager is None:
            return False
        return bool(await manager.wait_acks_due(budget_s))

    def game_changed(self, game: Game | None) -> None:
        """Counters follow the open game; with none open they keep the last one on show.

        A game at another table seats the counters again (`DeviceManager.set_game`), and
        the virtual trackers become one per player of it."""
        self._game = game
        if game is not None and self.manager is not None and self.running:
            self.manager.set_game(game)
            if self.fleet is not None:
                self.spawn(self._fit_virtual())

    def settings_changed(self, settings: Settings) -> None:
        """Brightness goes to the counters at once; virtual counters start or stop."""
        if not self.running:
            return
        self._apply_brightness()
        virtual = self.virtual_wanted
        if virtual and self.fleet is None:
            self.spawn(self._start_virtual())
        elif not virtual and self.fleet is not None:
            self.spawn(self._restart(virtual=False))

    # -- what screens call ----------------------------------------------------------------
    @property
    def virtual_wanted(self) -> bool:
        """Virtual counters are wanted unless switched off in Settings or on the command line."""
        return bool(self.app.settings.virtual_counters and not self.app.no_virtual)

    def scan(self) -> None:
        """Look for counters that are not connected yet (results in `found`)."""
        if self.running and not self.scanning:
            self.spawn(self._scan())

    def connect(self, info: Any) -> None:
        """Connect to a counter from the last scan."""
        if self.manager is None:
            return
        self.manager.add_counter(info)
        self.found = [f for f in self.found if f is not info]
        self._apply_brightness()
        self._publish_statuses()

    def identify(self, key: str) -> None:
        """Blink one counter so the table can see which one it is."""
        if self.manager is not None and key in self.manager.connections:
            self.spawn(self.manager.identify(key, IDENTIFY_S))

    def assign(self, key: str, seats: tuple[int, ...]) -> None:
        """Show these players on a counter (one for a tracker), then blink it."""
        if self.manager is None:
            return
        try:
            self.manager.assign(key, seats)
        except (ValueError, KeyError) as exc:
            self.app.notify(str(exc).strip("'\""), error=True)
            return
        self.identify(key)
        self._publish_statuses()

    def claim(self, key: str) -> None:
        """Let a long press on the counter add it to this table (a virtual one is pressed)."""
        manager = self.manager
        if manager is None or key not in manager.connections:
            return
        manager.open_claiming()
        counter = self.fleet.counter(key) if self.fleet is not None else None
        if counter is not None:
            counter.open_claim_window()  # the long press a person would make

    def can_install(self, key: str) -> bool:
        """True for a counter on USB whose firmware this app can install (not a virtual one)."""
        status = next((s for s in self.statuses if s.key == key), None)
        view = self.installs.get(key)
        return (
            status is not None
            and status.transport == "serial"
            and not self.is_virtual(key)
            and not (view is not None and view.busy)
        )

    def install_firmware(self, key: str) -> None:
        """Install the firmware this app ships on a counter on USB; `installs` follows it."""
        status = next((s for s in self.statuses if s.key == key), None)
        if status is None or not self.can_install(key):
            return
        name = status.name
        self._install_names[key] = name
        self._show_install(
            key, InstallView(True, 0.0, Phrase("Stopping the link to the counter\u2026"))
        )
        self.spawn(self._install(key, status.address))

    @property
    def can_make_counters(self) -> bool:
        """True where boards with no MicroPython can be written: a computer, not a phone."""
        from kivy.utils import platform

        return platform not in ("android", "ios")

    def look_for_bare(self) -> None:
        """Look for boards with no MicroPython yet (on USB ports no counter of ours holds)."""
        if self.looking_bare or not self.can_make_counters:
            return
        self.looking_bare = True
        self.spawn(self._look_for_bare())

    def write_bare(self, board: Any, path: Path, pinout: str, erase: bool) -> str:
        """Write MicroPython from `path` on a bare board, then the counter firmware.

        Returns "" when it started (its row in `installs` follows it), else why the image
        was refused, in one line.
        """
        from companion.devices.bare import RP2040, InstallError, check_image

        assert board.chip is not None
        try:
            image = check_image(path, board.chip)
        except InstallError as exc:
            return tr(exc)
        view = self.installs.get(board.key)
        if view is not None and view.busy:
            return ""
        # Its row's title: "Firmware for ESP32-S3" (a port's name does not fit a phone).
        self._install_names[board.key] = (
            "Raspberry Pi Pico" if board.chip == RP2040 else str(board.chip)
        )
        self._show_install(board.key, InstallView(True, 0.0, Phrase("Writing MicroPython\u2026")))
        self.spawn(self._write_bare(board, image, pinout, erase))
        return ""

    def dismiss_install(self, key: str) -> None:
        """Forget an install that has ended (its row goes from the Devices screen)."""
        view = self.installs.get(key)
        if view is not None and not view.busy:
            installs = dict(self.installs)
            del installs[key]
            self.installs = installs

    @property
    def tokens_problem(self) -> str:
        """Why the saved claim tokens could not be read or saved ("" when all is well)."""
        tokens = getattr(self.manager, "tokens", None)
        return getattr(tokens, "problem", None) or ""

    def is_virtual(self, key: str) -> bool:
        """True for a counter simulated on this computer."""
        return self.fleet is not None and self.fleet.counter(key) is not None

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any] | None:
        """Run a coroutine of the device layer on the app's loop (not once the app closes)."""
        return self._tasks.spawn_while_running(coro)

    # -- inside ---------------------------------------------------------------------------
    async def _install(self, key: str, port: str) -> None:
        """The link lets go of the port, the firmware goes on, the counter comes back."""
        from companion.devices.discovery import discover
        from companion.devices.install import Installer, InstallError, shipped_version

        manager = self.manager
        await manager.remove(key)  # the install needs the port to itself
        self._publish_statuses()
        before: str | None = None

        def heard(progress: Any) -> None:
            self._show_install(key, InstallView(True, progress.fraction, install_step(progress)))

        installer = Installer(port, tokens=manager.tokens, identify=False, on_progress=heard)
        try:
            before = await installer.ask()
            result = await installer.run()
        except InstallError as exc:
            view = InstallView(False, 0.0, said(exc), error=True)
        except Exception as exc:
            log.warning("the install on %s failed", port, exc_info=True)
            view = InstallView(False, 0.0, said(exc), error=True)
        else:
            if result.installed:
                text = Phrase(
                    "Firmware {after} installed (it ran {before}).",
                    after=result.after,
                    before=result.before or Phrase("none"),
                )
            else:
                text = Phrase(
                    "It already runs firmware {version}, the newest: nothing to do.",
                    version=before or shipped_version(),
                )
            view = InstallView(False, 1.0, text)
        # The counter comes back on the Devices screen, and blinks to show which one it is.
        try:
            found = await discover(serial_ports=[port], use_ble=False, tokens=manager.tokens)
        except Exception:
            log.warning("the counter on %s did not come back", port, exc_info=True)
            found = []
        for info in found:
            connection = manager.add_counter(info)
            self._show_install(connection.key, view)
            self._apply_brightness()
            self._publish_statuses()
            with contextlib.suppress(Exception):
                await manager.wait_ours(timeout_s=5.0)
                await manager.identify(connection.key, IDENTIFY_S)
        if not found:
            self._show_install(key, view)

    async def _look_for_bare(self) -> None:
        from companion.devices.bare import find_bare

        held = [s.address for s in self.statuses if s.transport == "serial"]
        try:
            self.bare = await asyncio.to_thread(find_bare, skip=held)
        finally:
            self.looking_bare = False

    async def _write_bare(self, board: Any, image: Any, pinout: str, erase: bool) -> None:
        """MicroPython goes on, then the counter firmware; the new counter joins the table."""
        from companion.devices.bare import make_counter
        from companion.devices.discovery import discover
        from companion.devices.install import InstallError

        key = board.key
        manager = self.manager

        def heard(progress: Any) -> None:
            self._show_install(key, InstallView(True, progress.fraction, install_step(progress)))

        tokens = getattr(manager, "tokens", None)
        try:
            result = await make_counter(
                board,
                image,
                pinout=pinout,
                erase=erase,
                on_progress=heard,
                tokens=tokens,
                identify=False,
            )
        except InstallError as exc:
            self._show_install(key, InstallView(False, 0.0, said(exc), error=True))
            return
        except Exception as exc:
            log.warning("writing MicroPython on %s failed", board.where, exc_info=True)
            self._show_install(key, InstallView(False, 0.0, said(exc), error=True))
            return
        self.bare = [b for b in self.bare if b.key != key]
        text = Phrase(
            "MicroPython and counter firmware {version} are on the board.", version=result.after
        )
        self._show_install(key, InstallView(False, 1.0, text))
        if manager is None:
            return
        try:
            found = await discover(serial_ports=[result.port], use_ble=False, tokens=tokens)
        except Exception:
            log.warning("the new counter on %s did not answer", result.port, exc_info=True)
            found = []
        for info in found:
            manager.add_counter(info)
            self._apply_brightness()
            self._publish_statuses()

    def _show_install(self, key: str, view: InstallView) -> None:
        view = replace(view, name=self._install_names.get(key, key))
        installs = dict(self.installs)
        installs[key] = view
        self.installs = installs

    def _new_manager(self) -> Any:
        from companion.devices.sync import DeviceManager
        from companion.devices.tokens import TOKENS_FILE, TokenStore

        folder = self.app.data_dir
        tokens = TokenStore(folder / TOKENS_FILE) if folder is not None else TokenStore()
        return DeviceManager(tokens=tokens, persist=self._durable)

    async def _connect_all(self, virtual: bool) -> None:
        manager = self.manager
        if virtual and not manager.tokens.remembers_counters():
            # No real counter was ever claimed here, so the table most likely plays with
            # virtual ones, and a Bluetooth scan for real ones takes seconds: the virtual
            # counters start at once and the look for real ones goes on beside them. Any
            # that answers takes their place.
            looking = self._tasks.spawn(self._look_for_counters(), "looking for counters")
            try:
                await self._run_virtual()
            except Exception:
                found = await looking
                if not found:
                    raise  # as when nothing answers: the virtual counters were all there was
                # Real counters answered: the table plays on with them.
                log.warning("the virtual counters did not start", exc_info=True)
            else:
                self._apply_brightness()
                self._publish_statuses()
                found = await looking
            if found:
                await self._real_instead_of_virtual(found)
        else:
            # Counters claimed here before are most likely on the table: they are looked
            # for first, and virtual ones start only if none answers.
            found = await self._look_for_counters()
            for info in found:
                manager.add_counter(info)
            if not found and virtual:
                await self._run_virtual()
            else:
                from companion.devices.sim.process import discard_early

                discard_early()  # started as the app opened, in case none answered
        self._apply_brightness()
        self._publish_statuses()

    async def _look_for_counters(self) -> list[Any]:
        """The counters that answer on serial and Bluetooth (none when it cannot look)."""
        self.ble_allowed = await ask_android_permissions()
        try:
            return await self._discover()
        except Exception as exc:  # a broken Bluetooth stack must not stop the table
            log.warning("looking for counters failed: %s", exc)
            return []

    async def _real_instead_of_virtual(self, found: list[Any]) -> None:
        """Real counters answered while the virtual ones showed the game: the virtual ones
        stop and the real ones connect, as if they had answered first."""
        manager = self.manager
        virtual = [key for key in manager.connections if self.is_virtual(key)]
        await self._stop_counters()
        for key in virtual:  # the players shown on them are no one's choice for a real one
            manager.unassign(key)
        for info in found:
            manager.add_counter(info)
        log.info("%d counter(s) answered: the virtual counters stopped", len(found))
        self.app.notify(_("A real counter answered: the virtual counters stopped."))

    async def _start_virtual(self) -> None:
        self.activity = _("Starting virtual counters\u2026")
        try:
            await self._run_virtual()
            self._apply_brightness()
        finally:
            self.activity = ""
            self._publish_statuses()

    async def _run_virtual(self) -> None:
        """Start the virtual counters and hand their links to the manager."""
        from companion.devices.sim.fleet import VirtualSetup

        if self.fleet is not None:
            return
        async with self._fleet_lock:  # a new table meanwhile: fitted once they run
            fleet = self.fleet = self._new_fleet()
            self._unsubscribe.append(fleet.on_frame(self._frame))
            players = len(self._game.state.players) if self._game is not None else 4
            await fleet.start(VirtualSetup(), players)
            self._animate(fleet)
            await fleet.join(self.manager)

    async def _fit_virtual(self) -> None:
        """One virtual tracker per player of the open game: more start for a larger table
        (each takes the first seat no tracker shows), the spare ones of a smaller table
        are switched off."""
        import dataclasses

        from companion.devices.sim.fleet import VirtualSetup
        from companion.devices.status import Role

        async with self._fleet_lock:
            fleet, manager, game = self.fleet, self.manager, self._game
            if fleet is None or game is None:
                return
            setup = VirtualSetup()
            wanted = setup.trackers_for(len(game.state.players))
            trackers = [c for c in fleet.counters if c.role is Role.TRACKER]
            if len(trackers) < wanted:
                more = dataclasses.replace(setup, boards=0, trackers=wanted - len(trackers))
                started = await fleet.start(more, wanted)
                await fleet.join(manager, started)
            for counter in spare_trackers(trackers, len(trackers) - wanted, manager):
                await manager.remove(counter.key)
                await fleet.remove(counter)
                self._pending_frames.pop(counter.key, None)
                self.frames = {k: f for k, f in self.frames.items() if k != counter.key}
            self._apply_brightness()
            self._publish_statuses()

    def show_leds(self, on: bool) -> None:
        """A screen shows the counters' LEDs (on) or stopped (off): virtual counters in
        their own process animate only while one does; a change is pictured either way."""
        self._leds_shown = on
        if self.fleet is not None:
            self._animate(self.fleet)

    def _animate(self, fleet: Any) -> None:
        animate = getattr(fleet, "animate", None)  # an in-process fleet always animates
        if animate is not None:
            animate(self._leds_shown)

    def _new_fleet(self) -> Any:
        """Virtual counters in a process of their own where one can be started (their BLE
        stack and firmware then load and run on another core), else in this one."""
        from companion.devices.sim.process import can_spawn

        if can_spawn():
            from companion.devices.sim.remote import RemoteFleet

            fleet = RemoteFleet()
            self._unsubscribe.append(fleet.on_gone(self._virtual_gone))
            return fleet
        from companion.devices.sim.fleet import VirtualFleet

        return VirtualFleet()

    def _virtual_gone(self, why: str) -> None:
        log.warning("the virtual counters' process ended: %s", why)
        self.app.notify(_("The virtual counters stopped unexpectedly."), error=True)

    async def _stop_virtual(self) -> None:
        fleet, self.fleet = self.fleet, None
        if fleet is not None:
            await fleet.stop()

    async def _restart(self, virtual: bool) -> None:
        """Stop every counter and connect again (how virtual counters are switched off)."""
        self.activity = _("Reconnecting counters\u2026")
        try:
            await self._stop_counters()
            await self._connect_all(virtual=virtual)
        finally:
            self.activity = ""

    async def _stop_counters(self) -> None:
        """Every counter disconnected and the virtual ones stopped; the manager still
        follows the game, ready for the counters connected next."""
        async with self._fleet_lock:  # not while they are fitted to a new table
            await self.manager.stop()
            await self._stop_virtual()
        self.frames = {}
        if self._game is not None:
            self.manager.set_game(self._game)

    async def _discover(self) -> list[Any]:
        """The counters that answer, each scan listening `scan_timeout_s`."""
        from companion.devices.discovery import SCAN_TIMEOUT_S, discover

        scan_s = self.scan_timeout_s if self.scan_timeout_s is not None else SCAN_TIMEOUT_S
        return await discover(
            backend=self.manager.backend, use_ble=self.ble_allowed, scan_timeout_s=scan_s
        )

    async def _scan(self) -> None:
        self.scanning = True
        self.activity = _("Scanning\u2026")
        try:
            found = await self._discover()
        except Exception as exc:
            log.warning("scan failed: %s", exc)
            self.app.notify(tr(exc), error=True)
            found = []
        finally:
            self.scanning = False
            self.activity = ""
        known = {connection.link.address for connection in self.manager.connections.values()}
        self.found = [info for info in found if info.address not in known]
        if not found:
            self.app.notify(_("No counter answered. Is it switched on and in range?"))

    def _apply_brightness(self) -> None:
        from companion.devices import wire
        from companion.devices.projection import Part

        level = int(self.app.settings.led_brightness)
        for connection in self.manager.connections.values():
            connection.set_desired(Part.BRIGHTNESS, wire.ConfigBrightness(level))

    def _frame(self, key: str, frame: Any) -> None:
        self._pending_frames[key] = frame
        self._frames_trigger()

    def _publish_frames(self, *_args: Any) -> None:
        if App.get_running_app() is None:
            # After a quit the counters still animate while they stop, but the app is
            # gone, and with it every screen a frame would be drawn on.
            self._pending_frames = {}
            return
        if self._pending_frames:
            merged = dict(self.frames)
            merged.update(self._pending_frames)
            self._pending_frames = {}
            self.frames = merged

    def _publish_statuses(self, *_args: Any) -> None:
        if App.get_running_app() is None:
            return  # after a quit: no screen left to tell
        self.statuses = list(self.manager.statuses()) if self.manager is not None else []

    def _task_failed(self, _name: str, exc: BaseException) -> None:
        self.app.notify(tr(exc), error=True)


@dataclass(frozen=True)
class InstallView:
    """What a counter's row shows of a firmware install: going on, how far, and what it
    says: kept as said (a `Phrase`: its template and values), so the screen words it in
    the language on show when it shows it (`words`)."""

    busy: bool
    fraction: float
    text: str
    error: bool = False
    name: str = ""

    def words(self) -> str:
        """What it says, in the language on show."""
        return tr(self.text)


def said(exc: BaseException) -> str:
    """What an error says, kept as said: its Phrase when it has one (worded when shown)."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Phrase) else str(exc)


def install_step(progress: Any) -> Phrase:
    """One step of an install, with the files and bytes while copying (worded when shown)."""
    from companion.devices.install import Step

    if progress.step is Step.COPYING:
        return Phrase(
            "Copying files: {done} of {total} ({kb_done:.0f} of {kb_total:.0f} KB)",
            done=progress.files_done,
            total=progress.files_total,
            kb_done=progress.bytes_done / 1024,
            kb_total=progress.bytes_total / 1024,
        )
    if progress.step is Step.FLASHING:
        return Phrase(
            "Writing MicroPython: {kb_done:.0f} of {kb_total:.0f} KB",
            kb_done=progress.bytes_done / 1024,
            kb_total=progress.bytes_total / 1024,
        )
    texts = {
        Step.ERASING: Phrase("Erasing the board's flash\u2026"),
        Step.REBOOTING: Phrase("Waiting for the board to start MicroPython\u2026"),
        Step.ASKING: Phrase("Asking the counter which firmware it runs\u2026"),
        Step.STOPPING: Phrase("Stopping the counter (it keeps its table)\u2026"),
        Step.CHECKING: Phrase("Checking the copied files\u2026"),
        Step.SWAPPING: Phrase("Putting the new firmware in place\u2026"),
        Step.STARTING: Phrase("Starting the counter with its new firmware\u2026"),
        Step.DONE: Phrase("Finished."),
    }
    return texts[progress.step]


def spare_trackers(trackers: list[Any], count: int, manager: Any) -> list[Any]:
    """The `count` of `trackers` (in the order they started) a smaller table needs least:
    first those the user did not choose that show no player or one an earlier tracker
    shows too, then the others the user did not choose, then the rest; later ones first."""
    if count <= 0:
        return []
    shown: set[int] = set()
    needless: set[str] = set()  # they show no player, or one shown already
    for tracker in trackers:
        seats = manager.assignments.get(tracker.key, ())
        if not seats or seats[0] in shown:
            needless.add(tracker.key)
        shown.update(seats[:1])

    def needed(numbered: tuple[int, Any]) -> tuple[int, int]:
        index, tracker = numbered
        if tracker.key in manager.chosen:
            return (2, -index)
        return (0 if tracker.key in needless else 1, -index)

    return [tracker for _index, tracker in sorted(enumerate(trackers), key=needed)[:count]]


async def _first_frame(timeout_s: float = FIRST_FRAME_WAIT_S) -> None:
    from kivy.core.window import Window

    drawn = asyncio.Event()

    def flipped(*_args: Any) -> None:
        drawn.set()

    Window.bind(on_flip=flipped)
    try:
        async with asyncio.timeout(timeout_s):
            await drawn.wait()
    except TimeoutError:
        log.info("no frame drawn within %.1f s; starting the counters anyway", timeout_s)
    finally:
        Window.unbind(on_flip=flipped)
