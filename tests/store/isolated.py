"""Run a piece of a test in a forked child with a memory cap and a time limit.

Hostile files (a link to /dev/zero, a named pipe) make code that trusts them eat all
memory or wait forever; in a child that costs the test a clear failure, not the machine.
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import time
from collections.abc import Callable
from typing import TypeVar

from tests.store.fault_tools import fork

T = TypeVar("T")

MEMORY_CAP_BYTES = 1 << 30  # far more than the store needs, far less than the machine has


class ChildFailed(AssertionError):
    """The child hung, was killed, or raised: the message says which."""


def isolated(run: Callable[[], T], timeout_s: float = 30.0) -> T:
    """`run()` in a forked child; its result (pickled) or ChildFailed."""
    read_end, write_end = os.pipe()

    def child() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))
        try:
            outcome: tuple[str, object] = ("ok", run())
        except BaseException as exc:  # reported to the parent, which fails the test
            outcome = ("raised", f"{type(exc).__name__}: {exc}")
        with os.fdopen(write_end, "wb") as out:
            pickle.dump(outcome, out)

    pid = fork(child, close=read_end)
    os.close(write_end)
    data = b""
    deadline = time.monotonic() + timeout_s
    with os.fdopen(read_end, "rb") as answer:
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([answer], [], [], left)
            if not ready:
                continue
            chunk = answer.read1(65536)
            if not chunk:
                break
            data += chunk
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise ChildFailed(f"still running after {timeout_s:.0f} s (it hangs)")
    _, status = os.waitpid(pid, 0)
    if not data:
        raise ChildFailed(f"the child died (status {status})")
    kind, value = pickle.loads(data)
    if kind != "ok":
        raise ChildFailed(f"the child raised {value}")
    return value  # type: ignore[no-any-return]
