"""Writing a file so that a crash leaves the old or the new one whole, and reading one that
may be hostile (a pipe, a device, a huge file) without hanging or filling memory."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
import tempfile
import time
from pathlib import Path

from companion.plumbing.errors import NotAFileError, StoreError

_LOGGER = logging.getLogger(__name__)

# What atomic_write_text's temporary files are called: ".<target>.<8 random chars>.tmp".
_PARTIAL_WRITE = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
# A temporary file this old belongs to no write in progress: a whole write takes
# milliseconds, so only a process that died mid-write leaves one behind this long.
PARTIAL_WRITE_AGE_S = 60.0

# How a file is opened for reading: a named pipe must not wait for a writer, and a
# terminal must not become the app's.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_READ_CHUNK = 1 << 16


def read_capped(path: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file at `path`, which may hold at most `max_bytes`.

    Whatever else has that name is never read: a named pipe (reading would wait forever),
    a device such as /dev/zero (it never ends), a folder, or a file that is or grows
    larger than `max_bytes` raise NotAFileError saying which. A symbolic link is followed
    only to a regular file. FileNotFoundError when there is nothing there; OSError when
    the file cannot be read.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFileError(f"{path}: {_kind(info.st_mode)}, not a file the app can read")
        if info.st_size > max_bytes:
            raise NotAFileError(f"{path}: larger than {max_bytes:,} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise NotAFileError(f"{path}: larger than {max_bytes:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def special_file(path: Path) -> str | None:
    """What `path` is when it is there but not a regular file (following links), else None."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:  # a link loop, a name too long: not a file either
        return exc.strerror or str(exc)
    return None if stat.S_ISREG(mode) else _kind(mode)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def atomic_write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a crash leaves either the old or the new file, whole.

    The new content goes to a temporary file in the same folder (a rename is only
    atomic within one file system), is flushed to disk, then renamed over the
    target; the folder is synced so the rename itself survives a power cut.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    # Windows cannot open a folder for syncing; its rename is durable without it.
    if os.name != "posix":
        return
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def set_aside(path: Path) -> Path:
    """Rename a file the app could not use to `<name>.damaged-<time>` beside it; returns that.

    Raises StoreError when it cannot be renamed (a read-only folder, say): the caller
    must then leave the file alone rather than write over it.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    number = 1
    while kept.exists():  # two damaged files within one second keep both copies
        number += 1
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{number}")
    try:
        path.replace(kept)
    except OSError as exc:
        raise StoreError(
            f"it could not be set aside ({exc.strerror or exc}), so it is left as it is"
        ) from None
    return kept


def remove_partial_writes(folder: Path, *, min_age_s: float = PARTIAL_WRITE_AGE_S) -> list[Path]:
    """Delete the temporary files an interrupted atomic write left in `folder` and its subfolders.

    Only files named as atomic_write_text names them, and older than `min_age_s`, are
    removed, so a write in progress in another process is never disturbed. Returns what
    was removed; a file that cannot be removed is logged and left.
    """
    removed: list[Path] = []
    try:
        folders = [folder, *(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())]
    except OSError:
        return removed
    now = time.time()
    for where in folders:
        try:
            candidates = [p for p in where.iterdir() if _PARTIAL_WRITE.match(p.name)]
        except OSError:
            continue
        for path in candidates:
            try:
                if not path.is_file() or now - path.stat().st_mtime < min_age_s:
                    continue
                path.unlink()
            except OSError as exc:
                _LOGGER.warning("could not remove the partial write %s: %s", path, exc)
                continue
            removed.append(path)
    return removed
