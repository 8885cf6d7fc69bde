"""The app saves after the frame that shows a change, and never loses one on the way."""

from __future__ import annotations

from companion.core import GoUpLevel
from ui.conftest import Harness


def test_a_change_is_saved_after_its_frame(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    session = ui.app.session
    assert session.act(GoUpLevel, player=1)
    sequence = session.game.sequence
    assert not session.games.is_durable(session.game_id, sequence)  # the frame comes first
    ui.pump()
    session.games.flush()
    assert session.games.is_durable(session.game_id, sequence)
    assert session.games.load(session.game_id).state.players[1].level == 2


def test_reopening_the_open_game_right_after_a_change_keeps_the_change(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    session = ui.app.session
    assert session.act(GoUpLevel, player=0)  # no frame yet: its save is still due
    assert session.open(session.game_id)
    assert session.game.state.players[0].level == 2
    ui.pump()
    assert session.act(GoUpLevel, player=0)
    session.save()
    assert session.games.load(session.game_id).state.players[0].level == 3
