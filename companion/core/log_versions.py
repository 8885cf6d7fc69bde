"""Reading game logs written by earlier versions: which versions load, and how an old
log is made explicit so that today's engine judges it as its own version did.

The policy (docs/game-log.md, "Versions"): a log is replayed under today's engine after
its setup and actions are upgraded, one version step at a time. An upgrade only writes
down what the old version left implicit (a field whose default changed); it never drops an
action or changes a recorded result. The corpus in tests/core/corpus holds logs of every old
version with the final state that version gave them; each must still be reached.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import TypeAdapter, ValidationError

from companion.core.errors import validation_error_line
from companion.core.models import LEGACY_RULES
from companion.plumbing.errors import CompanionError

if TYPE_CHECKING:
    from companion.core.actions import BaseAction

LOG_FORMAT = "munchkin-companion-game"
LOG_VERSION = 3

Raw = dict[str, object]


def _from_1(action: Raw) -> Raw:
    """Version 1 gave no treasure for a monster a card removed, nor for a defeat without a
    kill unless it named one; version 2 defaults both to what the combat showed."""
    kind = action.get("type")
    implicit = kind == "remove_monster" or (
        kind == "resolve_combat" and action.get("outcome") == "defeat"
    )
    return {**action, "treasure": 0} if implicit and "treasure" not in action else action


def _from_2(action: Raw) -> Raw:
    """Version 3 added where a request came from (`source`, absent before) and the rules a
    game plays by (`GameSetup.rules`, see `upgrade_setup`): no action that version 2 wrote
    changed meaning, so its actions read as they are."""
    return action


# version -> how one of its actions becomes an action of the next version
_UPGRADES: dict[int, Callable[[Raw], Raw]] = {1: _from_1, 2: _from_2}
READABLE_VERSIONS = (*_UPGRADES, LOG_VERSION)


def upgrade_actions(version: int, actions: list[object]) -> list[object]:
    """The actions of a log of `version`, as the current version writes them.

    >>> upgrade_actions(1, [{"type": "resolve_combat", "outcome": "defeat"}])
    [{'type': 'resolve_combat', 'outcome': 'defeat', 'treasure': 0}]
    >>> upgrade_actions(2, [{"type": "resolve_combat", "outcome": "defeat"}])
    [{'type': 'resolve_combat', 'outcome': 'defeat'}]
    >>> upgrade_actions(3, [{"type": "end_turn"}])
    [{'type': 'end_turn'}]
    """
    for step_from in range(version, LOG_VERSION):
        upgrade = _UPGRADES[step_from]
        actions = [upgrade(a) if isinstance(a, dict) else a for a in actions]
    return actions


class LogReadError(CompanionError, ValueError):
    """The actions of a log cannot be read: an unknown version or a malformed action."""


def readable_version(version: object) -> int:
    """`version` when this program reads logs of it; else LogReadError saying which it reads."""
    if (
        isinstance(version, bool)
        or not isinstance(version, int)
        or version not in READABLE_VERSIONS
    ):
        readable = ", ".join(map(str, READABLE_VERSIONS))
        raise LogReadError(
            f"log version {version!r} is not supported (this program reads {readable})"
        )
    return version


def read_actions(version: object, actions: str | list[object]) -> list[BaseAction]:
    """The actions of a log written in `version`, upgraded and validated: the one way a
    stored log becomes actions (game-log files and the saved-games database alike).

    `actions` is the log's list of actions, decoded or as JSON array text (a store's
    rows joined; the current version's text is validated without decoding it first).
    Raises LogReadError naming the version, or the first malformed action and its field.

    >>> [a.type for a in read_actions(2, '[{"type": "end_turn"}]')]
    ['end_turn']
    >>> try:
    ...     read_actions(2, [{"type": "end_turn"}, {"type": "go_up_level", "plyer": 0}])
    ... except LogReadError as err:
    ...     print(err)
    action 2 is malformed: go_up_level: unknown field 'plyer' (and 1 more)
    """
    version = readable_version(version)
    if version != LOG_VERSION:
        actions = upgrade_actions(version, _decoded(actions))
    try:
        if isinstance(actions, str):
            return _log_adapter().validate_json(actions)
        return _log_adapter().validate_python(actions)
    except ValidationError as exc:
        raise LogReadError(_malformed(exc, actions)) from None


def _decoded(actions: str | list[object]) -> list[object]:
    if not isinstance(actions, str):
        return actions
    try:
        decoded = json.loads(actions)
    except (ValueError, RecursionError):
        raise LogReadError("the actions are not valid JSON") from None
    if not isinstance(decoded, list):
        raise LogReadError("the actions are not a list")
    return decoded


def _malformed(exc: ValidationError, actions: str | list[object]) -> str:
    """The first malformed action, in the words a single action's check gives."""
    from companion.core.actions import ACTION_ADAPTER

    first = exc.errors()[0]["loc"]
    if not first or not isinstance(first[0], int):
        return f"the actions are malformed: {validation_error_line(exc)}"
    index = first[0]
    try:
        ACTION_ADAPTER.validate_python(_decoded(actions)[index])
    except ValidationError as alone:
        return f"action {index + 1} is malformed: {validation_error_line(alone)}"
    return f"action {index + 1} is malformed: {validation_error_line(exc)}"


@functools.cache
def _log_adapter() -> TypeAdapter[list[BaseAction]]:
    """Validates a whole log in one call (built on first use: it takes a moment)."""
    from companion.core.actions import Action

    return TypeAdapter(list[Action])


def upgrade_setup(version: int, setup: object) -> object:
    """The setup of a log of `version`, as the current version writes it: a game written
    before version 3 plays by the rules it was played by (`GameSetup.rules` 2), so an
    old save reaches the same results and stays legal however the rules have moved on.

    >>> upgrade_setup(2, {"players": []})
    {'players': [], 'rules': 2}
    >>> upgrade_setup(3, {"players": []})
    {'players': []}
    """
    if version < 3 and isinstance(setup, dict) and "rules" not in setup:
        return {**setup, "rules": LEGACY_RULES}
    return setup
