"""Two players of a new game may not have names that look the same, and no player's name
may look blank: invisible characters, decomposed or full-width letters and letters of
another script make no second "Ann"; a saved game keeps the names it was started with."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from companion.core import CLASSIC, Game, GameSetup, GoUpLevel, PlayerSetup, Sex
from companion.core.errors import RuleError, first_validation_error, validation_error_line
from companion.core.game import GameLogError
from companion.core.models import SAVED_GAME
from companion.core.names import lookalike_seats, normal_name, same_looking

# (the second player's name, what makes it look like the first one's)
LOOKALIKES = [
    ("Ann\u200b", "zero-width space"),
    ("An\u200dn", "zero-width joiner"),
    ("A\u200cnn", "zero-width non-joiner"),
    ("Ann\u2060", "word joiner"),
    ("An\u00adn", "soft hyphen"),
    ("\ufeffAnn", "byte order mark"),
    ("Ann\ufe0f", "variation selector"),
    ("Ann\U000e0100", "variation selector 17"),
    ("Ann\u3164", "Hangul filler"),
    ("Ａｎｎ", "full-width letters"),
    ("\u0410nn", "a Cyrillic A"),
    ("ann", "lower case"),
    ("ANN", "upper case"),
    ("Ann\u2800", "a blank Braille cell"),
    ("A n n".replace(" ", "\u200b"), "zero-width spaces between the letters"),
]


def seat(name: str, colour: str = "#ff0000") -> PlayerSetup:
    return PlayerSetup(name=name, colour=colour, sex=Sex.NONE)


def table(*names: str) -> GameSetup:
    colours = ("#ff0000", "#00ff00", "#0000ff", "#ffff00")
    return GameSetup(
        players=tuple(seat(name, colours[i]) for i, name in enumerate(names)), edition=CLASSIC
    )


def log_with(*names: str) -> str:
    """A game log whose setup holds these names as they are (as another program, or an
    old version, may have written them)."""
    data = json.loads(Game(table(*(f"Player {n}" for n in range(len(names))))).to_json())
    for player, name in zip(data["setup"]["players"], names, strict=True):
        player["name"] = name
    return json.dumps(data)


@pytest.mark.parametrize(("second", "why"), LOOKALIKES)
def test_a_name_that_looks_like_another_players_is_refused(second: str, why: str) -> None:
    with pytest.raises(ValidationError) as caught:
        table("Ann", "Bo", second)
    what = first_validation_error(caught.value)[1]
    assert "look like the same name" in what, why
    assert "“Ann”" in what and normal_name(second) in what  # both names, as they are shown


@pytest.mark.parametrize(
    "name",
    ["Ann\u200b", "An\u200dn", "Ann\u2060", "An\u00adn", "\ufeffAnn", "Ann\ufe0f", " Ann\u3164 "],
)
def test_invisible_characters_are_left_out_of_a_name(name: str) -> None:
    assert seat(name).name == "Ann"


def test_decomposed_letters_are_composed_and_match_the_composed_name() -> None:
    assert seat("Zoe\u0308").name == "Zo\u00eb"
    with pytest.raises(ValidationError, match="look like the same name"):
        table("Zo\u00eb", "Zoe\u0308")


def test_runs_of_spaces_inside_a_name_are_made_one() -> None:
    assert seat("Ann \u3000 \u2003 Lee").name == "Ann Lee"
    with pytest.raises(ValidationError, match="look like the same name"):
        table("Ann Lee", "Ann\u00a0\u00a0Lee")


def test_full_width_letters_are_kept_as_typed_but_compared_folded() -> None:
    assert seat("Ａｎｎ").name == "Ａｎｎ"
    assert same_looking("Ａｎｎ", "ann")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u3164", "Hangul filler alone"),
        ("\u115f\u1160", "Hangul choseong and jungseong fillers"),
        ("\uffa0", "half-width Hangul filler"),
        ("\u200b", "a lone zero-width space"),
        (" \u200b\u2060\ufeff ", "zero-width characters and spaces"),
        ("\u0301\u0302", "combining marks only"),
        ("\u2800", "a blank Braille cell"),
        ("\u00ad", "a soft hyphen"),
        ("  ", "spaces"),
        ("", "nothing"),
    ],
)
def test_a_name_that_looks_blank_is_refused_with_a_clear_message(name: str, why: str) -> None:
    with pytest.raises(ValidationError) as caught:
        seat(name)
    assert validation_error_line(caught.value) == (
        "name: A player's name cannot be blank or invisible"
    ), why
    with pytest.raises(RuleError) as refused:
        normal_name(name)
    assert refused.value.rule == "name_blank"


@pytest.mark.parametrize(
    ("first", "second"),
    [("Ann", "Anna"), ("Zoë", "Zoe"), ("Jan", "Ján"), ("Bo", "Bob"), ("Ann Lee", "AnnLee")],
)
def test_names_that_only_resemble_each_other_are_both_welcome(first: str, second: str) -> None:
    assert [p.name for p in table(first, second).players] == [first, second]


def test_joiners_and_styles_that_shape_what_is_shown_stay() -> None:
    family = "👨\u200d👩\u200d👧"
    assert seat(f"{family} team").name == f"{family} team"
    assert seat("❤\ufe0f Ann").name == "❤\ufe0f Ann"
    persian = "\u0645\u06cc\u200c\u0631\u0648\u062f"  # the non-joiner keeps two letters apart
    assert seat(persian).name == persian
    # Compared without them all the same: the family and its members side by side look alike.
    assert same_looking(f"{family} team", "👨👩👧 team")


def test_the_first_two_lookalike_seats_are_named() -> None:
    assert lookalike_seats(["Ann", "Bo", "Cy", "B\u043e"]) == (1, 3)  # a Cyrillic o
    assert lookalike_seats(["Ann", "Bo", "Cy"]) is None


@given(st.text(max_size=12))
def test_a_normal_name_stays_as_it_is_when_made_normal_again(text: str) -> None:
    try:
        once = normal_name(text)
    except RuleError:
        return
    assert normal_name(once) == once
    assert same_looking(once, text)


def test_an_imported_log_with_lookalike_names_is_refused_naming_them() -> None:
    with pytest.raises(GameLogError) as caught:
        Game.from_json(log_with("Ann", "Ann\u200b", "Bo"))
    assert "look like the same name" in str(caught.value)
    with pytest.raises(GameLogError, match="blank or invisible"):
        Game.from_json(log_with("Ann", "\u3164"))


def test_a_saved_game_keeps_its_names_as_they_were_written() -> None:
    text = log_with("Ann", "Ann\u200b", "\u3164")
    game = Game.from_json(text, saved=True)
    assert [p.name for p in game.state.setup.players] == ["Ann", "Ann\u200b", "\u3164"]
    game.apply(GoUpLevel(player=1))
    again = Game.from_json(game.to_json(), saved=True)
    assert again.state == game.state
    # The rule saved games were started under still holds: no two names spelt alike.
    with pytest.raises(GameLogError, match="same name"):
        Game.from_json(log_with("Ann", "ann"), saved=True)


def test_a_checkpoint_of_a_saved_game_with_lookalike_names_reads_back() -> None:
    game = Game.from_json(log_with("Ann", "Ann\u200b"), saved=True)
    text = game.state.model_dump_json()
    state = type(game.state).model_validate_json(text, context={SAVED_GAME: True})
    assert state == game.state
    with pytest.raises(ValidationError, match="look like the same name"):
        type(game.state).model_validate_json(text)  # as a new game's, it would be refused
