"""Runs a counter on real hardware: one supervised asyncio task per concern, a watchdog fed."""

import asyncio
import gc

import wire
from micropython import const

from counter import board as boardmod
from counter import buttons, hw, timebase
from counter.logic import Counter
from counter.outbox import Outbox
from counter.store import FileStore
from counter.supervisor import FaultLog, mark_stable, supervise

_FRAME_MS = const(33)  # about 30 frames a second: smooth breathing, little CPU
_BUTTON_MS = const(5)
_POLL_MS = const(1000)
_BATTERY_MS = const(60_000)
_FLAT_READINGS = const(2)
# The watchdog (counter.start makes it, 8 s) is fed every _FEED_MS by its own task, so
# any task that blocks the loop (or a loop that died) stops the feeding.
_FEED_MS = const(1000)
RUNNING = None  # the Counter of the last start, reachable from the REPL


async def leds_task(counter, chains, digits):
    while True:
        rgb = counter.frame()
        for chain, first in chains:
            chain.show(rgb, first)  # sends only what changed
        if digits is not None:
            digits.show(counter.digits(), counter.state.brightness)
        await timebase.sleep_ms(_FRAME_MS)


def handle_presses(counter, events, outbox):
    """Debounced presses -> the counter; what it says goes to the links."""
    for name, hold in events:
        if hold == buttons.RESET:
            if name == "claim":
                counter.factory_reset()
            continue
        for payload in counter.press(name, hold == buttons.LONG):
            outbox.put(payload, to_all=(name == "claim"))


async def buttons_task(counter, pins, outbox):
    chords = {("plus", "minus"): "claim"}
    pressed = buttons.Buttons(pins.names, chords)
    n = len(pins.names)
    while True:
        now = timebase.ticks_ms()
        for i in range(n):
            pressed.update(i, pins.read(i), now)
        if pressed.events:
            handle_presses(counter, pressed.take(), outbox)
        await timebase.sleep_ms(_BUTTON_MS)


class CellFlat(Exception):
    """The cell read below its cut-off _FLAT_READINGS times in a row: the counter stops."""


async def battery_task(counter, adc, outbox, radio):
    cutoff = counter.board.battery.empty_mv
    below = 0
    while True:
        mv = adc.read_mv()
        payload = counter.battery(mv)
        if payload is not None:
            outbox.put(payload)
            if radio["carrier"] is not None:
                radio["carrier"].battery_percent(counter.state.battery_percent)
        # One dip under load is no flat cell; two readings a minute apart are.
        below = below + 1 if mv < cutoff else 0
        if below >= _FLAT_READINGS:
            raise CellFlat()
        await timebase.sleep_ms(_BATTERY_MS)


async def housekeeping_task(counter, outbox):
    while True:
        for payload in counter.poll():
            outbox.put(payload)
        gc.collect()  # collect while idle, not in the middle of a frame
        await timebase.sleep_ms(_POLL_MS)


async def watchdog_task(watchdog):
    while True:
        watchdog.feed()
        await timebase.sleep_ms(_FEED_MS)


async def main(
    board_path="board.json",
    serial=True,
    stdin=None,
    stdout=None,
    data_dir="/data",
    watchdog=None,
    guard=None,
    radio=None,
):
    """All tasks of a counter, each supervised; ``stdin``/``stdout`` default to USB serial.

    ``radio`` is what counter.start gave: True (Bluetooth is on), an error text (it
    would not start: the counter runs on serial alone), or None (use Bluetooth if
    this build has it).
    """
    from counter.serial_link import ReplRequested

    board = boardmod.load(board_path)
    store = FileStore(data_dir)
    log = FaultLog(store)
    ble = radio is True
    if radio is None:
        try:
            import counter.ble_link  # noqa: F401  (aioble and bluetooth are there)

            ble = True
        except ImportError:  # no bluetooth module or aioble on this build
            pass
    elif radio is not True:
        log.add(radio)
    links = []
    if serial:
        links.append("serial")
    if ble:
        links.append("ble")
    outbox = Outbox(links)
    counter = Counter(board, store=store, counter_id=hw.counter_id(), links=links)
    chains = [(hw.LedChain(section), first) for section, first in board.led_chains()]
    digits = hw.TM1637(board.display) if board.digits else None
    pins = hw.ButtonPins(board)
    jobs = [
        ("leds", lambda: leds_task(counter, chains, digits)),
        ("buttons", lambda: buttons_task(counter, pins, outbox)),
        ("housekeeping", lambda: housekeeping_task(counter, outbox)),
    ]
    carrier = {"carrier": None}
    if ble:
        # Made inside its supervised task: a radio that fails costs the counter its
        # Bluetooth link (logged, tried again later), never its serial line.
        jobs.append(("ble", lambda: ble_task(counter, outbox, carrier)))
    if board.battery is not None:
        adc = hw.BatteryADC(board.battery)
        jobs.append(("battery", lambda: battery_task(counter, adc, outbox, carrier)))
    if serial:
        from counter import serial_link

        jobs.append(("serial", lambda: serial_link.run(counter, outbox, stdin, stdout)))
    tasks = [
        asyncio.create_task(supervise(name, make, log, (ReplRequested, CellFlat)))
        for name, make in jobs
    ]
    if watchdog is not None:
        tasks.append(asyncio.create_task(watchdog_task(watchdog)))
    if guard is not None:
        tasks.append(asyncio.create_task(mark_stable(guard, log)))
    global RUNNING
    RUNNING = counter  # for a person at the REPL after the protocol stopped
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        counter.save()  # keep the table across the REPL visit or reset


async def ble_task(counter, outbox, carrier):
    if carrier["carrier"] is None:
        from counter.ble_link import BleCarrier

        carrier["carrier"] = BleCarrier(counter, outbox, wire.counter_name(counter.counter_id))
    await carrier["carrier"].run()


def run(
    board_path="board.json", serial=True, watchdog=None, guard=None, data_dir="/data", radio=None
):
    """Runs the counter until the REPL escape ("repl") or a flat cell ("cut-off").

    Started by hand at the REPL it simply returns there; counter.start resets the board
    after it, since a watchdog it started cannot be stopped.
    """
    from counter.serial_link import ReplRequested

    try:
        asyncio.run(
            main(board_path, serial, data_dir=data_dir, watchdog=watchdog, guard=guard, radio=radio)
        )
    except ReplRequested:
        print("counter: protocol stopped, REPL is back")
        return "repl"
    except CellFlat:
        return "cut-off"
    finally:
        asyncio.new_event_loop()
    return "ended"
