"""Old saves keep loading: every version-1 log in tests/core/corpus/v1 replays, under
today's rules, to the final state version 1 gave it (docs/game-log.md, "Versions").

The corpus is frozen: the logs and their `.final.json` states were written by version 1
and must never be regenerated. A field added to the state since then may appear in the
replayed state (listed in ADDED_SINCE_V1); every fact version 1 recorded must be equal.
The one exception is the Bad Stuff sentence kept with a run-away roll: it is words for
the table, which may read better in a later version; what the Bad Stuff *did* (levels,
items, traits, death) is compared like every other fact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.core import Game

CORPUS = Path(__file__).resolve().parent / "corpus" / "v1"
LOGS = sorted(p for p in CORPUS.glob("*.json") if not p.name.endswith(".final.json"))

# state fields that version 1 did not have; they may appear with any value
ADDED_SINCE_V1 = frozenset(
    {
        "trait_bonuses",  # PlayerState: lasting combat bonuses of traits
        "removed_treasure",  # CombatState: treasure of monsters a card removed
        "levels_lost",  # RunAwayRoll: what the Bad Stuff did, as facts
        "gear_lost",
        "items_lost",
        "traits_lost",
        "died",
        "bad_stuff_said",  # RunAwayRoll: the Bad Stuff words, clause by clause
        "no_limit",  # Variants: the no-limit variant
        "lose",  # BadStuff: things it names as lost
    }
)
WORDS = frozenset({"bad_stuff"})


def differences(expected: object, actual: object, where: str = "state") -> list[str]:
    """Where `actual` says something other than what version 1 recorded in `expected`."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{where}.{key} is gone")
            elif not (key in WORDS and isinstance(value, str)):
                found.extend(differences(value, actual[key], f"{where}.{key}"))
        found.extend(
            f"{where}.{key} is new"
            for key in actual
            if key not in expected and key not in ADDED_SINCE_V1
        )
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{where} has {len(actual)} entries, not {len(expected)}"]
        found = []
        for n, (old, new) in enumerate(zip(expected, actual, strict=True)):
            found.extend(differences(old, new, f"{where}[{n}]"))
        return found
    return [] if expected == actual else [f"{where} is {actual!r}, not {expected!r}"]


def test_the_corpus_holds_the_example_game_and_scenarios() -> None:
    names = {p.stem for p in LOGS}
    assert "example-game" in names
    assert len([n for n in names if n.startswith("scenario-")]) >= 5
    assert len([n for n in names if n.startswith("random-")]) >= 10
    for log in LOGS:
        assert json.loads(log.read_text())["version"] == 1


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_a_version_1_log_replays_to_the_same_final_state(log: Path) -> None:
    game = Game.from_json(log.read_bytes())
    expected = json.loads(log.with_suffix("").with_suffix(".final.json").read_text())
    assert differences(expected, game.state.model_dump(mode="json")) == []


def test_a_changed_fact_is_caught_but_better_words_are_not() -> None:
    old = {"players": [{"level": 3}], "rolls": [{"bad_stuff": "lost 0 gear bonus"}]}
    assert differences(old, {"players": [{"level": 3}], "rolls": [{"bad_stuff": "kept it"}]}) == []
    assert differences(old, {"players": [{"level": 4}], "rolls": [{"bad_stuff": ""}]}) == [
        "state.players[0].level is 4, not 3"
    ]
    assert differences({"a": 1}, {"a": 1, "b": 2}) == ["state.b is new"]
