"""Old saves keep loading: every log of an earlier version in tests/core/corpus/v<N>
replays, under today's engine, to the final state its own version gave it
(docs/game-log.md, "Versions"): it is upgraded to play by the rules it was played by.

The corpus is frozen: the logs and their `.final.json` states were written by their own
version and must never be regenerated. A field added to the state since then may appear in
the replayed state (listed in ADDED_SINCE_V1); every fact the old version recorded must be
equal.
The one exception is the Bad Stuff sentence kept with a run-away roll: it is words for
the table, which may read better in a later version; what the Bad Stuff *did* (levels,
items, traits, death) is compared like every other fact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.core import Game

CORPUS = Path(__file__).resolve().parent / "corpus"
LOGS = sorted(p for p in CORPUS.glob("v*/*.json") if not p.name.endswith(".final.json"))

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
        # version 3
        "rules",  # GameSetup, PlayerState: the rules the game plays by (2 for these logs)
        "role",  # PlayerSetup, PlayerState: the role or character card dealt at set-up
        "role_cards",  # Edition: the rules in which the editions differ
        "cards",
        "treasure_without_kill",
        "joining_tags",
        "helper_stays",
        "magic_quotes",
        "allies",  # PlayerState: every Ally (`ally` is still the first)
        "double_sale_turn",  # PlayerState: the turn of the one double-price sale
        "quotes",  # GameState: magic quotes said
        "steed",  # ItemSpec: a Steed, and bonuses against a monster's tag
        "against",
        "pursued",  # RunAwayRoll: whether the monster pursued (no roll was needed if not)
        "helper_levels",  # CombatResult: the helper's levels and share of the treasure
        "helper_treasure",
        "helper_picks_first",
        "run_away",  # TraitBonus: what a trait gives, beyond its combat bonus
        "abilities",
        "lose_items",  # BadStuff: items of the victim's choice
        "pursues_above_level",  # MonsterSpec: spares that Level and below
        "uses",  # CombatState: abilities used, whether anyone helped, ties won by a class
        "helped",
        "ties_won_by_ability",
        "not_for",  # ItemSpec: the traits that may not use it
        "turn",  # CombatResult: the turn the fight ended in (0 for one kept before)
        # rules 4
        "level_only",  # MonsterSpec: its power that everyone fighting it counts Level only
        "house_player_count",  # Variants: more or fewer players than the box, by choice
        "players",  # Edition: how many the box is for (GameState.players is still compared)
        "open_traits",  # Edition: kinds of card of which any card is the edition's
        "compelled",  # CombatState: a card made the helper help
    }
)
WORDS = frozenset({"bad_stuff"})
# ItemSpec: the one trait an item asked for (`requires`) is now one of the list it names
# (`only`); the same fact, so `requires: X` must read `only: [X]` (and no trait, none).
RENAMED = {"requires": "only"}


def _renamed(key: str, value: object) -> object:
    return ([] if value is None else [value]) if key == "requires" else value


def differences(expected: object, actual: object, where: str = "state") -> list[str]:
    """Where `actual` says something other than what version 1 recorded in `expected`."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found: list[str] = []
        for key, value in expected.items():
            if key in RENAMED and key not in actual and RENAMED[key] in actual:
                new_key = RENAMED[key]
                found.extend(
                    differences(_renamed(key, value), actual[new_key], f"{where}.{new_key}")
                )
            elif key not in actual:
                found.append(f"{where}.{key} is gone")
            elif not (key in WORDS and isinstance(value, str)):
                found.extend(differences(value, actual[key], f"{where}.{key}"))
        found.extend(
            f"{where}.{key} is new"
            for key in actual
            if key not in expected
            and key not in ADDED_SINCE_V1
            and not any(RENAMED.get(old) == key for old in expected)
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


@pytest.mark.parametrize("version", [1, 2])
def test_the_corpus_holds_examples_scenarios_and_random_games(version: int) -> None:
    logs = [p for p in LOGS if p.parent.name == f"v{version}"]
    names = {p.stem for p in logs}
    assert any(n.startswith("example-") for n in names)
    assert len([n for n in names if n.startswith("scenario-")]) >= 5
    assert len([n for n in names if n.startswith("random-")]) >= 10
    for log in logs:
        assert json.loads(log.read_text())["version"] == version


@pytest.mark.parametrize("log", LOGS, ids=[f"{p.parent.name}-{p.stem}" for p in LOGS])
def test_an_old_log_replays_to_the_same_final_state(log: Path) -> None:
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
