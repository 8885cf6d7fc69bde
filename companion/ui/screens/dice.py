"""Dice: a d6 roller; with a game open the roll is recorded in the game's log."""

from __future__ import annotations

from kivy.properties import ListProperty, NumericProperty, StringProperty

from companion.core import RollDie
from companion.ui.screens.base import CompanionScreen

RECENT_ROLLS = 8


class DiceScreen(CompanionScreen):
    """Tap the die (or the button) to roll."""

    value = NumericProperty(0)
    who = StringProperty("")
    recent = ListProperty([])

    def roll(self) -> None:
        """Roll one d6 and show it tumbling onto the result."""
        session = self.session
        if session.game is not None:
            if not session.act(RollDie, player=session.game.state.current, purpose="dice"):
                return
            result = session.game.state.last_roll
            value = result.value if result is not None else 0
            self.who = session.game.state.current_player.name
        else:
            value = session.dice.roll_d6()
            self.who = ""
        self.value = value
        self.recent = ([value, *self.recent])[:RECENT_ROLLS]
        self.ids.die.tumble_to(value)
