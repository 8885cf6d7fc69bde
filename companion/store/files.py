"""Where the companion keeps its files, and how it writes them without ever leaving half a file."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
import time
from pathlib import Path

from companion.resources import user_data_dir

_LOGGER = logging.getLogger(__name__)

# What atomic_write_text's temporary files are called: ".<target>.<8 random chars>.tmp".
_PARTIAL_WRITE = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
# A temporary file this old belongs to no write in progress: a whole write takes
# milliseconds, so only a process that died mid-write leaves one behind this long.
PARTIAL_WRITE_AGE_S = 60.0


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
