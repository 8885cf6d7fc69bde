"""The app's side of the smart dice: a `DiceHub` beside the UI, what the Devices screen shows
of each die, and "take the next settled roll for this player" for the screens that roll.

The device service owns one (`DeviceService.dice`) and closes it when the app closes. The
dice layer is imported only when first used, so starting the app stays quick. Nothing
here blocks a screen: a wait for a die is a task that calls back, and the screen's own
roll and typed values keep working while it runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ListProperty, StringProperty

from companion.plumbing.tasks import TaskSet
from companion.ui.i18n import _, tr

log = logging.getLogger(__name__)

RollCallback = Callable[[int, str], None]  # (d6 value, which die gave it)


class DiceHost(Protocol):
    """What the dice service needs of the app: a way to tell the table what went wrong."""

    def notify(self, text: str, error: bool = False) -> None:
        """Show a short message across the top; errors in red."""


ProblemCallback = Callable[[str], None]


@dataclass(frozen=True)
class DieRow:
    """What the Devices screen shows of one die."""

    die_id: str
    label: str  # name and shape
    maker: str
    battery_percent: int | None
    last_face: int | None
    motion: str
    connected: bool
    seat: int | None  # a seat, the hub's ANYONE (whoever is rolling), or None (nobody)
    shell: str  # the shell its owner set, for dice that cannot tell ("" for the others)


class DiceService(EventDispatcher):
    """Owns the dice hub for the app's lifetime; screens read its properties."""

    rows = ListProperty([])  # DieRow per die, in the order they were added
    found = ListProperty([])  # dice of the last scan that are not connected yet
    scanning = BooleanProperty(False)
    waiting_text = StringProperty("")  # "Waiting for Ruby (d6)" while a screen waits

    def __init__(self, app: DiceHost, backend: Any = None) -> None:
        super().__init__()
        self.app = app
        self._hub: Any = None
        # The bleak backend dice are reached through (None: the platform's own).
        self.backend: Any = backend
        self._tasks = TaskSet("dice", on_error=self._task_failed)
        # A tumbling die reports several states a second: the screen redraws once a frame.
        self._publish_trigger = Clock.create_trigger(self._publish)

    async def close(self) -> None:
        """Stop waiting and disconnect every die (the app is closing)."""
        await self._tasks.cancel_all()
        if self._hub is not None:
            await self._hub.close()

    # -- what screens call ----------------------------------------------------------------
    @property
    def hub(self) -> Any:
        """The dice hub, made on first use."""
        if self._hub is None:
            from companion.devices.dice import DiceHub

            self._hub = DiceHub()
            self._hub.changes.add(self._publish_trigger)
        return self._hub

    def attach(self, hub: Any) -> None:
        """Use this hub (tests, the simulator) and show its dice."""
        self._hub = hub
        hub.changes.add(self._publish_trigger)
        self._publish()

    def scan(self) -> None:
        """Look for dice in range (results in `found`)."""
        if not self.scanning:
            self.spawn(self._scan())

    def connect(self, found: Any) -> None:
        """Connect a die from the last scan; it rolls for whoever is rolling until assigned."""
        from companion.devices.dice import ANYONE
        from companion.devices.dice.scan import open_source

        self.found = [f for f in self.found if f is not found]
        self.spawn(self.hub.add(open_source(found, backend=self.backend), ANYONE))

    def assign(self, die_id: str, seat: int | None) -> None:
        """Give a die to a seat, to ANYONE ("whoever is rolling") or to nobody."""
        self.hub.assign(die_id, seat)

    def next_assignment(self, die_id: str, players: int) -> None:
        """Step a die's assignment: whoever is rolling, each seat in turn, nobody."""
        from companion.devices.dice import ANYONE

        order: list[int | None] = [ANYONE, *range(players), None]
        current = self.hub.assignment(die_id)
        step = order.index(current) + 1 if current in order else 0
        self.assign(die_id, order[step % len(order)])

    def next_shell(self, die_id: str) -> None:
        """Step the shell of a die that cannot tell which it wears (a GoDice): d6, d4, ..."""
        from companion.devices.dice.godice import GoDiceSource
        from companion.devices.dice.godice_protocol import SHELLS

        source = self.hub.get(die_id)
        if isinstance(source, GoDiceSource):
            step = SHELLS.index(source.die_type) + 1 if source.die_type in SHELLS else 0
            source.set_shell(SHELLS[step % len(SHELLS)])

    def blink(self, die_id: str) -> None:
        """Light a die up so the table can see which one it is."""
        source = self.hub.get(die_id)
        if source is not None:
            self.spawn(source.blink())

    def has_dice_for(self, seat: int) -> bool:
        """True if a connected die rolls for this seat."""
        return self._hub is not None and bool(self._hub.dice_for(seat))

    def wait_roll(
        self,
        seat: int,
        on_roll: RollCallback,
        on_problem: ProblemCallback,
        *,
        blink: bool = True,
        on_end: Callable[[], None] | None = None,
    ) -> Callable[[], None]:
        """Take the next settled d6 of the seat's die; returns a function that stops waiting.

        `on_roll(value, die_label)` gets the result; `on_problem(text)` hears why a roll
        was refused (not a d6: the wait goes on) or why the wait ended (the die went away).
        With no die for the seat nothing happens: the screen's own roll is the way.
        `blink` lights the awaited dice up where they can. `on_end()` hears that the wait
        ended without a roll (after `on_problem` said why), not that it was stopped.
        """
        if not self.has_dice_for(seat):
            return _nothing
        task = self.spawn(self._wait(seat, on_roll, on_problem, blink, on_end or _nothing))
        if task is None:
            return _nothing

        def stop() -> None:
            task.cancel()

        return stop

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any] | None:
        """Run a coroutine of the dice layer on the app's loop (not once the app closes)."""
        return self._tasks.spawn_while_running(coro)

    # -- inside ---------------------------------------------------------------------------
    async def _wait(
        self,
        seat: int,
        on_roll: RollCallback,
        on_problem: ProblemCallback,
        blink: bool,
        on_end: Callable[[], None],
    ) -> None:
        from companion.devices.dice import DiceError, NotAD6Error

        dice = self.hub.dice_for(seat)
        self.waiting_text = _("Waiting for {die}").format(
            die=", ".join(source.label for source in dice)
        )
        try:
            while True:
                try:
                    roll = await self.hub.next_roll(seat, blink=blink)
                    value = roll.d6()
                except NotAD6Error as exc:
                    on_problem(tr(exc))
                    continue  # a d6 may still come
                except DiceError as exc:
                    on_problem(tr(exc))
                    on_end()
                    return
                on_roll(value, roll.label)
                return
        finally:
            self.waiting_text = ""

    async def _scan(self) -> None:
        from companion.devices.dice.scan import scan

        self.scanning = True
        try:
            found = await scan(backend=self.backend)
        except Exception as exc:  # a broken Bluetooth stack must not stop the table
            log.warning("looking for dice failed: %s", exc)
            self.app.notify(_("Looking for dice failed: {error}").format(error=exc), error=True)
            found = []
        finally:
            self.scanning = False
        known = {source.die_id for source in self.hub.dice}
        self.found = [f for f in found if f.device.address not in known]
        if not found:
            self.app.notify(_("No die answered. Roll it once to wake it up, then look again."))

    def _publish(self, *_args: Any) -> None:
        hub = self._hub
        if hub is None:
            self.rows = []
            return
        self.rows = [
            DieRow(
                die_id=s.die_id,
                label=s.label,
                maker=s.maker,
                battery_percent=s.battery_percent,
                last_face=s.last_face,
                motion=s.motion.value,
                connected=s.connected,
                seat=hub.assignment(s.die_id),
                shell=s.die_type.value if s.maker == "GoDice" else "",
            )
            for s in hub.dice
        ]

    def _task_failed(self, _name: str, exc: BaseException) -> None:
        self.app.notify(tr(exc), error=True)


def _nothing() -> None:
    """Stopping a wait that never started."""


def dice_service(app: Any) -> DiceService | None:
    """The app's dice service, or None when the device service is not running in this app."""
    dice = getattr(getattr(app, "devices", None), "dice", None)
    return dice if isinstance(dice, DiceService) else None
