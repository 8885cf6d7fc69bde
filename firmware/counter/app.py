"""Starts a counter on real hardware: one asyncio task per concern, joined with gather."""

import asyncio
import gc

import wire
from micropython import const

from counter import board as boardmod
from counter import hw, timebase
from counter.buttons import Buttons
from counter.logic import Counter
from counter.outbox import Outbox
from counter.store import FileStore

_FRAME_MS = const(33)  # about 30 frames a second: smooth breathing, little CPU
_BUTTON_MS = const(5)
_POLL_MS = const(1000)
_BATTERY_MS = const(60_000)


async def leds_task(counter, chains, digits):
    while True:
        rgb = counter.frame()
        for chain, first in chains:
            chain.show(rgb, first)
        if digits is not None:
            digits.show(counter.digits(), counter.state.brightness)
        await timebase.sleep_ms(_FRAME_MS)


async def buttons_task(counter, pins, outbox):
    chords = {("plus", "minus"): "claim"}
    buttons = Buttons(pins.names, chords)
    n = len(pins.names)
    while True:
        now = timebase.ticks_ms()
        for i in range(n):
            buttons.update(i, pins.read(i), now)
        if buttons.events:
            for name, long in buttons.take():
                for payload in counter.press(name, long):
                    outbox.put(payload, to_all=(name == "claim"))
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


async def main(board_path="board.json", serial=True, stdin=None, stdout=None, data_dir="/data"):
    """All tasks of a counter; ``stdin``/``stdout`` default to the USB serial console."""
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
    counter = Counter(board, store=FileStore(data_dir), counter_id=hw.counter_id(), links=links)
    chains = [(hw.LedChain(section), first) for section, first in board.led_chains()]
    digits = hw.TM1637(board.display) if board.digits else None
    tasks = [
        leds_task(counter, chains, digits),
        buttons_task(counter, hw.ButtonPins(board), outbox),
        housekeeping_task(counter, outbox),
    ]
    ble = None
    if BleCarrier is not None:
        ble = BleCarrier(counter, outbox, wire.counter_name(counter.counter_id))
        tasks.append(ble.run())
    if board.battery is not None:
        tasks.append(battery_task(counter, hw.BatteryADC(board.battery), outbox, ble))
    if serial:
        from counter import serial_link

        tasks.append(serial_link.run(counter, outbox, stdin, stdout))
    tasks = [asyncio.create_task(coro) for coro in tasks]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        counter.save()  # keep the table across the REPL visit or reset


def safe_mode(board_path="board.json"):
    """True when the claim (or +) button is held now, or there is no usable pin map."""
    import machine

    try:
        board = boardmod.load(board_path)
    except (OSError, ValueError):
        return True
    for name in ("claim", "plus"):
        if name in board.buttons:
            spec = board.buttons[name]
            pull = machine.Pin.PULL_UP if spec.pull == "up" else machine.Pin.PULL_DOWN
            pin = machine.Pin(spec.pin, machine.Pin.IN, pull)
            return pin.value() == (0 if spec.active == "low" else 1)
    return False


def run(board_path="board.json", serial=True):
    """Entry point from main.py; returns when the serial link hands back the REPL."""
    from counter.serial_link import ReplRequested

    try:
        asyncio.run(main(board_path, serial))
    except ReplRequested:
        print("counter: protocol stopped, REPL is back")
    finally:
        asyncio.new_event_loop()
