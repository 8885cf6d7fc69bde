# Runs inside MicroPython's WebAssembly VM (firmware/vm/board.mjs): a board of the port
# /fakes/profile.json names, powered up. It does what the port's main.c and pyexec.c do:
#
# - the flash is the file system root ("/"), kept across every kind of reset;
# - at every start boot.py runs, then main.py only in the friendly REPL mode, each with
#   Ctrl-C switched on while it runs (pyexec enables the interrupt character around
#   every script), then the REPL in the mode it was left in;
# - the REPL speaks MicroPython's friendly and raw modes, raw-paste included, as
#   mpremote expects them; Ctrl-D on an empty line is a soft reset;
# - a soft reset prints "MPY: soft reboot", stops every machine.Timer and Bluetooth,
#   forgets every module, and leaves a started watchdog counting;
# - a hard reset (machine.reset, the watchdog, the reset button, a brown-out, a panic)
#   clears RAM, the watchdog and the REPL mode; deep sleep lasts until a wake pin;
# - on an ESP32-C3 with its USB-UART bridge the ROM's boot lines reach the serial line.
#
# This port runs asyncio on JavaScript timers and so has no blocking asyncio.run; the one
# given here steps the port's own scheduler and sleeps (a real, blocking sleep) until the
# next task is due. Between steps, and while the REPL waits for input, it runs the
# board's housekeeping: hardware timers, the watchdog, and the test's commands (JSON
# lines): press a pin, make a task fail, hang the loop, reset, brown out, report state.
import builtins
import gc
import json
import os
import sys

import js

sys.path.insert(0, "/fakes")
import asyncio
import hashlib
import select
import time
from asyncio import core

import bluetooth
import boardstate
import machine  # noqa: F401  (built in on a board: it survives a soft reset)
import micropython
import neopixel
import vmmicropython
import vmrandom  # noqa: F401  (os.urandom, which this port lacks and a board has)

sys.modules["micropython"] = vmmicropython  # the firmware's; this file keeps the real one

PROFILE = boardstate.PROFILE
if PROFILE["port"] == "esp32":
    import esp  # noqa: F401  (built into that port; after the remount below nothing else is)
    import esp32  # noqa: F401  (the same; on rp2 `import esp32` fails)

# This VM's file system raises Emscripten's errno numbers (ENOENT is 44 there); a board's
# raise the usual ones, which mpremote reads (FileNotFoundError for 2).
_ERRNO = {44: 2, 20: 17, 54: 20, 31: 21, 28: 22, 55: 39, 63: 1, 29: 5, 2: 13, 8: 9, 51: 28, 10: 16}


def _board_errnos(call):
    def wrapped(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except OSError as exc:
            if exc.args and exc.args[0] in _ERRNO:
                raise OSError(_ERRNO[exc.args[0]])
            raise

    return wrapped


# This VM's VfsPosix mounted below "/" mistranslates absolute paths in rename; the
# firmware, mpremote and deploy all use "/..." paths as on a board, and cwd is "/".
_rename = os.rename


def _rename_on_root(old, new):
    _rename(old.lstrip("/"), new.lstrip("/"))


os.rename = _rename_on_root
for _name in ("stat", "mkdir", "rmdir", "remove", "rename", "listdir", "ilistdir", "chdir"):
    setattr(os, _name, _board_errnos(getattr(os, _name)))
builtins.open = _board_errnos(builtins.open)
os.umount("/")
os.mount(os.VfsPosix("/flash"), "/")
os.chdir("/")
sys.path[:] = ["", "/lib"]
BUILTIN = set(sys.modules)  # what a soft reset keeps: built-in and frozen modules

STEPS = [0]
RELEASES = []  # (ticks, pin) of pins to let go
PRESSES = []  # (ticks, pin, ms) of presses waiting for a finger still on that button
LIFT_MS = 80  # a thumb lifts off a button for at least this long before it presses again
STEP_MAX_MS = 20  # never sleep longer than this between looks at the test's commands
IDLE_MS = 2  # the REPL's wait for the next byte
MODE = ["friendly"]  # pyexec_mode_kind: survives a soft reset, not a hard one
ONCE = {}  # one-shot commands armed by the test
REPL_GLOBALS = {"__name__": "__main__"}
OUT = sys.stdout.buffer
IN = sys.stdin.buffer
POLL = select.poll()
POLL.register(IN, select.POLLIN)
POLL_READY = getattr(POLL, "ipoll", POLL.poll)
BANNER = PROFILE["banner"].encode()


def report(**values):
    js.report(json.dumps(values))


def write(data):
    OUT.write(data)


def firmware_app():
    return sys.modules.get("counter.app")


class SoftReboot(Exception):
    """Ctrl-D on an empty line, or a script that ended with SystemExit."""


# -- the test's commands --------------------------------------------------------------------


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            chunk = f.read(512)
            if not chunk:
                break
            h.update(chunk)
    return "".join(["%02x" % b for b in h.digest()])


def tree(folder, out):
    for entry in os.ilistdir(folder):
        path = (folder.rstrip("/") + "/" + entry[0]) if folder != "/" else "/" + entry[0]
        if entry[1] & 0x4000:
            out[path + "/"] = None
            tree(path, out)
        else:
            out[path] = sha256(path)
    return out


def state_report():
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
        feeds=len(boardstate.FEEDS),
        ticks=time.ticks_ms(),
        steps=STEPS[0],
        fired=boardstate.FIRED,
        heap_used=gc.mem_alloc(),
        ble=bluetooth.STATE["active"],
        ble_connected=bool(aioble() is not None and aioble()._CONNECTION[0] is not None),
        ble_heap=bluetooth.STATE["figures"],
        wdt=boardstate.STATE["wdt"] is not None,
        timers=len(boardstate.TIMERS),
        mode=MODE[0],
        cause=boardstate.STATE["cause"],
        kbd=js.interruptChar(),
        start=getattr(sys.modules.get("counter.start"), "MODE", None),
    )


def aioble():
    return sys.modules.get("aioble")


def command(text):
    """One command from the test; raises boardstate.Reset for those that reset the board."""
    cmd = json.loads(text)
    what = cmd["cmd"]
    now = time.ticks_ms()
    if what == "press":
        # A button still held (by an earlier press, say the claim chord) cannot be pressed
        # again: the new press starts once the finger has lifted off it.
        start = now
        for due, pin in RELEASES + [(p[0], p[1]) for p in PRESSES]:
            if pin in cmd["pins"] and time.ticks_diff(time.ticks_add(due, LIFT_MS), start) > 0:
                start = time.ticks_add(due, LIFT_MS)
        if start == now:
            for pin in cmd["pins"]:
                push(pin, now, cmd["ms"])
        else:
            for pin in cmd["pins"]:
                PRESSES.append((start, pin, cmd["ms"]))
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
        raise boardstate.Reset("reset button", boardstate.PWRON_RESET)
    elif what == "brownout":
        boardstate.STATE["cell_mv"] = cmd.get("mv", boardstate.STATE["cell_mv"])
        raise boardstate.Reset("brown-out", boardstate.PWRON_RESET)  # as both ports report it
    elif what == "cell":
        boardstate.STATE["cell_mv"] = cmd["mv"]
    elif what == "ble_fail":
        bluetooth.STATE["fail"] = cmd["errno"]
    elif what == "ble_connect":
        if aioble() is not None:
            aioble().connect(bytes.fromhex(cmd["addr"]))
    elif what == "ble_write":
        if aioble() is not None:
            aioble().write(bytes.fromhex(cmd["hex"]))
    elif what == "ble_writes":  # back to back, before the firmware's loop runs again
        if aioble() is not None:
            for text in cmd["hex"]:
                aioble().write(bytes.fromhex(text))
    elif what == "ble_disconnect":
        if aioble() is not None:
            aioble().disconnect()
    elif what == "ctrl_c_at_main":
        ONCE["ctrl_c_at_main"] = True
    elif what == "kbd_intr":
        micropython.kbd_intr(cmd["char"])
    elif what == "state":
        state_report()
    elif what == "files":
        report(event="files", files=tree("/", {}))
    else:
        report(event="error", error="unknown command " + what)


def push(pin, now, ms):
    boardstate.LEVELS[pin] = 0  # active low
    RELEASES.append((time.ticks_add(now, ms), pin))


def housekeeping():
    now = time.ticks_ms()
    for item in RELEASES[:]:
        if time.ticks_diff(now, item[0]) >= 0:
            boardstate.LEVELS[item[1]] = 1
            RELEASES.remove(item)
    for item in PRESSES[:]:
        if time.ticks_diff(now, item[0]) >= 0:
            PRESSES.remove(item)
            push(item[1], now, item[2])
    for timer in boardstate.TIMERS[:]:
        timer.tick(now)
    boardstate.check_watchdog(now)
    module = aioble()
    if module is not None:
        while module.NOTIFIED:
            uuid, data = module.NOTIFIED.pop(0)
            report(event="ble_notify", uuid=str(uuid), hex=data.hex())
    while True:
        text = js.control()
        if text is None:
            return
        command(text)


def lightsleep(ms, pins):
    """machine.lightsleep: until a pin of ``pins`` is at its level, or ``ms`` pass."""
    start = time.ticks_ms()
    while True:
        for pin, level in pins.items():
            if boardstate.LEVELS.get(pin, 1) == level:
                return
        if ms is not None and time.ticks_diff(time.ticks_ms(), start) >= ms:
            return
        housekeeping()
        js.sleepMs(STEP_MAX_MS if ms is None or ms > STEP_MAX_MS else ms)


boardstate.STATE["hooks"]["lightsleep"] = lightsleep


# -- asyncio.run as a board has it ------------------------------------------------------------


def run(coro):
    """Returns when ``coro`` does, raises what it raised."""
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


# -- pyexec: scripts and the REPL -------------------------------------------------------------


_RX = bytearray(256)
_PENDING = [b"", 0]  # bytes read from the line and not yet taken, and how many are taken


def getch():
    """The next byte from the serial line; the board's housekeeping runs while it waits."""
    while True:
        data, taken = _PENDING
        if taken < len(data):
            _PENDING[1] = taken + 1
            return data[taken]
        for _ in POLL_READY(0):
            n = IN.readinto(_RX)
            if n:
                _PENDING[0] = bytes(_RX[:n])
                _PENDING[1] = 0
                break
        else:
            housekeeping()
            js.sleepMs(IDLE_MS)


def execute(source, name, glob, eof=False):
    """parse_compile_execute: "ok", "error" or "exit" (SystemExit: the REPL ends)."""
    micropython.kbd_intr(3)  # pyexec switches Ctrl-C on for the script ...
    if name == "main.py" and ONCE.pop("ctrl_c_at_main", False):
        # ... and a Ctrl-C that was on its way is raised at the script's first call.
        vmmicropython.AT_NEXT_KBD_INTR.append(js.ctrlC)
    error = None
    try:
        exec(compile(source, name, "exec"), glob)
        how = "ok"
    except boardstate.Reset:
        raise
    except SystemExit:
        how = "exit"
    except BaseException as exc:  # printed, as a board prints it, and the REPL goes on
        error = exc
        how = "error"
    finally:
        micropython.kbd_intr(-1)  # ... and off again after it
    if eof:
        write(b"\x04")
    if error is not None:
        sys.print_exception(error, sys.stdout)
        if isinstance(error, KeyboardInterrupt):
            how = "ctrl-c"
    if eof:
        write(b"\x04")
    return how


def run_script(path):
    try:
        with open(path) as f:
            source = f.read()
    except OSError:
        return "ok"  # no file is an empty file that ran well
    glob = {"__name__": "__main__", "__file__": path}
    return execute(source, path.lstrip("/"), glob)


def raw_paste(kind):
    if kind != ord("A"):
        write(b"R\x00")
        return "ok"
    write(b"R\x01")
    window = 128  # half of a 256-byte stdin buffer, as the ports have it
    write(bytes([window & 0xFF, window >> 8, 0x01]))
    remain = window
    source = bytearray()
    while True:
        c = getch()
        if c in (3, 4):
            write(b"\x04")
            break
        source.append(c)
        remain -= 1
        if remain == 0:
            write(b"\x01")
            remain = window
    if c == 3:  # Ctrl-C while the code was read: it never runs
        write(b"\x04")
        sys.print_exception(KeyboardInterrupt(), sys.stdout)
        write(b"\x04")
        return "ok"
    return execute(bytes(source), "<stdin>", REPL_GLOBALS, eof=True)


def raw_repl():
    write(b"raw REPL; CTRL-B to exit\r\n")
    while True:
        write(b">")
        line = bytearray()
        while True:
            c = getch()
            if c == 0x01:  # Ctrl-A: raw-paste request, or start the raw REPL over
                if len(line) == 2 and line[0] == 0x05:
                    if raw_paste(line[1]) == "exit":
                        raise SoftReboot()
                    line = bytearray()
                    write(b">")
                    continue
                write(b"raw REPL; CTRL-B to exit\r\n>")
                line = bytearray()
            elif c == 0x02:  # Ctrl-B: the friendly REPL
                write(b"\r\n")
                MODE[0] = "friendly"
                return
            elif c == 0x03:
                line = bytearray()
            elif c == 0x04:
                break
            else:
                line.append(c)
        write(b"OK")
        if not line:
            write(b"\r\n")
            raise SoftReboot()
        if execute(bytes(line), "<stdin>", REPL_GLOBALS, eof=True) == "exit":
            raise SoftReboot()


def friendly_repl():
    write(BANNER + b'\r\nType "help()" for more information.\r\n')
    while True:
        write(b">>> ")
        line = bytearray()
        while True:
            c = getch()
            if c == 0x01:
                write(b"\r\n")
                MODE[0] = "raw"
                return
            if c == 0x02:
                write(b"\r\n" + BANNER + b"\r\n>>> ")
                line = bytearray()
            elif c == 0x03:
                write(b"\r\n>>> ")
                line = bytearray()
            elif c == 0x04:
                if not line:
                    write(b"\r\n")
                    raise SoftReboot()
            elif c == 0x0D:
                write(b"\r\n")
                break
            elif c in (0x08, 0x7F):
                if line:
                    line.pop()
                    write(b"\x08 \x08")
            elif c >= 0x20:
                line.append(c)
                write(bytes([c]))
        if line:
            text = bytes(line).decode()
            try:
                compile(text, "<stdin>", "eval")
                text = "_ = " + text + "\nif _ is not None: print(repr(_))"
            except SyntaxError:
                pass
            if execute(text, "<stdin>", REPL_GLOBALS) == "exit":
                raise SoftReboot()


def start():
    """One start of the interpreter: boot.py, main.py, then the REPL until a soft reset."""
    how = run_script("/boot.py")
    if how == "exit":
        raise SoftReboot()
    if MODE[0] == "friendly" and how == "ok":
        how = run_script("/main.py")
        report(event="ended", how="repl" if how in ("ok", "error") else how, number=BOOTS[0])
        if how == "exit":
            raise SoftReboot()
    while True:
        try:
            if MODE[0] == "raw":
                raw_repl()
            else:
                friendly_repl()
        except KeyboardInterrupt:  # one that arrived between two scripts: the REPL goes on
            write(b"\r\n")


# -- resets ----------------------------------------------------------------------------------------


def drop_pending_interrupt():
    """A Ctrl-C scheduled just before a reset dies with the interpreter, as on a board."""
    micropython.kbd_intr(-1)
    try:
        for _ in range(2):  # a backward jump: where the VM raises a pending exception
            pass
    except KeyboardInterrupt:
        pass


def forget_interpreter():
    """What a soft reset clears: modules, the event loop, timers, Bluetooth, REPL variables."""
    drop_pending_interrupt()
    for name in list(sys.modules):
        if name not in BUILTIN:
            del sys.modules[name]
    del neopixel.STRIPS[:]
    del boardstate.TIMERS[:]
    boardstate.WAKE_LIGHT.clear()  # rp2's pin IRQs; esp32 keeps its wake settings
    bluetooth.deinit()
    REPL_GLOBALS.clear()
    REPL_GLOBALS["__name__"] = "__main__"
    asyncio.new_event_loop()
    gc.collect()


def power_down():
    """What a hard reset clears on top: the watchdog, the pins, the REPL mode."""
    boardstate.STATE["wdt"] = None
    boardstate.LEVELS.clear()
    boardstate.WAKE_DEEP.clear()
    boardstate.GPIO_WAKE.clear()
    del boardstate.EXT0[:]
    del RELEASES[:]
    del PRESSES[:]
    MODE[0] = "friendly"


def sleep_until_woken(pins):
    """Deep sleep: nothing runs until a pin set to wake the chip is at its level (or the
    reset button, a power-on reset; True for a wake by pin)."""
    report(event="deepsleep", pins=sorted(pins))
    while True:
        for pin, level in pins.items():
            if boardstate.LEVELS.get(pin, 1) == level:
                boardstate.STATE["wake_reason"] = 7 if pin in boardstate.GPIO_WAKE else 2
                return True
        try:
            housekeeping()
        except boardstate.Reset:
            return False  # the reset button
        js.sleepMs(STEP_MAX_MS)


BOOTS = [0]
cause = boardstate.PWRON_RESET
while True:
    BOOTS[0] += 1
    boardstate.STATE["cause"] = cause
    boardstate.STATE["alloc_at_start"] = gc.mem_alloc()
    report(event="boot", number=BOOTS[0], cause=cause)
    try:
        start()
    except (SoftReboot, boardstate.SoftReset):
        write(b"MPY: soft reboot\r\n")
        report(event="soft-reboot", number=BOOTS[0])
        # esp32 says SOFT_RESET from now until a hard reset; rp2 goes on saying what
        # the last hard reset was (it has no SOFT_RESET).
        if PROFILE["port"] == "esp32":
            cause = boardstate.SOFT_RESET
    except boardstate.Reset as reset:
        report(event="ended", how="reset:" + reset.reason, number=BOOTS[0])
        cause = reset.cause
        wake_pins = dict(boardstate.WAKE_DEEP)
        forget_interpreter()
        boardstate.STATE["wake_reason"] = 0
        if reset.deep and not sleep_until_woken(wake_pins):
            cause = boardstate.PWRON_RESET  # woken by the reset button
        power_down()
        if PROFILE["rom_boot_text"]:
            write(PROFILE["rom_boot_text"].encode())
        continue
    forget_interpreter()
