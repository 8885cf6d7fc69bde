"""A game reads the same on a phone as in the app: one set of words, two languages' sources.

The app's screens take the language on show (`APP_LANGUAGE`), a phone's page its own
`Speech`; both go through `companion.table.words`, so a German table sees German class,
race and Ally names on the phones as on the app's Table, and every phase in the same
words.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from typing import Any

import pytest

from companion.core import (
    CLASSIC,
    AllySpec,
    GainTrait,
    Game,
    GameSetup,
    GameState,
    MonsterSpec,
    Phase,
    PlayerSetup,
    SeededDice,
    SetAlly,
    Sex,
    StartCombat,
)
from companion.plumbing.places import LOCALE_DIR
from companion.table import words
from companion.ui import i18n
from companion.ui.i18n import APP_LANGUAGE
from companion.web import speech as web_speech
from companion.web.speech import Speech, Voices
from companion.web.views import board_view, seat_view

LANGUAGES = ("de", "ru")
# What a German and a Russian table call a Wizard, a Dwarf and a Pocket Dragon (cards.po).
CARD_NAMES = {
    "de": ("Zauberer", "Zwerg", "Taschendrache"),
    "ru": ("Волшебник", "Дварф", "Карманный дракон"),
}


def allow_all(_action: Any) -> bool:
    return True


@pytest.fixture
def voices() -> Voices:
    return Voices(LOCALE_DIR)


@pytest.fixture(params=LANGUAGES)
def table_language(request: pytest.FixtureRequest, voices: Voices) -> Iterator[tuple[str, Speech]]:
    """The app speaking a language (as after the Settings screen's choice), and a phone's
    page in the same language."""
    code = request.param
    try:
        i18n.set_language(code)
        yield code, voices.speech(code)
    finally:
        i18n.set_language("en")


def character_game() -> Game:
    """Classic Munchkin with Anna a Dwarf Wizard with a Pocket Dragon, Bram plain."""
    setup = GameSetup(
        players=(
            PlayerSetup(name="Anna", colour="#e5484d", sex=Sex.FEMALE),
            PlayerSetup(name="Bram", colour="#3e8ef7", sex=Sex.MALE),
        ),
        edition=CLASSIC,
    )
    game = Game(setup, rng=SeededDice(7))
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
    game.apply(SetAlly(player=0, ally=AllySpec(name="Pocket Dragon", bonus=2)))
    return game


def in_every_phase(state: GameState) -> Iterator[GameState]:
    """The state in each phase of a turn, then in a fight the players win, one they
    lose, one they run away from, and one with no monster named."""
    for phase in Phase:
        yield state.model_copy(update={"phase": phase, "combat": None})
    fight = Game(state.setup, rng=SeededDice(7))
    ogre = MonsterSpec(name="Bone Dragon Hatchling", level=4)
    fight.apply(StartCombat(fighter=0, monsters=(ogre,)))
    combat = fight.state.combat
    assert combat is not None
    for update in (
        {"players_strength": 9, "monsters_strength": 4, "fighters_winning": True},
        {"players_strength": 1, "monsters_strength": 4, "fighters_winning": False},
        {"running": True},
        {"monsters": ()},
    ):
        yield fight.state.model_copy(update={"combat": combat.model_copy(update=update)})


def test_a_phone_shows_class_race_and_ally_in_the_tables_language(
    table_language: tuple[str, Speech],
) -> None:
    code, phone = table_language
    state = character_game().state
    has_races = bool(state.setup.edition.races)

    shown = seat_view(state, 0, phone, allow_all)["traits"]

    assert shown == words.traits_line(state.players[0], has_races, APP_LANGUAGE)
    wizard, dwarf, dragon = CARD_NAMES[code]
    assert wizard in shown and dwarf in shown and dragon in shown
    for english in ("Wizard", "Dwarf", "Pocket Dragon", "Female", "Ally"):
        assert english not in shown
    # Bram has no race: Human, in the table's language too.
    assert seat_view(state, 1, phone, allow_all)["traits"] == words.traits_line(
        state.players[1], has_races, APP_LANGUAGE
    )


def test_the_phase_line_is_the_same_words_on_the_phone_and_in_the_app(
    table_language: tuple[str, Speech],
) -> None:
    _code, phone = table_language
    for state in in_every_phase(character_game().state):
        in_the_app = words.phase_line(state, APP_LANGUAGE)
        assert seat_view(state, 0, phone, allow_all)["phase"] == in_the_app
        assert board_view(state, phone)["detail"] == in_the_app
        if state.combat is None:
            assert in_the_app != words.PHASES[state.phase]  # in the table's language
    kick_open = words.phase_name(Phase.KICK_OPEN_THE_DOOR, phone)
    assert kick_open == phone.say("Kick open the door: you must")


def test_the_turn_and_the_fight_read_the_same_on_the_phone_and_in_the_app(
    table_language: tuple[str, Speech],
) -> None:
    _code, phone = table_language
    for state in in_every_phase(character_game().state):
        board = board_view(state, phone)
        assert board["headline"] == words.turn_line(state, APP_LANGUAGE)
        fight = words.fight_line(state, APP_LANGUAGE)
        assert (board["fight"] or {}).get("text") == fight
        if state.combat is not None and state.combat.monsters:
            assert fight is not None and "Bone Dragon Hatchling" not in fight
    won = character_game().state.model_copy(update={"winners": (0, 1)})
    assert board_view(won, phone)["headline"] == words.turn_line(won, APP_LANGUAGE)
    assert words.turn_line(won, APP_LANGUAGE).startswith("Anna & Bram")


def test_english_reads_as_written_on_both_sides(voices: Voices) -> None:
    state = character_game().state
    phone = voices.speech("en")
    assert seat_view(state, 0, phone, allow_all)["traits"] == (
        "Female \u00b7 Wizard \u00b7 Dwarf \u00b7 Ally: Pocket Dragon"
    )
    assert words.traits_line(state.players[1], True, APP_LANGUAGE) == "Male \u00b7 Human"
    phases = {s.phase: words.phase_line(s, phone) for s in in_every_phase(state) if not s.combat}
    assert phases[Phase.KICK_OPEN_THE_DOOR] == "Kick open the door: you must"
    assert words.sex_name(Sex.NONE, phone) == words.sex_name("none", APP_LANGUAGE) == "Neither"


def test_a_phone_and_the_app_read_the_same_card_catalogue() -> None:
    assert web_speech.CARDS_DOMAIN == i18n.CARDS_DOMAIN
    assert web_speech.DOMAIN == i18n.DOMAIN


def test_a_name_no_catalogue_holds_reads_as_written(voices: Voices) -> None:
    german = voices.speech("de")
    assert german.card_name("Gerda's Own Goblin") == "Gerda's Own Goblin"
    assert german.card_name("") == ""
    # A language whose cards' catalogue is missing shows the names as written.
    assert Speech("de", gettext.NullTranslations()).card_name("Wizard") == "Wizard"
