"""The big-screen level board: every player's token on their level, with the table's cues."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from companion.core import (
    AddHelper,
    Die,
    EndTurn,
    MonsterSpec,
    ResolveCombat,
    SetLevel,
    StartCombat,
)
from tests.ui.conftest import Harness

if TYPE_CHECKING:  # imported for real only once the session app configured Kivy's window
    from companion.ui.track import LevelTrack

pytestmark = pytest.mark.slow


def token_space(track: LevelTrack, seat: int) -> int:
    """The level whose space holds the seat's token, found from where it is drawn."""
    by_level: dict[int, list] = {}
    for token in track.tokens:
        by_level.setdefault(token.level, []).append(token)
    for level, tokens in by_level.items():
        for token, (cx, cy, _r) in zip(
            tokens, track.token_centres(level, len(tokens)), strict=True
        ):
            if token.seat != seat:
                continue
            for space in range(1, int(track.spaces) + 1):
                x, y, w, h = track.space_rect(space)
                if x <= cx <= x + w and y <= cy <= y + h:
                    return space
    raise AssertionError(f"no token drawn for seat {seat}")


def test_every_player_stands_on_their_level(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo", "Dev"])
    table = ui.screen("table")
    for seat, ups in ((1, 2), (2, 4), (3, 1)):
        for _ in range(ups):
            ui.tap(table.tiles[seat].ids.level.ids.plus)
    ui.nav("board_view")
    board = ui.screen("board_view")
    track = board.ids.track
    assert track.spaces == 10
    assert [token_space(track, seat) for seat in range(4)] == [1, 3, 5, 2]
    names = [entry.name for entry in reversed(board.ids.legend.children)]
    assert names == ["Anna", "Bram", "Cleo", "Dev"]
    assert board.headline.endswith("Anna")

    ui.app.session.act(SetLevel, player=0, level=7, override="A card says otherwise")
    ui.pump()
    assert token_space(track, 0) == 7  # the board follows the game without a tap


def test_turn_combat_death_and_victory_cues(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo"])
    ui.nav("board_view")
    board = ui.screen("board_view")
    track = board.ids.track
    assert [t.turn for t in track.tokens] == [True, False, False]

    ui.app.session.act(StartCombat, fighter=0, monsters=(MonsterSpec(name="Ogre", level=4),))
    ui.app.session.act(AddHelper, helper=2)
    ui.pump()
    assert [t.fighting for t in track.tokens] == [True, False, True]
    assert board.in_combat and not board.fighters_winning
    assert "Ogre" in board.combat_text and "Anna + Cleo" in board.combat_text
    assert board.ids.combat.height > 0

    ui.app.session.act(ResolveCombat, outcome="defeat")
    ui.app.session.act(Die, player=1)
    ui.pump()
    assert not board.in_combat and board.ids.combat.height == 0
    assert [t.dead for t in track.tokens] == [False, True, False]

    assert ui.app.session.act(EndTurn) and ui.app.session.act(EndTurn)  # Cleo's turn
    ui.app.session.act(SetLevel, player=2, level=9, override="A card says otherwise")
    ui.app.session.act(StartCombat, fighter=2, monsters=(MonsterSpec(name="Slime", level=1),))
    assert ui.app.session.act(ResolveCombat, outcome="kill")
    ui.app.show("board_view")
    ui.pump()
    assert [t.winner for t in track.tokens] == [False, False, True]
    assert board.finished and "Cleo" in board.headline
    assert token_space(track, 2) == 10


def test_epic_track_has_twenty_spaces_on_a_phone_and_a_desktop(ui: Harness) -> None:
    from kivy.core.window import Window

    ui.app.settings.winning_level = 20  # the New game screen starts from the Epic default
    ui.start_game(["Anna", "Bram"])
    ui.app.session.act(SetLevel, player=1, level=14, override="A card says otherwise")
    ui.nav("board_view")
    ui.pump(frames=5)  # let the layout give the track its phone-sized shape first
    track = ui.screen("board_view").ids.track
    assert track.spaces == 20
    assert track.per_row == 5  # a phone held upright: rows of five keep the tokens large
    assert token_space(track, 1) == 14
    try:
        Window.size = (1280, 800)
        ui.pump(frames=5)
        assert track.per_row == 10
        assert token_space(track, 1) == 14
        _x, _y, w, h = track.space_rect(1)
        assert w > 80 and h > 80  # readable across a room
    finally:
        Window.size = (360, 640)
        ui.pump(frames=5)
