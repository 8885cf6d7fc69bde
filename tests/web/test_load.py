"""Load and faults, in the suite: 8 seats pressing 5 times a second with random dropped
connections and 2 boards, for 20 seconds (benchmarks/web_load.py runs the same for two
minutes): no press lost or applied twice, every page shows the host's state, and the
process's memory and open sockets stay flat."""

from __future__ import annotations

import sys

import pytest

from tests.web.load import run_load

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

SECONDS = 20.0


async def test_eight_seats_and_two_boards_under_load_lose_nothing() -> None:
    result = await run_load(SECONDS)
    assert result.problems == []
    # Every seat kept pressing through its drops (how many a second a machine manages is
    # benchmarks/web_load.py's figure, not this test's).
    assert result.presses >= 8 * 10
    assert result.drops >= 8
    assert result.applied > 0 and result.refused > 0
    # Flat: after the first seconds, the sockets are at most those of the 10 pages (give
    # or take the ones being re-opened), and memory grows far less than the game's log
    # does. Fewer is no leak: on a busy machine several seats can be between a drop and
    # their return at the moment of a sample (seen: 19 of 25).
    settled = result.sockets[2:]
    assert max(settled) <= max(result.sockets[:2]) + 4, result.sockets
    assert result.sockets[-1] <= result.sockets[1] + 2, result.sockets
    growth_kib = result.rss_kib[-1] - result.rss_kib[1]
    assert growth_kib < 20 * 1024, result.rss_kib
