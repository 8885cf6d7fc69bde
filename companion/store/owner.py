"""Which program owns a data folder: one at a time writes its saved games.

Two programs saving the same game each append their own actions over the other's, and
both are told their changes are saved: after both close, the game reloads at neither's
revision, or not at all. So the first program to open a folder holds a lock on
`owner.lock` in it for as long as it runs (the system drops it when the program ends,
however it ends), and writes in that file who it is and since when. A second program
finds the lock held, reads who holds it, and opens the saved games read-only (see
`companion.store.opening`): it says so plainly and never writes a game the owner
writes; once the owner has gone, it takes the folder over (see `GameStore`).

The lock is advisory, on the open file (`flock` on Linux, Android and macOS; a byte
range lock on Windows). It is the program's: stores opened on one folder within one
program share it, and the folder is let go once the last of them is closed.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

OWNER_FILE = "owner.lock"
# The owner's record is read at most this many bytes (it is a few dozen).
_RECORD_MAX_BYTES = 4096

try:  # Linux, Android, macOS
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


def this_program() -> str:
    """How this program is named to the user in another one's message."""
    if not Path(sys.argv[0]).name.startswith(("companion", "__main__")):
        return "another companion program"
    argv = sys.argv[1:]
    command = next((word for word in argv if not word.startswith("-")), "")
    if command == "serve":
        return "companion serve"
    if command in ("", "app"):
        return "the companion app"
    return f"companion {command}"


@dataclass(frozen=True)
class Holder:
    """Who holds a data folder, as it wrote it (anything unreadable left out)."""

    program: str = "another companion program"
    pid: int | None = None
    since: float | None = None
    host: str | None = None

    def sentence(self, folder: Path) -> str:
        """The plain words for it: which program, since when."""
        who = self.program
        if self.pid is not None:
            who += f" (process {self.pid}"
            if self.host and self.host != socket.gethostname():
                who += f" on {self.host}"
            who += ")"
        when = ""
        if self.since is not None:
            stamp = time.localtime(self.since)
            same_day = time.strftime("%Y%m%d", stamp) == time.strftime("%Y%m%d")
            when = time.strftime(" since %H:%M" if same_day else " since %Y-%m-%d %H:%M", stamp)
        return f"{who} has had the saved games in {folder} open{when}"


class Owner:
    """One hold on the lock of a data folder, from `claim` until `release` (or the end
    of the program)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._held = True

    @property
    def held(self) -> bool:
        return self._held

    def release(self) -> None:
        if _guard_thread[0] == threading.get_ident():
            # Called while this very thread holds the guard: a store collected by the
            # garbage collector in the middle of a claim runs its finalizer here. Waiting
            # for the guard would wait for ever; the hold goes once the guard is let go.
            _later.append(self)
            return
        with _guarded():
            if not self._held:
                return
            self._held = False
            handle, count = _HELD[self.path]
            if count > 1:
                _HELD[self.path] = (handle, count - 1)
                return
            del _HELD[self.path]
        with contextlib.suppress(OSError):
            _unlock(handle)
        handle.close()


# The folders this program holds: lock file -> (its open file, how many holds).
_HELD: dict[Path, tuple[IO[str], int]] = {}
_GUARD = threading.Lock()
# The thread holding the guard (None: nobody), and the holds let go meanwhile by it.
_guard_thread: list[int | None] = [None]
_later: list[Owner] = []


@contextlib.contextmanager
def _guarded() -> Iterator[None]:
    """The guard of `_HELD`, held by this thread; the holds let go while it was held are
    let go after it."""
    with _GUARD:
        _guard_thread[0] = threading.get_ident()
        try:
            yield
        finally:
            _guard_thread[0] = None
    while _later:
        _later.pop().release()


def claim(folder: Path, program: str | None = None) -> Owner | Holder | None:
    """Take the data folder `folder` for this program: the Owner when it was free, who
    holds it when another program does, None when no lock can be taken there at all (a
    folder that cannot be written: nothing can be saved in it anyway)."""
    path = folder / OWNER_FILE
    with contextlib.suppress(OSError):
        path = path.resolve()
    with _guarded():
        if path in _HELD:
            handle, count = _HELD[path]
            _HELD[path] = (handle, count + 1)
            return Owner(path)
        return _take(path, program)


def _take(path: Path, program: str | None) -> Owner | Holder | None:
    try:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held while we run
    except OSError:
        return None
    try:
        _lock(handle)
    except BlockingIOError:
        holder = _read(handle)
        handle.close()
        return holder
    except OSError:  # a file system with no locks: nothing to go by
        handle.close()
        return None
    record = {
        "program": program or this_program(),
        "pid": os.getpid(),
        "since": time.time(),
        "host": socket.gethostname(),
    }
    with contextlib.suppress(OSError):  # the lock is what counts; the words are a nicety
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(record) + "\n")
        handle.flush()
    _HELD[path] = (handle, 1)
    return Owner(path)


def _read(handle: IO[str]) -> Holder:
    """What the holder wrote; a damaged or hostile record gives the plain default."""
    try:
        handle.seek(0)
        data = json.loads(handle.read(_RECORD_MAX_BYTES))
    except (OSError, ValueError, RecursionError):
        return Holder()
    if not isinstance(data, dict):
        return Holder()
    program = data.get("program")
    pid = data.get("pid")
    since = data.get("since")
    host = data.get("host")
    return Holder(
        program=_printable(program, 60) if isinstance(program, str) else Holder.program,
        pid=pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None,
        since=float(since)
        if isinstance(since, int | float) and not isinstance(since, bool) and 0 < since < 2**40
        else None,
        host=_printable(host, 60) if isinstance(host, str) else None,
    )


def _printable(text: str, limit: int) -> str:
    kept = "".join(char for char in text if char.isprintable())[:limit].strip()
    return kept or "another companion program"


def _lock(handle: IO[str]) -> None:
    if fcntl is not None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    handle.seek(0)  # pragma: no cover - Windows
    try:
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    except OSError as exc:
        raise BlockingIOError(str(exc)) from exc


def _unlock(handle: IO[str]) -> None:
    if fcntl is not None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return
    handle.seek(0)  # pragma: no cover - Windows
    msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
