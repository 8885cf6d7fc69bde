"""One list of actions: every action registers itself in its chapter and brings its own
rule, its step, its History sentence, an export by name and a place in random play, or
these tests say which is missing."""

from __future__ import annotations

import random
from typing import Literal

import pytest

import companion.core
from companion.core import ACTION_ADAPTER, ACTION_TYPES, EDITIONS, BaseAction, GameState
from companion.core.actions import CHAPTERS
from companion.core.chapters.base import rule, step, words
from companion.core.chapters.rolls import fill_rolls
from companion.core.randomplay import random_game, random_setup

NAMES = [action.__name__ for action in ACTION_TYPES]


def test_every_action_type_is_unique_and_the_json_union_knows_it() -> None:
    types = [action.model_fields["type"].default for action in ACTION_TYPES]
    assert len(set(types)) == len(types) == len(ACTION_TYPES) >= 37
    mapping = ACTION_ADAPTER.json_schema()["discriminator"]["mapping"]
    assert {t: ref.rsplit("/", 1)[-1] for t, ref in mapping.items()} == {
        t: action.__name__ for t, action in zip(types, ACTION_TYPES, strict=True)
    }


@pytest.mark.parametrize("action", ACTION_TYPES, ids=NAMES)
def test_every_action_has_its_own_rule_step_and_sentence(action: type[BaseAction]) -> None:
    assert action in rule.registry, f"{action.__name__} has no rule (rule.register)"
    assert action in step.registry, f"{action.__name__} has no step (step.register)"
    assert action in words.registry, f"{action.__name__} has no History sentence (words.register)"


@pytest.mark.parametrize("action", ACTION_TYPES, ids=NAMES)
def test_every_handler_is_named_for_its_action(action: type[BaseAction]) -> None:
    """A traceback names the rule it went through (`rule_end_turn`, not `_`)."""
    kind = action.model_fields["type"].default
    registries = [rule, step, words, *([fill_rolls] if action in fill_rolls.registry else [])]
    names = [registry.dispatch(action).__name__ for registry in registries]
    assert names == [f"{registry.__name__}_{kind}" for registry in registries]


@pytest.mark.parametrize("action", ACTION_TYPES, ids=NAMES)
def test_every_action_is_exported_by_name(action: type[BaseAction]) -> None:
    name = action.__name__
    assert getattr(companion.core, name, None) is action, f"companion.core does not import {name}"
    assert name in companion.core.__all__, f"{name} is missing from companion.core.__all__"


def test_actions_live_in_the_rulebook_chapters_in_chapter_order() -> None:
    chapters = [c.__name__ for c in CHAPTERS]
    order = [chapters.index(action.__module__) for action in ACTION_TYPES]
    assert order == sorted(order)


def test_a_second_action_with_the_same_type_is_refused() -> None:
    with pytest.raises(TypeError, match="reuses the action type 'end_turn'"):

        class EndTurnAgain(BaseAction):
            type: Literal["end_turn"] = "end_turn"


def test_random_play_proposes_every_action() -> None:
    """Every edition, since some actions belong to one (magic quotes, the classic classes)."""
    seen: set[type] = set()
    for edition in EDITIONS.values():
        for seed in range(5):
            setup = random_setup(random.Random(seed), edition)
            seen |= {type(a) for a in random_game(400, seed=seed, setup=setup, allow_win=False).log}
    missing = [action.__name__ for action in ACTION_TYPES if action not in seen]
    assert missing == [], "companion/core/randomplay.py never proposes these actions"


def test_a_state_is_described_without_the_fallback_words() -> None:
    game = random_game(400, seed=1, allow_win=False)
    for revision, action in enumerate(game.log):
        before: GameState = game.state_at(revision)
        assert words(action, before) != action.type.replace("_", " ")
