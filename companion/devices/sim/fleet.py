"""The virtual counters one process runs: made by role and carrier, switched off together.

A `VirtualFleet` owns what its counters share: the folder their pseudo-terminals
are published in (a temporary one unless given) and the in-process BLE radio,
each made on first need and taken down by `stop()`. It hands the app's link to
each counter to a device manager like any other link (`join`), and passes on the
counters' LED frames by the key the app knows each counter by.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from companion.devices.sim.frames import LedFrame
from companion.devices.status import Role
from companion.plumbing.listeners import Listeners
from companion.plumbing.tasks import guarded

if TYPE_CHECKING:
    from companion.devices.ble_link import BleBackend
    from companion.devices.link import Link
    from companion.devices.sim.bumble_backend import VirtualRadio
    from companion.devices.sim.counters import VirtualCounter

MAX_VIRTUAL_TRACKERS = 8  # one per player of the largest table a board shows

FrameCallback = Callable[[str, LedFrame], None]


class LinkTaker(Protocol):
    """Whoever a fleet hands its counters' links to (a `DeviceManager` is one)."""

    def add_link(self, link: Link) -> object: ...


@dataclass(frozen=True)
class VirtualSetup:
    """Which virtual counters the app starts when no hardware answers.

    `trackers` None means one per player (at most 8). Transports are "serial" or
    "ble". With `claim_on_hello` each counter is long-pressed for the user when an
    app says HELLO to it unclaimed: nobody is there to press a virtual one.
    """

    boards: int = 1
    trackers: int | None = None
    board_transport: str = "serial"
    tracker_transport: str = "ble"
    animate: bool = True
    claim_on_hello: bool = True

    def trackers_for(self, players: int) -> int:
        """How many trackers a table of `players` has."""
        trackers = self.trackers if self.trackers is not None else players
        return max(0, min(trackers, MAX_VIRTUAL_TRACKERS))

    def plan(self, players: int) -> list[tuple[Role, str]]:
        """(role, transport) of every counter to start for a table of `players`."""
        plan = [(Role.BOARD, self.board_transport)] * self.boards
        return plan + [(Role.TRACKER, self.tracker_transport)] * self.trackers_for(players)


class VirtualFleet:
    """Virtual counters started in this process; `counters` in the order they were added."""

    def __init__(self, folder: Path | None = None, *, prefix: str = "companion-counters-") -> None:
        self.counters: list[VirtualCounter] = []
        self._folder = folder
        self._made_folder = False
        self._prefix = prefix
        self._radio: VirtualRadio | None = None
        self._indexes: dict[Role, int] = {}
        self._frame_listeners: Listeners[[str, LedFrame]] = Listeners()

    @property
    def radio(self) -> VirtualRadio:
        """The in-process BLE radio the BLE counters advertise on (made on first use)."""
        if self._radio is None:
            from companion.devices.sim.bumble_backend import VirtualRadio

            self._radio = VirtualRadio()
        return self._radio

    @property
    def backend(self) -> BleBackend | None:
        """The bleak backend that reaches this fleet's BLE counters (None before there are any)."""
        return self._radio.bleak_backend() if self._radio is not None else None

    def folder(self) -> Path:
        """Where serial counters publish their pseudo-terminals (a temporary folder by default)."""
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix=self._prefix))
            self._made_folder = True
            # Removed by stop(); and at the latest when the program ends, should a
            # stop be cut short (the app gives it a few seconds on exit).
            weakref.finalize(self, shutil.rmtree, self._folder, ignore_errors=True)
        return self._folder

    def counter(self, key: str) -> VirtualCounter | None:
        """The fleet's counter the app knows by `key` (`CounterStatus.key`), if it is one."""
        return next((c for c in self.counters if c.key == key), None)

    def frames(self) -> dict[str, LedFrame]:
        """The latest LED frame of every counter, by the key the app knows it by."""
        return {counter.key: counter.frame for counter in self.counters}

    def on_frame(self, listener: FrameCallback) -> Callable[[], None]:
        """Call `listener(key, frame)` on every new frame of any counter; returns an unregister."""
        return self._frame_listeners.add(guarded(listener, "frame listener"))

    async def add(
        self,
        role: Role | str,
        transport: str,
        *,
        animate: bool = False,
        claim_on_hello: bool = False,
    ) -> VirtualCounter:
        """Start one more counter of `role` on `transport` ("serial" or "ble")."""
        from companion.devices.sim.counters import BleVirtualCounter, SerialVirtualCounter

        role = Role(role)
        index = self._indexes.get(role, 0)
        counter: VirtualCounter
        if transport == "ble":
            counter = BleVirtualCounter(
                role, radio=self.radio, index=index, animate=animate, claim_on_hello=claim_on_hello
            )
        elif transport == "serial":
            counter = SerialVirtualCounter(
                role,
                link_path=self.folder() / f"{role}-{index}",
                index=index,
                animate=animate,
                claim_on_hello=claim_on_hello,
            )
        else:
            raise ValueError(f"a virtual counter runs on serial or ble, not {transport!r}")
        self._indexes[role] = index + 1
        await counter.start()
        self.counters.append(counter)
        key = counter.key
        counter.on_frame(lambda frame: self._frame_listeners.emit(key, frame))
        return counter

    async def remove(self, counter: VirtualCounter) -> None:
        """Switch one of the fleet's counters off and forget it."""
        if counter in self.counters:
            self.counters.remove(counter)
        await counter.stop()

    async def start(self, setup: VirtualSetup, players: int) -> list[VirtualCounter]:
        """Start the counters `setup` asks for a table of `players`."""
        return [
            await self.add(
                role, transport, animate=setup.animate, claim_on_hello=setup.claim_on_hello
            )
            for role, transport in setup.plan(players)
        ]

    async def link(self, counter: VirtualCounter) -> Link:
        """The app's link to one of this fleet's counters."""
        # Imported here: the counters' process (`host`) runs a fleet but links to nothing.
        from companion.devices.links import find_link

        return await find_link(counter.transport, counter.address, backend=self.backend)

    async def join(self, taker: LinkTaker, counters: list[VirtualCounter] | None = None) -> None:
        """Hand the app's link to each counter (default: all of them) to `taker`."""
        for counter in self.counters if counters is None else counters:
            taker.add_link(await self.link(counter))

    async def stop(self) -> None:
        """Switch every counter off, then the radio; remove a folder the fleet made."""
        counters, self.counters = self.counters, []
        for counter in counters:
            await counter.stop()
        self._indexes.clear()
        if self._radio is not None:
            await self._radio.close()
            self._radio = None
        if self._made_folder and self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
            self._made_folder = False
