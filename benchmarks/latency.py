"""Counter latency: a game action until the counters acknowledged it, beside the bare round trip
of the same carriers, measured the same way in the same run.

    .venv/bin/python benchmarks/latency.py [--samples 300] [--attempts 3]
        [--transport serial|ble|both|table]

Every figure is a round trip that waits for its own acknowledgement (p50 and p99, ms):
  * bare   - the carrier alone: raw bytes echoed through a pty (serial); a Bumble
             GATT client's write answered by a notification (BLE), no bleak, no Link;
  * link   - one message there and back through the app's `Link` (framing, bleak);
  * action - `game.apply(...)` until the app holds the counter's ACK of the new
             SNAPSHOT: the sync manager, the link, the carrier and the firmware
             logic, which renders the LED frame before it answers.
Beside them, `frame` is the one-way part of the action: until the LED frame shows it.

`table` is the app's own configuration: 1 level board (serial) + 8 trackers
(BLE), one per player, with autosave on as the app orders it (the save runs
where the app runs it: the game's recorder, off the loop, where it exists, else the
whole-file `save` on the loop), in a game of 10 and of 3,000 actions, and once
more at 10 actions with autosave off (the counters' share alone). There `bare` is
the same fan-out on bare carriers: one message to each of the nine echoing far
ends at once, until every echo is back (`single`, one bare BLE round trip, is
printed beside it); `action` is until all nine counters acknowledged; `frame`
until all nine rendered the frame.

The trips take turns sample by sample (`sampling.py`), so load from other work
on the machine falls on all of them alike. The whole run is made --attempts
times; every attempt is printed, none is dropped or retried, and each figure is
the median of the attempts with its spread. Target for every `action` and every
`frame`: p99 <= 1.5 x the bare p99 of the same attempt + 2 ms, judged on the
median attempt; the exit code is 1 on a miss.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from bleak import BleakClient
from bleak.backends.device import BLEDevice
from bumble.core import UUID
from bumble.device import Connection, Peer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sampling import WAIT_S, Figures, Trip, percentiles, sample  # the benchmarks' one sampler

from companion.core import CLASSIC, Game, GameSetup, GoUpLevel, LoseLevel, PlayerSetup, Sex
from companion.devices import framing, wire
from companion.devices.ble_link import BleLink
from companion.devices.link import Link
from companion.devices.serial_link import SerialLink
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.counters import (
    BleVirtualCounter,
    LedFrame,
    SerialVirtualCounter,
    VirtualCounter,
)
from companion.devices.sim.fleet import VirtualFleet, VirtualSetup
from companion.devices.sim.host import echo_peripheral
from companion.devices.sim.pty_port import PtyPort
from companion.devices.sim.remote import RemoteBleakClient, RemoteDeviceDetails, RemoteFleet
from companion.devices.sim.virtual_peripheral import VirtualPeripheral
from companion.devices.status import Role
from companion.devices.sync import DeviceManager
from companion.devices.tokens import TokenStore
from companion.store import GameStore

PAYLOAD = bytes(range(1, 18))  # a SNAPSHOT-sized message
TABLE_TRACKERS = 8  # the app's largest default table: one tracker per player
TABLE_GAME_LENGTHS = (10, 3000)  # actions already in the game when the table is measured
COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6", "#bcf60c")

RoundTrip = Callable[[], Awaitable[None]]


def new_game(players: int = 3) -> Game:
    setup = tuple(
        PlayerSetup(name=f"Player {seat + 1}", colour=COLOURS[seat], sex=Sex.NONE)
        for seat in range(players)
    )
    return Game(GameSetup(players=setup, edition=CLASSIC))


def play(game: Game, actions: int) -> None:
    """Apply `actions` level changes that never end the game (Level 1 <-> 2 round the table)."""
    players = len(game.state.players)
    for number in range(actions):
        seat = (number // 2) % players
        game.apply(GoUpLevel(player=seat) if number % 2 == 0 else LoseLevel(player=seat))


def action_trip(manager: DeviceManager, game: Game, counters: list[object]) -> Trip:
    """A level change until every counter acknowledged it (`frame`: until every one drew it)."""
    drawn: set[int] = set()
    trip_ref: list[Trip] = []

    def frame_drawn(index: int, frame: LedFrame) -> None:
        if frame.rev == game.sequence & 0xFFFF:
            drawn.add(index)
            if len(drawn) == len(counters):
                trip_ref[0].mark("frame")

    for index, counter in enumerate(counters):
        counter.on_frame(lambda frame, index=index: frame_drawn(index, frame))  # type: ignore[attr-defined]
    step = [0]

    async def settle() -> None:
        await manager.wait_synced(WAIT_S)  # the previous change is acknowledged: start clean
        drawn.clear()

    async def round_trip() -> None:
        seat = (step[0] // 2) % len(game.state.players)
        game.apply(GoUpLevel(player=seat) if step[0] % 2 == 0 else LoseLevel(player=seat))
        step[0] += 1
        await manager.wait_synced(WAIT_S)

    trip = Trip(round_trip, settle, marks=("frame",))
    trip_ref.append(trip)
    return trip


def echo_trip(link: Link) -> Trip:
    """One message through the app's `Link` to an echoing far end and back."""

    async def round_trip() -> None:
        await link.send(PAYLOAD)
        await link.recv()

    return Trip(round_trip)


# -- bare carriers: echoing far ends reached without the app's code ------------------------


class BarePty:
    """A pty whose far end echoes every byte, written and read raw by this process."""

    def __init__(self, path: Path) -> None:
        self.port = PtyPort(path)
        self.port.on_data(self.port.write)
        self.port.plug()
        self.frame = framing.frame(PAYLOAD)
        self.fd = os.open(self.port.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.arrived: asyncio.Queue[bytes] = asyncio.Queue()
        asyncio.get_running_loop().add_reader(
            self.fd, lambda: self.arrived.put_nowait(os.read(self.fd, 4096))
        )

    async def round_trip(self) -> None:
        os.write(self.fd, self.frame)
        got = b""
        while len(got) < len(self.frame):
            got += await self.arrived.get()

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.fd)
        os.close(self.fd)
        self.port.close()


class BareGatt:
    """Echoing GATT servers on a radio, reached by a plain Bumble client (no bleak, no Link)."""

    def __init__(self, radio: VirtualRadio) -> None:
        self.radio = radio
        self.peripherals: list[VirtualPeripheral] = []
        self.connections: list[Connection] = []
        self.ends: list[tuple[object, asyncio.Queue[bytes]]] = []
        self.client = radio.new_device("bare-client")

    async def start(self, count: int, first_name: str = "MCounter-E") -> None:
        await self.client.power_on()
        for index in range(count):
            peripheral = echo_peripheral(self.radio, f"{first_name}{index:03d}")
            self.peripherals.append(peripheral)
            await peripheral.start()
            connection = await self.client.connect(peripheral.device.random_address)
            self.connections.append(connection)
            peer = Peer(connection)
            await peer.discover_services([UUID(wire.SERVICE_UUID)])
            service = peer.get_services_by_uuid(UUID(wire.SERVICE_UUID))[0]
            await service.discover_characteristics()
            rx = service.get_characteristics_by_uuid(UUID(wire.RX_CHAR_UUID))[0]
            tx = service.get_characteristics_by_uuid(UUID(wire.TX_CHAR_UUID))[0]
            notified: asyncio.Queue[bytes] = asyncio.Queue()
            await tx.subscribe(notified.put_nowait)
            self.ends.append((rx, notified))

    async def round_trip(self, index: int = 0) -> None:
        rx, notified = self.ends[index]
        await rx.write_value(PAYLOAD, with_response=False)  # type: ignore[attr-defined]
        await notified.get()

    async def close(self) -> None:
        for connection in self.connections:
            await connection.disconnect()
        await self.client.power_off()
        self.radio.remove_device(self.client)
        for peripheral in self.peripherals:
            await peripheral.stop()


class BareRemoteGatt:
    """Echoing GATT servers on the radio of virtual counters that run in their own process
    (`companion.devices.sim.host`), reached as the app reaches its trackers there: bleak
    with the backend that carries every call over the pipe (no Link, no protocol)."""

    def __init__(self, fleet: RemoteFleet) -> None:
        self.fleet = fleet
        self.ends: list[tuple[BleakClient, asyncio.Queue[bytes]]] = []

    async def start(self, count: int, first_name: str = "MCounter-E") -> None:
        names = [f"{first_name}{index:03d}" for index in range(count)]
        host = self.fleet.host
        for name, address in zip(names, await self.fleet.echo(names), strict=True):
            device = BLEDevice(address, name, RemoteDeviceDetails(host, address))
            client = BleakClient(device, backend=RemoteBleakClient)
            await client.connect()
            notified: asyncio.Queue[bytes] = asyncio.Queue()
            await client.start_notify(
                wire.TX_CHAR_UUID, lambda _char, data, q=notified: q.put_nowait(bytes(data))
            )
            self.ends.append((client, notified))

    async def round_trip(self, index: int = 0) -> None:
        client, notified = self.ends[index]
        await client.write_gatt_char(wire.RX_CHAR_UUID, PAYLOAD, response=False)
        await notified.get()

    async def close(self) -> None:
        for client, _notified in self.ends:
            await client.disconnect()


# -- one carrier ------------------------------------------------------------------------------


async def serial_figures(samples: int, warmup: int, folder: Path) -> Figures:
    bare = BarePty(folder / "raw-echo")
    link_echo = PtyPort(folder / "link-echo")
    link_echo.on_data(link_echo.write)
    link_echo.plug()
    counter = SerialVirtualCounter(Role.BOARD, link_path=folder / "board", claim_on_hello=True)
    await counter.start()
    game = new_game()
    manager = DeviceManager(tokens=TokenStore(folder / "tokens-serial.json"))
    manager.set_game(game)
    manager.add_link(SerialLink(counter.address))
    link = SerialLink(link_echo.path)
    try:
        return await carrier_trips(bare.round_trip, link, manager, game, counter, samples, warmup)
    finally:
        await link.close()
        await manager.stop()
        await counter.stop()
        bare.close()
        link_echo.close()


async def carrier_trips(
    bare: RoundTrip,
    link: Link,
    manager: DeviceManager,
    game: Game,
    counter: VirtualCounter,
    samples: int,
    warmup: int,
) -> Figures:
    """Sample the bare, link and action trips of one carrier, taking turns."""
    await link.open()
    await manager.wait_ours(WAIT_S)
    trips = {
        "bare": Trip(bare),
        "link": echo_trip(link),
        "action": action_trip(manager, game, [counter]),
    }
    return await sample(trips, samples, warmup)


async def ble_figures(samples: int, warmup: int, folder: Path) -> Figures:
    radio = VirtualRadio()
    bare = BareGatt(radio)
    echo = echo_peripheral(radio, "MCounter-ECHO")
    counter = BleVirtualCounter(Role.BOARD, radio=radio, claim_on_hello=True)
    manager = DeviceManager(
        tokens=TokenStore(folder / "tokens-ble.json"), backend=radio.bleak_backend()
    )
    link: Link | None = None
    try:
        await bare.start(1)
        await echo.start()
        link = await BleLink.find(echo.address, backend=radio.bleak_backend())
        await counter.start()
        game = new_game()
        manager.set_game(game)
        manager.add_link(await BleLink.find(counter.address, backend=radio.bleak_backend()))
        return await carrier_trips(bare.round_trip, link, manager, game, counter, samples, warmup)
    finally:
        if link is not None:
            await link.close()
        await manager.stop()
        await counter.stop()
        await bare.close()
        await echo.stop()
        await radio.close()


# -- the app's table --------------------------------------------------------------------------


def autosave(store: GameStore, game_id: str, game: Game) -> tuple[Callable[[object], None], str]:
    """The app's autosave after every change, and how it saves.

    The game's recorder (each change queued at once, written off the loop) where the
    store has one, else the whole-file save the app has always made on the loop.
    """
    recorder = getattr(store, "recorder", None)
    if recorder is not None:
        recorder().follow(game_id, game)  # it follows the game itself
        return (lambda _state: None), "the game's recorder, written off the loop"
    return (lambda _state: store.save(game_id, game)), "GameStore.save, whole file on the loop"


async def table_figures(
    samples: int, warmup: int, folder: Path, actions: int, *, save: bool = True
) -> Figures:
    """1 board (serial) + 8 trackers (BLE) in a game of `actions` actions; autosave if `save`."""
    game = new_game(TABLE_TRACKERS)
    play(game, actions)
    store = GameStore(folder / f"games-{actions}")
    # Autosave as the app orders it: its subscriber comes before the counters'.
    unsubscribe = game.subscribe(autosave(store, store.new_id(), game)[0]) if save else None
    manager = DeviceManager(tokens=TokenStore(folder / f"tokens-table-{actions}.json"))
    setup = VirtualSetup(
        boards=1,
        trackers=TABLE_TRACKERS,
        board_transport="serial",
        tracker_transport="ble",
        animate=True,  # as in the app: the counters breathe while they wait
    )
    (folder / f"counters-{actions}").mkdir()
    fleet = VirtualFleet(folder / f"counters-{actions}")
    bare_pty = BarePty(folder / f"table-echo-{actions}")
    bare_gatt = BareGatt(fleet.radio)
    try:
        manager.set_game(game)
        await fleet.start(setup, TABLE_TRACKERS)
        await fleet.join(manager)
        await bare_gatt.start(TABLE_TRACKERS)
        await manager.wait_ours(WAIT_S * 3)

        async def bare_fan_out() -> None:
            trips = [bare_gatt.round_trip(index) for index in range(TABLE_TRACKERS)]
            await asyncio.gather(bare_pty.round_trip(), *trips)

        trips = {
            "bare": Trip(bare_fan_out),
            "single": Trip(bare_gatt.round_trip),  # one bare BLE round trip, for comparison
            "action": action_trip(manager, game, list(fleet.counters)),
        }
        return await sample(trips, samples, warmup)
    finally:
        if unsubscribe is not None:
            unsubscribe()
        await bare_gatt.close()
        bare_pty.close()
        await manager.stop()
        await fleet.stop()


# -- report -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """One configuration's p99s in one attempt, against that attempt's bound."""

    action_p99: float  # ms
    frame_p99: float  # ms
    bound: float  # ms: 1.5 x the bare p99 of the same attempt + 2 ms

    @property
    def share(self) -> float:
        """The worse p99 as a share of the bound: at most 1 meets the target."""
        return max(self.action_p99, self.frame_p99) / self.bound


def report(carrier: str, figures: Figures, *, what: str) -> Attempt:
    """Print one configuration's figures of one attempt."""
    bare50, bare99 = percentiles(figures["bare"])
    bound = 1.5 * bare99 + 2.0
    print(f"{carrier}: bare   p50 {bare50:7.3f} ms  p99 {bare99:7.3f} ms")
    if "single" in figures:
        one50, one99 = percentiles(figures["single"])
        print(f"{carrier}: single p50 {one50:7.3f} ms  p99 {one99:7.3f} ms  (one bare BLE trip)")
    if "link" in figures:
        link50, link99 = percentiles(figures["link"])
        print(f"{carrier}: link   p50 {link50:7.3f} ms  p99 {link99:7.3f} ms")
    p99s = {"frame": 0.0}  # no one-way row where the counters' frames are not watched
    for name, label in (("action", f"action -> {what} acknowledged"), ("frame", "one way")):
        if name not in figures:
            continue
        p50, p99 = percentiles(figures[name])
        ratio = p99 / bare99 if bare99 else float("inf")
        print(
            f"{carrier}: {name:6} p50 {p50:7.3f} ms  p99 {p99:7.3f} ms  "
            f"({label}; p99 {ratio:.2f} x bare)"
        )
        p99s[name] = p99
    attempt = Attempt(p99s["action"], p99s["frame"], bound)
    within = "within" if attempt.share <= 1 else "OVER"
    print(f"{carrier}: this attempt {within} its bound 1.5 x bare + 2 ms = {bound:.3f} ms")
    return attempt


def summarize(carrier: str, attempts: list[Attempt]) -> bool:
    """Print the median over the attempts with its spread; True if the median meets the target."""

    def spread(values: list[float], unit: str = " ms") -> str:
        listed = ", ".join(f"{value:.2f}" for value in values)
        return (
            f"median {statistics.median(values):.2f}{unit} "
            f"(min {min(values):.2f}, max {max(values):.2f}; {listed})"
        )

    shares = [attempt.share for attempt in attempts]
    met = statistics.median(shares) <= 1
    print(
        f"{carrier}: action p99 over {len(attempts)} attempts: "
        + spread([a.action_p99 for a in attempts])
    )
    if any(a.frame_p99 for a in attempts):
        print(
            f"{carrier}: frame  p99 over {len(attempts)} attempts: "
            + spread([a.frame_p99 for a in attempts])
        )
    print(
        f"{carrier}: bound      over {len(attempts)} attempts: "
        + spread([a.bound for a in attempts])
    )
    missed = sum(share > 1 for share in shares)
    print(
        f"{carrier}: {'meets' if met else 'MISSES'} the target p99 <= 1.5 x bare + 2 ms: "
        f"worse p99 / bound {spread(shares, ' x')}; {missed} of {len(attempts)} attempts over"
    )
    return met


async def run(transports: list[str], samples: int, warmup: int) -> dict[str, Attempt]:
    """One attempt at every configuration of `transports`."""
    attempts: dict[str, Attempt] = {}
    with tempfile.TemporaryDirectory(prefix="companion-latency-") as folder_name:
        folder = Path(folder_name)
        for carrier in transports:
            if carrier == "table":
                how = autosave(GameStore(folder / "probe"), "probe", new_game())[1]
                print(
                    f"table: 1 board (serial) + {TABLE_TRACKERS} trackers (BLE); autosave "
                    f"after every action as the app orders it: {how}"
                )
                configurations = [(actions, True) for actions in TABLE_GAME_LENGTHS]
                configurations.append((TABLE_GAME_LENGTHS[0], False))  # the counters alone
                for actions, save in configurations:
                    where = Path(tempfile.mkdtemp(dir=folder))
                    figures = await table_figures(samples, warmup, where, actions, save=save)
                    name = f"table {actions} actions" + ("" if save else " no autosave")
                    attempts[name] = report(name, figures, what="all 9 counters")
                continue
            figures_of = {"serial": serial_figures, "ble": ble_figures}[carrier]
            figures = await figures_of(samples, warmup, Path(tempfile.mkdtemp(dir=folder)))
            attempts[carrier] = report(carrier, figures, what="the counter")
    return attempts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--attempts", type=int, default=3, help="whole runs, every one reported; none retried"
    )
    parser.add_argument(
        "--transport", choices=("serial", "ble", "table", "both", "all"), default="all"
    )
    args = parser.parse_args(argv)
    transports = {
        "both": ["serial", "ble"],
        "all": ["serial", "ble", "table"],
    }.get(args.transport, [args.transport])
    every: dict[str, list[Attempt]] = {}
    count = max(1, args.attempts)
    for number in range(1, count + 1):
        print(f"-- attempt {number} of {count}")
        found = asyncio.run(run(transports, max(2, args.samples), max(0, args.warmup)))
        for name, attempt in found.items():
            every.setdefault(name, []).append(attempt)
    print(f"-- every attempt counts: the figure is the median of the {count} with its spread")
    met = True
    for name, attempts in every.items():
        met &= summarize(name, attempts)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
