"""Firmware tests import the firmware as a board would: `counter`, `wire`, `micropython`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from companion.devices import firmware_host

firmware_host.load()

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
# firmware/ only for deploy.py, a script of the computer's; the board's modules came above.
for path in (ROOT / "firmware", HERE / "vmside", HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


@pytest.fixture
def board_env(monkeypatch: pytest.MonkeyPatch):
    """Fake pins, LED strips and watchdog; `.app` is `counter.app` bound to them."""
    import boardfakes

    return boardfakes.install(monkeypatch)
