# Runs inside MicroPython's WebAssembly VM (firmware/vm/board.mjs): powers the board up,
# runs boot.py and main.py from /flash as a board does, and resets it when it resets.
#
# This port runs asyncio on JavaScript timers and so has no blocking asyncio.run; the one
# given here steps the port's own scheduler and sleeps (a real, blocking sleep) until the
# next task is due. Between steps it carries out the test's commands (JSON lines): press a
# pin, make a task fail, hang the loop, reset the board, report LEDs, heap and the log.
import gc
import json
import os
import sys

import js

sys.path.insert(0, "/fakes")
sys.path.insert(0, "/flash")
import asyncio
import time
from asyncio import core

import machine
import micropython
import neopixel
import vmrandom  # noqa: F401  (os.urandom, which this port lacks and a board has)

STEPS = [0]
RELEASES = []  # (ticks, pin) of pins to let go
FIRMWARE = ("wire", "main", "boot")
STEP_MAX_MS = 20  # never sleep longer than this between looks at the test's commands


def report(**values):
    js.report(json.dumps(values))


def firmware_app():
    return sys.modules.get("counter.app")


def command(text):
    """One command from the test; raises machine.Reset for "reset"."""
    cmd = json.loads(text)
    what = cmd["cmd"]
    now = time.ticks_ms()
    if what == "press":
        for pin in cmd["pins"]:
            machine.LEVELS[pin] = 0  # active low
            RELEASES.append((time.ticks_add(now, cmd["ms"]), pin))
    elif what == "fail":
        counter = firmware_app().RUNNING
        real = counter.frame

        def broken(now=None):
            counter.frame = real  # once: the restarted task finds it working
            raise OSError(5, "injected")

        counter.frame = broken
    elif what == "hang":
        counter = firmware_app().RUNNING
        real = counter.frame

        def stuck(now=None):
            counter.frame = real
            js.sleepMs(cmd["ms"])  # the whole loop stops here, as in a driver gone wrong
            return real(now)

        counter.frame = stuck
    elif what == "reset":
        raise machine.Reset("reset button")
    elif what == "kbd_intr":
        micropython.kbd_intr(cmd["char"])
    elif what == "state":
        app = firmware_app()
        counter = app.RUNNING if app else None
        strips = [{"buf": list(s.buf), "writes": s.writes} for s in neopixel.STRIPS]
        log = []
        try:
            with open("/data/log.txt") as f:
                log = f.read().split("\n")
        except OSError:
            pass
        try:
            with open("/data/boots") as f:
                boots = f.read()
        except OSError:
            boots = ""
        report(
            event="state",
            boots=boots,
            strips=strips,
            levels=list(counter.state.levels) if counter else [],
            claimed=counter.claimed if counter else False,
            log=[line for line in log if line],
            feeds=len(machine.FEEDS),
            ticks=time.ticks_ms(),
            steps=STEPS[0],
            fired=machine.FIRED,
            heap_used=gc.mem_alloc(),
        )
    else:
        report(event="error", error="unknown command " + what)


def housekeeping():
    now = time.ticks_ms()
    for item in RELEASES[:]:
        if time.ticks_diff(now, item[0]) >= 0:
            machine.LEVELS[item[1]] = 1
            RELEASES.remove(item)
    for timer in machine.TIMERS:
        timer.tick(now)
    while True:
        text = js.control()
        if text is None:
            return
        command(text)


def run(coro):
    """asyncio.run as a board has it: returns when ``coro`` does, raises what it raised."""
    done = []

    async def whole():
        try:
            done.append((True, await coro))
        except BaseException as exc:  # handed to the caller below, as asyncio.run does
            done.append((False, exc))

    task = asyncio.create_task(whole())
    while not done:
        STEPS[0] += 1
        core._run_iter()
        housekeeping()
        head = core._task_queue.peek()
        wait = STEP_MAX_MS if head is None else time.ticks_diff(head.ph_key, time.ticks_ms())
        if wait > 0:
            js.sleepMs(wait if wait < STEP_MAX_MS else STEP_MAX_MS)
        else:
            js.pumpSerial()
    del task  # finished: ``done`` holds its outcome
    ok, value = done[0]
    if not ok:
        raise value
    return value


asyncio.run = run


def forget_firmware():
    for name in list(sys.modules):
        if name in FIRMWARE or name == "counter" or name.startswith("counter."):
            del sys.modules[name]
    del neopixel.STRIPS[:]
    del machine.TIMERS[:]
    machine.LEVELS.clear()
    asyncio.new_event_loop()
    gc.collect()


def execute(path):
    with open(path) as f:
        source = f.read()
    exec(compile(source, path, "exec"), {"__name__": "__main__"})


def power_on():
    """boot.py then main.py; how the run ended: "reset", "repl" or "ctrl-c"."""
    os.chdir("/flash")
    try:
        execute("/flash/boot.py")
        execute("/flash/main.py")
    except machine.Reset as exc:
        return "reset:" + str(exc)
    except KeyboardInterrupt:
        return "ctrl-c"
    return "repl"


def idle_until_command():
    """At the REPL: keep the hardware timers ticking and wait for the test."""
    while True:
        try:
            housekeeping()
        except machine.Reset as exc:
            return "reset:" + str(exc)
        js.sleepMs(STEP_MAX_MS)


boots = 0
while True:
    boots += 1
    report(event="boot", number=boots)
    ended = power_on()
    report(event="ended", how=ended, number=boots)
    if not ended.startswith("reset"):
        ended = idle_until_command()
        report(event="ended", how=ended, number=boots)
    forget_firmware()
