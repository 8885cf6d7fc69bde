"""Where the companion keeps its files, and how it writes them without ever leaving half a file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from companion.resources import user_data_dir


class StoreError(ValueError):
    """A saved file could not be read or written; the message names the file and the cause."""


def data_dir() -> Path:
    """The user's data folder for the companion (created on first use)."""
    path = user_data_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


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
