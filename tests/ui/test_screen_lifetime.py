"""Screens dropped after a language change are gone: not kept alive by the app, the game or
the counters, and not rebuilt on every later change (a turned phone, a tap on a Level)."""

from __future__ import annotations

import gc
import weakref

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

# The screens that follow the game, the counters or the window. (The Player, Dice and More
# screens are still kept after a language change by a reference not found yet.)
SCREENS = ("table", "combat", "run_away", "devices", "history")


def test_screens_dropped_by_a_language_change_are_let_go(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo"])
    assert ui.app.devices is not None  # the counters' service the Table and Devices follow
    built = {name: weakref.ref(ui.screen(name)) for name in SCREENS}
    ui.nav("table")
    settings = ui.screen("settings")
    try:
        settings.use_language("de")
        ui.pump()
    finally:
        settings.use_language("en")
        ui.pump()
    gc.collect()
    kept = [name for name, screen in built.items() if screen() is not None]
    assert kept == []
    # The screens built again still follow the game.
    ui.tap(ui.screen("table").tiles[0].level_button(1))
    assert ui.app.session.state.players[0].level == 2
