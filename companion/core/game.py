"""The `Game` facade: a setup plus a log of checked actions, with undo, redo and JSON.

Undo and redo move a cursor over the snapshots the fold produced (as python-chess
keeps a stack of board states): nothing is ever reversed by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from pydantic import ValidationError

from companion.core.actions import ACTION_ADAPTER, BaseAction
from companion.core.dice import RandomSource, SecretsDice
from companion.core.engine import apply_action, fill_rolls
from companion.core.errors import RuleError, validation_error_line
from companion.core.listeners import Listeners
from companion.core.log_versions import (
    LOG_FORMAT,
    LOG_VERSION,
    READABLE_VERSIONS,
    upgrade_actions,
)
from companion.core.models import Edition, GameSetup
from companion.core.state import GameState

Subscriber = Callable[[GameState], None]


class GameLogError(ValueError):
    """A saved game cannot be read: not JSON, the wrong format, or an illegal action."""


class Game:
    """A game in progress: apply checked actions, undo and redo, save and load.

    >>> from companion.core import CLASSIC, GameSetup, GoUpLevel, PlayerSetup, Sex
    >>> setup = GameSetup(
    ...     players=(PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
    ...              PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE)),
    ...     edition=CLASSIC)
    >>> game = Game(setup)
    >>> game.apply(GoUpLevel(player=1)).players[1].level
    2
    >>> game.undo().players[1].level
    1
    >>> game.redo().revision
    1
    """

    def __init__(self, setup: GameSetup, rng: RandomSource | None = None) -> None:
        self._setup = setup
        self._dice: RandomSource = rng if rng is not None else SecretsDice()
        self._states: list[GameState] = [GameState.initial(setup)]
        self._actions: list[BaseAction] = []
        self._cursor = 0
        self._sequence = 0
        self._subscribers: Listeners[[GameState]] = Listeners()

    # --- reading -------------------------------------------------------------------

    @property
    def setup(self) -> GameSetup:
        """The setup the game started from."""
        return self._setup

    @property
    def state(self) -> GameState:
        """The current state: an immutable snapshot."""
        return self._states[self._cursor]

    @property
    def log(self) -> tuple[BaseAction, ...]:
        """The applied actions, oldest first (undone ones are not included)."""
        return tuple(self._actions[: self._cursor])

    @property
    def sequence(self) -> int:
        """Goes up by one on every apply, undo and redo, and never goes back.

        `state.revision` counts the applied actions, so an undo lowers it; anything that
        needs a number that only grows (device snapshots) reads this one.
        """
        return self._sequence

    @property
    def can_undo(self) -> bool:
        return self._cursor > 0

    @property
    def can_redo(self) -> bool:
        return self._cursor < len(self._actions)

    def state_at(self, revision: int) -> GameState:
        """The state after the first `revision` actions (for the History screen)."""
        if not 0 <= revision <= self._cursor:
            raise ValueError(f"revision must be between 0 and {self._cursor}")
        return self._states[revision]

    # --- changing ------------------------------------------------------------------

    def apply(self, action: BaseAction) -> GameState:
        """Check and apply one action; open die rolls are rolled and recorded.

        A broken rule raises RuleError and changes nothing. Applying after an undo
        drops the undone actions (they can no longer be redone).
        """
        if not isinstance(action, BaseAction):
            raise TypeError(f"not a game action: {action!r}")
        state = self.state
        full = fill_rolls(action, state, self._dice)
        new_state = apply_action(state, full)
        del self._actions[self._cursor :]
        del self._states[self._cursor + 1 :]
        self._actions.append(full)
        self._states.append(new_state)
        self._cursor += 1
        self._notify()
        return new_state

    def check(self, action: BaseAction) -> RuleError | None:
        """The rule the action would break now, or None if it is allowed; changes nothing.

        For greying out buttons: open die rolls are filled with stand-in results (the
        real dice are not touched), since no rule depends on the number rolled.
        """
        try:
            apply_action(self.state, fill_rolls(action, self.state, _StandInDice()))
        except RuleError as err:
            return err
        return None

    def undo(self, steps: int = 1) -> GameState:
        """Take back the last `steps` actions; they can be redone."""
        if steps < 1 or steps > self._cursor:
            raise RuleError("nothing_to_undo", f"There are only {self._cursor} actions to undo")
        self._cursor -= steps
        self._notify()
        return self.state

    def redo(self, steps: int = 1) -> GameState:
        """Apply again the last `steps` undone actions."""
        left = len(self._actions) - self._cursor
        if steps < 1 or steps > left:
            raise RuleError("nothing_to_redo", f"There are only {left} actions to redo")
        self._cursor += steps
        self._notify()
        return self.state

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(state)` after every apply, undo and redo; returns an unsubscribe."""
        return self._subscribers.add(callback)

    def _notify(self) -> None:
        self._sequence += 1
        self._subscribers.emit(self.state)

    # --- saving and loading --------------------------------------------------------

    def to_dict(self) -> dict[str, object]:
        """The game log as JSON-ready data (format documented in docs/game-log.md)."""
        return {
            "format": LOG_FORMAT,
            "version": LOG_VERSION,
            "setup": self._setup.model_dump(mode="json"),
            "actions": [
                {"type": a.type, **a.model_dump(mode="json", exclude_defaults=True)}
                for a in self.log
            ],
        }

    def to_json(self, indent: int | None = 1) -> str:
        """The game log as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_actions(
        cls,
        setup: GameSetup,
        actions: Sequence[BaseAction],
        rng: RandomSource | None = None,
    ) -> Game:
        """Replay a log with every rule checked; raises GameLogError naming the bad action."""
        game = cls(setup, rng)
        state = game.state
        for number, action in enumerate(actions, start=1):
            if _open_rolls(action):
                raise GameLogError(f"action {number} ({action.type}) has no recorded die roll")
            try:
                state = apply_action(state, action)
            except RuleError as err:
                raise GameLogError(f"action {number} ({action.type}) breaks a rule: {err}") from err
            game._actions.append(action)
            game._states.append(state)
        game._cursor = len(game._actions)
        return game

    @classmethod
    def from_dict(
        cls,
        data: object,
        rng: RandomSource | None = None,
        editions: Mapping[str, Edition] | None = None,
    ) -> Game:
        """Load a game log from JSON-ready data; raises GameLogError on anything wrong.

        `editions` resolves a setup's `"edition": "<id>"` (default: the core's built-in
        editions). Logs of an earlier version are upgraded first (log_versions.py).
        """
        if not isinstance(data, dict):
            raise GameLogError("a game log is a JSON object")
        if data.get("format") != LOG_FORMAT:
            raise GameLogError(f'not a game log: "format" must be "{LOG_FORMAT}"')
        version = data.get("version")
        if version not in READABLE_VERSIONS or isinstance(version, bool):
            readable = ", ".join(map(str, READABLE_VERSIONS))
            raise GameLogError(
                f"log version {version!r} is not supported (this program reads {readable})"
            )
        try:
            context = {"editions": editions} if editions is not None else None
            setup = GameSetup.model_validate(data.get("setup"), context=context)
        except ValidationError as err:
            raise GameLogError(f"bad setup: {validation_error_line(err)}") from None
        raw_actions = data.get("actions")
        if raw_actions is None:
            raise GameLogError('"actions" is missing (an empty game has "actions": [])')
        if not isinstance(raw_actions, list):
            raise GameLogError('"actions" must be a list')
        actions: list[BaseAction] = []
        for number, raw in enumerate(upgrade_actions(version, raw_actions), start=1):
            try:
                actions.append(ACTION_ADAPTER.validate_python(raw))
            except ValidationError as err:
                raise GameLogError(
                    f"action {number} is malformed: {validation_error_line(err)}"
                ) from None
        return cls.from_actions(setup, actions, rng)

    @classmethod
    def from_json(
        cls,
        text: str | bytes,
        rng: RandomSource | None = None,
        editions: Mapping[str, Edition] | None = None,
    ) -> Game:
        """Load a game saved by `to_json`; raises GameLogError on anything wrong."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise GameLogError(
                f"not valid JSON: {err.msg} at line {err.lineno} column {err.colno}"
            ) from None
        except UnicodeDecodeError:
            raise GameLogError("not valid JSON: the file is not UTF-8 text") from None
        except RecursionError:
            raise GameLogError("not valid JSON: nested too deeply") from None
        return cls.from_dict(data, rng, editions)


class _StandInDice:
    """Results 1, 2, ..., 6, 1, ... so that tie-breaks always end."""

    def __init__(self) -> None:
        self._next = 0

    def roll_d6(self) -> int:
        self._next = self._next % 6 + 1
        return self._next


def _open_rolls(action: BaseAction) -> bool:
    """Whether a dice action was logged without its result."""
    fields = type(action).model_fields
    return any(f in fields and getattr(action, f) is None for f in ("roll", "rolls"))
