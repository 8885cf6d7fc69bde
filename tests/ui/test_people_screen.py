"""People who come back: New game offers the people who played here first, and a tap
seats one (the game is then theirs); the People screen, from Statistics, renames a
person or merges two entries after asking, and their statistics follow."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing

import pytest

from companion.ui import i18n
from tests.core.test_statistics import first_game, second_game
from tests.store.test_people import won_by
from tests.ui.conftest import Harness
from tests.ui.test_contrast import poor_contrast
from tests.ui.test_layout_states import problems_on_show, words_box

pytestmark = pytest.mark.slow

EIGHT = [
    "Maximiliane Hohenberg",
    "Josephine-Charlotte",
    "Konstantinos",
    "Bartholomäus",
    "Ann",
    "Bo",
    "Wilhelmina van Oranje",
    "Cy",
]


@pytest.fixture
def english(ui: Harness) -> Iterator[Harness]:
    """The app, put back into English and the dark theme after the test."""
    yield ui
    i18n.set_language("en")
    ui.app.theme.apply("dark")
    ui.pump()


def save(ui: Harness, *games: object) -> None:
    store = ui.app.session.games
    for number, game in enumerate(games):
        store.save(f"20261129-04000{number}-000{number}", game)  # type: ignore[arg-type]


def chips(screen: object) -> list[str]:
    return [row["text"] for row in screen.ids.people.data]  # type: ignore[attr-defined]


def chip(ui: Harness, screen: object, name: str) -> object:
    """The chip on show for `name` (the recycled list builds those in view)."""
    ui.pump()
    for view in screen.ids.people.view_adapter.views.values():  # type: ignore[attr-defined]
        if view.text == name:
            return view
    raise AssertionError(f"no chip for {name}")


def seated(screen: object) -> list[str]:
    return [player["name"] for player in screen.players]  # type: ignore[attr-defined]


def test_new_game_offers_people_first_and_a_tap_links_the_game(ui: Harness) -> None:
    save(ui, first_game(), won_by(["Dee", "Bo"], 0, ["#8e24aa", "#1e88e5"]))
    store = ui.app.session.games
    store.people.rename("Ann", "Annabel")
    ui.app.show("new_game", fresh=True)
    ui.pump()
    screen = ui.screen("new_game")
    # The ones who played last first; nobody is seated by a name nobody typed.
    assert chips(screen)[:2] in (["Dee", "Bo"], ["Bo", "Dee"])
    assert set(chips(screen)) == {"Annabel", "Bo", "Cy", "Dee"}
    assert seated(screen) == ["Player 1", "Player 2", "Player 3"]
    ui.tap(chip(ui, screen, "Dee"))
    ui.tap(chip(ui, screen, "Annabel"))
    # Each in the place of a name nobody typed, with the colour they played last.
    assert seated(screen) == ["Dee", "Annabel", "Player 3"]
    assert screen.players[0]["colour"] == "#8e24aa"
    assert "Dee" not in chips(screen) and "Annabel" not in chips(screen)
    rows = sorted(screen.ids.rows.children, key=lambda row: row.index)
    rows[2].ids.name.text = "Eve"  # someone new, typed
    ui.tap(rows[0].ids.first)
    ui.tap(screen.ids.start)
    ui.pump()
    assert ui.app.manager.current != "new_game"
    ui.app.session.save()
    store.flush()
    games = {person.name: person.games for person in store.people.list()}
    assert games == {"Annabel": 2, "Bo": 2, "Cy": 1, "Dee": 2, "Eve": 1}
    figures = store.statistics().figures(player="Annabel").players
    assert [(f.name, f.games, f.wins) for f in figures] == [("Annabel", 2, 1)]


def test_games_saved_before_people_are_offered_once_linked(ui: Harness) -> None:
    save(ui, first_game(), won_by(["Dee", "Bo"], 0))
    store = ui.app.session.games
    with closing(sqlite3.connect(store.database)) as conn, conn:
        # As the version before people left the games: nobody linked.
        conn.execute("DELETE FROM seats")
        conn.execute("DELETE FROM people")
    ui.app.show("new_game", fresh=True)
    screen = ui.screen("new_game")
    ui.wait_until(lambda: len(chips(screen)) == 4)
    assert set(chips(screen)[:2]) == {"Dee", "Bo"}


def test_a_name_merged_away_typed_at_new_game_is_that_person(ui: Harness) -> None:
    save(ui, first_game(), won_by(["Anne", "Dee"], 0))
    store = ui.app.session.games
    store.people.merge("Anne", "Ann")
    screen = ui.set_up_game(["Anne", "Dee", "Eve"])
    # Ann is seated by the name she had: she is not offered again.
    assert "Ann" not in [person.name for person in screen.offered()]
    ui.tap(screen.ids.rows.children[-1].ids.first)  # the first row: children are last-first
    ui.tap(screen.ids.start)
    ui.pump()
    assert ui.app.manager.current != "new_game"
    ui.app.session.save()
    store.flush()
    games = {person.name: person.games for person in store.people.list()}
    assert games == {"Ann": 3, "Bo": 1, "Cy": 1, "Dee": 2, "Eve": 1}


def test_a_full_table_says_so_rather_than_seat_a_ninth(ui: Harness) -> None:
    save(ui, won_by(["Zed", "Bo"], 0))
    screen = ui.set_up_game(EIGHT)
    screen.players[7]["placeholder"] = False
    screen.ids.players_scroll.scroll_y = 1  # the chips, at the top of the list
    ui.tap(chip(ui, screen, "Zed"))
    assert len(screen.players) == 8 and "Zed" not in seated(screen)
    assert ui.banner() == "A game has at most 8 players."


def open_people(ui: Harness) -> object:
    ui.nav("statistics")
    ui.pump(frames=4)
    ui.tap(next(view for view in ui.widgets() if type(view).__name__ == "StatsPeople"))
    ui.pump(frames=4)
    assert ui.app.manager.current == "people"
    return ui.screen("people")


def person_row(ui: Harness, screen: object, name: str) -> object:
    ui.pump()
    for view in screen.ids.people.view_adapter.views.values():  # type: ignore[attr-defined]
        if view.name == name:
            return view
    raise AssertionError(f"no row for {name}")


def test_rename_and_merge_on_the_people_screen(english: Harness) -> None:
    ui = english
    save(ui, first_game(), second_game(), won_by(["Anne", "Dee"], 0))
    screen = open_people(ui)
    listed = {row["name"]: row["detail"] for row in screen.ids.people.data}
    assert listed == {
        "Ann": "2 games",
        "Bo": "2 games",
        "Cy": "1 game",
        "Anne": "1 game",
        "Dee": "1 game",
    }

    # A look-alike name is refused, in the table's words, and nothing changes.
    ui.tap(person_row(ui, screen, "Bo"))
    assert screen.editing
    screen.ids.new_name.text = "CY"
    ui.tap(screen.ids.rename)
    assert ui.banner() == "“CY” looks like “Cy”, who has played here: merge them instead"
    screen.ids.new_name.text = "Bodo"
    ui.tap(screen.ids.rename)
    assert ui.banner() == "Bo is now called Bodo."
    assert "Bodo" in [row["name"] for row in screen.ids.people.data]

    # Anne is Ann: asked first; Cancel changes nothing.
    ui.tap(person_row(ui, screen, "Anne"))
    picker = screen.pick_same()
    assert [choice.text for choice in picker.choices] == [
        row["name"] for row in screen.ids.people.data if row["name"] != "Anne"
    ]
    picker.pick([choice.text for choice in picker.choices].index("Ann"))
    ui.pump()
    assert screen.asking and not screen.editing
    assert screen.merge_text.startswith("Count Anne's 1 game as Ann's from now on?")
    ui.tap(screen.ids.cancel)
    assert not screen.asking
    assert "Anne" in [row["name"] for row in screen.ids.people.data]
    picker = screen.pick_same()
    picker.pick([choice.text for choice in picker.choices].index("Ann"))
    ui.pump()
    ui.tap(screen.ids.merge)
    assert ui.banner() == "Anne counts as Ann now."
    listed = {row["name"]: row["detail"] for row in screen.ids.people.data}
    assert listed == {"Ann": "3 games", "Bodo": "2 games", "Cy": "1 game", "Dee": "1 game"}

    # Statistics count them as one, under the names kept.
    ui.app.back()
    ui.pump(frames=4)
    statistics = ui.screen("statistics")
    names = [row["name"] for row in statistics.rows_of("FiguresBlock")]
    assert "Anne" not in names and "Bo" not in names
    assert names.count("Ann") == 1 and "Bodo" in names


def test_two_who_played_together_are_not_merged(english: Harness) -> None:
    ui = english
    save(ui, first_game())
    screen = open_people(ui)
    ui.tap(person_row(ui, screen, "Ann"))
    picker = screen.pick_same()
    picker.pick([choice.text for choice in picker.choices].index("Bo"))
    ui.pump()
    ui.tap(screen.ids.merge)
    assert ui.banner() == "“Ann” and “Bo” played in the same game, so they are two people"
    assert len(screen.ids.people.data) == 3


@pytest.mark.parametrize("count", [2, 8])
@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("theme", ["dark", "light"])
def test_it_fits_a_phone(english: Harness, count: int, language: str, theme: str) -> None:
    from kivy.core.window import Window

    ui = english
    names = EIGHT[:count]
    save(ui, won_by(names[:4], 0), *(won_by([name, "Bo"], 0) for name in names[4:] if name != "Bo"))
    i18n.set_language(language)
    ui.app.theme.apply(theme)
    screen = open_people(ui)
    ui.tap(person_row(ui, screen, names[0]))
    problems = problems_on_show(ui, "people")
    problems += [f"contrast: {found}" for found in poor_contrast(ui)]
    shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
    if shot:
        Window.screenshot(f"{shot}/people-{count}-{language}-{theme}.png")
    screen.pick_same().pick(0)
    ui.pump(frames=4)
    problems += [f"asking: {found}" for found in problems_on_show(ui, "people")]
    if shot:
        Window.screenshot(f"{shot}/people-merge-{count}-{language}-{theme}.png")
    ui.app.show("new_game", fresh=True)
    ui.pump(frames=4)
    problems += [f"new game: {found}" for found in problems_on_show(ui, "new_game")]
    if shot:
        Window.screenshot(f"{shot}/people-new-game-{count}-{language}-{theme}.png")
    assert not problems, "\n".join(problems)


def also_played(ui: Harness, screen: object, name: str) -> object:
    """The line of old names under `name`'s row."""
    return person_row(ui, screen, name).ids.aliases  # type: ignore[attr-defined]


def test_old_names_show_after_a_rename_and_a_merge(english: Harness) -> None:
    from kivy.metrics import dp

    ui = english
    save(ui, first_game(), second_game(), won_by(["Anne", "Dee"], 0))
    i18n.set_language("de")
    ui.app.theme.apply("light")
    screen = open_people(ui)
    # Nobody had another name yet: one line a row, as before.
    assert [row["aliases"] for row in screen.ids.people.data] == [""] * 5
    ui.tap(person_row(ui, screen, "Ann"))
    assert screen.ids.kept.height == 0
    screen.ids.new_name.text = "Annabel"
    ui.tap(screen.ids.rename)
    assert ui.banner() == "Ann heißt jetzt Annabel."
    ui.pump()
    # Still tapped: the panel says which names a rename keeps.
    assert screen.editing and screen.ids.kept.text.endswith(": Ann")
    ui.tap(person_row(ui, screen, "Anne"))
    picker = screen.pick_same()
    picker.pick([choice.text for choice in picker.choices].index("Annabel"))
    ui.pump()
    ui.tap(screen.ids.merge)
    assert ui.banner() == "Anne zählt jetzt als Annabel."

    line = also_played(ui, screen, "Annabel")
    assert line.text == "spielte auch als Ann, Anne"
    row = person_row(ui, screen, "Annabel")
    assert row.height >= dp(48)
    # The two lines inside the row, one under the other.
    name = row.ids.name
    bottom, top = row.to_window(row.x, row.y)[1], row.to_window(row.x, row.top)[1]
    for label in (name, line):
        words = words_box(label)
        assert bottom <= words[1] and words[3] <= top, f"{label.text!r} leaves its row"
    assert words_box(line)[3] <= words_box(name)[1] + 1
    # A row without old names keeps its one line, in the middle.
    plain = person_row(ui, screen, "Bo")
    assert plain.ids.aliases.height == 0
    assert abs(plain.ids.name.center_y - plain.center_y) <= 1

    ui.tap(row)
    ui.pump()
    assert screen.ids.kept.text.endswith(": Ann, Anne") and screen.ids.kept.height > 0
    problems = problems_on_show(ui, "people")
    problems += [f"contrast: {found}" for found in poor_contrast(ui)]
    assert not problems, "\n".join(problems)


def eight_with_old_names(ui: Harness) -> None:
    """Eight people, some of whom played under other names, one under very many."""
    save(
        ui,
        won_by(["Maxi", "Josie", "Kostas", "Barti"], 0),
        won_by(["Annie", "Bo", "Willi", "Cy"], 0),
        *(won_by([name, "Bo"], 0) for name in ("Max H.", "Mäxchen", "Frau Hohenberg")),
        *(won_by([name, "Cy"], 0) for name in ("Maximiliane H.", "Ann B.", "Ann")),
    )
    people = ui.app.session.games.people
    people.rename("Maxi", "Maximiliane Hohenberg")
    for name in ("Max H.", "Mäxchen", "Frau Hohenberg", "Maximiliane H."):
        people.merge(name, "Maximiliane Hohenberg")
    people.rename("Josie", "Josephine-Charlotte")
    people.rename("Kostas", "Konstantinos")
    people.rename("Barti", "Bartholomäus")
    people.rename("Willi", "Wilhelmina van Oranje")
    for name in ("Annie", "Ann B."):
        people.merge(name, "Ann")


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_long_lists_of_old_names_fit_a_phone(english: Harness, theme: str) -> None:
    from kivy.core.window import Window

    ui = english
    eight_with_old_names(ui)
    i18n.set_language("de")
    ui.app.theme.apply(theme)
    screen = open_people(ui)
    assert len(screen.ids.people.data) == 8
    long = also_played(ui, screen, "Maximiliane Hohenberg")
    # Cut short with an ellipsis, inside its row, clear of the count of games.
    said = long.text
    assert long.is_shortened and said.startswith("spielte auch als ")
    shot = os.environ.get("COMPANION_LAYOUT_SHOTS")
    if shot:
        Window.screenshot(f"{shot}/people-old-names-list-de-{theme}.png")
    ui.tap(person_row(ui, screen, "Maximiliane Hohenberg"))
    problems = [
        found for found in problems_on_show(ui, "people") if found != f"people: shortened {said!r}"
    ]
    problems += [f"contrast: {found}" for found in poor_contrast(ui)]
    if shot:
        Window.screenshot(f"{shot}/people-old-names-de-{theme}.png")
    assert not problems, "\n".join(problems)
