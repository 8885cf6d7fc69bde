"""A tracker's low battery shows on its player's tile."""

from __future__ import annotations

import pytest
from kivy.event import EventDispatcher
from kivy.properties import ListProperty

from companion.devices.link import LinkState
from companion.devices.status import Access, CounterStatus, Role
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


class Counters(EventDispatcher):
    """Stands in for the device service: only the statuses the table reads."""

    statuses = ListProperty([])


def tracker(key: str, seat: int, *, low: bool) -> CounterStatus:
    return CounterStatus(
        key=key,
        transport="serial",
        name=key,
        address=key,
        connection=LinkState.OPEN,
        access=Access.OURS,
        role=Role.TRACKER,
        battery_percent=5 if low else 80,
        battery_low=low,
        players=(seat,),
    )


def test_a_low_tracker_battery_marks_its_players_tile(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo"])
    kept = ui.app.devices
    counters = Counters()
    ui.app.devices = counters
    try:
        ui.nav("table")
        ui.pump()
        table = ui.screen("table")
        assert [tile.battery_low for tile in table.tiles] == [False, False, False]
        counters.statuses = [tracker("a", 0, low=False), tracker("b", 1, low=True)]
        ui.pump()
        assert [tile.battery_low for tile in table.tiles] == [False, True, False]
        counters.statuses = [tracker("a", 0, low=False), tracker("b", 1, low=False)]
        ui.pump()
        assert not any(tile.battery_low for tile in table.tiles)
    finally:
        ui.app.devices = kept
