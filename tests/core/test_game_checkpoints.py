"""Only every few states are kept, yet every state is still there, and a resume trusts a
checkpoint only as far as the log agrees with it."""

from __future__ import annotations

import pytest

from companion.core import Game, GameState, GoUpLevel, replay
from companion.core.errors import RuleError
from companion.core.game import CHECKPOINT_INTERVAL, GameLogError, action_text, log_digest
from companion.core.randomplay import random_game


@pytest.fixture(scope="module")
def long_game() -> Game:
    return random_game(5 * CHECKPOINT_INTERVAL + 7, seed=3, allow_win=False)


def test_every_revision_is_the_fold_of_its_prefix(long_game: Game) -> None:
    initial = GameState.initial(long_game.setup)
    log = long_game.log
    for revision in range(0, len(log) + 1, 5):
        assert long_game.state_at(revision) == replay(initial, log[:revision])
    states = long_game.states_between(30, 70)
    assert states == [long_game.state_at(r) for r in range(30, 70)]


def test_memory_holds_one_state_per_interval_not_one_per_action(long_game: Game) -> None:
    actions = len(long_game.log)
    assert long_game.memory_states() <= actions // CHECKPOINT_INTERVAL + 2
    assert long_game.memory_states() < actions / 10


def test_undo_redo_and_a_new_action_after_undo_across_checkpoints(long_game: Game) -> None:
    game = Game.from_actions(long_game.setup, long_game.log)
    final = game.state
    back = game.undo(2 * CHECKPOINT_INTERVAL + 3)
    assert back == game.state_at(game.revision)
    assert back.revision == len(long_game.log) - 2 * CHECKPOINT_INTERVAL - 3
    assert game.redo(2 * CHECKPOINT_INTERVAL + 3) == final
    game.undo(CHECKPOINT_INTERVAL + 1)
    changed: list[int] = []
    game.record_changes.add(changed.append)
    kept = game.revision
    game.apply(GoUpLevel(player=0, override="a card says so"))
    assert changed == [kept]  # the undone actions are replaced from there on
    assert not game.can_redo and game.recorded == kept + 1
    rebuilt = Game.from_actions(game.setup, game.log)
    assert rebuilt.state == game.state
    for revision in range(kept - 40, kept + 2):
        assert game.state_at(revision) == rebuilt.state_at(revision)


def test_resume_from_a_trusted_checkpoint_folds_only_the_rest(long_game: Game) -> None:
    log = long_game.log
    at = 3 * CHECKPOINT_INTERVAL + 5
    game = Game.resume(long_game.setup, log, checkpoint=long_game.state_at(at))
    assert game.resumed_from == at
    assert game.state == long_game.state
    assert game.state_at(10) == long_game.state_at(10)  # the gap before it is filled on need
    assert game.undo(len(log)).revision == 0


def _folds(state: GameState, actions: list) -> bool:
    try:
        replay(state, actions)
    except RuleError:
        return False
    return True


def test_a_checkpoint_that_disagrees_with_the_log_is_dropped(long_game: Game) -> None:
    log = long_game.log
    other = random_game(60, seed=4, allow_win=False)
    foreign = other.state_at(40)  # another game's state: another setup
    game = Game.resume(long_game.setup, log, checkpoint=foreign)
    assert game.resumed_from == 0 and game.state == long_game.state
    # Same setup, the right revision number, but the wrong state: the following actions
    # do not fold onto it, so the log is folded from the start instead. (Which tail fails
    # on an early state depends on the random game, so the test looks for the last one.)
    early = long_game.state_at(5)
    at = next(r for r in range(len(log) - 3, 5, -1) if not _folds(early, log[r:]))
    wrong = early.model_copy(update={"revision": at})
    game = Game.resume(long_game.setup, log, checkpoint=wrong)
    assert game.state == long_game.state
    past_the_end = long_game.state.model_copy(update={"revision": len(log) + 1})
    assert Game.resume(long_game.setup, log, checkpoint=past_the_end).resumed_from == 0


def test_resume_keeps_undone_actions_for_redo(long_game: Game) -> None:
    log = long_game.log
    game = Game.resume(long_game.setup, log, revision=len(log) - 4)
    assert game.revision == len(log) - 4 and game.can_redo
    assert game.redo(4) == long_game.state
    with pytest.raises(GameLogError, match="outside the log"):
        Game.resume(long_game.setup, log, revision=len(log) + 1)


def test_the_digest_changes_with_any_action_of_the_prefix(long_game: Game) -> None:
    texts = [action_text(a) for a in long_game.log]
    assert log_digest(texts) == log_digest(list(texts))
    assert log_digest(texts[:-1]) != log_digest(texts)
    assert log_digest(texts[1:]) != log_digest(texts[:-1])
