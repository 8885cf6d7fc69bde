"""Makes the hardware tools importable: they are plain scripts under hardware/tools."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
for folder in (REPO / "hardware" / "tools", REPO / "hardware" / "enclosures"):
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
