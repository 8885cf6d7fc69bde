"""The Game facade: checked apply, undo/redo, subscribers, the JSON log, History words."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from companion.core import (
    CLASSIC,
    LOG_VERSION,
    AddHelper,
    Game,
    GameLogError,
    GameSetup,
    GoUpLevel,
    PlayerSetup,
    ResolveCombat,
    RuleError,
    RunAway,
    SeededDice,
    SellItems,
    SetLevel,
    Sex,
    StartCombat,
    describe,
)
from companion.core.randomplay import random_game

from .conftest import make_game, make_setup, monster, nasty


class TestSetup:
    def test_two_to_eight_players(self) -> None:
        one = (PlayerSetup(name="Solo", colour="#123456", sex=Sex.MALE),)
        with pytest.raises(ValidationError, match="2 to 8 players"):
            GameSetup(players=one, edition=CLASSIC)
        make_setup(players=2)

    def test_colour_and_names(self) -> None:
        with pytest.raises(ValidationError, match="#rrggbb"):
            PlayerSetup(name="Ann", colour="red", sex=Sex.FEMALE)
        with pytest.raises(ValidationError, match="same name"):
            GameSetup(
                players=(
                    PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
                    PlayerSetup(name="ann", colour="#00ff00", sex=Sex.NONE),
                ),
                edition=CLASSIC,
            )

    def test_a_bad_seat_in_an_action_is_a_rule_error(self, game: Game) -> None:
        with pytest.raises(ValidationError):
            GoUpLevel(player=9)
        # the message counts seats as the log does: from 0
        with pytest.raises(RuleError, match=r"no player in seat 4 \(seats count from 0\)"):
            game.apply(GoUpLevel(player=4))


class TestUndoRedo:
    def test_undo_and_redo_many_steps(self, game: Game) -> None:
        states = [game.state]
        for seat in range(4):
            states.append(game.apply(GoUpLevel(player=seat)))
        assert game.undo(3) == states[1]
        assert game.can_undo and game.can_redo
        assert game.redo(2) == states[3]
        assert game.redo() == states[4]
        assert not game.can_redo
        assert game.undo(4) == states[0] and not game.can_undo

    def test_too_many_steps(self, game: Game) -> None:
        game.apply(GoUpLevel(player=0))
        with pytest.raises(RuleError):
            game.undo(2)
        with pytest.raises(RuleError):
            game.redo()

    def test_a_new_action_after_undo_drops_the_redo_tail(self, game: Game) -> None:
        game.apply(GoUpLevel(player=0))
        game.apply(GoUpLevel(player=1))
        game.undo()
        game.apply(GoUpLevel(player=2))
        assert not game.can_redo
        assert [p.level for p in game.state.players] == [2, 1, 2, 1]
        assert len(game.log) == 2 and game.state.revision == 2

    def test_a_refused_action_changes_nothing(self, game: Game) -> None:
        game.apply(GoUpLevel(player=0))
        game.undo()
        before = game.state
        with pytest.raises(RuleError):
            game.apply(SellItems(player=0, gold=10))
        assert game.state is before and game.can_redo

    def test_check_says_what_would_break_without_changing_anything(self) -> None:
        game = make_game(dice=[])  # any real roll would fail loudly
        game.apply(SetLevel(player=0, level=9))
        err = game.check(GoUpLevel(player=0))
        assert err is not None and err.rule == "winning_level_by_kill"
        assert game.check(GoUpLevel(player=1)) is None
        game.apply(StartCombat(fighter=0, monsters=(nasty(20, death=True),)))
        assert game.check(RunAway(fighter=0, monster=0)) is None
        assert game.state.revision == 2 and len(game.log) == 2

    def test_check_asks_each_rule_once_per_state_and_copies_nothing(
        self, game: Game, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Dimming the same button on every screen after a change costs one rule check."""
        import companion.core.game as game_module
        from companion.core import Charity, EndTurn, GameState

        asked: list[str] = []
        real_check = game_module.check_action

        def counted(state: GameState, action: object) -> None:
            asked.append(type(action).__name__)
            real_check(state, action)  # type: ignore[arg-type]

        def no_copy(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("a check copied the state")

        monkeypatch.setattr(game_module, "check_action", counted)
        with monkeypatch.context() as inside:
            inside.setattr(GameState, "evolve", no_copy)
            assert game.check(EndTurn()) is None
            assert game.check(EndTurn()) is None
            assert game.check(GoUpLevel(player=0)) is None
        assert asked == ["EndTurn", "GoUpLevel"]
        game.apply(StartCombat(fighter=0, monsters=(monster(3),)))
        refused = game.check(EndTurn())
        assert refused is not None and refused.rule == "finish_combat"
        game.undo()
        assert game.check(EndTurn()) is None  # the answer follows the state, undo included
        assert asked == ["EndTurn", "GoUpLevel", "EndTurn", "EndTurn"]
        uneven = game.check(Charity(giver=0, cards=3, shares={1: 3}))  # has no hash: asked anew
        assert uneven is not None and uneven.rule == "charity_discard"

    def test_subscribers_hear_apply_undo_redo_until_they_leave(self, game: Game) -> None:
        seen: list[int] = []
        leave = game.subscribe(lambda s: seen.append(s.revision))
        game.apply(GoUpLevel(player=0))
        game.undo()
        game.redo()
        with pytest.raises(RuleError):
            game.apply(SetLevel(player=0, level=10))
        leave()
        game.apply(GoUpLevel(player=0))
        assert seen == [1, 0, 1]

    def test_sequence_only_grows_while_revision_follows_undo(self, game: Game) -> None:
        marks = []
        game.apply(GoUpLevel(player=0))
        marks.append((game.sequence, game.state.revision))
        game.undo()
        marks.append((game.sequence, game.state.revision))
        game.redo()
        marks.append((game.sequence, game.state.revision))
        assert marks == [(1, 1), (2, 0), (3, 1)]


def played_game() -> Game:
    game = make_game(dice=[2, 6])
    game.apply(SetLevel(player=0, level=3))
    game.apply(StartCombat(fighter=0, monsters=(nasty(9, lose_levels=1),)))
    game.apply(AddHelper(helper=1))
    game.apply(RunAway(fighter=0, monster=0))
    game.apply(RunAway(fighter=1, monster=0))
    return game


class TestJsonLog:
    def test_save_and_load_gives_the_same_state(self) -> None:
        game = played_game()
        loaded = Game.from_json(game.to_json())
        assert loaded.state == game.state
        assert loaded.log == game.log
        assert loaded.setup == game.setup

    def test_the_log_records_every_roll(self) -> None:
        data = json.loads(played_game().to_json())
        rolls = [a["roll"] for a in data["actions"] if a["type"] == "run_away"]
        assert rolls == [2, 6]
        assert data["format"] == "munchkin-companion-game" and data["version"] == LOG_VERSION

    def test_replay_does_not_touch_the_dice(self) -> None:
        text = played_game().to_json()
        Game.from_json(text, rng=SeededDice(0))  # would differ if the dice were rolled again

    @pytest.mark.parametrize(
        ("mutate", "message"),
        [
            (lambda d: "{not json", "not valid JSON"),
            (lambda d: json.dumps([1, 2]), "a JSON object"),
            (lambda d: json.dumps({**d, "format": "chess"}), "not a game log"),
            (lambda d: json.dumps({**d, "version": 99}), "version 99"),
            (lambda d: json.dumps({**d, "setup": {"players": []}}), "bad setup"),
            (lambda d: json.dumps({k: v for k, v in d.items() if k != "actions"}), "missing"),
            (lambda d: json.dumps({**d, "actions": {}}), "must be a list"),
            (
                lambda d: json.dumps({**d, "actions": [{"type": "fly"}]}),
                "action 1 is malformed",
            ),
            (
                lambda d: json.dumps({**d, "actions": [{"type": "set_level", "player": 0}]}),
                "action 1 is malformed",
            ),
            (
                lambda d: json.dumps(
                    {**d, "actions": [{"type": "set_level", "player": 0, "level": 10}]}
                ),
                "action 1 (set_level) breaks a rule",
            ),
            (
                lambda d: json.dumps(
                    {**d, "actions": [*d["actions"][:3], {"type": "run_away", "fighter": 0}]}
                ),
                "action 4",
            ),
        ],
    )
    def test_a_bad_log_says_what_is_wrong(self, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
        data = json.loads(played_game().to_json())
        with pytest.raises(GameLogError) as err:
            Game.from_json(mutate(data))
        assert message in str(err.value)
        assert "\n" not in str(err.value)

    def test_a_log_without_a_recorded_roll_is_refused(self) -> None:
        data = json.loads(played_game().to_json())
        del data["actions"][3]["roll"]
        with pytest.raises(GameLogError, match="no recorded die roll"):
            Game.from_json(json.dumps(data))


class TestDescribe:
    def test_history_lines(self) -> None:
        game = played_game()
        lines = [describe(a, game.state_at(i)) for i, a in enumerate(game.log)]
        assert lines == [
            "Ann is set to Level 3",
            "Ann fights Nasty 9 (Level 9)",
            "Bo helps",
            "Ann rolls 2 to run from Nasty 9",
            "Bo rolls 6 to run from Nasty 9",
        ]

    def test_overrides_are_named(self, game: Game) -> None:
        game.apply(SetLevel(player=0, level=9))
        action = GoUpLevel(player=0, override="Divine Intervention")
        text = describe(action, game.state)
        assert text == "Ann goes up a level (a card says otherwise: Divine Intervention)"

    def test_every_kill_is_described_by_its_fighter(self) -> None:
        game = make_game()
        game.apply(StartCombat(fighter=0, monsters=(monster(0),)))
        assert describe(ResolveCombat(outcome="kill"), game.state) == "Ann kills the monsters"


def test_every_logged_action_reads_as_words() -> None:
    game = random_game(600, seed=3, allow_win=False)
    kinds = set()
    for revision, action in enumerate(game.log):
        text = describe(action, game.state_at(revision))
        kinds.add(action.type)
        assert text and text != action.type.replace("_", " ")
    assert len(kinds) >= 25
