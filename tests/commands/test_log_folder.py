"""`companion app` writes its log in its data folder, and keeps the last few runs' logs only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.commands.app import LOG_FILES_KEPT
from companion.plumbing.places import DATA_DIR_ENV, log_dir

pytestmark = pytest.mark.slow

START_TIMEOUT_S = 60.0  # s: the window is up in a few seconds; generous on a loaded machine
MAIN_LOOP = "Start application main loop"  # Kivy's record once the window runs


def wait_for_log_line(folder: Path, old: set[Path], line: str, process: subprocess.Popen) -> Path:
    """The new log file in `folder` once it holds `line` (the app writes as it goes)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        for path in set(folder.glob("*")) - old:
            if line in path.read_text(encoding="utf-8", errors="replace"):
                return path
        time.sleep(0.05)
    raise AssertionError(f"no log in {folder} says {line!r}: {sorted(os.listdir(folder))}")


def test_a_run_of_the_app_writes_its_log_in_its_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    kivy_home = tmp_path / "kivy"
    logs = log_dir(data)
    assert logs.parent == data
    logs.mkdir(parents=True)
    # Earlier runs left more logs than are kept.
    old = {logs / f"companion_26-01-01_{n}.txt" for n in range(LOG_FILES_KEPT + 3)}
    for path in sorted(old):
        path.write_text("[INFO   ] an earlier run\n", encoding="utf-8")
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", KIVY_HOME=str(kivy_home))
    for name in ("KIVY_NO_FILELOG", DATA_DIR_ENV):
        env.pop(name, None)
    command = ["app", "--data-dir", str(data), "--no-virtual", "--size", "360x640"]
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", *command],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        log = wait_for_log_line(logs, old, MAIN_LOOP, process)
    finally:
        process.terminate()
        process.communicate(timeout=30)
    text = log.read_text(encoding="utf-8")
    assert log.name.startswith("companion_") and "Kivy: v" in text  # the whole run, from its start
    kept = set(logs.iterdir())
    assert log in kept and len(kept) == LOG_FILES_KEPT  # the oldest runs' logs went
    assert not (kivy_home / "logs").exists()  # nothing in Kivy's own folder
