"""The people who played here, kept beside the saved games: a new game's seats are linked
to them as it is first saved, old saves once in the background; a rename and a merge
keep every game's statistics with the person."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from companion.core import (
    CLASSIC,
    Game,
    GameSetup,
    PlayerSetup,
    ResolveCombat,
    SetGearBonus,
    SetLevel,
    StartCombat,
)
from companion.core.errors import RuleError
from companion.core.models import MonsterSpec
from companion.store import GameStore
from companion.store.database import SCHEMA_VERSION
from tests.core.test_statistics import first_game, second_game

FIRST, SECOND, THIRD = "20261129-040000-0001", "20261129-050000-0002", "20261129-060000-0003"


def won_by(names: list[str], winner: int, colours: list[str] | None = None) -> Game:
    """A game of `names` that `winner` wins with one kill at Level 9."""
    colours = colours or ["#e53935", "#1e88e5", "#43a047", "#fdd835"][: len(names)]
    setup = GameSetup(
        players=tuple(
            PlayerSetup(name=name, colour=colour, sex="female")
            for name, colour in zip(names, colours, strict=True)
        ),
        edition=CLASSIC,
        first_player=winner,
    )
    game = Game(setup)
    game.apply(SetLevel(player=winner, level=9))
    game.apply(SetGearBonus(player=winner, bonus=5))
    game.apply(StartCombat(fighter=winner, monsters=(MonsterSpec(name="Slime", level=1),)))
    game.apply(ResolveCombat(outcome="kill"))
    return game


def _figures(store: GameStore, name: str) -> tuple[int, int, int] | None:
    """(games, wins, kills) of one player in the statistics, None when there is none."""
    found = store.statistics().figures(player=name).players
    if not found:
        return None
    (figures,) = found
    return figures.games, figures.wins, figures.totals.kills


def _names(store: GameStore) -> list[tuple[str, int]]:
    return [(person.name, person.games) for person in store.people.list()]


def test_a_new_games_seats_become_people_with_their_colour_and_sex(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, won_by(["Dee", "Ann"], 0, ["#8e24aa", "#00acc1"]))
    people = store.people.list()
    # Those who played last first; Ann's colour is the one she played last.
    assert {(p.name, p.games) for p in people[:2]} == {("Ann", 2), ("Dee", 1)}
    assert {p.name for p in people[2:]} == {"Bo", "Cy"}
    (ann,) = (p for p in people if p.name == "Ann")
    assert (ann.colour, ann.sex) == ("#00acc1", "female")
    store.close()


def test_a_rename_keeps_the_persons_history(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, second_game())
    before = _figures(store, "Ann")
    assert before == (2, 1, 3)
    renamed = store.people.rename("ann", "Annabel")
    assert renamed.name == "Annabel"
    assert _figures(store, "Annabel") == before
    assert _figures(store, "Ann") is None
    # The saved games still say who played under which name then.
    assert {saved.players[0] for saved in store.list()} == {"Ann"}
    # Typing the new name at a new game is the same person.
    store.save(THIRD, won_by(["Annabel", "Bo"], 0))
    assert _figures(store, "Annabel") == (3, 2, 4)
    store.close()
    # Kept across a restart.
    store = GameStore(tmp_path)
    assert ("Annabel", 3) in _names(store)
    assert _figures(store, "Annabel") == (3, 2, 4)
    store.close()


def test_a_merge_counts_two_entries_as_one_person(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())  # Ann wins
    store.save(SECOND, won_by(["Anne", "Bo"], 0))  # Anne wins
    assert _figures(store, "Ann") == (1, 1, 3)
    assert _figures(store, "Anne") == (1, 1, 1)
    table_before = store.statistics().figures().table
    kept = store.people.merge("Anne", "Ann")
    assert (kept.name, kept.games) == ("Ann", 2)
    assert _figures(store, "Ann") == (2, 2, 4)
    assert _figures(store, "Anne") is None
    stats = store.statistics().figures()
    assert [f.name for f in stats.players].count("Ann") == 1
    assert "Anne" not in [f.name for f in stats.players]
    # The table's own figures do not change: the same games, the same players.
    assert (stats.table.games, stats.table.wins) == (table_before.games, table_before.wins)
    assert "Anne" not in [name for name, _games in _names(store)]
    store.close()


@pytest.mark.parametrize(
    ("call", "rule"),
    [
        (lambda people: people.rename("Zed", "Zoe"), "person_unknown"),
        (lambda people: people.rename("Bo", "   "), "name_blank"),
        (lambda people: people.rename("Bo", "ANN"), "person_lookalike"),
        (lambda people: people.rename("Bo", "\u0410nn"), "person_lookalike"),  # Cyrillic А
        (lambda people: people.merge("Ann", "Bo"), "person_played_together"),
        (lambda people: people.merge("Ann", "ann"), "person_merge_self"),
        (lambda people: people.merge("Ann", "Zed"), "person_unknown"),
    ],
)
def test_what_cannot_be_renamed_or_merged_is_refused_and_nothing_changes(
    tmp_path: Path, call: object, rule: str
) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    before = _names(store)
    with pytest.raises(RuleError) as caught:
        call(store.people)  # type: ignore[operator]
    assert caught.value.rule == rule
    assert _names(store) == before
    store.close()


def test_a_person_goes_with_the_last_game_they_played(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, second_game())
    store.delete(FIRST)
    assert sorted(_names(store)) == [("Ann", 1), ("Bo", 1)]
    store.close()


def test_games_saved_before_people_are_linked_once_in_the_background(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, won_by(["Anne", "Bo"], 0))
    store.close()
    # The database as the version before people left it.
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        conn.execute("DROP TABLE people")
        conn.execute("DROP TABLE seats")
        conn.execute("PRAGMA user_version = 3")
    store = GameStore(tmp_path)
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("SELECT count(*) FROM games").fetchone() == (2,)
    assert store.people.list() == []
    job = store.people.link_waiting()
    assert job.finished.wait(30)
    assert (job.total, job.done) == (2, 2)
    # The one who played last first.
    assert _names(store)[:2] == [("Anne", 1), ("Bo", 2)]
    # Done once: nothing waits the next time.
    assert store.people.link_waiting().total == 0
    # Statistics before and after a merge of the old games' people.
    assert _figures(store, "Ann") == (1, 1, 3)
    store.people.merge("Anne", "Ann")
    assert _figures(store, "Ann") == (2, 2, 4)
    store.close()


def test_a_name_two_seats_of_an_old_save_share_links_the_first_only(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, won_by(["Ann", "Bo"], 0))
    store.close()
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        # An old save from before look-alike names were refused.
        conn.execute('UPDATE games SET players = \'["Ann", "ann"]\'')
        conn.execute("DELETE FROM seats")
    store = GameStore(tmp_path)
    assert store.people.link_waiting().finished.wait(30)
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn:
        assert conn.execute("SELECT seat FROM seats").fetchall() == [(0,)]
    store.close()


def _person_of(store: GameStore, name: str) -> tuple[str, int, tuple[str, ...]]:
    (person,) = (p for p in store.people.list() if p.name == name)
    return person.name, person.games, person.aliases


def test_a_name_merged_or_renamed_away_still_means_that_person(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())  # Ann, Bo, Cy
    store.save(SECOND, won_by(["Anne", "Dee"], 0))
    store.people.merge("Anne", "Ann")
    # "Anne" typed at a later game is Ann, not someone new.
    store.save(THIRD, won_by(["anne", "Dee"], 0))
    assert "anne" not in [name.lower() for name, _games in _names(store)]
    assert _person_of(store, "Ann") == ("Ann", 3, ("Anne",))
    assert _figures(store, "Ann") == (3, 3, 5)
    # A rename keeps the old name too; the names had before stay.
    store.people.rename("Ann", "Annabel")
    store.save("20261129-070000-0004", won_by(["Ann", "Dee"], 1))
    store.save("20261129-080000-0005", won_by(["Anne", "Dee"], 1))
    assert _person_of(store, "Annabel")[:2] == ("Annabel", 5)
    assert set(_person_of(store, "Annabel")[2]) == {"Anne", "Ann"}
    store.close()
    # Kept across a restart; a name someone else takes is theirs from then on.
    store = GameStore(tmp_path)
    store.people.rename("Dee", "Anne")
    assert set(_person_of(store, "Annabel")[2]) == {"Ann"}
    assert _person_of(store, "Anne")[2] == ("Dee",)
    store.save("20261129-090000-0006", won_by(["Anne", "Cy"], 0))
    assert _person_of(store, "Anne")[1] == 5
    assert _person_of(store, "Annabel")[1] == 5
    store.close()


def test_a_database_of_the_version_before_aliases_is_upgraded(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    store.save(FIRST, first_game())
    store.save(SECOND, won_by(["Anne", "Dee"], 0))
    store.close()
    # The database as the version before aliases left it.
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn, conn:
        conn.execute("DROP TABLE aliases")
        conn.execute("PRAGMA user_version = 4")
    store = GameStore(tmp_path)
    with closing(sqlite3.connect(tmp_path / "games.sqlite3")) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert _person_of(store, "Anne") == ("Anne", 1, ())
    store.people.merge("Anne", "Ann")
    store.save(THIRD, won_by(["Anne", "Dee"], 0))
    assert _person_of(store, "Ann") == ("Ann", 3, ("Anne",))
    store.close()
