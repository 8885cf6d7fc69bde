"""Reading game logs written by earlier versions: which versions load, and how an old
action is made explicit so that today's rules judge it as its own version did.

The policy (docs/game-log.md, "Versions"): a log is replayed under today's rules after
its actions are upgraded, one version step at a time. An upgrade only writes down what
the old version left implicit (a field whose default changed); it never drops an action
or changes a recorded result. The corpus in tests/core/corpus holds logs of every old
version with the final state that version gave them; each must still be reached.
"""

from __future__ import annotations

from collections.abc import Callable

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
    """Version 3 added where a request came from (`source`, absent before): nothing that
    version 2 left implicit changed meaning, so its actions read as they are."""
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
