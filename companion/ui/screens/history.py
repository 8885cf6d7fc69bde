"""History: every action of the game in words, newest first, with undo and redo."""

from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ListProperty, NumericProperty

from companion.core import BaseAction, GameState, describe
from companion.ui.screens.base import CompanionScreen

SHOWN_ACTIONS = 300


class HistoryScreen(CompanionScreen):
    """The log as sentences, newest first (the newest SHOWN_ACTIONS of long games)."""

    entries = ListProperty([])
    count = NumericProperty(0)

    def undo(self) -> None:
        """Take back the newest action."""
        self.session.undo()

    def undo_to(self, steps: int) -> None:
        """A tap on an entry: take back that action and every one after it (redo restores)."""
        self.session.undo(steps)

    def redo(self) -> None:
        """Apply again the action taken back last."""
        self.session.redo()

    def refresh(self) -> None:
        game = self.session.game
        if game is None:
            self.entries = []
            self.count = 0
            return
        log = game.log
        first = max(0, len(log) - SHOWN_ACTIONS)
        rows = [
            f"{revision + 1}.  {_in_words(log[revision], game.state_at(revision))}"
            for revision in range(first, len(log))
        ]
        rows.reverse()
        self.entries = rows
        self.count = len(log)
        box = self.ids.lines
        box.clear_widgets()
        for offset, text in enumerate(rows):
            line = Factory.HistoryLine(text=text)
            line.steps = offset + 1  # undoing this entry takes back everything after it too
            line.bind(on_release=lambda entry: self.undo_to(entry.steps))
            box.add_widget(line)


def _in_words(action: BaseAction, before: GameState) -> str:
    try:
        return describe(action, before)
    except (ValueError, LookupError, AttributeError):
        # A log written by a newer version may hold actions this one cannot word.
        return action.type.replace("_", " ")
