"""`companion sim --dice N`: virtual dice thrown and read through the app's own dice hub."""

from __future__ import annotations

import pytest

from companion.cli import main

pytestmark = pytest.mark.slow


def test_sim_throws_virtual_dice_and_the_hub_reads_them(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "--boards", "0", "--dice", "2", "--duration", "4", "--plain"]) == 0
    out = capsys.readouterr().out
    assert "2 virtual dice on virtual BLE" in out
    assert "die Pixels Ruby (d6)" in out and "die GoDice GoDice_000001_" in out
    assert "connected" in out and " settled  face " in out  # a throw reached the hub


def test_dice_alone_are_something_to_start(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "--boards", "0", "--dice", "1", "--duration", "0.5", "--plain"]) == 0
    assert "nothing to start" not in capsys.readouterr().err
