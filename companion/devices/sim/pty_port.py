"""The far end of a virtual serial port: what a counter sees of its USB cable.

A `PtyPort` owns a pseudo-terminal pair. The app opens `path` exactly as it
would open `/dev/ttyACM0`; the virtual counter reads and writes the master side
here. With `link_path` the port is published under a stable name (a symlink,
like `/dev/serial/by-id/...`), so `unplug()` + `plug()` behaves like pulling
and re-inserting the cable: the app sees its link lost, then reopens the same path.
POSIX only (pseudo-terminals).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

READ_CHUNK = 4096  # bytes: a pty never holds more than a few KiB anyway


class PtyPort:
    """A pseudo-terminal whose master side is driven from the asyncio loop."""

    def __init__(self, link_path: str | os.PathLike[str] | None = None) -> None:
        self._link_path = Path(link_path) if link_path is not None else None
        self._master: int | None = None
        self._slave: int | None = None
        self._pending = bytearray()
        self._receiver: Callable[[bytes], None] | None = None
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.device_path = ""
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def path(self) -> str:
        """What the app opens: the stable symlink if one was asked for, else the pty itself."""
        return str(self._link_path) if self._link_path is not None else self.device_path

    @property
    def is_plugged(self) -> bool:
        """True while the pty exists (the cable is in)."""
        return self._master is not None

    def on_data(self, receiver: Callable[[bytes], None] | None) -> None:
        """Hand every chunk the app writes to `receiver` instead of the `read()` queue."""
        self._receiver = receiver

    def plug(self) -> None:
        """Create the pty (again) and publish it under `path`."""
        if self._master is not None:
            return
        import tty  # POSIX only; imported here so the module itself loads anywhere

        master, slave = os.openpty()
        # The slave stays open here so its raw mode survives the app closing and
        # reopening the port, as a USB CDC device keeps its settings.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.device_path = os.ttyname(slave)
        if self._link_path is not None:
            tmp = self._link_path.with_name(self._link_path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self.device_path)
            tmp.replace(self._link_path)  # atomic: an app polling the path never sees a gap
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(master, self._readable)

    def unplug(self) -> None:
        """Destroy the pty: the app's reads fail at once, as when the cable is pulled.

        The published name goes too, as `/dev/serial/by-id/...` does for real
        hardware: the kernel hands the freed pty number to the next program that
        asks for one, and an app reopening a stale link would talk to a stranger.
        """
        master, slave = self._master, self._slave
        self._master = self._slave = None
        self._pending.clear()
        if master is None:
            return
        if self._link_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self._link_path.unlink()
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(master)
            self._loop.remove_writer(master)
        os.close(master)
        if slave is not None:
            os.close(slave)

    def close(self) -> None:
        """Unplug and remove the published symlink."""
        self.unplug()
        if self._link_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self._link_path.unlink()

    def write(self, data: bytes) -> None:
        """Send bytes to the app; silently lost while unplugged, like a real line."""
        if self._master is None:
            return
        if self._pending:
            self._pending += data
            return
        try:
            written = os.write(self._master, data)
        except BlockingIOError:
            written = 0
        except OSError:
            return  # nobody has the port open: bytes on a dead line vanish
        if written < len(data):
            self._pending += data[written:]
            asyncio.get_running_loop().add_writer(self._master, self._writable)

    async def read(self) -> bytes:
        """The next chunk of bytes the app wrote (when no `on_data` receiver is set)."""
        return await self._queue.get()

    def _readable(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            # EIO: no process has the slave open besides us, nothing to read.
            return
        if not data:
            return
        if self._receiver is not None:
            self._receiver(data)
        else:
            self._queue.put_nowait(data)

    def _writable(self) -> None:
        assert self._master is not None
        try:
            written = os.write(self._master, self._pending)
        except BlockingIOError:
            return
        del self._pending[:written]
        if not self._pending:
            asyncio.get_running_loop().remove_writer(self._master)
