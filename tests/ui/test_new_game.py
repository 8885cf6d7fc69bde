"""The New game screen on a phone: the edition, each player's class and race picked from
lists by taps, and what was picked is the game's from its first turn."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


def tap_row(ui: Harness, picker: Any, text: str) -> None:
    row = picker.row(text)
    assert row is not None, f"{text!r} is not in the list on show"
    ui.tap(row)
    # The list fades out before the screen takes touches again.
    ui.wait_until(lambda: picker.parent is None)


def test_class_race_and_edition_are_picked_from_lists(ui: Harness) -> None:
    from companion.core import EDITIONS

    screen = ui.set_up_game(["Anna", "Bram"])
    edition = screen.choose_edition()
    ui.pump()
    # Each edition by its box's name, the one in use marked.
    assert edition.row("Munchkin").selected
    tap_row(ui, edition, "Munchkin")  # the one in use: nothing changes
    assert screen.edition_id == "classic"
    row = next(r for r in screen.ids.rows.children if r.index == 0)
    classic = EDITIONS["classic"]
    klass, race = classic.classes[0], classic.races[0]
    ui.tap(row.ids.klass)
    tap_row(ui, screen.picker, klass)
    row = next(r for r in screen.ids.rows.children if r.index == 0)
    assert klass in row.class_text
    ui.tap(row.ids.race)
    tap_row(ui, screen.picker, race)
    ui.tap(screen.ids.start)
    ui.pump()
    anna = ui.app.session.state.players[0]
    assert anna.traits("class") == (klass,) and anna.traits("race") == (race,)
    assert ui.app.session.state.players[1].traits("class") == ()


def test_a_role_card_is_dealt_from_a_list_in_the_editions_that_deal_them(ui: Harness) -> None:
    """Disney deals a Role to each player (Adventure Time a Character): picked from a list
    that names what each gives, it is the player's from the first action; an edition that
    deals none offers no such choice."""
    from companion.core import EDITIONS
    from companion.ui.labels import edition_title

    screen = ui.set_up_game(["Anna", "Bram"])
    row = next(r for r in screen.ids.rows.children if r.index == 0)
    assert screen.edition_id == "classic" and row.role_text == ""
    editions = screen.choose_edition()
    ui.pump()
    tap_row(ui, editions, edition_title(EDITIONS["disney"]))
    assert screen.edition_id == "disney"
    row = next(r for r in screen.ids.rows.children if r.index == 0)
    assert row.role_text == "Role: none"
    ui.tap(row.ids.role)
    ui.pump()
    assert screen.picker.row("Sidekick") is not None  # the edition's own role
    tap_row(ui, screen.picker, "Lucky Charm Bearer")  # one from the card packs
    row = next(r for r in screen.ids.rows.children if r.index == 0)
    assert row.role_text == "Role: Lucky Charm Bearer"
    ui.tap(screen.ids.start)
    ui.pump()
    anna, bram = ui.app.session.state.players
    assert anna.role is not None and anna.role.name == "Lucky Charm Bearer"
    assert anna.role.run_away == 1 and bram.role is None


def test_two_players_start_only_by_the_house_rule_chosen_on_screen(ui: Harness) -> None:
    """The boxes are for three to six: with two (or seven, eight) the screen shows the
    house rule, refuses to start without it, and the game records it once chosen."""
    from tests.ui.test_phone import fully_on_screen

    screen = ui.set_up_game(["Anna", "Bram", "Cleo"])
    assert not screen.house_needed and screen.ids.house.opacity == 0
    ui.tap(next(r for r in screen.ids.rows.children if r.index == 2).ids.drop)
    ui.pump()
    house = screen.ids.house
    assert screen.house_needed and fully_on_screen(house) and fully_on_screen(screen.ids.start)
    assert house.text == "House rule: 2 players: off"
    ui.tap(screen.ids.start)
    ui.pump()
    assert "only by the house rule" in ui.banner(), ui.banner()
    assert ui.app.session.state is None or len(ui.app.session.state.players) != 2
    ui.tap(house)
    assert house.text == "House rule: 2 players: on"
    ui.tap(screen.ids.start)
    ui.pump()
    assert ui.app.session.state.setup.variants.house_player_count
