"""Ways to hurt a data folder as the world does: a small file system that fills up, damaged
pages, a read-only folder. Shared by the store's fault tests and the fault script."""

from __future__ import annotations

import contextlib
import os
import random
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PAGE_BYTES = 4096


class CannotHurt(RuntimeError):
    """This machine does not allow the fault (not root, no tmpfs, no chattr)."""


@contextlib.contextmanager
def small_filesystem(size_kib: int) -> Iterator[Path]:
    """A fresh file system of `size_kib` KiB (tmpfs, mounted for the duration; needs root)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        raise CannotHurt("mounting a small file system needs root")
    where = Path(tempfile.mkdtemp(prefix="companion-small-fs-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        where.rmdir()
        raise CannotHurt(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        with contextlib.suppress(OSError):
            where.rmdir()


def fill(folder: Path) -> Path:
    """Fill the file system holding `folder` to the last byte; returns the filler file."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as handle:
        block = b"\0" * 65536
        while True:
            try:
                handle.write(block)
            except OSError:
                break
        while True:  # the last few bytes too
            try:
                handle.write(b"\0")
            except OSError:
                break
    return filler


def damage_pages(database: Path, rnd: random.Random, pages: int = 3) -> list[int]:
    """Overwrite `pages` random pages of the database (never the header page) with random
    bytes, as a failing card or a bad sync does; returns the page numbers."""
    size = database.stat().st_size
    count = size // PAGE_BYTES
    if count < 2:
        return []
    hit = rnd.sample(range(1, count), min(pages, count - 1))
    with database.open("r+b") as handle:
        for page in hit:
            handle.seek(page * PAGE_BYTES + rnd.randrange(0, PAGE_BYTES - 64))
            handle.write(rnd.randbytes(rnd.choice((8, 64, 512))))
    return hit


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make `folder` refuse new names and renames, even for root (who ignores modes)."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)]).returncode != 0:
        raise CannotHurt("cannot make a folder read-only for root here (no chattr +i)")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


def child_reports(
    play: Callable[[int], None],
    kill_at_s: float,
    hurt: Callable[[], None] | None = None,
    hurt_at_s: float = 0.0,
    *,
    hurt_at_count: int | None = None,
    kill_at_count: int | None = None,
) -> int:
    """Run `play(report_fd)` in a forked child (it starts in a millisecond), call `hurt()`
    `hurt_at_s` after it started, and SIGKILL it at `kill_at_s`. Returns the largest
    number the child wrote to `report_fd` (one per line; 0 when none).

    With `hurt_at_count` the hurt waits until the child has reported that many, and with
    `kill_at_count` the kill comes once it has reported that many (`kill_at_s` is then
    only the deadline): on a busy machine the child is as far along at the hurt and the
    kill as on a quiet one."""
    read_end, write_end = os.pipe()
    pid = fork(lambda: play(write_end), close=read_end)
    os.close(write_end)
    started = time.monotonic()
    data = b""
    best = 0

    def reported() -> int:
        return max((int(line) for line in data.decode().split()), default=0)

    while (left := started + kill_at_s - time.monotonic()) > 0:
        if kill_at_count is not None and best >= kill_at_count:
            break
        if (
            hurt is not None
            and time.monotonic() - started >= hurt_at_s
            and (hurt_at_count is None or best >= hurt_at_count)
        ):
            hurt()
            hurt = None
        wait = left if hurt is None and kill_at_count is None else min(left, 0.01)
        if select.select([read_end], [], [], wait)[0]:
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            data += chunk
            # Only whole lines count: a number cut in two is read when its end comes.
            best = max((int(line) for line in data.decode().split("\n")[:-1] if line), default=0)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    while select.select([read_end], [], [], 0)[0]:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    return reported()


def small_fs_or_skip() -> Iterator[Path]:
    """For a fixture: a small file system of its own (4 MiB), or the test is skipped
    where none can be had (`yield from small_fs_or_skip()`)."""
    try:
        with small_filesystem(4096) as where:
            yield where
    except CannotHurt as exc:
        pytest.skip(str(exc))


def fork(run: Callable[[], None], close: int) -> int:
    """Run `run()` in a forked child (closing the parent's end `close` there) that ends
    as soon as it returns or raises; returns the child's pid."""
    pid = os.fork()
    if pid == 0:  # the child
        status = 1
        try:
            os.close(close)
            run()
            status = 0
        finally:
            os._exit(status)
    return pid
