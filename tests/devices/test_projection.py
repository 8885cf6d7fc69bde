"""What a counter should show of a game, and which action its press asks for: pure functions."""

from __future__ import annotations

import pytest

from companion.core import EndTurn, GoUpLevel, LoseLevel, RuleError, SetLevel, Source
from companion.core.presses import Press
from companion.devices import wire
from companion.devices.presses import button_press
from companion.devices.projection import (
    Part,
    after_absence,
    desired,
    next_show,
    picture,
    show_of,
    table_picture,
)
from companion.table.presses import take_press

from .helpers import new_game


def test_the_picture_holds_snapshot_colours_win_level_slots_and_show():
    game = new_game(players=3)
    game.apply(GoUpLevel(player=1))

    shown = picture(game.state, game.sequence, (1,), roll_count=0)

    assert list(shown) == [Part.SNAPSHOT, Part.COLOURS_0, Part.WIN_LEVEL, Part.SLOT_MAP, Part.SHOW]
    snapshot = shown[Part.SNAPSHOT].message
    assert isinstance(snapshot, wire.Snapshot)
    assert snapshot.rev == game.sequence and snapshot.levels[:3] == (1, 2, 1)
    assert snapshot.flags[0] & wire.FLAG_TURN
    colours = shown[Part.COLOURS_0].message
    assert isinstance(colours, wire.ConfigColours)
    assert colours.colours[0] == (255, 0, 0)
    slots = shown[Part.SLOT_MAP].message
    assert isinstance(slots, wire.ConfigSlotMap) and slots.slots == (1,)
    assert Part.SLOT_MAP not in picture(game.state, game.sequence, (), roll_count=0)


def test_eight_players_take_two_colour_messages():
    game = new_game(players=8)
    parts = table_picture(game.state, game.sequence).parts
    assert {Part.COLOURS_0, Part.COLOURS_4} <= set(parts)
    assert parts[Part.COLOURS_4].message.first == 4


def test_a_counter_holding_a_roll_keeps_it_when_the_table_shows_nothing():
    game = new_game()
    shown = table_picture(game.state, game.sequence).for_counter((0,), wire.ShowRoll(0, 5))
    assert Part.SHOW not in shown


def test_a_change_of_state_changes_the_snapshot_identity_only():
    game = new_game()
    before = picture(game.state, game.sequence, (0,), 0)
    game.apply(GoUpLevel(player=0))
    after = picture(game.state, game.sequence, (0,), 0)

    assert before[Part.SNAPSHOT].ident != after[Part.SNAPSHOT].ident
    assert before[Part.COLOURS_0].ident == after[Part.COLOURS_0].ident


def test_a_roll_is_not_cut_short_by_a_clear_and_not_replayed_after_an_absence():
    roll = wire.ShowRoll(0, 5)
    clear = desired(wire.ShowClear())

    assert next_show(roll, clear) is None
    assert next_show(wire.ShowClear(), clear) == clear
    replacement = after_absence(roll)
    assert replacement is not None and isinstance(replacement.message, wire.ShowClear)
    assert after_absence(wire.ShowClear()) is None


def test_nothing_to_show_without_a_combat_a_win_or_a_roll():
    game = new_game()
    assert isinstance(show_of(game.state, roll_count=0).message, wire.ShowClear)


def test_a_counters_buttons_ask_for_presses_for_its_player():
    assert button_press(wire.INTENT_NEXT_TURN, wire.NO_SLOT, ()) == (Press.NEXT_TURN, None)
    assert button_press(wire.INTENT_LEVEL_UP, wire.NO_SLOT, (2,)) == (Press.LEVEL_UP, 2)
    assert button_press(wire.INTENT_LEVEL_UP, 1, (0, 1, 2)) == (Press.LEVEL_UP, 1)
    assert button_press(wire.INTENT_LEVEL_DOWN, 0, ()) == (Press.LEVEL_DOWN, 0)


def test_presses_become_the_rules_actions_recording_the_counter():
    game = new_game()

    # Each action records that a counter asked for it (and for whom).
    def counter(seat: int | None = None) -> Source:
        return Source(via="counter", seat=seat)

    def last() -> object:
        return game.action_at(game.revision - 1)

    assert take_press(game, Press.LEVEL_UP, 2, "counter").applied
    assert last() == GoUpLevel(player=2, source=counter(2))
    assert take_press(game, Press.NEXT_TURN, None, "counter").applied
    assert last() == EndTurn(source=counter())
    game.apply(SetLevel(player=0, level=3))
    assert take_press(game, Press.LEVEL_DOWN, 0, "counter").applied
    assert last() == LoseLevel(player=0, source=counter(0))


def test_a_minus_at_level_1_is_refused_by_the_core_rule():
    game = new_game()
    outcome = take_press(game, Press.LEVEL_DOWN, 0, "counter")
    assert outcome.refused and outcome.rule == "level_floor"
    assert outcome.why == "A Level is never below 1"
    assert game.revision == 0


def test_a_press_that_names_no_player_is_refused():
    with pytest.raises(RuleError, match="no player"):
        button_press(wire.INTENT_LEVEL_UP, wire.NO_SLOT, (0, 1))
    with pytest.raises(RuleError, match="button"):
        button_press(99, 0, ())
