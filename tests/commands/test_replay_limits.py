"""`companion replay` refuses input too large for a game log before reading all of it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands.replay import MAX_LOG_BYTES


def test_an_endless_input_is_refused_in_one_line() -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from companion.cli import main; sys.exit(main())",
            "replay",
            "/dev/zero",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"companion replay: /dev/zero: larger than {MAX_LOG_BYTES // 2**20} MiB, "
        "the most a game log may hold\n"
    )


def test_a_log_over_the_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(100 * 2**20)  # 100 MB, sparse: cheap to make, costly to parse
    assert main(["replay", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "larger than 32 MiB" in captured.err


def test_a_log_at_the_limit_is_read_and_judged_on_its_contents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "spaces.json"
    path.write_bytes(b" " * MAX_LOG_BYTES)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "not valid JSON" in err and "larger than" not in err
