"""The whole firmware in MicroPython's WebAssembly VM, its USB serial line on a pty.

`BoardVM` stages exactly what `firmware/deploy.py` puts on a board, starts
`firmware/vm/board.mjs` with the board of `vmboard/` (its `machine`, `neopixel`,
`bluetooth`, aioble on the flash, and `runboard.py`, which boots and resets it as the
port does and speaks the REPL that mpremote drives), and bridges the VM's serial line
to a `PtyPort`: the app, mpremote or `deploy.py` opens `path` as it opens
`/dev/ttyACM0`. Which port the board runs (`PORTS`: timer ids, heap and Bluetooth's
share of it, deep-sleep wake pins, what reaches the serial line at a reset) follows the
pin map's MCU. Events the VM reports (boots, resets, state) arrive on `events`;
`send()` gives it a command. The VM's `os` has no urandom, which a board's has;
`vmside/vmrandom.py` stands in for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import deploy
from mpvm import VM_DIR, VM_PACKAGE, node_binary
from ports import DEFAULT_RELEASE, port_of

from companion.devices.sim.pty_port import PtyPort

HERE = Path(__file__).parent


class BoardVM:
    """One board: firmware staged for ``pinout``, running in the VM, reachable at ``path``.

    ``stage=False`` leaves the flash empty but for aioble (a board fresh from
    MicroPython's installer, for deploy.py to fill); ``release`` is the MicroPython release
    it models (ports.RELEASES) and ``port`` overrides parts of the port's profile.
    """

    def __init__(
        self,
        tmp_path: Path,
        pinout: str,
        *,
        mpy: bool = True,
        heap_bytes: int = 256 * 1024,
        stage: bool = True,
        port: dict[str, Any] | None = None,
        release: str = DEFAULT_RELEASE,
    ) -> None:
        if not VM_PACKAGE.exists():
            raise RuntimeError("the MicroPython VM is not installed: run ./tasks test once")
        self.flash = tmp_path / "flash"
        self.flash.mkdir()
        if stage:
            deploy.stage(pinout, mpy, self.flash)
        # aioble as `mip install aioble` leaves it, in /lib (here the VM board's own).
        shutil.copytree(HERE / "vmboard" / "lib", self.flash / "lib")
        self.profile = port_of(pinout, release) | (port or {})
        self._profile_file = tmp_path / "profile.json"
        self._profile_file.write_text(json.dumps(self.profile))
        self.port = PtyPort(tmp_path / "ttyACM-vm")
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seen: list[dict[str, Any]] = []
        self.heap_bytes = heap_bytes
        self._proc: subprocess.Popen[bytes] | None = None
        self.serial_log = b""
        self._fds: list[int] = []
        self._err = b""

    @property
    def path(self) -> str:
        return self.port.path

    def start(self) -> None:
        to_board_r, self._to_board = os.pipe()
        self._from_board, from_board_w = os.pipe()
        control_r, self._control = os.pipe()
        for fd in (to_board_r, control_r, self._from_board):
            os.set_blocking(fd, False)
        args = [
            node_binary(),
            str(VM_DIR / "board.mjs"),
            "--heap",
            str(self.heap_bytes),
            "--serial",
            f"{to_board_r},{from_board_w}",
            "--copy",
            f"/flash={self.flash}",
            "--copy",
            f"/fakes={HERE / 'vmboard'}",
            "--copy",
            f"/fakes/vmrandom.py={HERE / 'vmside' / 'vmrandom.py'}",
            "--copy",
            f"/fakes/profile.json={self._profile_file}",
            "/fakes/runboard.py",
        ]
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        self._proc = subprocess.Popen(
            args,
            cwd=VM_DIR,
            stdin=control_r,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(to_board_r, from_board_w),
            env=env,
        )
        for fd in (to_board_r, from_board_w, control_r):
            os.close(fd)
        assert self._proc.stderr is not None
        os.set_blocking(self._proc.stderr.fileno(), False)
        loop = asyncio.get_running_loop()
        loop.add_reader(self._proc.stderr.fileno(), self._on_stderr)
        loop.add_reader(self._from_board, self._on_serial)
        self.port.on_data(lambda data: os.write(self._to_board, data))
        self.port.plug()

    def send(self, **command: Any) -> None:
        os.write(self._control, (json.dumps(command) + "\n").encode())

    async def expect(self, event: str, timeout_s: float = 20.0, **match: Any) -> dict[str, Any]:
        """The next reported event named ``event`` (others are kept in ``seen``)."""
        async with asyncio.timeout(timeout_s):
            while True:
                got = await self.events.get()
                if got.get("event") == event and all(got.get(k) == v for k, v in match.items()):
                    return got

    async def state(self) -> dict[str, Any]:
        self.send(cmd="state")
        return await self.expect("state")

    async def files(self) -> dict[str, str | None]:
        """Every path on the board's flash: a file's SHA-256, None for a folder."""
        self.send(cmd="files")
        return (await self.expect("files"))["files"]

    def _on_serial(self) -> None:
        try:
            data = os.read(self._from_board, 4096)
        except BlockingIOError:
            return
        if data:
            self.port.write(data)
            # What the board said, for a failing test to show (the newest 64 KB).
            self.serial_log = (self.serial_log + data)[-65536:]

    def _on_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        try:
            data = os.read(self._proc.stderr.fileno(), 65536)
        except BlockingIOError:
            return
        if not data:
            asyncio.get_running_loop().remove_reader(self._proc.stderr.fileno())
            return
        self._err += data
        *lines, self._err = self._err.split(b"\n")
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                event = {"event": "text", "text": line.decode(errors="replace")}
            self.seen.append(event)
            self.events.put_nowait(event)

    def close(self) -> None:
        loop = asyncio.get_running_loop()
        if self._proc is not None:
            assert self._proc.stderr is not None
            with contextlib.suppress(ValueError, OSError):
                loop.remove_reader(self._proc.stderr.fileno())
            self._proc.kill()
            self._proc.wait()
            self._proc.stderr.close()
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(self._from_board)
        for fd in (self._to_board, self._from_board, self._control):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.port.close()


@contextlib.asynccontextmanager
async def board_on_older_firmware(folder: Path, pinout: str) -> Any:
    """A board on USB, started, whose firmware says it is "0.9.0" (older than the app's):
    what an install finds on a counter bought last year."""
    vm = BoardVM(folder, pinout, mpy=False, heap_bytes=4 * 1024 * 1024)
    logic = vm.flash / "counter" / "logic.py"
    text = logic.read_text()
    start = text.index("FIRMWARE_VERSION = (")
    logic.write_text(
        text[:start] + "FIRMWARE_VERSION = (0, 9, 0)" + text[text.index(")", start) + 1 :]
    )
    vm.start()
    try:
        await vm.expect("boot")
        yield vm
    finally:
        vm.close()
