"""Firmware tests import the firmware as a board would: `counter` and `wire` top-level."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
for path in (ROOT / "firmware", HERE / "vmside", HERE):  # deploy.py lives in firmware/
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
