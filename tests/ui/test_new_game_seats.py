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


def test_seats_moved_recoloured_or_dropped_show_what_was_typed(ui: Harness) -> None:
    """The seats on screen are filled in again rather than drawn anew at each tap: a name
    typed over a seat follows it up the table, and the seat that takes its place shows
    its own name, not what was typed there before."""
    screen = ui.screen("new_game")
    before = rows(screen)
    before[0].ids.name.text = "Bob"  # typed over "Player 1"
    before[1].ids.name.text = "Player 1"  # the name the first seat had before
    ui.pump()
    ui.tap(before[1].ids.up)
    assert [p["name"] for p in screen.players] == ["Player 1", "Bob", "Player 3"]
    assert [row.ids.name.text for row in rows(screen)] == ["Player 1", "Bob", "Player 3"]
    assert rows(screen) == before and [row.index for row in before] == [0, 1, 2]
    colour = before[2].colour
    ui.tap(before[2].ids.colour)
    assert rows(screen) == before and before[2].colour != colour
    ui.tap(before[0].ids.drop)
    assert rows(screen) == before[:2]
    assert [row.ids.name.text for row in rows(screen)] == ["Bob", "Player 3"]
    assert [p["name"] for p in screen.players] == ["Bob", "Player 3"]


def test_a_new_game_after_a_theme_switch_shows_each_seats_colour(ui: Harness) -> None:
    """The seats of a new game set up after the theme changed wear their players' colours,
    not the theme's button face."""
    try:
        ui.app.theme.apply("light")
        ui.pump()
        screen = ui.set_up_game(["Anna", "Bram", "Cleo"])
        for row in rows(screen):
            assert list(row.ids.colour.bg) == list(row.colour), row.name
    finally:
        ui.app.theme.apply("dark")
        ui.pump()


def test_seats_already_set_up_keep_their_colours_through_a_theme_switch(ui: Harness) -> None:
    """A theme switched while New game is set up (Settings, then back) leaves each seat in
    its player's colour: the theme's button face no longer covers it."""
    screen = ui.set_up_game(["Anna", "Bram", "Cleo"])
    try:
        ui.app.theme.apply("light")
        ui.pump()
        for row in rows(screen):
            assert list(row.ids.colour.bg) == list(row.colour), row.name
        ui.app.theme.apply("dark")
        ui.pump()
        for row in rows(screen):
            assert list(row.ids.colour.bg) == list(row.colour), row.name
    finally:
        ui.app.theme.apply("dark")
        ui.pump()
