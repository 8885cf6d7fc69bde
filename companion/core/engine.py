"""The rules engine's entry points: ask whether an action may happen, apply one, fold a log,
fill open rolls.

Each action has a pure `rule` (may it happen here? a `RuleError` if not; it reads the state
and builds nothing) and a trusting `step` (what it changes), as python-chess keeps
`is_legal` apart from `push`. So:

* `check_action` - the rule alone: "is this allowed now?", with no copy of the game;
* `apply_action` - the rule, then the step: what a tap, a press or a loaded log goes through;
* `replay(..., checked=False)` - the steps alone, for a log that was checked when it was
  written (undo, redo, the states between two kept ones). A property test proves the rules
  never change the outcome of a legal log, and the replay benchmark prices them.

`fill_rolls` rolls the dice an action left open, so the log always holds the results and a
replay is deterministic. The rules and steps themselves live with their rulebook chapter
(`companion.core.chapters`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from companion.core.actions import ACTION_TYPES, BaseAction
from companion.core.chapters.base import rule, step
from companion.core.chapters.combat import refresh_combat
from companion.core.chapters.rolls import fill_rolls
from companion.core.errors import RuleError
from companion.core.phrase import Phrase, joined
from companion.core.state import GameState

__all__ = ["apply_action", "check_action", "fill_rolls", "replay", "step_action"]

Rule = Callable[[BaseAction, GameState], None]
Step = Callable[[BaseAction, GameState], GameState]

# Read once: every action class's own rule and step, so the hot paths skip singledispatch's
# MRO walk and cache (a test checks each action has its own).
_RULES: dict[type, Rule] = {kind: rule.dispatch(kind) for kind in ACTION_TYPES}
_STEPS: dict[type, Step] = {kind: step.dispatch(kind) for kind in ACTION_TYPES}


def check_action(state: GameState, action: BaseAction) -> None:
    """Raise RuleError if the action may not happen in `state`; change and copy nothing."""
    if state.winners:
        _game_over(state)
    kind = type(action)
    (_RULES.get(kind) or rule.dispatch(kind))(action, state)


def apply_action(state: GameState, action: BaseAction) -> GameState:
    """Check every rule, then apply the action; on a broken rule raise RuleError."""
    # The two halves written out once more: this is the hot path of loading a game.
    if state.winners:
        _game_over(state)
    kind = type(action)
    (_RULES.get(kind) or rule.dispatch(kind))(action, state)
    return _finish(state, (_STEPS.get(kind) or step.dispatch(kind))(action, state))


def step_action(state: GameState, action: BaseAction) -> GameState:
    """Apply an action its rule already allowed, without asking again."""
    kind = type(action)
    return _finish(state, (_STEPS.get(kind) or step.dispatch(kind))(action, state))


def _game_over(state: GameState) -> None:
    names = joined(state.players[w].name for w in state.winners)
    raise RuleError("game_over", Phrase("The game is over: {names} won", names=names))


def replay(state: GameState, actions: Iterable[BaseAction], checked: bool = True) -> GameState:
    """Fold a sequence of actions into a state: the state of a game *is* this fold.

    With `checked=False` the rules are not asked again (see the module's docstring).
    """
    fold = apply_action if checked else step_action
    for action in actions:
        state = fold(state, action)
    return state


def _finish(before: GameState, state: GameState) -> GameState:
    """Count the action and refresh the live combat verdict if anything it reads changed."""
    if state is before:
        state = state.evolve()
    fields = state.__dict__
    # `state` was built by this very step (`evolve` copies) and nobody else holds it yet,
    # so finishing it in place is safe and saves one more copy of the whole state per
    # action (about a tenth of the replay time).
    fields["revision"] = before.revision + 1
    combat = state.combat
    if combat is not None and not _verdict_inputs_same(before, state):
        fields["combat"] = refresh_combat(state, combat)
    return state


def _verdict_inputs_same(before: GameState, after: GameState) -> bool:
    """Whether the combat verdict can be kept: states are immutable, so `is` means unchanged."""
    old, new = before.combat, after.combat
    if old is None or new is None:
        return False
    return (
        new.monsters is old.monsters
        and new.one_shots is old.one_shots
        and new.uses is old.uses
        and new.level_only is old.level_only
        and new.wins_ties == old.wins_ties
        and new.fighter == old.fighter
        and new.helper == old.helper
        and all(after.players[s] is before.players[s] for s in new.fighters)
    )
