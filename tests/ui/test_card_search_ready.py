"""The card search is ready before the first letter: the app loads the cards and builds
the name indexes in the background as it starts."""

from __future__ import annotations

import pytest

from companion.cards import search as search_module
from tests.ui.conftest import Harness


def test_the_first_letter_typed_builds_no_index(
    ui: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = ui.app
    app._cards, app._cards_loading = None, None  # as just after the start
    app.load_cards_soon()
    assert app._cards_loading is not None
    done, _outcome = app._cards_loading
    assert done.wait(60), "the cards did not load in the background"

    built: list[int] = []
    real_init = search_module.NameIndex.__init__

    def counted(index: object, entries: object) -> None:
        built.append(1)
        real_init(index, entries)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module.NameIndex, "__init__", counted)
    ui.start_game(["Anna", "Bram"])
    ui.nav("combat")
    screen = ui.screen("combat")
    screen.search("g")  # the first keystroke in the monster entry
    assert app.cards is not None and len(app.cards) > 0
    assert built == []
