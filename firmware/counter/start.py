"""How a counter starts, decided before the bulk of the firmware is imported.

In order: a maintenance start that the REPL escape asked for (no watchdog: the
REPL is a person's, or deploy.py's, for as long as they like); the pin map; a
cell below its cut-off voltage (everything off, asleep until a button); the
boot-loop guard (safe mode); Bluetooth, started while MicroPython's heap is still
small; and only then the counter itself, with its watchdog.

Bluetooth goes first because on an ESP32 it takes its memory from the same system
heap that MicroPython's heap grows into: once the firmware's modules had made the
heap grow, an ESP32-C3 had too little left and panicked in ``ble.active(True)``.

The guard tells a brown-out from a crash by ``machine.reset_cause()`` and the cell:
both ports report a brown-out as a power-on reset, which is also what the reset
button gives, so a power-on reset with the cell within BROWNOUT_MARGIN_MV of its
cut-off is taken for a brown-out. Brown-outs never lead to safe mode; BROWNOUT_LIMIT
of them in a row cut the counter off as a flat cell does. Crashes (watchdog,
panic, an error) and quick presses of the reset button count towards safe mode:
FAILED_LIMIT starts in a row that never reached a working state (supervisor.STABLE_MS
of running), or BOOT_LIMIT in a row that ended within supervisor.QUICK_MS. Safe mode
serves only the serial line and the installer (counter/safemode.py).

The counts live in one small file, written at a start and again when the start has
lasted (at most three writes of a few bytes a start, none when nothing changed).
RTC memory would spare the flash, but the rp2 releases have none (``mem_backup`` is
1.29 only) and an esp32 loses it at a power-on reset, which is what its reset button
and a brown-out report.
"""

import machine
from micropython import const

from counter import board as boardmod
from counter import hw
from counter.store import FileStore

BOOT_LIMIT = const(3)  # quick starts in a row (each ended within supervisor.QUICK_MS)
FAILED_LIMIT = const(5)  # starts in a row that never reached a working state
BROWNOUT_LIMIT = const(2)  # brown-outs in a row before the counter cuts itself off
BROWNOUT_MARGIN_MV = const(200)  # a power-on reset this close to the cut-off is a brown-out
MAINTENANCE_FILE = "maintenance"
CUT_OFF_FILE = "cut-off"  # the running counter found the cell flat: stay off until it is charged
MAINTENANCE_BANNER = "counter: maintenance start, no watchdog; the REPL is yours"
_BOOTS_FILE = "boots"
_BROWNOUTS_FILE = "brownouts"
WATCHDOG_MS = const(8000)
# Starts that are no crash. Only the esp32 port has these two names (rp2 has PWRON_RESET
# and WDT_RESET alone, and a soft reset there leaves reset_cause() as it was): a name the
# port lacks is None, which no reset_cause() returns.
_NOT_A_CRASH = (getattr(machine, "DEEPSLEEP_RESET", None), getattr(machine, "SOFT_RESET", None))
MODE = None  # how this start went: "run", "safe", "maintenance", "cut-off" (deploy reads it)


class BootGuard:
    """Counts failed and quick starts and brown-outs in a row, in flash files."""

    def __init__(self, store):
        self.store = store
        self.failed = 0  # the failed starts in a row that led to safe mode

    def _count(self, name):
        data = self.store.read(name)
        try:
            return int(data) if data else 0
        except ValueError:
            return 0

    def _counts(self):
        """(failed, quick): the boots file holds "failed quick"; one number n (the old
        format, and "0") is n of each."""
        data = self.store.read(_BOOTS_FILE)
        try:
            parts = bytes(data).split() if data else []
            failed = int(parts[0]) if parts else 0
            return failed, int(parts[1]) if len(parts) > 1 else failed
        except ValueError:
            return 0, 0

    def _write(self, failed, quick):
        data = ("%d %d" % (failed, quick) if failed != quick else "%d" % failed).encode()
        if self.store.read(_BOOTS_FILE) != data:  # the same bytes again would only wear it
            self.store.write(_BOOTS_FILE, data)

    def boots(self):
        """Starts in a row that have not reached a working state (this one included)."""
        return self._counts()[0]

    def quick(self):
        """Starts in a row that ended (or have run so far) within supervisor.QUICK_MS."""
        return self._counts()[1]

    def brownouts(self):
        return self._count(_BROWNOUTS_FILE)

    def starting(self, cause=None, brownout=False):
        """Count this start: "run", "safe" (a boot loop) or "cut-off" (the cell gives out).

        A wake from deep sleep and a soft reset are no crash and are not counted (where
        the port tells them apart: on rp2 a soft reset reports the reset before it).
        """
        if brownout:
            count = self.brownouts() + 1
            if count >= BROWNOUT_LIMIT:
                self.store.write(_BROWNOUTS_FILE, b"0")
                return "cut-off"
            self.store.write(_BROWNOUTS_FILE, str(count).encode())
            return "run"
        if self.brownouts():
            self.store.write(_BROWNOUTS_FILE, b"0")
        if cause is not None and cause in _NOT_A_CRASH:
            return "run"
        failed, quick = self._counts()
        failed += 1
        quick += 1
        if quick >= BOOT_LIMIT or failed >= FAILED_LIMIT:
            self.failed = failed
            self._write(0, 0)  # the start after safe mode tries a normal one
            return "safe"
        self._write(failed, quick)
        return "run"

    def lasted(self):
        """This start has run past supervisor.QUICK_MS: it is no quick reset."""
        failed, quick = self._counts()
        if quick:
            self._write(failed, 0)

    def stable(self):
        """This start reached a working state: the next reset starts the counts from zero."""
        self._write(0, 0)
        if self.brownouts():
            self.store.write(_BROWNOUTS_FILE, b"0")


def cell_mv(board):
    """The cell's voltage now, or None on a board without a battery (or a failing ADC)."""
    if board.battery is None:
        return None
    try:
        return hw.BatteryADC(board.battery).read_mv()
    except (OSError, ValueError):
        return None


def start_radio():
    """Bluetooth on, now; None if this build has none, the error text if it will not start."""
    try:
        import bluetooth
    except ImportError:
        return None
    try:
        bluetooth.BLE().active(True)
    except OSError as exc:
        return "bluetooth: %s" % exc
    return True


def safe_mode(board, failed, stdin=None, stdout=None):
    """Serve the serial line in safe mode (an app sees it, deploy reaches the REPL through
    the escape); the REPL is what is left if even that will not run."""
    global MODE
    try:
        from counter import safemode

        ended = safemode.run(board, failed, hw.counter_id(), stdin, stdout)
    except Exception as exc:  # a broken install may break this too: the REPL still works
        print("counter: safe mode without its serial line (%s); the REPL is yours" % exc)
        return
    if ended == "repl":
        MODE = "maintenance"  # no watchdog runs in safe mode: the REPL is free at once
        print(MAINTENANCE_BANNER)


def boot(board_path="board.json", data_dir="/data", stdin=None, stdout=None):
    """Entry point from main.py; returns how this start went (also kept in MODE, which
    becomes "maintenance" when safe mode hands the REPL over). ``stdin``/``stdout``
    default to USB serial."""
    global MODE
    store = FileStore(data_dir)
    if store.read(MAINTENANCE_FILE) is not None:
        store.remove(MAINTENANCE_FILE)  # once: the next reset starts the counter again
        # Someone asked for the REPL: the resets that follow (an install) are no boot loop.
        BootGuard(store).stable()
        MODE = "maintenance"
        print(MAINTENANCE_BANNER)
        return MODE
    try:
        board = boardmod.load(board_path)
    except (OSError, ValueError) as exc:
        print("counter: safe mode, no usable %s (%s)" % (board_path, exc))
        MODE = "safe"
        return MODE
    cause = machine.reset_cause()
    mv = cell_mv(board)
    guard = BootGuard(store)
    flat = store.read(CUT_OFF_FILE) is not None
    if mv is not None and (
        mv < board.battery.empty_mv
        # A cell rests higher than it runs: once cut off, it must come back with a margin.
        or (flat and mv < board.battery.empty_mv + BROWNOUT_MARGIN_MV)
    ):
        how = "cut-off"
    else:
        if flat:
            store.remove(CUT_OFF_FILE)
        brownout = (
            mv is not None
            and cause == machine.PWRON_RESET
            and mv < board.battery.empty_mv + BROWNOUT_MARGIN_MV
        )
        how = guard.starting(cause, brownout)
    if how == "cut-off":
        if not flat:
            store.write(CUT_OFF_FILE, b"1")
        MODE = how
        print("counter: the cell gives out (%s mV): asleep until a button" % mv)
        hw.cut_off(board)  # returns only on a board that cannot sleep
        return MODE
    if how == "safe":
        try:
            hw.show_safe_mode(board)
        except Exception as exc:  # the lights are a courtesy; the serial line is what matters
            print("counter: cannot show safe mode on the LEDs:", exc)
        print("counter: safe mode after %d failed starts; serial line only" % guard.failed)
        MODE = "safe"
        safe_mode(board, guard.failed, stdin, stdout)
        return "safe"
    radio = start_radio()
    MODE = "run"
    from counter import app  # the bulk of the firmware, now that Bluetooth has its memory

    ended = app.run(
        board_path, watchdog=hw.Watchdog(WATCHDOG_MS), guard=guard, data_dir=data_dir, radio=radio
    )
    # The table is saved. A watchdog cannot be stopped, and a soft reset stops anything
    # that fed it, so the board resets: into a maintenance start after the REPL escape,
    # into the cut-off after a flat cell.
    store.write(CUT_OFF_FILE if ended == "cut-off" else MAINTENANCE_FILE, b"1")
    machine.reset()
