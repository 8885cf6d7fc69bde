"""Translated strings: every user-visible text goes through `_()` (gettext, domain "companion").

Catalogues live in `companion/locale/<lang>/LC_MESSAGES/companion.mo` and are read with
the standard library's gettext; `./tasks i18n` (companion.ui.catalogues, with Babel) keeps the
template, the `.po` files and the compiled `.mo` files up to date.

The rules engine's sentences (rule errors, History lines) arrive as `Phrase`s: `tr()`
translates their template and fills in their values, translating values that are
Phrases themselves. A language change is announced to `on_change` listeners, which
rebuild what they show.

The names of the shipped cards (classes, races, items, monsters...) and editions have a
catalogue of their own (domain "cards", extracted from `cards/` by `./tasks i18n`):
`card_name()` shows one in the current language, and so does `tr()` for a Phrase value
given under a card's key (`trait`, `item`, `monster`...). A game log always keeps the
English name, so a game reads the same whoever opens it.

The words of a game the app shares with the table link's pages (phases, the turn, the
fight, a character's traits: `companion.table.words`) take the language on show as
`APP_LANGUAGE`.
"""

from __future__ import annotations

import gettext
import os
import re
import sys
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from companion.plumbing.places import LOCALE_DIR
from companion.ui.weak import collector_held

if TYPE_CHECKING:
    from companion.plumbing.listeners import Listeners

# The rules engine (companion.core) loads after the app's first frame, so this module,
# read before it, imports nothing of it at import time: the listeners are made on first
# use, and until the engine is loaded no Phrase can exist.
_PHRASE_MODULE = "companion.core.phrase"

DOMAIN = "companion"
# The names of the shipped cards and editions, kept apart from the app's own texts.
CARDS_DOMAIN = "cards"
SOURCE_LANGUAGE = "en"
# The one list of shipped languages: code, its own name (so a player finds theirs in any
# language) and how many plural forms its catalogue has (gettext's Plural-Forms). Listed
# as the language picker shows them: Latin script, then Greek, then Cyrillic.
SHIPPED: tuple[tuple[str, str, int], ...] = (
    ("cs", "Čeština", 3),
    ("de", "Deutsch", 2),
    ("en", "English", 2),
    ("es", "Español", 2),
    ("fr", "Français", 2),
    ("it", "Italiano", 2),
    ("nl", "Nederlands", 2),
    ("pl", "Polski", 3),
    ("pt_BR", "Português (Brasil)", 2),
    ("el", "Ελληνικά", 2),
    ("ru", "Русский", 3),
    ("uk", "Українська", 3),
)
LANGUAGES: dict[str, str] = {code: name for code, name, _forms in SHIPPED}
PLURAL_FORMS: dict[str, int] = {code: forms for code, _name, forms in SHIPPED}
# The environment variables that name the user's language, strongest first (as gettext reads them).
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_translation: gettext.NullTranslations = gettext.NullTranslations()
_card_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = SOURCE_LANGUAGE
_listeners: Listeners | None = None


def supported(code: str | None) -> str | None:
    """The shipped language for a locale name ("de_AT.UTF-8" -> "de"), or None.

    >>> supported("de_AT.UTF-8"), supported("pt_PT"), supported("ru"), supported("C")
    ('de', 'pt_BR', 'ru', None)
    """
    if not code:
        return None
    name = code.split(".")[0].split("@")[0].replace("-", "_")
    if name in LANGUAGES:
        return name
    base = name.split("_")[0].lower()
    if base in LANGUAGES:
        return base
    # Portuguese from anywhere reads the Brazilian catalogue rather than English.
    return next((c for c in LANGUAGES if c.split("_")[0] == base), None)


def _android_locale() -> str | None:
    try:
        from jnius import autoclass  # only on Android (and desktops with pyjnius)
    except ImportError:
        return None
    try:
        return str(autoclass("java.util.Locale").getDefault().toString())
    except Exception:  # the JVM is not there after all: fall back to the environment
        return None


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The user's system language when the app speaks it, otherwise English.

    On Android the Java locale is asked; elsewhere LANGUAGE, LC_ALL, LC_MESSAGES, LANG.
    """
    env = os.environ if environ is None else environ
    if environ is None and "ANDROID_ARGUMENT" in env:
        found = supported(_android_locale())
        if found:
            return found
    for variable in LOCALE_VARIABLES:
        for part in env.get(variable, "").split(":"):  # LANGUAGE may list several
            found = supported(part)
            if found:
                return found
    return SOURCE_LANGUAGE


def set_language(language: str) -> str:
    """Use the catalogue of `language` (falling back to the source English); returns it.

    Listeners added with `on_change` hear about a real change.
    """
    global _translation, _card_translation, _language
    code = supported(language) or SOURCE_LANGUAGE
    _translation = gettext.translation(
        DOMAIN, localedir=LOCALE_DIR, languages=[code], fallback=True
    )
    _card_translation = gettext.translation(
        CARDS_DOMAIN, localedir=LOCALE_DIR, languages=[code], fallback=True
    )
    changed = code != _language
    _language = code
    if changed and _listeners is not None:
        with collector_held():
            _listeners.emit(code)
    return code


def start_language(chosen: str | None) -> str:
    """The language of a start: the one chosen before, else the system's (when the app
    speaks it), else English; it is put in use and returned."""
    return set_language(chosen or system_language())


def language() -> str:
    """The language currently in use."""
    return _language


def on_change(callback: Callable[[str], Any]) -> Callable[[], None]:
    """Call `callback(code)` after every language change; returns the remover."""
    global _listeners
    if _listeners is None:
        from companion.plumbing.listeners import Listeners

        _listeners = Listeners()
    return _listeners.add(callback)


def _(message: str) -> str:
    """The translation of `message` in the current language."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The translation of a message that depends on a count."""
    return _translation.ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message for extraction without translating it yet (it is translated on display)."""
    return message


# The keys under which the engine's Phrases carry a card's name (never a player's).
CARD_KEYS = frozenset({"trait", "item", "monster", "enhancer", "ally", "what", "thing"})
# The name the Combat screen gives a monster entered by its level alone, and the "#2"
# that tells a second one of the same level apart.
QUICK_MONSTER = N_("Level {n} monster")
_QUICK_NUMBER = " #{number}"


def quick_monster_name(level: int, number: int = 1) -> str:
    """The English name kept in the game log for a monster entered by its level; the
    screens show it in the player's language (`card_name`).

    >>> quick_monster_name(8), quick_monster_name(8, 2)
    ('Level 8 monster', 'Level 8 monster #2')
    """
    name = QUICK_MONSTER.format(n=level)
    return name if number < 2 else name + _QUICK_NUMBER.format(number=number)


@cache
def _quick_monster_patterns() -> tuple[re.Pattern[str], ...]:
    """A quick monster's name as any shipped language wrote it (games saved before the
    log kept it in English hold the name in the language of their table)."""
    templates = {QUICK_MONSTER}
    for code in LANGUAGES:
        catalogue = gettext.translation(DOMAIN, LOCALE_DIR, languages=[code], fallback=True)
        templates.add(catalogue.gettext(QUICK_MONSTER))
    patterns = []
    for template in sorted(templates):
        if template.count("{n}") != 1:
            continue  # a broken translation recognises nothing
        before, after = (re.escape(part) for part in template.split("{n}"))
        patterns.append(re.compile(f"^{before}(\\d+){after}(?: #(\\d+))?$"))
    return tuple(patterns)


def card_name(name: str) -> str:
    """A card's, trait's or edition's name in the current language.

    The shipped cards' names come from the "cards" catalogue; a monster entered by its
    level reads "Level 8 monster" in the player's language; any other name (a player's
    own card, a typed monster) is shown as it was written.
    """
    if not name:
        return name
    translated = _card_translation.gettext(name)
    if translated != name:
        return translated
    if not any(char.isdigit() for char in name):
        return name  # a quick monster's name holds its level: no need to read every catalogue
    for pattern in _quick_monster_patterns():
        found = pattern.match(name)
        if found:
            text = _(QUICK_MONSTER).format(n=int(found.group(1)))
            if found.group(2):
                text += _QUICK_NUMBER.format(number=int(found.group(2)))
            return text
    return name


def quick_monster_level(name: str) -> int | None:
    """The level of a monster entered by its level alone, so a sentence can name it with
    its own grammar ("runs from the Level 8 monster"); None for any other name, and for a
    second monster of a level ("#2"), which is named as it reads.

    >>> quick_monster_level("Level 8 monster"), quick_monster_level("Ogre")
    (8, None)
    """
    if not any(char.isdigit() for char in name):
        return None
    for pattern in _quick_monster_patterns():
        found = pattern.match(name)
        if found:
            return None if found.group(2) else int(found.group(1))
    return None


def tr(message: object) -> str:
    """A text from the engine (or anywhere) in the current language.

    A `Phrase` has its template translated and its values filled in (values that are
    Phrases are translated too, and card names under `CARD_KEYS` are shown with
    `card_name`); an exception is its message; any other text is looked up as it is,
    and shown untranslated when the catalogue does not have it.
    """
    loaded = sys.modules.get(_PHRASE_MODULE)
    phrase_type: type = loaded.Phrase if loaded is not None else _NoPhrase
    if isinstance(message, BaseException):
        first = message.args[0] if len(message.args) == 1 else None
        message = first if isinstance(first, phrase_type) else str(message)
    if isinstance(message, phrase_type):
        spoken: Callable[..., object] = message.spoken  # type: ignore[attr-defined]
        return str(spoken(_, ngettext, _card_value))
    text = str(message)
    return _(text) if text else text


def _card_value(key: str, value: object) -> object:
    """A card's name in a sentence, in the language on show (other values as they are)."""
    if key in CARD_KEYS and isinstance(value, str):
        return card_name(value)
    return value


class _NoPhrase:
    """Stands for the Phrase type while the engine is not loaded (nothing is one then)."""


class AppLanguage:
    """The language on show, as the words the app shares with the table link's pages take
    a language (`companion.table.words.Translator`); it follows every language change."""

    def say(self, message: object) -> str:
        """A text or an engine's sentence in the language on show (`tr`)."""
        return tr(message)

    def card_name(self, name: str) -> str:
        """A card's name in the language on show (`card_name`)."""
        return card_name(name)


APP_LANGUAGE = AppLanguage()
