"""Shared pytest options: opt-in hardware tests skip unless a board is named."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hardware", "tests against real counters (opt-in)")
    group.addoption(
        "--hw-port",
        default=None,
        help="serial port of a real counter, e.g. /dev/ttyACM0",
    )
    group.addoption(
        "--hw-ble",
        default=None,
        help="BLE address (or name) of a real counter",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    have_hw = config.getoption("--hw-port") or config.getoption("--hw-ble")
    if have_hw:
        return
    skip = pytest.mark.skip(reason="needs a real counter: pass --hw-port or --hw-ble")
    for item in items:
        if "hw" in item.keywords:
            item.add_marker(skip)
