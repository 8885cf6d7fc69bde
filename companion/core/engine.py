"""The rules engine's entry points: apply one action to a state, fold a log, fill open rolls.

`apply_action` checks every rule first and raises `RuleError` (changing nothing).
`replay(..., checked=False)` folds a log that was checked when it was written without
checking again; it is the one way past the rules, kept so the replay benchmark can price
the checks and a property test can prove they never change a legal game. `fill_rolls`
rolls the dice an action left open, so the log always holds the results and a replay is
deterministic. The handlers themselves live with their rulebook chapter
(`companion.core.chapters`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from companion.core.actions import ACTION_TYPES, BaseAction
from companion.core.chapters.base import step
from companion.core.chapters.combat import refresh_combat
from companion.core.chapters.rolls import fill_rolls
from companion.core.errors import RuleError
from companion.core.state import GameState

__all__ = ["apply_action", "fill_rolls", "replay"]

Handler = Callable[[BaseAction, GameState, bool], GameState]

# Read once: every action class's own handler, so the replay hot path skips
# singledispatch's MRO walk and cache (a test checks each action has its own).
_HANDLERS: dict[type, Handler] = {kind: step.dispatch(kind) for kind in ACTION_TYPES}


def apply_action(state: GameState, action: BaseAction) -> GameState:
    """Check every rule, then apply the action; on a broken rule raise RuleError."""
    if state.winners:
        names = " and ".join(state.players[w].name for w in state.winners)
        raise RuleError("game_over", f"The game is over: {names} won")
    return _apply(state, action, True)


def replay(state: GameState, actions: Iterable[BaseAction], checked: bool = True) -> GameState:
    """Fold a sequence of actions into a state: the state of a game *is* this fold.

    With `checked=False` the rules are not checked again (see the module's docstring).
    """
    if checked:
        for action in actions:
            state = apply_action(state, action)
    else:
        for action in actions:
            state = _apply(state, action, False)
    return state


def _apply(state: GameState, action: BaseAction, checked: bool) -> GameState:
    handler = _HANDLERS.get(type(action)) or step.dispatch(type(action))
    return _finish(state, handler(action, state, checked))


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
        and new.level_only is old.level_only
        and new.wins_ties == old.wins_ties
        and new.fighter == old.fighter
        and new.helper == old.helper
        and all(after.players[s] is before.players[s] for s in new.fighters)
    )
