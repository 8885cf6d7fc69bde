"""New game on a phone: Add player stays in reach with each player added, and the seat
flag (who starts) says what it is where it is, a finger resting on it names it rather
than changing who starts."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import Harness
from tests.ui.test_phone import fully_on_screen

pytestmark = pytest.mark.slow


def rows(screen: Any) -> list[Any]:
    return list(reversed(screen.ids.rows.children))  # BoxLayout keeps them last-first


def test_add_player_stays_in_reach_up_to_eight_players(ui: Harness) -> None:
    from benchmarks.kivy_driver import window_centre

    screen = ui.screen("new_game")
    while len(screen.players) > 2:
        screen.remove_player(len(screen.players) - 1)
    ui.pump()
    for count in range(3, 9):
        add = screen.ids.add
        assert fully_on_screen(add), f"Add player is out of view with {count - 1} players"
        ui.touch_at(*window_centre(add))  # where it is now: nothing scrolls it there first
        ui.pump(frames=4)
        assert len(screen.players) == count
        assert fully_on_screen(rows(screen)[-1]), f"player {count} is added out of view"
    assert fully_on_screen(screen.ids.add)


def test_the_flag_says_what_it_does_where_it_is(ui: Harness) -> None:
    screen = ui.screen("new_game")
    flag = rows(screen)[0].ids.first
    meaning = screen.ids.flag_meaning
    # Its meaning on screen with the flags, on a fresh screen: nothing to scroll to.
    assert fully_on_screen(flag) and fully_on_screen(meaning)
    assert "flag" in meaning.text


def test_a_finger_resting_on_the_flag_names_it_and_changes_nothing(ui: Harness) -> None:
    from benchmarks.kivy_driver import lift, press, window_centre
    from companion.ui.screens.new_game import ROLL_FOR_FIRST
    from companion.ui.widgets import LONG_PRESS_S

    screen = ui.screen("new_game")
    assert screen.first == ROLL_FOR_FIRST
    name = screen.players[1]["name"]
    flag = rows(screen)[1].ids.first
    finger = press(*window_centre(flag), "ui-test")
    # The list holds a still finger for its scroll timeout before the flag gets it.
    ui.advance(screen.ids.players_scroll.scroll_timeout / 1000 + LONG_PRESS_S + 0.1)
    assert name in ui.banner() and "first" in ui.banner(), ui.banner()
    lift(finger)
    ui.pump()
    assert screen.first == ROLL_FOR_FIRST, "holding the flag picked who starts"
    ui.tap(rows(screen)[1].ids.first)  # a tap picks
    assert screen.first == 1


def test_adding_a_seat_or_choosing_who_starts_keeps_the_seats_drawn(ui: Harness) -> None:
    """A seat added is drawn on its own, and a flag tapped marks who starts on the seats
    as they are: nothing typed or shown on the others is drawn again (a moment's wait on
    a phone with a full table); every flag and what it says follows all the same."""
    from companion.ui.screens.new_game import ROLL_FOR_FIRST

    screen = ui.screen("new_game")
    before = rows(screen)
    ui.tap(screen.ids.add)
    after = rows(screen)
    assert after[:-1] == before and len(after) == len(before) + 1
    assert after[-1].name == screen.players[-1]["name"] and after[-1].index == len(before)
    ui.tap(after[2].ids.first)
    assert rows(screen) == after and screen.first == 2
    assert [row.first for row in after] == [False, False, True, False]
    name = screen.players[2]["name"]
    assert name in after[2].first_hint and "goes first" in after[2].first_hint
    assert all("let" in row.first_hint for i, row in enumerate(after) if i != 2)
    assert screen.first_text == f"{name} goes first"
    ui.tap(screen.ids.first)  # the switch under the seats: the next seat starts
    assert screen.first == 3 and [row.first for row in after] == [False, False, False, True]
    ui.tap(after[3].ids.first)  # the same flag again: dice decide
    assert screen.first == ROLL_FOR_FIRST and not any(row.first for row in after)
    assert rows(screen) == after
