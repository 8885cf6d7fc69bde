"""The start-up benchmark runs and prints both starts beside each other (figures are not judged)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "startup.py"


@pytest.mark.slow
def test_startup_benchmark_prints_the_app_beside_a_bare_window() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--runs", "1", "--no-virtual"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    # 1 is a missed target (the figures are not judged here); a crash prints no figures.
    assert done.returncode in (0, 1), done.stderr[-2000:]
    out = done.stdout
    assert "bare Kivy window, first frame" in out
    assert "first frame (cover of the resumed game)" in out
    assert "playable:" in out
    assert "target <= 1.5 x" in out
