"""Dice: a d6 roller; with a game open the roll is recorded in the game's log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.properties import ListProperty, NumericProperty, StringProperty

from companion.core import RollDie
from companion.ui.dice_service import dice_service
from companion.ui.i18n import _
from companion.ui.screens.base import CompanionScreen

RECENT_ROLLS = 8


class DiceScreen(CompanionScreen):
    """Tap the die (or the button) to roll."""

    value = NumericProperty(0)
    who = StringProperty("")
    recent = ListProperty([])
    # Which smart die gave the last roll ("" for the app's own).
    die_text = StringProperty("")
    _stop_die: Callable[[], None] | None = None

    def roll(self, value: int | None = None, die: str = "") -> None:
        """Roll one d6 (or take a smart die's `value`) and show it tumbling onto the result."""
        session = self.session
        if session.game is not None:
            fields: dict[str, Any] = {"player": session.game.state.current, "purpose": "dice"}
            if value is not None:
                fields.update(roll=value, die=die)
            if not session.act(RollDie, **fields):
                return
            result = session.game.state.last_roll
            value = result.value if result is not None else 0
            self.who = session.game.state.current_player.name
        elif value is None:
            value = session.dice.roll_d6()
            self.who = ""
        self.value = value
        self.die_text = _("Rolled on {die}").format(die=die) if die else ""
        self.recent = ([value, *self.recent])[:RECENT_ROLLS]
        self.ids.die.tumble_to(value)

    # -- smart dice ------------------------------------------------------------------------
    def on_enter(self, *_args: Any) -> None:
        # Back on the screen, the die waits for a new roll: the last one is in Recent.
        self.value = 0
        self.who = ""
        self.die_text = ""
        if not self.ids.die.rolling:
            self.ids.die.value = 0
        self._listen_to_die()

    def on_leave(self, *_args: Any) -> None:
        stop, self._stop_die = self._stop_die, None
        if stop is not None:
            stop()

    def _listen_to_die(self) -> None:
        """Every settled roll of the roller's die (or a whoever-is-rolling die) is a roll here."""
        self.on_leave()
        service = dice_service(self.app)
        game = self.session.game
        if service is not None:
            # Without a game nobody has a seat: only the whoever-is-rolling dice roll here.
            seat = game.state.current if game is not None else -1
            # The die is in the roller's hand already: no blink after every throw.
            self._stop_die = service.wait_roll(
                seat, self._die_rolled, self._die_problem, blink=False
            )

    def _die_rolled(self, value: int, die: str) -> None:
        self._stop_die = None
        self.roll(value, die=die)
        self._listen_to_die()

    def _die_problem(self, text: str) -> None:
        self.app.notify(text, error=True)
