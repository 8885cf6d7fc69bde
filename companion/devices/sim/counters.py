"""Virtual counters: the firmware's own `Counter` logic under CPython behind a real carrier.

A serial one answers on a pseudo-terminal (`PtyPort`), so the app opens its
path exactly as it opens `/dev/ttyACM0`; a BLE one is a GATT server on the
in-process Bumble radio (`VirtualPeripheral`), reached through the app's real
bleak code. Both run the very modules that run on a board (`counter.logic`,
`counter.render`, `counter.serial_link` and its `framing`); only the pins
are replaced: the LED frame goes to `LedFrame` listeners (the app's Devices
screen, the terminal) instead of a WS2812 chain, and buttons are pressed by
calling `press()`.
"""

from __future__ import annotations

import abc
import asyncio
import importlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.devices import firmware_host, seal, wire
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.frames import FrameListener, LedFrame
from companion.devices.sim.pty_port import PtyPort
from companion.devices.sim.virtual_peripheral import VirtualPeripheral
from companion.devices.status import Role, counter_key
from companion.plumbing.listeners import Listeners
from companion.plumbing.places import shipped
from companion.plumbing.tasks import TaskSet, guarded

_LOGGER = logging.getLogger(__name__)

# The pin maps virtual counters are built from: a 10-space level board, and a
# tracker whose level shows on a 10-LED bar (a bar draws better than digits).
DEFAULT_PINOUTS = {Role.BOARD: "levelboard-esp32s3", Role.TRACKER: "tracker-esp32c3-bar"}
POLL_INTERVAL_S = 1.0  # s: the firmware's housekeeping period (resends, flash)
BATTERY_INTERVAL_S = 60.0  # s: the firmware reports its battery once a minute
ANIMATION_INTERVAL_S = 1 / 30  # s: the firmware's LED task runs at about 30 frames a second
VIRTUAL_ID_BASE = 0x56430000  # "VC": counter ids of virtual counters, stable between runs


class VirtualCounter(abc.ABC):
    """The firmware logic of one counter, with its LEDs as frames; the carrier is a subclass's.

    `counter` is the firmware's `counter.logic.Counter`; `frame` the latest
    `LedFrame`; `on_frame(listener)` hears every new one (after each accepted
    state change, and at 30 frames a second while `animate` is on).
    """

    transport = ""

    def __init__(
        self,
        role: Role | str = Role.BOARD,
        *,
        index: int = 0,
        pinout: str | None = None,
        counter_id: int | None = None,
        name: str | None = None,
        animate: bool = False,
        battery_mv: int = 4000,
        claim_on_hello: bool = False,
    ) -> None:
        if role not in tuple(Role):
            raise ValueError(f"a counter is a board or a tracker, not {role!r}")
        role = Role(role)
        fw = firmware_host.load()
        pinout = pinout or DEFAULT_PINOUTS[role]
        board = fw.board.load(str(shipped("hardware/pinouts") / f"{pinout}.json"))
        if board.role != role:
            raise ValueError(f"pin map {pinout} is a {board.role}, not a {role}")
        self.role = role
        self.index = index
        if counter_id is None:
            counter_id = VIRTUAL_ID_BASE + (0x100 if role is Role.TRACKER else 0) + index
        links = ("ble",) if self.transport == "ble" else ("serial",)
        self.counter = fw.logic.Counter(
            board, store=fw.store.MemoryStore(), counter_id=counter_id, links=links
        )
        self.name = name or wire.counter_name(counter_id)
        self.animate = animate
        #: Stand in for a person at the counter: long-press it whenever an app says
        #: HELLO while it is unclaimed (the simulator, where nobody can press it).
        self.claim_on_hello = claim_on_hello
        self.battery_mv = battery_mv
        self._listeners: Listeners[[LedFrame]] = Listeners()
        self._frames = 0
        self._started = False
        self._animating_wanted = True
        self._animation_task: asyncio.Task[Any] | None = None
        self._presses_sent: set[int] = set()
        #: (seq, intent) of every press this counter sent, in order: what an app may apply.
        self.sent_presses: list[tuple[int, int]] = []
        #: Sequence numbers of this counter's presses that an app acknowledged, in order.
        self.acked_presses: list[int] = []
        self._tasks = TaskSet(self.name)
        self.frame = self._render()

    def battery_percent(self) -> int:
        """The charge the counter's firmware computes from its (simulated) cell voltage."""
        payload = self.counter.battery(self.battery_mv)
        return wire.decode(payload).percent if payload is not None else 100

    @property
    def counter_id(self) -> int:
        return int(self.counter.counter_id)

    @property
    @abc.abstractmethod
    def address(self) -> str:
        """Where the app finds this counter: a serial path or a BLE address."""

    @property
    def key(self) -> str:
        """How the app names this counter (`CounterStatus.key`) once connected."""
        return counter_key(self.transport, self.address)

    def on_frame(self, listener: FrameListener) -> Callable[[], None]:
        """Call `listener(frame)` with every new frame; returns an unregister function."""
        return self._listeners.add(guarded(listener, f"{self.name}: frame listener"))

    def press(self, button: str, long: bool = False) -> None:
        """Press a button: "plus", "minus", "next" or "claim" (a long press opens the claim)."""
        payloads = self.counter.press(button, long)
        for payload in payloads:
            if wire.peek_type(payload) == wire.MSG_BUTTON:
                button_press = wire.decode(payload)
                self._presses_sent.add(button_press.seq)
                self.sent_presses.append((button_press.seq, button_press.intent))
        self._send(payloads, to_all=(button == "claim"))
        self._render()

    def report_battery(self, millivolts: int) -> None:
        """The cell reads `millivolts` now: the firmware reports it to an app that may hear it."""
        self.battery_mv = millivolts
        payload = self.counter.battery(millivolts)
        if payload is not None:
            self._send([payload], to_all=False)

    def open_claim_window(self) -> None:
        """The long press that lets an app claim this counter (+ and - together, or claim)."""
        self.press("claim", long=True)

    def ansi(self) -> str:
        """The counter's name, state and LEDs as one terminal line."""
        owner = "claimed" if self.counter.claimed else "unclaimed"
        link = "app connected" if self.counter.authenticated else "no app"
        return f"{self.name} {self.role:7} {owner:9} {link:13} {self.frame.ansi()}"

    async def start(self) -> None:
        """Switch the counter on: carrier up, housekeeping running."""
        await self._start_carrier()
        self._tasks.spawn(self._housekeeping(), "poll")
        self._started = True
        self.set_animating(self._animating_wanted)

    def set_animating(self, on: bool) -> None:
        """Render the LED animation (30 frames a second, with `animate`) or hold it: a
        picture nobody is looking at need not be drawn. What the counter shows after
        each change of state is rendered either way; the firmware's answers are the same."""
        self._animating_wanted = on
        running = self._animation_task is not None and not self._animation_task.done()
        if on and self.animate and self._started and not running:
            self._animation_task = self._tasks.spawn(self._animation(), "leds")
        elif not on and running and self._animation_task is not None:
            self._animation_task.cancel()
            self._animation_task = None

    async def stop(self) -> None:
        """Switch the counter off: what it showed is kept, as flash would."""
        await self._tasks.cancel_all()
        await self._stop_carrier()

    # -- for carriers ---------------------------------------------------------------

    def _replies(self, payload: bytes, session: Any) -> list[bytes]:
        waiting = self.counter.pending_presses
        replies = self.counter.handle(payload, session)
        if waiting:
            # The firmware only lets an ACK from the session's app clear a pending press.
            still = set(self.counter.pending_presses)
            for seq in waiting:
                if seq not in still and seq in self._presses_sent:
                    self._presses_sent.discard(seq)
                    self.acked_presses.append(seq)
        if (
            self.claim_on_hello
            and wire.peek_type(payload) == wire.MSG_HELLO
            and not self.counter.claimed
        ):
            # After the HELLO answer has gone out, as a person would press a moment later.
            asyncio.get_running_loop().call_soon(self.open_claim_window)
        kinds = {wire.peek_type(reply) for reply in replies}
        if wire.MSG_PROOF in kinds:
            # A virtual counter reports its battery as soon as an app may hear it,
            # instead of making the app wait for the minute to come round.
            battery = self.counter.battery(self.battery_mv)
            if battery is not None:
                replies = [*replies, session.out(battery)]
        if wire.MSG_ACK in kinds:
            self._render()
        return replies

    def _render(self) -> LedFrame:
        rgb = bytes(self.counter.frame())
        board = self.counter.board
        self._frames += 1
        self.frame = LedFrame(
            name=self.name,
            role=self.role,
            rgb=rgb,
            text=self.counter.display_text() if board.digits else "",
            rev=int(self.counter.state.rev),
            number=self._frames,
            spaces=int(board.spaces),
            positions=int(board.positions),
        )
        self._listeners.emit(self.frame)
        return self.frame

    async def _housekeeping(self) -> None:
        loop = asyncio.get_running_loop()
        battery_due = loop.time() + BATTERY_INTERVAL_S
        while True:
            await asyncio.sleep(POLL_INTERVAL_S)
            self._idle()
            self._send(self.counter.poll(), to_all=False)
            if loop.time() >= battery_due:
                battery_due += BATTERY_INTERVAL_S
                self.report_battery(max(3300, self.battery_mv - 5))  # a slowly emptying cell

    async def _animation(self) -> None:
        while True:
            await asyncio.sleep(ANIMATION_INTERVAL_S)
            self._render()

    def _idle(self) -> None:
        """Once a poll period: what the carrier checks while nothing happens."""
        return None  # a BLE connection ends with the radio's own disconnect

    @abc.abstractmethod
    def _send(self, payloads: list[bytes], *, to_all: bool) -> None:
        """Send messages the counter started: to authenticated apps, or to all (`to_all`)."""

    @abc.abstractmethod
    async def _start_carrier(self) -> None:
        """Bring the carrier up (plug the cable in, start advertising)."""

    @abc.abstractmethod
    async def _stop_carrier(self) -> None:
        """Take the carrier down for good."""


class SerialVirtualCounter(VirtualCounter):
    """A virtual counter on a pseudo-terminal published at `link_path`.

    Its line is served by the firmware's own serial carrier (`SerialProtocol` and
    the `Outbox` a board queues its own messages in), so what it writes is what a
    board writes: a 0x00 before every frame, a claim prompt only to an app that said
    HELLO, the session ended when the line goes quiet.
    """

    transport = "serial"

    def __init__(
        self, role: Role | str = Role.BOARD, *, link_path: str | Path, **kwargs: Any
    ) -> None:
        super().__init__(role, **kwargs)
        self.port = PtyPort(link_path)
        self._serial = firmware_host.load().serial_link
        outbox = importlib.import_module(f"{firmware_host.PACKAGE}.outbox")
        self._outbox = outbox.Outbox(("serial",))
        self._protocol = self._new_protocol()
        self.port.on_data(self._on_data)

    @property
    def address(self) -> str:
        return self.port.path

    def unplug(self) -> None:
        """Pull the USB cable: the app's link is lost, the counter keeps its state."""
        self.port.unplug()
        self.counter.disconnect(self._protocol.session)

    def reset(self) -> None:
        """Press the reset button: the link drops and the firmware starts afresh from its
        flash (the table it last saved and its token; never an effect), as a board does."""
        self.unplug()
        old = self.counter
        fw = firmware_host.load()
        self.counter = fw.logic.Counter(
            old.board, store=old.store, counter_id=old.counter_id, links=("serial",)
        )
        self._outbox.clear("serial")  # what waited in memory is gone with the reset
        self._protocol = self._new_protocol()
        self.plug()

    def start_in_safe_mode(self, failed_starts: int) -> None:
        """Reset into safe mode, as a board whose last `failed_starts` starts failed: its
        line is then served by the firmware's safe mode (HELLO with the safe-mode bit, a
        STATUS, PONGs; no session, no claim) until the next `reset`."""
        self.unplug()
        safemode = importlib.import_module(f"{firmware_host.PACKAGE}.safemode")
        safe = safemode.SafeCounter(self.counter.board, failed_starts, self.counter_id)
        self._outbox.clear("serial")
        self._protocol = self._serial.SerialProtocol(safe)
        self.plug()

    def plug(self) -> None:
        """Plug the cable back in, behind the same path."""
        self.port.plug()

    def _new_protocol(self) -> Any:
        protocol = self._serial.SerialProtocol(self.counter)
        # The carrier frames and checks as on a board; only the answers pass through the
        # virtual counter's bookkeeping (presses acknowledged, the stand-in claim press,
        # the early battery report).
        protocol.answer = lambda payload: self._replies(payload, protocol.session)
        return protocol

    def _on_data(self, data: bytes) -> None:
        try:
            out = self._protocol.feed(data)
        except self._serial.ReplRequested:
            _LOGGER.info("%s: the REPL escape has no REPL to go to here", self.name)
            return
        if out:
            self.port.write(b"".join(out))  # one write for all the replies to this chunk

    def _idle(self) -> None:
        # A line that carried no message for too long loses its session, and frames it
        # dropped are told even when nothing follows them, as on a board.
        out = self._protocol.tick(self._serial.timebase.ticks_ms())
        if out:
            self.port.write(b"".join(out))

    def _send(self, payloads: list[bytes], *, to_all: bool) -> None:
        # Queued and delivered as a board's serial task does: a claim prompt (`to_all`)
        # to an app that said HELLO, the rest to an authenticated one, else dropped.
        for payload in payloads:
            self._outbox.put(payload, to_all=to_all)
        while self._outbox.has("serial"):
            frame = self._protocol.deliver(*self._outbox.pop("serial"))
            if frame is not None:
                self.port.write(frame)

    async def _start_carrier(self) -> None:
        self.port.plug()

    async def _stop_carrier(self) -> None:
        self.port.close()


class BleVirtualCounter(VirtualCounter):
    """A virtual counter advertising on the in-process Bumble radio."""

    transport = "ble"

    def __init__(
        self, role: Role | str = Role.BOARD, *, radio: VirtualRadio, **kwargs: Any
    ) -> None:
        super().__init__(role, **kwargs)
        self.radio = radio
        self._session: Any = None
        self._notify_tasks = TaskSet(f"{self.name} notify")
        self.peripheral = VirtualPeripheral(
            radio,
            self.name,
            service_uuid=wire.SERVICE_UUID,
            write_uuid=wire.RX_CHAR_UUID,
            notify_uuid=wire.TX_CHAR_UUID,
            on_write=self._on_write,
            on_connection_change=self._on_connection_change,
            battery=self.battery_percent if self.counter.board.battery is not None else None,
        )

    @property
    def address(self) -> str:
        return self.peripheral.address

    async def disconnect(self) -> None:
        """Drop the app's connection from the counter's side (out of range, reset)."""
        await self.peripheral.disconnect()

    def _on_connection_change(self, connected: bool) -> None:
        # One app connection at a time, each its own protocol session (as aioble serves it).
        if self._session is not None:
            self.counter.close_session(self._session)
            self._session = None
        if connected:
            # Both addresses go into the session's proofs, as on a board (docs/protocol.md §3).
            own = seal.link_id(self.peripheral.address)
            self._session = self.counter.open_session(own, seal.link_id(self.peripheral.peer))

    async def _on_write(self, payload: bytes) -> None:
        session = self._session
        if session is None:
            return
        for reply in self._replies(payload, session):
            await self.peripheral.notify(reply)

    def _send(self, payloads: list[bytes], *, to_all: bool) -> None:
        session = self._session
        if session is None or not (to_all or session.authenticated):
            return
        # Sealed now, with the session they are meant for.
        sealed = [session.out(payload) for payload in payloads]
        self._notify_tasks.spawn(self._notify_all(sealed), "notify")

    async def _notify_all(self, payloads: list[bytes]) -> None:
        for payload in payloads:
            await self.peripheral.notify(payload)

    async def _start_carrier(self) -> None:
        await self.peripheral.start()

    async def _stop_carrier(self) -> None:
        await self._notify_tasks.cancel_all()
        await self.peripheral.stop()
