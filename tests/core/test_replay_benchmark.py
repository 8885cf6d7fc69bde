"""The replay benchmark keeps working: it prints its figure beside the named baselines."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "replay.py"


def test_benchmark_prints_the_figure_and_its_baselines(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("replay_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building
    spec.loader.exec_module(module)
    module.main(["--actions", "300", "--repeat", "1"])  # too short to judge the speed
    out = capsys.readouterr().out
    assert "log: 300 actions" in out
    for row in ("checked replay", "baseline: fold without checks", "baseline: plain dict"):
        assert row in out
    assert "actions/s" in out
    assert "both from the same checkpoint" in out and "both folding the whole log" in out
    assert "the actions alone" in out
