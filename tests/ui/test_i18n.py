"""The app's strings: every one is in the translation template, and catalogues load."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from companion.core.phrase import Phrase
from companion.ui import catalogues, i18n

_MSGID = re.compile(r'^msgid "(.*)"$', re.MULTILINE)


def _ids(po_file: Path) -> set[str]:
    text = po_file.read_text(encoding="utf-8")
    return {ast.literal_eval(f'"{m}"') for m in _MSGID.findall(text)} - {""}


def test_template_holds_every_message_in_use() -> None:
    used = {m if isinstance(m, str) else m[0] for m in catalogues.extract_messages()}
    template = _ids(i18n.LOCALE_DIR / "companion.pot")
    missing = sorted(used - template)
    assert not missing, f"run `./tasks i18n` to add: {missing[:5]}"
    assert "Kill!" in used and "Run away" in used  # kv files are searched too


def test_english_catalogue_is_complete_and_loads() -> None:
    english = i18n.LOCALE_DIR / "en" / "LC_MESSAGES"
    assert _ids(english / "companion.po") == _ids(i18n.LOCALE_DIR / "companion.pot")
    catalogue = gettext.translation(i18n.DOMAIN, i18n.LOCALE_DIR, languages=["en"])
    assert catalogue.gettext("Fight!") == "Fight!"
    assert catalogue.ngettext("{n} turn", "{n} turns", 1) == "{n} turn"
    assert catalogue.ngettext("{n} turn", "{n} turns", 3) == "{n} turns"


def test_compiled_catalogue_translates(tmp_path: Path) -> None:
    folder = tmp_path / "xx" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    header = "Content-Type: text/plain; charset=UTF-8\n"
    mo = catalogues.render_mo({"": header, "Kill!": "Töten!", "Dice": "Würfel"})
    (folder / "companion.mo").write_bytes(mo)
    catalogue = gettext.translation("companion", tmp_path, languages=["xx"])
    assert catalogue.gettext("Kill!") == "Töten!"
    assert catalogue.gettext("Dice") == "Würfel"
    assert catalogue.gettext("Undo") == "Undo"


def test_unknown_language_falls_back_to_english() -> None:
    try:
        i18n.set_language("zz")
        assert i18n._("Start game") == "Start game"
    finally:
        i18n.set_language("en")


# --- every shipped language is complete -------------------------------------------------------

_FIELD = re.compile(r"\{([a-z_]*)[^{}]*\}")
_PERCENT = re.compile(r"%(?:\([a-z_]+\))?[-+ #0]*\d*(?:\.\d+)?[sdifr%]")


def _fields(text: str) -> list[str]:
    """The {placeholders} and %-style conversions of a text, sorted (with repeats)."""
    return sorted(_FIELD.findall(text) + _PERCENT.findall(text))


def _catalogue(language: str, domain: str = i18n.DOMAIN) -> Catalog:
    path = i18n.LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=domain)


TRANSLATED = sorted(set(i18n.LANGUAGES) - {i18n.SOURCE_LANGUAGE})
DOMAINS = (i18n.DOMAIN, i18n.CARDS_DOMAIN)


def test_a_dozen_languages_are_offered_each_by_its_own_name() -> None:
    assert len(i18n.LANGUAGES) >= 12
    assert i18n.LANGUAGES["de"] == "Deutsch" and i18n.LANGUAGES["ru"] == "Русский"
    assert i18n.LANGUAGES["cs"] == "Čeština" and i18n.LANGUAGES["uk"] == "Українська"
    assert set(i18n.LANGUAGES) == set(catalogues.languages())
    assert set(i18n.PLURAL_FORMS) == set(i18n.LANGUAGES)
    for language in i18n.LANGUAGES:
        for domain in DOMAINS:
            assert (i18n.LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.mo").exists()


def test_every_glossary_belongs_to_a_shipped_language() -> None:
    glossaries = Path(catalogues.PACKAGE_DIR).parent / "docs" / "glossary"
    assert {p.stem for p in glossaries.glob("*.md")} == set(TRANSLATED)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_text_the_app_uses_is_translated(language: str) -> None:
    catalogue = _catalogue(language)
    used = catalogues.extract_messages()
    missing = []
    for message in used:
        key = message if isinstance(message, str) else message[0]
        entry = catalogue.get(key)
        strings = () if entry is None else entry.string
        strings = strings if isinstance(strings, tuple) else (strings,)
        if entry is None or entry.fuzzy or not strings or not all(strings):
            missing.append(key)
    assert not missing, f"{language}: {len(missing)} untranslated, e.g. {missing[:3]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_shipped_card_name_is_translated(language: str) -> None:
    catalogue = _catalogue(language, i18n.CARDS_DOMAIN)
    names = catalogues.card_names()
    assert {"Wizard", "Elf", "Crane", "Love", "Classic fantasy", "Lint Golem"} <= set(names)
    missing = [n for n in names if not (e := catalogue.get(n)) or e.fuzzy or not e.string]
    assert not missing, f"{language}: {len(missing)} card names untranslated, e.g. {missing[:3]}"


def test_the_card_name_template_holds_every_shipped_name() -> None:
    template = _ids(i18n.LOCALE_DIR / f"{i18n.CARDS_DOMAIN}.pot")
    missing = sorted(set(catalogues.card_names()) - template)
    assert not missing, f"run `./tasks i18n` to add: {missing[:5]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_every_placeholder_and_plural_form(language: str) -> None:
    catalogue = _catalogue(language)
    forms = catalogue.num_plurals
    assert forms == i18n.PLURAL_FORMS[language], "Plural-Forms header"
    assert f"nplurals={forms};" in catalogue.plural_forms
    for entry in catalogue:
        if not entry.id:
            continue
        if isinstance(entry.id, tuple):
            assert isinstance(entry.string, tuple) and len(entry.string) == forms, entry.id
            if not any(entry.string):
                continue  # not translated yet: the completeness test names it
            allowed = set(_fields(entry.id[0])) | set(_fields(entry.id[1]))
            for form in entry.string:
                assert set(_fields(form)) <= allowed, (language, entry.id, form)
            # The "many" form names the count whenever the English plural does.
            assert _fields(entry.string[-1]) == _fields(entry.id[1]), (language, entry.id)
        elif entry.string:
            assert _fields(entry.string) == _fields(entry.id), (language, entry.id, entry.string)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", TRANSLATED)
def test_compiled_catalogue_matches_its_source(language: str, domain: str) -> None:
    catalogue = _catalogue(language, domain)
    compiled = gettext.translation(domain, i18n.LOCALE_DIR, languages=[language])
    for entry in catalogue:
        if entry.id and not isinstance(entry.id, tuple) and entry.string:
            assert compiled.gettext(entry.id) == entry.string, "run `./tasks i18n`"


def test_plural_forms_follow_each_language() -> None:
    try:
        i18n.set_language("pl")
        turns = [i18n.ngettext("{n} turn", "{n} turns", n).format(n=n) for n in (1, 3, 5, 22)]
        assert turns == ["1 tura", "3 tury", "5 tur", "22 tury"]
        i18n.set_language("ru")
        turns = [i18n.ngettext("{n} turn", "{n} turns", n).format(n=n) for n in (1, 3, 5, 21)]
        assert turns == ["1 ход", "3 хода", "5 ходов", "21 ход"]
        i18n.set_language("uk")
        turns = [i18n.ngettext("{n} turn", "{n} turns", n).format(n=n) for n in (1, 3, 5, 21)]
        assert turns == ["1 хід", "3 ходи", "5 ходів", "21 хід"]
        i18n.set_language("cs")
        turns = [i18n.ngettext("{n} turn", "{n} turns", n).format(n=n) for n in (1, 3, 5, 21)]
        assert turns == ["1 tah", "3 tahy", "5 tahů", "21 tahů"]
        i18n.set_language("el")
        turns = [i18n.ngettext("{n} turn", "{n} turns", n).format(n=n) for n in (1, 2)]
        assert turns == ["1 γύρος", "2 γύροι"]
    finally:
        i18n.set_language("en")


# --- card names -------------------------------------------------------------------------------


def test_card_names_read_in_the_chosen_language_and_other_names_as_written() -> None:
    try:
        i18n.set_language("de")
        assert i18n.card_name("Wizard") == "Zauberer"
        assert i18n.card_name("Halfling") == "Halbling"
        assert i18n.card_name("Classic fantasy") != "Classic fantasy"
        assert i18n.card_name("Gerda's Own Goblin") == "Gerda's Own Goblin"  # a typed name
        assert i18n.card_name("") == ""
        i18n.set_language("ru")
        assert i18n.card_name("Wizard") == "Волшебник"
    finally:
        i18n.set_language("en")
    assert i18n.card_name("Wizard") == "Wizard"


def test_a_quick_monster_keeps_its_english_name_and_reads_in_any_language() -> None:
    """The log keeps "Level 8 monster #2"; games saved before that kept the name in the
    language of their table, and those read in the player's language too."""
    assert i18n.quick_monster_name(8, 2) == "Level 8 monster #2"
    try:
        i18n.set_language("de")
        german = i18n.card_name("Level 8 monster #2")
        assert german == i18n._("Level {n} monster").format(n=8) + " #2" != "Level 8 monster #2"
        i18n.set_language("ru")
        assert i18n.card_name(german) == "Монстр 8 уровня #2"
        assert i18n.card_name("Level 12 monster") == "Монстр 12 уровня"
        assert i18n.card_name("Level 8 monsters") == "Level 8 monsters"  # not the pattern
    finally:
        i18n.set_language("en")
    assert i18n.card_name(german) == "Level 8 monster #2"


def test_engine_sentences_show_card_names_translated_but_never_player_names() -> None:
    elf = Phrase("{name} is no longer a {trait}", name="Wizard", trait="Wizard")
    fight = Phrase(
        "{monster} joins the combat",
        monster=Phrase("{monster} (Level {level})", monster="Level 3 monster", level=3),
    )
    try:
        i18n.set_language("de")
        assert i18n.tr(elf) == "Wizard ist nicht mehr Zauberer"
        assert i18n.tr(fight).startswith(i18n.card_name("Level 3 monster") + " (Stufe 3)")
    finally:
        i18n.set_language("en")


# --- the engine's sentences ------------------------------------------------------------------


def _phrases(text: object) -> list[Phrase]:
    """A Phrase and every Phrase among its values, all the way down."""
    if not isinstance(text, Phrase):
        return []
    found = [text]
    for value in text.params.values():
        found += _phrases(value)
    return found


def _engine_sentences(games: int = 12, tries: int = 150) -> tuple[list[object], list[object]]:
    """History sentences and rule errors from random games (refused actions included)."""
    import random

    from companion.core import Game, RuleError, SeededDice, describe
    from companion.core.randomplay import random_action, random_setup

    history: list[object] = []
    errors: list[object] = []
    for seed in range(games):
        rnd = random.Random(seed)
        game = Game(random_setup(rnd), rng=SeededDice(rnd.random()))
        for _ in range(tries):
            if game.state.winners:
                break
            action = random_action(game.state, rnd)
            before = game.state
            try:
                game.apply(action)
            except RuleError as exc:
                errors.append(exc.phrase)
                continue
            history.append(describe(action, before))
    return history, errors


def test_engine_sentences_are_phrases_in_every_catalogue() -> None:
    history, errors = _engine_sentences()
    assert len(history) > 200 and len(errors) > 20
    plain = [s for s in history + errors if not isinstance(s, Phrase)]
    assert not plain, f"not made with Phrase(), so not translatable: {plain[:3]}"
    templates = {p.template for s in history + errors for p in _phrases(s)}
    ids = _ids(i18n.LOCALE_DIR / "companion.pot")
    assert not templates - ids, f"run `./tasks i18n`: {sorted(templates - ids)[:3]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_engine_sentences_translate_with_their_values(language: str) -> None:
    history, errors = _engine_sentences(games=4)
    try:
        i18n.set_language(language)
        for sentence in history + errors:
            translated = i18n.tr(sentence)
            assert translated and "{" not in translated, (sentence, translated)
            # Names and numbers are carried over, not lost with the English.
            for phrase in _phrases(sentence):
                for value in phrase.params.values():
                    if isinstance(value, int) and not isinstance(value, bool) and value > 1:
                        assert str(value) in translated or f"{value:+d}" in translated, (
                            sentence,
                            translated,
                        )
    finally:
        i18n.set_language("en")


def test_a_rule_error_reads_in_the_chosen_language_and_stays_english_in_code() -> None:
    from companion.core import (
        CLASSIC,
        GameSetup,
        GameState,
        GoUpLevel,
        PlayerSetup,
        RuleError,
        Sex,
    )
    from companion.core.engine import apply_action

    setup = GameSetup(
        players=(
            PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
            PlayerSetup(name="Bo", colour="#00ff00", sex=Sex.MALE),
        ),
        edition=CLASSIC,
    )
    with pytest.raises(RuleError) as caught:
        apply_action(GameState.initial(setup), GoUpLevel(player=5))
    assert str(caught.value) == "There is no player in seat 5 (seats count from 0)"
    try:
        i18n.set_language("de")
        assert i18n.tr(caught.value) == "Auf Platz 5 sitzt kein Spieler (Plätze zählen ab 0)"
        i18n.set_language("ru")
        assert i18n.tr(caught.value) == "На месте 5 нет игрока (места считаются с 0)"
    finally:
        i18n.set_language("en")
    assert i18n.tr(caught.value) == str(caught.value)


def test_a_broken_translation_falls_back_to_the_english_sentence() -> None:
    phrase = Phrase("{name} helps", name="Ann")
    broken = gettext.NullTranslations()
    broken.gettext = lambda _message: "{nom} hilft"  # type: ignore[method-assign]
    saved = i18n._translation
    try:
        i18n._translation = broken
        assert i18n.tr(phrase) == "Ann helps"
    finally:
        i18n._translation = saved


# --- the system's language and the font ------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "pl_PL.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"}, "ru"),
        ({"LANGUAGE": "ja:fr", "LANG": "ja_JP.UTF-8"}, "fr"),
        ({"LC_ALL": "pt_BR.UTF-8"}, "pt_BR"),
        ({"LANG": "ja_JP.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_system_language_is_used_when_the_app_speaks_it(
    environ: dict[str, str], expected: str
) -> None:
    assert i18n.system_language(environ) == expected


def test_the_bundled_fonts_have_every_letter_of_every_language() -> None:
    from fontTools.ttLib import TTFont
    from kivy.core.text import LabelBase

    used = {m if isinstance(m, str) else m[0] for m in catalogues.extract_messages()}
    used |= set(catalogues.card_names())
    letters: set[str] = set("".join(i18n.LANGUAGES.values()))
    for language in TRANSLATED:
        for domain in DOMAINS:
            for entry in _catalogue(language, domain):
                strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
                if entry.id and (entry.id if isinstance(entry.id, str) else entry.id[0]) in used:
                    letters.update("".join(strings))
    letters = {c for c in letters if c.isprintable() and not c.isspace()}
    assert {"ą", "ł", "ż", "ß", "ç", "ã", "ж", "ё", "«", "ř", "ů", "ї", "ґ", "λ", "ώ"} <= letters
    # The fonts the app's labels really use: Kivy's default (Roboto) in both weights.
    fonts = LabelBase._fonts["Roboto"]  # registered at import: regular, italic, bold, bold italic
    for path in (fonts[0], fonts[2]):
        cmap = TTFont(path)["cmap"].getBestCmap()
        missing = sorted(c for c in letters if ord(c) not in cmap)
        assert not missing, f"{Path(path).name} lacks {missing}"


def test_every_rule_error_is_raised_with_a_phrase() -> None:
    """Also the refusals random play never reaches: each RuleError names a Phrase."""
    package = Path(catalogues.PACKAGE_DIR)
    plain = []
    for name in catalogues.PHRASE_DIRS:
        for path in sorted((package / name).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "RuleError"):
                    continue
                message = node.args[1] if len(node.args) > 1 else None
                if not (
                    isinstance(message, ast.Call)
                    and getattr(message.func, "id", "") in ("Phrase", "plural_phrase")
                ):
                    plain.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert not plain, f"RuleError with a plain message (wrap it in Phrase()): {plain}"


def test_a_damaged_claim_token_file_is_reported_in_the_chosen_language(tmp_path: Path) -> None:
    from companion.devices.tokens import TokenStore

    path = tmp_path / "counters.json"
    path.write_bytes(b'{"format": 1, "tokens": {"0000')
    problem = TokenStore(path).problem
    assert problem is not None and problem.startswith("counters.json was damaged (not valid JSON")
    try:
        i18n.set_language("pl")
        said = i18n.tr(problem)
    finally:
        i18n.set_language("en")
    assert said.startswith("counters.json był uszkodzony (niepoprawny JSON (")
    assert "zachowano go jako counters.json.damaged-" in said
    assert said.endswith("wcześniej przejęte liczniki trzeba przejąć ponownie")


def test_the_devices_screens_install_words_are_in_the_catalogue() -> None:
    """The install rows keep their words as Phrases (worded when shown): the app's own
    Phrases are read for the catalogue too, or every language shows them in English."""
    from companion.devices.install import Progress, Step
    from companion.ui.device_service import install_step

    ids = _ids(i18n.LOCALE_DIR / "companion.pot")
    steps = [Progress(step) for step in Step if step is not Step.COPYING]
    templates = {install_step(p).template for p in steps}
    templates.add(install_step(Progress(Step.FLASHING, 0, 1, 1024, 4096)).template)
    assert "Writing MicroPython: {kb_done:.0f} of {kb_total:.0f} KB" in templates
    assert not templates - ids, f"not in the catalogue: {sorted(templates - ids)}"
