"""Reading game logs written by earlier versions: which versions load, and how an old
log is made explicit so that today's engine judges it as its own version did.

The policy (docs/game-log.md, "Versions"): a log is replayed under today's engine after
its setup and actions are upgraded, one version step at a time. An upgrade only writes
down what the old version left implicit (a field whose default changed); it never drops an
action or changes a recorded result. The corpus in tests/core/corpus holds logs of every old
version with the final state that version gave them; each must still be reached.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.core.models import LEGACY_RULES

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


def _same(action: Raw) -> Raw:
    """An action whose meaning did not change: the setup's rules say how it is judged."""
    return action


# version -> how one of its actions becomes an action of the next version
_UPGRADES: dict[int, Callable[[Raw], Raw]] = {1: _from_1, 2: _same}
READABLE_VERSIONS = (*_UPGRADES, LOG_VERSION)


def upgrade_actions(version: int, actions: list[object]) -> list[object]:
    """The actions of a log of `version`, as the current version writes them.

    >>> upgrade_actions(1, [{"type": "resolve_combat", "outcome": "defeat"}])
    [{'type': 'resolve_combat', 'outcome': 'defeat', 'treasure': 0}]
    >>> upgrade_actions(2, [{"type": "resolve_combat", "outcome": "defeat"}])
    [{'type': 'resolve_combat', 'outcome': 'defeat'}]
    """
    for step_from in range(version, LOG_VERSION):
        upgrade = _UPGRADES[step_from]
        actions = [upgrade(a) if isinstance(a, dict) else a for a in actions]
    return actions


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
