"""History in a long game: the newest actions listed, older ones a tap away, words right."""

from __future__ import annotations

from companion.core import describe
from companion.core.randomplay import random_game
from companion.ui.screens.history import SHOWN_STEP
from ui.conftest import Harness


def test_a_long_history_lists_the_newest_and_shows_older_on_request(ui: Harness) -> None:
    game = random_game(SHOWN_STEP + 30, seed=2, allow_win=False)
    ui.app.session.games.save("long-one", game)
    assert ui.app.session.open("long-one")
    ui.nav("history")
    history = ui.screen("history")
    data = history.ids.lines.data
    assert history.count == game.revision
    assert len(data) == SHOWN_STEP + 1 and data[-1]["viewclass"] == "HistoryMore"
    assert data[0]["revision"] == game.revision - 1  # newest first

    history.scroll_to(0)  # the very first action: the list grows to reach it
    ui.pump()
    assert len(history.ids.lines.data) == game.revision
    first = history.line_of(0)
    assert first is not None
    assert first.text == f"1.  {describe(game.log[0], game.state_at(0))}"
    middle = SHOWN_STEP + 3
    assert history.entries[game.revision - 1 - middle].endswith(
        describe(game.log[middle], game.state_at(middle))
    )

    ui.tap(first)  # takes back everything
    assert ui.app.session.game.revision == 0
    assert ui.banner() == f"Undone: the last {game.revision} actions"
