"""Shared pytest options: opt-in hardware tests skip unless a board is named; figures
that tests measure are printed together at the end of the run."""

from __future__ import annotations

from collections.abc import Callable

import pytest

FIGURE = "figure"
_figures: list[str] = []


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


@pytest.fixture
def figure(record_property: Callable[[str, object], None]) -> Callable[[str], None]:
    """Report a measured figure (heap bytes, install cuts...): printed under "figures" at
    the end of the run, from whichever worker process measured it."""

    def report(text: str) -> None:
        record_property(FIGURE, text)

    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _figures.extend(str(value) for key, value in report.user_properties if key == FIGURE)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _figures:
        terminalreporter.section("figures")
        for text in _figures:
            terminalreporter.write_line(text)
