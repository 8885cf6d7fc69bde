"""`companion sim` and `companion scan` from the command line, as a user runs them."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest

from companion.cli import main

RUN_TIMEOUT_S = 60  # s: each command finishes in a few seconds; a hang must fail the test

pytestmark = pytest.mark.slow


def companion(*args: str, env_dir: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        env={"COMPANION_DATA_DIR": env_dir, "PATH": "/usr/bin:/bin"},
        check=False,
    )


def test_scan_virtual_lists_a_serial_board_and_a_ble_tracker(tmp_path):
    result = companion("scan", "--virtual", "--timeout", "1", env_dir=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "transport",
        "name",
        "address",
        "role",
        "firmware",
        "battery",
        "claimed",
    ]
    serial = next(line for line in lines if line.startswith("serial "))
    ble = next(line for line in lines if line.startswith("ble "))
    assert " board " in serial and "1.0.0" in serial and serial.rstrip().endswith("no")
    assert " tracker " in ble and "%" in ble


def test_scan_without_counters_says_so_plainly(tmp_path):
    result = companion("scan", "--no-ble", env_dir=str(tmp_path))
    assert result.returncode == 0
    assert "No counters found" in result.stdout
    assert "Traceback" not in result.stderr


def run_until(command: list[str], tmp_path: Path, shown: bytes) -> tuple[int, str, str]:
    """Run `companion <command>` as a person does: watched until it prints `shown`, then
    stopped with Ctrl-C (not after a fixed time, which a busy machine may not suffice
    for). Returns its exit status, standard output and standard error."""
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"COMPANION_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    seen, errors = bytearray(), bytearray()
    assert process.stdout is not None and process.stderr is not None
    readers = [
        threading.Thread(target=_read_all, args=(stream, into), daemon=True)
        for stream, into in ((process.stdout, seen), (process.stderr, errors))
    ]
    try:
        for reader in readers:
            reader.start()
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while shown not in seen:
            assert process.poll() is None and time.monotonic() < deadline, bytes(seen)[-2000:]
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        process.wait(RUN_TIMEOUT_S)
        for reader in readers:
            reader.join(RUN_TIMEOUT_S)  # every byte it wrote, read
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()
    return process.returncode, seen.decode(), errors.decode()


def _read_all(stream: IO[bytes], into: bytearray) -> None:
    while chunk := stream.read1(65536):
        into.extend(chunk)


# The demo game has claimed the counters and drives them.
CLAIMED = b"claimed   app connected"


def test_sim_prints_the_ports_and_draws_the_counters_until_it_stops(tmp_path):
    ports = str(tmp_path / "ports")
    command = ["sim", "--boards", "1", "--trackers", "1", "--demo", "--dir", ports]
    status, out, err = run_until(command, tmp_path, CLAIMED)
    assert status == 0, err
    assert f"on serial port {tmp_path / 'ports' / 'board-0'}" in out
    assert f"on serial port {tmp_path / 'ports' / 'tracker-0'}" in out
    assert "\x1b[38;2;" in out  # LEDs drawn in colour
    assert out.rstrip().endswith("counters switched off")
    assert not (tmp_path / "ports" / "board-0").exists()


def test_sim_over_ble_runs_with_the_demo(tmp_path):
    command = ["sim", "--trackers", "1", "--boards", "0", "--transport", "ble", "--demo"]
    status, out, err = run_until(command, tmp_path, CLAIMED)
    assert status == 0, err
    assert "on virtual BLE" in out
    assert out.rstrip().endswith("counters switched off")


def test_sim_needs_at_least_one_counter(capsys):
    assert main(["sim", "--boards", "0"]) == 1
    assert "nothing to start" in capsys.readouterr().err
