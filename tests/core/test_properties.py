"""Properties of random legal games: Level stays in bounds, wins need kills, trait bonuses
count once and outlive death, undo/redo and save/load restore identical states, the
unchecked fold agrees with the checked one, and a rule only reads: it builds no state, and
a step never fails on what its rule allowed."""

from __future__ import annotations

import contextlib
import itertools
import random
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import (
    ADVENTURE_TIME,
    CLASSIC,
    DISNEY,
    FU,
    MAX_LEVEL,
    OZ,
    Game,
    GameState,
    ResolveCombat,
    RuleError,
    SeededDice,
    check_action,
    combat_strength,
    fighters_win,
    fill_rolls,
    monster_strength,
    monster_treasure,
    replay,
)
from companion.core.chapters.combat import ability_bonus
from companion.core.engine import step_action
from companion.core.models import Frozen
from companion.core.randomplay import random_action, random_game, random_setup

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.integers(min_value=0, max_value=2**32)
lengths = st.integers(min_value=1, max_value=250)
editions = st.sampled_from([CLASSIC, FU, OZ, ADVENTURE_TIME, DISNEY])
winning_levels = st.sampled_from([10, 20])


def game_for(  # type: ignore[no-untyped-def]
    seed: int, length: int, edition=CLASSIC, winning_level: int = 10, no_limit: bool = False
) -> Game:
    setup = random_setup(
        random.Random(seed),
        edition,
        winning_level=winning_level,
        shared_victory=seed % 2 == 0,
        no_limit=no_limit,
    )
    return random_game(length, seed=seed, setup=setup)


def states(game: Game) -> list[GameState]:
    return [game.state_at(revision) for revision in range(len(game.log) + 1)]


@SETTINGS
@given(seeds, lengths, editions, winning_levels)
def test_levels_stay_between_1_and_the_winning_level(
    seed: int,
    length: int,
    edition,
    winning_level: int,  # type: ignore[no-untyped-def]
) -> None:
    game = game_for(seed, length, edition, winning_level)
    for revision in range(len(game.log) + 1):
        for player in game.state_at(revision).players:
            assert 1 <= player.level <= winning_level


@SETTINGS
@given(seeds, lengths, winning_levels)
def test_nobody_wins_without_a_kill(seed: int, length: int, winning_level: int) -> None:
    game = game_for(seed, length, winning_level=winning_level)
    for revision, action in enumerate(game.log, start=1):
        before, after = game.state_at(revision - 1), game.state_at(revision)
        if after.winners and not before.winners:
            assert isinstance(action, ResolveCombat) and action.outcome == "kill"
            combat = before.combat
            assert combat is not None
            # the fighter by the kill, or a helper whose ability gives a level for helping
            for seat in after.winners:
                assert seat in combat.fighters
                assert after.players[seat].level == winning_level or (
                    seat == combat.helper and before.setup.variants.shared_victory
                )


@SETTINGS
@given(seeds, lengths, st.data())
def test_undo_n_then_redo_n_restores_the_identical_state(
    seed: int, length: int, data: st.DataObject
) -> None:
    game = game_for(seed, length)
    final = game.state
    steps = data.draw(st.integers(min_value=1, max_value=len(game.log)))
    undone = game.undo(steps)
    assert undone.revision == len(game.log)
    assert game.redo(steps) == final
    # and the undone state is exactly what a fresh replay of the shorter log gives
    short = Game.from_actions(game.setup, game.log[: len(game.log) - steps])
    assert short.state == undone


@SETTINGS
@given(seeds, lengths)
def test_saving_and_replaying_restores_the_identical_state(seed: int, length: int) -> None:
    game = game_for(seed, length)
    loaded = Game.from_json(game.to_json())
    assert loaded.state == game.state
    assert loaded.state.model_dump() == game.state.model_dump()


@SETTINGS
@given(seeds, lengths)
def test_the_unchecked_fold_of_a_legal_log_matches_the_checked_one(seed: int, length: int) -> None:
    game = game_for(seed, length)
    state = replay(GameState.initial(game.setup), game.log, checked=False)
    assert state == game.state


@contextlib.contextmanager
def nothing_built() -> Iterator[None]:
    """Fail on any copy of a state, a player or a combat (every one is made by `evolve`)."""

    def refuse(*_args: object, **_changes: object) -> None:
        raise AssertionError("a rule built a state")

    saved = Frozen.evolve
    Frozen.evolve = refuse  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        Frozen.evolve = saved  # type: ignore[method-assign]


@SETTINGS
@given(seeds, lengths, editions)
def test_every_rule_of_a_legal_log_passes_and_builds_nothing(
    seed: int,
    length: int,
    edition,  # type: ignore[no-untyped-def]
) -> None:
    game = game_for(seed, length, edition)
    for revision, action in enumerate(game.log):
        before = game.state_at(revision)
        dumped = before.model_dump()
        with nothing_built():
            check_action(before, action)
        assert before.model_dump() == dumped


@SETTINGS
@given(seeds, lengths, editions)
def test_what_a_rule_allows_its_step_applies_and_what_it_refuses_apply_refuses(
    seed: int,
    length: int,
    edition,  # type: ignore[no-untyped-def]
) -> None:
    """Random proposals, legal or not, at every state of a random game: the rule alone
    decides, so a refused action is refused by apply too, and an allowed one never makes
    its step fail."""
    game = game_for(seed, length, edition)
    rnd = random.Random(seed)
    dice = SeededDice(seed)
    for revision in range(len(game.log) + 1):
        state = game.state_at(revision)
        if state.winners:
            continue
        for _ in range(3):
            action = fill_rolls(random_action(state, rnd), state, dice)
            with nothing_built():
                try:
                    check_action(state, action)
                except RuleError:
                    allowed = False
                else:
                    allowed = True
            if allowed:
                after = step_action(state, action)
                assert after.revision == state.revision + 1
            else:
                assert Game.from_actions(game.setup, game.log[:revision]).check(action)


@SETTINGS
@given(seeds, lengths)
def test_a_dumped_state_reads_back_identical(seed: int, length: int) -> None:
    state = game_for(seed, length).state
    assert GameState.model_validate_json(state.model_dump_json()) == state


@SETTINGS
@given(seeds, lengths)
def test_the_live_verdict_always_matches_the_rules(seed: int, length: int) -> None:
    game = game_for(seed, length)
    for revision in range(len(game.log) + 1):
        state = game.state_at(revision)
        combat = state.combat
        if combat is None:
            continue
        fighters = [state.players[s] for s in combat.fighters]
        tags = frozenset(t for m in combat.monsters for t in m.spec.tags)
        mine = [
            combat_strength(state.players[s], level_only=True)
            if s in combat.level_only
            else combat_strength(state.players[s], tags=tags) + ability_bonus(combat, s, tags)
            for s in combat.fighters
        ]
        shots = {
            side: sum(s.bonus for s in combat.one_shots if s.side == side)
            for side in ("players", "monsters")
        }
        monsters = [monster_strength(m.spec, m.enhancers, fighters) for m in combat.monsters]
        assert [m.strength for m in combat.monsters] == monsters
        assert combat.players_strength == sum(mine) + shots["players"]
        assert combat.monsters_strength == sum(monsters) + shots["monsters"]
        by_class = any("wins_ties" in f.abilities for f in fighters)
        assert combat.fighters_winning == fighters_win(
            combat.players_strength, combat.monsters_strength, combat.wins_ties or by_class
        )
        in_play = sum(monster_treasure(m.spec, m.enhancers) for m in combat.monsters)
        treasure = in_play + combat.removed_treasure
        assert combat.treasure == treasure


@SETTINGS
@given(seeds, lengths, editions)
def test_with_no_limit_levels_stay_between_1_and_the_top_and_nobody_wins(
    seed: int,
    length: int,
    edition,  # type: ignore[no-untyped-def]
) -> None:
    game = game_for(seed, length, edition, no_limit=True)
    for state in states(game):
        assert not state.winners
        for player in state.players:
            assert 1 <= player.level <= MAX_LEVEL
            assert player.level < state.winning_level  # the track always has room


@SETTINGS
@given(seeds, lengths, editions, st.booleans())
def test_trait_bonuses_count_exactly_once(
    seed: int,
    length: int,
    edition,  # type: ignore[no-untyped-def]
    no_limit: bool,
) -> None:
    game = game_for(seed, length, edition, no_limit=no_limit)
    for state in states(game):
        for player in state.players:
            keys = [(b.kind, b.name.casefold()) for b in player.trait_bonuses]
            assert len(keys) == len(set(keys))  # one entry per trait
            for bonus in player.trait_bonuses:
                assert bonus.gives_anything
                assert bonus.name in player.traits(bonus.kind)  # it goes with its trait
            # a restricted item counts only while its owner qualifies
            items = sum(
                i.spec.bonus
                for i in player.items
                if i.equipped and (player.rules <= 2 or player.may_use(i.spec))
            )
            allies = sum(a.bonus for a in player.allies)
            traits = sum(b.bonus for b in player.trait_bonuses)
            role = player.role.bonus if player.role else 0
            own = player.level + player.gear_bonus + items + allies + traits + role
            assert player.strength == own
        combat = state.combat
        if combat is not None and combat.fighter not in combat.level_only:
            fighter = state.players[combat.fighter]
            tags = frozenset(t for m in combat.monsters for t in m.spec.tags)
            extra = fighter.tag_bonus(tags) + ability_bonus(combat, combat.fighter, tags)
            assert combat.fighter_strength == fighter.strength + extra


@SETTINGS
@given(seeds, lengths, editions)
def test_a_dead_player_keeps_traits_and_their_bonuses(
    seed: int,
    length: int,
    edition,  # type: ignore[no-untyped-def]
) -> None:
    game = game_for(seed, length, edition)
    for before, after in itertools.pairwise(states(game)):
        for old, new in zip(before.players, after.players, strict=True):
            if new.dead and not old.dead:
                for kind in ("class", "race", "motivation", "style"):
                    assert new.traits(kind) == old.traits(kind)  # type: ignore[arg-type]
                assert new.trait_bonuses == old.trait_bonuses
                assert (new.super_munchkin, new.half_breed, new.extra_motivated) == (
                    old.super_munchkin,
                    old.half_breed,
                    old.extra_motivated,
                )
                assert new.items == () and new.gear_bonus == 0 and new.ally is None


def test_random_play_reaches_what_the_properties_are_about() -> None:
    """The properties above would hold vacuously if random play never got there."""
    deaths_with_bonuses = 0
    bonuses = 0
    for seed in range(8):
        game = game_for(seed, 250)
        all_states = states(game)
        bonuses += sum(bool(p.trait_bonuses) for s in all_states for p in s.players)
        for before, after in itertools.pairwise(all_states):
            deaths_with_bonuses += sum(
                new.dead and not old.dead and bool(old.trait_bonuses)
                for old, new in zip(before.players, after.players, strict=True)
            )
    assert bonuses > 50 and deaths_with_bonuses >= 2
