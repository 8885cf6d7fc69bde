"""The `Game` facade: a setup plus a log of checked actions, with undo, redo and JSON.

Undo and redo move a cursor over the log (as python-chess keeps a stack of board
states): nothing is ever reversed by hand. Only every `CHECKPOINT_INTERVAL`-th state
is kept; any other state is the nearest kept one with at most that many logged
actions folded onto it again, so memory grows with the log, not with the log times
the size of a state, and an undo still costs a fraction of a millisecond.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice

from pydantic import ValidationError

from companion.core.actions import BaseAction
from companion.core.dice import RandomSource, SecretsDice
from companion.core.engine import apply_action, check_action, fill_rolls, replay
from companion.core.errors import RuleError, validation_error_line
from companion.core.log_versions import (
    LOG_FORMAT,
    LOG_VERSION,
    LogReadError,
    read_actions,
    readable_version,
    upgrade_setup,
)
from companion.core.models import SAVED_GAME, Edition, GameSetup
from companion.core.phrase import Phrase
from companion.core.state import GameState
from companion.plumbing.errors import CompanionError
from companion.plumbing.listeners import Listeners

# One state in memory every this many actions: an undo or a History line folds at most
# this many actions again (about 0.3 ms), and a state costs ~2 KiB, so a 100,000-action
# game keeps ~3,000 states instead of 100,000.
CHECKPOINT_INTERVAL = 32

Subscriber = Callable[[GameState], None]


class GameLogError(CompanionError, ValueError):
    """A saved game cannot be read: not JSON, the wrong format, or an illegal action."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector while a log is read and folded.

    A fold allocates many small immutable objects and frees few, which is exactly what
    makes the collector rescan everything already built, again and again; nothing in
    a fold makes reference cycles, so holding it loses nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def action_record(action: BaseAction) -> dict[str, object]:
    """One action as it stands in a game log: its type, then its non-default fields."""
    return {"type": action.type, **action.model_dump(mode="json", exclude_defaults=True)}


def action_text(action: BaseAction) -> str:
    """One action as compact JSON text (what a store keeps per action)."""
    return json.dumps(action_record(action), separators=(",", ":"), ensure_ascii=False)


def log_digest(texts: Iterable[str], start: str = "") -> str:
    """A fingerprint of a log prefix given as `action_text`s, chained action by action.

    A checkpoint records the fingerprint of the prefix it was taken at and is only
    trusted when the log it meets has the same one. Being a chain, the fingerprint
    after one more action needs only the previous one (`start`), not the whole prefix.

    >>> log_digest([]) == log_digest(()) == ""
    True
    >>> log_digest(['{"type":"end_turn"}']) == log_digest(['{"type":"go_up_level"}'])
    False
    >>> a, b = '{"type":"end_turn"}', '{"type":"advance_phase"}'
    >>> log_digest([b], start=log_digest([a])) == log_digest([a, b])
    True
    """
    digest = start
    for text in texts:
        digest = hashlib.blake2b(f"{digest}\n{text}".encode(), digest_size=16).hexdigest()
    return digest


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
        initial = GameState.initial(setup)
        # Every recorded action, including undone ones that can still be redone.
        self._actions: list[BaseAction] = []
        # States at revisions 0, K, 2K, ... (K = CHECKPOINT_INTERVAL) of the recorded
        # actions; a gap (after `resume`) is filled on first need.
        self._checkpoints: dict[int, GameState] = {0: initial}
        self._state = initial
        self._cursor = 0
        self._sequence = 0
        self._log: tuple[BaseAction, ...] | None = ()
        self._subscribers: Listeners[[GameState]] = Listeners()
        # Told the index of the first recorded action that is new or replaced, whenever
        # the recorded actions change (not on undo or redo, which only move the cursor).
        self.record_changes: Listeners[[int]] = Listeners()
        # The revision the last load started folding from: the checkpoint's when one was
        # trusted, 0 when the whole log was folded (see `resume`).
        self.resumed_from = 0
        # What `check` found for `_checked_in` (the state it asked about), by action: every
        # screen and cover that dims the same button after a change asks the rules once.
        self._checked: dict[BaseAction, RuleError | None] = {}
        self._checked_in = initial

    # --- reading -------------------------------------------------------------------

    @property
    def setup(self) -> GameSetup:
        """The setup the game started from."""
        return self._setup

    @property
    def state(self) -> GameState:
        """The current state: an immutable snapshot."""
        return self._state

    @property
    def log(self) -> tuple[BaseAction, ...]:
        """The applied actions, oldest first (undone ones are not included)."""
        if self._log is None:
            self._log = tuple(self._actions[: self._cursor])
        return self._log

    @property
    def revision(self) -> int:
        """How many actions are applied (the length of `log`), without copying the log."""
        return self._cursor

    @property
    def recorded(self) -> int:
        """How many actions are recorded: the applied ones plus those that can be redone."""
        return len(self._actions)

    def action_at(self, index: int) -> BaseAction:
        """The recorded action number `index` (0-based; undone ones included)."""
        if not 0 <= index < len(self._actions):
            raise IndexError(f"action index must be between 0 and {len(self._actions) - 1}")
        return self._actions[index]

    def recorded_actions(self, start: int = 0) -> list[BaseAction]:
        """The recorded actions from index `start` on (undone ones included)."""
        return self._actions[start:]

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
        return self._recorded_state(revision)

    def states_between(self, start: int, stop: int) -> list[GameState]:
        """The states after `start`, `start + 1`, ..., `stop - 1` actions, with one fold.

        For showing many log lines at once: each line needs the state its action met.
        """
        if not 0 <= start <= stop <= self._cursor + 1:
            raise ValueError(f"revisions must be between 0 and {self._cursor}")
        if start == stop:
            return []
        state = self._recorded_state(start)
        states = [state]
        for action in islice(self._actions, start, stop - 1):
            state = _refold(state, action)
            states.append(state)
        return states

    def memory_states(self) -> int:
        """How many full states this game keeps in memory (checkpoints plus the current one)."""
        return len(self._checkpoints) + 1

    # --- changing ------------------------------------------------------------------

    def apply(self, action: BaseAction) -> GameState:
        """Check and apply one action; open die rolls are rolled and recorded.

        A broken rule raises RuleError and changes nothing. Applying after an undo
        drops the undone actions (they can no longer be redone).
        """
        if not isinstance(action, BaseAction):
            raise TypeError(f"not a game action: {action!r}")
        state = self._state
        full = fill_rolls(action, state, self._dice)
        new_state = apply_action(state, full)
        first_changed = self._cursor
        if self._cursor < len(self._actions):
            del self._actions[self._cursor :]
            for revision in [r for r in self._checkpoints if r > self._cursor]:
                del self._checkpoints[revision]
        self._actions.append(full)
        self._cursor += 1
        self._state = new_state
        if self._cursor % CHECKPOINT_INTERVAL == 0:
            self._checkpoints[self._cursor] = new_state
        self.record_changes.emit(first_changed)
        self._notify()
        return new_state

    def roll_d6(self) -> int:
        """One d6 from the game's own dice, for a roll that is kept before its action is
        complete (a run-away roll waiting for the victim's choice); the action records it."""
        value = self._dice.roll_d6()
        if not isinstance(value, int) or not 1 <= value <= 6:
            raise ValueError(f"a d6 shows 1 to 6, but the dice gave {value!r}")
        return value

    def check(self, action: BaseAction) -> RuleError | None:
        """The rule the action would break now, or None if it is allowed; changes nothing.

        For greying out buttons: only the action's rule is asked, so no state is built.
        Open die rolls are filled with stand-in results (the real dice are not touched).
        The answer is kept until the state changes, so asking again costs nothing.
        """
        if self._checked_in is not self._state:
            self._checked, self._checked_in = {}, self._state
        try:
            known = action in self._checked
        except TypeError:  # an action holding a dict (Charity's shares) has no hash
            return self._check(action)
        if not known:
            self._checked[action] = self._check(action)
        return self._checked[action]

    def _check(self, action: BaseAction) -> RuleError | None:
        try:
            check_action(self._state, fill_rolls(action, self._state, _StandInDice()))
        except RuleError as err:
            # Kept in the cache: without its traceback, which would keep every frame that
            # asked alive (a whole screen, as long as the game is open).
            return err.with_traceback(None)
        return None

    def undo(self, steps: int = 1) -> GameState:
        """Take back the last `steps` actions; they can be redone."""
        if steps < 1 or steps > self._cursor:
            raise RuleError(
                "nothing_to_undo",
                Phrase("There are only {count} actions to undo", count=self._cursor),
            )
        self._move_to(self._cursor - steps)
        return self._state

    def redo(self, steps: int = 1) -> GameState:
        """Apply again the last `steps` undone actions."""
        left = len(self._actions) - self._cursor
        if steps < 1 or steps > left:
            raise RuleError(
                "nothing_to_redo", Phrase("There are only {count} actions to redo", count=left)
            )
        self._move_to(self._cursor + steps)
        return self._state

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(state)` after every apply, undo and redo; returns an unsubscribe."""
        return self._subscribers.add(callback)

    def _move_to(self, revision: int) -> None:
        if revision > self._cursor and revision - self._cursor < CHECKPOINT_INTERVAL:
            # A short redo: fold forward from here rather than from a checkpoint.
            state = replay(self._state, islice(self._actions, self._cursor, revision), False)
        else:
            state = self._recorded_state(revision)
        self._state = state
        self._cursor = revision
        self._notify()

    def _notify(self) -> None:
        self._sequence += 1
        self._log = None
        self._subscribers.emit(self._state)

    def _recorded_state(self, revision: int) -> GameState:
        """The state after the first `revision` recorded actions (applied or undone)."""
        if revision == self._cursor:
            return self._state
        base = revision - revision % CHECKPOINT_INTERVAL
        state = self._checkpoints.get(base)
        if state is None:
            state = self._fill_checkpoints(base)
        return replay(state, islice(self._actions, base, revision), checked=False)

    def _fill_checkpoints(self, upto: int) -> GameState:
        """Fold from the nearest kept state below `upto`, keeping every checkpoint on the way."""
        base = upto
        while base not in self._checkpoints:
            base -= CHECKPOINT_INTERVAL
        state = self._checkpoints[base]
        with collector_paused():
            for revision in range(base + 1, upto + 1):
                state = _refold(state, self._actions[revision - 1])
                if revision % CHECKPOINT_INTERVAL == 0:
                    self._checkpoints[revision] = state
        return state

    # --- saving and loading --------------------------------------------------------

    def to_dict(self) -> dict[str, object]:
        """The game log as JSON-ready data (format documented in docs/game-log.md)."""
        return {
            "format": LOG_FORMAT,
            "version": LOG_VERSION,
            "setup": self._setup.model_dump(mode="json"),
            "actions": [action_record(a) for a in self.log],
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
        with collector_paused():
            game._fold_checked(actions, 0)
        return game

    @classmethod
    def resume(
        cls,
        setup: GameSetup,
        actions: Sequence[BaseAction],
        revision: int | None = None,
        checkpoint: GameState | None = None,
        rng: RandomSource | None = None,
    ) -> Game:
        """A saved game back in play, folding only what follows its checkpoint.

        `actions` are all recorded actions, `revision` how many of them are applied (the
        rest can be redone; default: all), and `checkpoint` a state saved at some earlier
        revision (`checkpoint.revision`). The log stays the truth: a checkpoint from
        another setup, past the end of the log, or on which the following actions break a
        rule is dropped and the whole log folded instead (`resumed_from` says which
        happened). Undone actions that no longer fold are dropped, not offered for redo.
        Raises GameLogError when the log itself breaks a rule.
        """
        applied = len(actions) if revision is None else revision
        if not 0 <= applied <= len(actions):
            raise GameLogError(f"revision {applied} is outside the log (0 to {len(actions)})")
        head, tail = actions[:applied], actions[applied:]
        usable = (
            checkpoint is not None
            and checkpoint.setup == setup
            and 0 <= checkpoint.revision <= applied
        )
        with collector_paused():
            game: Game | None = None
            if usable and checkpoint is not None:
                game = cls(setup, rng)
                game._start_from(checkpoint, head[: checkpoint.revision])
                try:
                    game._fold_checked(head[checkpoint.revision :], checkpoint.revision)
                except GameLogError:
                    game = None  # the checkpoint disagrees with the log: fold it all
            if game is None:
                game = cls(setup, rng)
                game._fold_checked(head, 0)
            game._record_redoable(tail)
        return game

    def _start_from(self, checkpoint: GameState, prefix: Sequence[BaseAction]) -> None:
        self._actions = list(prefix)
        self._cursor = checkpoint.revision
        self._state = checkpoint
        self.resumed_from = checkpoint.revision
        if checkpoint.revision % CHECKPOINT_INTERVAL == 0:
            self._checkpoints[checkpoint.revision] = checkpoint

    def _fold_checked(self, actions: Sequence[BaseAction], first_revision: int) -> None:
        """Append and fold `actions` with every rule checked (the collector is paused)."""
        state = self._state
        checkpoints = self._checkpoints
        revision = first_revision
        for action in actions:
            revision += 1
            try:
                state = apply_action(state, action)
            except RuleError as err:
                if err.rule == "roll_missing":
                    raise GameLogError(
                        f"action {revision} ({action.type}) has no recorded die roll"
                    ) from err
                raise GameLogError(
                    f"action {revision} ({action.type}) breaks a rule: {err}"
                ) from err
            self._actions.append(action)
            if revision % CHECKPOINT_INTERVAL == 0:
                checkpoints[revision] = state
        self._state = state
        self._cursor = revision
        self._log = None

    def _record_redoable(self, tail: Sequence[BaseAction]) -> None:
        """Keep undone actions for redo, as far as they still fold on the current state."""
        state = self._state
        for action in tail:
            try:
                state = apply_action(state, action)
            except RuleError:
                break
            self._actions.append(action)
            if len(self._actions) % CHECKPOINT_INTERVAL == 0:
                self._checkpoints[len(self._actions)] = state

    @classmethod
    def from_dict(
        cls,
        data: object,
        rng: RandomSource | None = None,
        editions: Mapping[str, Edition] | None = None,
        *,
        saved: bool = False,
    ) -> Game:
        """Load a game log from JSON-ready data; raises GameLogError on anything wrong.

        `editions` resolves a setup's `"edition": "<id>"` (default: the core's built-in
        editions). Logs of an earlier version are upgraded first (log_versions.py).
        A log enters as a new game: its player names are made normal and refused when
        blank or alike (names.py), unless it is `saved`, one of the app's own saves,
        whose names are kept as they were written.
        """
        if not isinstance(data, dict):
            raise GameLogError("a game log is a JSON object")
        if data.get("format") != LOG_FORMAT:
            raise GameLogError(f'not a game log: "format" must be "{LOG_FORMAT}"')
        try:
            version = readable_version(data.get("version"))
        except LogReadError as err:
            raise GameLogError(str(err)) from None
        try:
            context: dict[str, object] = {SAVED_GAME: saved}
            if editions is not None:
                context["editions"] = editions
            setup = GameSetup.model_validate(
                upgrade_setup(version, data.get("setup")), context=context
            )
        except ValidationError as err:
            raise GameLogError(f"bad setup: {validation_error_line(err)}") from None
        raw_actions = data.get("actions")
        if raw_actions is None:
            raise GameLogError('"actions" is missing (an empty game has "actions": [])')
        if not isinstance(raw_actions, list):
            raise GameLogError('"actions" must be a list')
        with collector_paused():
            try:
                actions = read_actions(version, raw_actions)
            except LogReadError as err:
                raise GameLogError(str(err)) from None
        return cls.from_actions(setup, actions, rng)

    @classmethod
    def from_json(
        cls,
        text: str | bytes,
        rng: RandomSource | None = None,
        editions: Mapping[str, Edition] | None = None,
        *,
        saved: bool = False,
    ) -> Game:
        """Load a game saved by `to_json`; raises GameLogError on anything wrong (see
        `from_dict`, `saved` too)."""
        try:
            with collector_paused():
                data = json.loads(text)
        except json.JSONDecodeError as err:
            raise GameLogError(
                f"not valid JSON: {err.msg} at line {err.lineno} column {err.colno}"
            ) from None
        except UnicodeDecodeError:
            raise GameLogError("not valid JSON: the file is not UTF-8 text") from None
        except RecursionError:
            raise GameLogError("not valid JSON: nested too deeply") from None
        return cls.from_dict(data, rng, editions, saved=saved)


def _refold(state: GameState, action: BaseAction) -> GameState:
    """One recorded action again: it was checked when it was applied to this very state."""
    return replay(state, (action,), checked=False)


class _StandInDice:
    """Results 1, 2, ..., 6, 1, ... so that tie-breaks always end."""

    def __init__(self) -> None:
        self._next = 0

    def roll_d6(self) -> int:
        self._next = self._next % 6 + 1
        return self._next
