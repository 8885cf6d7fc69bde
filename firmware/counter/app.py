"""Starts a counter on real hardware: one supervised asyncio task per concern, a watchdog."""

import asyncio
import gc

import wire
from micropython import const

from counter import board as boardmod
from counter import buttons, hw, timebase
from counter.logic import Counter
from counter.outbox import Outbox
from counter.store import FileStore
from counter.supervisor import BOOT_LIMIT, BootGuard, FaultLog, mark_stable, supervise

_FRAME_MS = const(33)  # about 30 frames a second: smooth breathing, little CPU
_BUTTON_MS = const(5)
_POLL_MS = const(1000)
_BATTERY_MS = const(60_000)
# A main loop stuck this long resets the board; fed every _FEED_MS by its own task, so
# any task that blocks the loop (or a loop that died) stops the feeding.
WATCHDOG_MS = const(8000)
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


async def battery_task(counter, adc, outbox, ble):
    while True:
        payload = counter.battery(adc.read_mv())
        if payload is not None:
            outbox.put(payload)
            if ble is not None:
                ble.battery_percent(counter.state.battery_percent)
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
):
    """All tasks of a counter, each supervised; ``stdin``/``stdout`` default to USB serial."""
    from counter.serial_link import ReplRequested

    board = boardmod.load(board_path)
    try:
        from counter.ble_link import BleCarrier
    except ImportError:  # no bluetooth module or aioble on this build
        BleCarrier = None
    links = []
    if serial:
        links.append("serial")
    if BleCarrier is not None:
        links.append("ble")
    outbox = Outbox(links)
    store = FileStore(data_dir)
    log = FaultLog(store)
    counter = Counter(board, store=store, counter_id=hw.counter_id(), links=links)
    chains = [(hw.LedChain(section), first) for section, first in board.led_chains()]
    digits = hw.TM1637(board.display) if board.digits else None
    pins = hw.ButtonPins(board)
    jobs = [
        ("leds", lambda: leds_task(counter, chains, digits)),
        ("buttons", lambda: buttons_task(counter, pins, outbox)),
        ("housekeeping", lambda: housekeeping_task(counter, outbox)),
    ]
    ble = None
    if BleCarrier is not None:
        ble = BleCarrier(counter, outbox, wire.counter_name(counter.counter_id))
        jobs.append(("ble", ble.run))
    if board.battery is not None:
        adc = hw.BatteryADC(board.battery)
        jobs.append(("battery", lambda: battery_task(counter, adc, outbox, ble)))
    if serial:
        from counter import serial_link

        jobs.append(("serial", lambda: serial_link.run(counter, outbox, stdin, stdout)))
    tasks = [
        asyncio.create_task(supervise(name, make, log, (ReplRequested,))) for name, make in jobs
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


def boot(board_path="board.json", data_dir="/data"):
    """Entry point from main.py: safe mode after a boot loop, else the counter with a watchdog."""
    store = FileStore(data_dir)
    guard = BootGuard(store)
    try:
        board = boardmod.load(board_path)
    except (OSError, ValueError) as exc:
        print("counter: safe mode, no usable %s (%s)" % (board_path, exc))
        return "safe"
    if guard.starting():
        try:
            hw.show_safe_mode(board)
        except Exception as exc:  # the lights are a courtesy; the REPL is what matters
            print("counter: cannot show safe mode on the LEDs:", exc)
        print("counter: safe mode after %d short boots; the REPL is yours" % BOOT_LIMIT)
        return "safe"
    watchdog = hw.Watchdog(WATCHDOG_MS)
    run(board_path, watchdog=watchdog, guard=guard, data_dir=data_dir)
    return "repl"


def run(board_path="board.json", serial=True, watchdog=None, guard=None, data_dir="/data"):
    """Runs the counter; returns when the serial link hands back the REPL."""
    from counter.serial_link import ReplRequested

    try:
        asyncio.run(main(board_path, serial, data_dir=data_dir, watchdog=watchdog, guard=guard))
    except ReplRequested:
        if watchdog is not None:
            watchdog.hand_over(_FEED_MS)  # it cannot be stopped: feed it while at the REPL
        print("counter: protocol stopped, REPL is back")
    finally:
        asyncio.new_event_loop()
