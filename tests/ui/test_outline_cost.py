"""Only the player whose turn it is has a wide outline; the others' hidden outlines cost no
stencil drawing (Kivy draws a line wider than 1 px in a see-through colour through the
stencil: with software rendering that was half of every frame of an 8-player Table)."""

from __future__ import annotations

from typing import Any

import pytest
from kivy.graphics import Color, Line

from tests.ui.conftest import Harness


def outlines(tile: Any) -> list[tuple[float, float]]:
    """(width, colour alpha) of every line the tile draws under its contents."""
    found = []
    alpha = 1.0
    for instruction in tile.canvas.before.children:
        if isinstance(instruction, Color):
            alpha = instruction.a
        elif isinstance(instruction, Line):
            found.append((instruction.width, alpha))
    return found


@pytest.mark.parametrize("players", [2, 8])  # tiles, and one line per player
def test_only_the_turn_has_a_wide_outline(ui: Harness, players: int) -> None:
    ui.start_game([f"Player {seat + 1}" for seat in range(players)])
    ui.nav("table")
    ui.wait_until(
        lambda: ui.app.manager.current == "table" and not ui.app.manager.transition.is_active
    )
    ui.pump()
    tiles = ui.screen("table").tiles
    assert len(tiles) == players
    turns = 0
    for tile in tiles:
        lines = outlines(tile)
        assert lines, type(tile).__name__
        for width, alpha in lines:
            if tile.turn:
                # Shown: wide and opaque, so Kivy draws it without the stencil.
                assert width > 1 and alpha == 1
            else:
                assert width <= 1, (type(tile).__name__, width, alpha)
        turns += tile.turn
    assert turns == 1
