"""The table link speaks each browser's language, from the app's own gettext catalogues.

Every page has its own language (the phone's, from its browser), so nothing here is
global: a `Speech` is one language's catalogues (the app's texts, and the names of the
shipped cards), and `Voices` picks the one that fits the languages a browser asks for.
A `Speech` is a `companion.table.words.Translator`, so a page shows a game in the same
words as the app. The texts themselves are marked where they are written
(`phrase_template`, `Phrase`), and `./tasks i18n` collects them with the app's.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterable
from pathlib import Path

from companion.core.phrase import Phrase

DOMAIN = "companion"
# The names of the shipped cards and editions (the app's companion.ui.i18n.CARDS_DOMAIN).
CARDS_DOMAIN = "cards"
SOURCE_LANGUAGE = "en"
# A browser's Accept-Language lists a handful; more than this is not a browser.
MAX_TAGS = 12


class Speech:
    """One language: its texts, the engine's sentences and the cards' names, translated."""

    def __init__(
        self,
        code: str,
        translation: gettext.NullTranslations,
        cards: gettext.NullTranslations | None = None,
    ) -> None:
        self.code = code
        self._translation = translation
        self._cards = cards if cards is not None else gettext.NullTranslations()

    def gettext(self, message: str) -> str:
        """A text in this language (as written when the catalogue lacks it)."""
        return self._translation.gettext(message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        """A text whose form depends on a count, in this language."""
        return self._translation.ngettext(singular, plural, count)

    def say(self, message: object) -> str:
        """Anything a page shows, in this language: a Phrase is translated with its values,
        an exception by its message, a plain text looked up as it is."""
        if isinstance(message, BaseException):
            first = message.args[0] if len(message.args) == 1 else None
            message = first if isinstance(first, Phrase) else str(message)
        if isinstance(message, Phrase):
            return str(message.spoken(self.gettext, self.ngettext))
        text = str(message)
        return self.gettext(text) if text else text

    def card_name(self, name: str) -> str:
        """A shipped card's, trait's or edition's name in this language; any other name (a
        player's own card, a typed monster) as it was written."""
        return self._cards.gettext(name) if name else name


ENGLISH = Speech(SOURCE_LANGUAGE, gettext.NullTranslations())


def accepted_languages(header: str) -> list[str]:
    """The languages of an Accept-Language header, most wanted first.

    >>> accepted_languages("de-AT,de;q=0.9,en;q=0.8,*;q=0.1")
    ['de-AT', 'de', 'en']
    >>> accepted_languages("fr;q=0.2, pl")
    ['pl', 'fr']
    """
    tags: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:MAX_TAGS]):
        tag, _semicolon, params = part.strip().partition(";")
        tag = tag.strip()
        if not tag or tag == "*" or len(tag) > 35:
            continue
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        tags.append((-weight, index, tag))
    return [tag for _weight, _index, tag in sorted(tags)]


class Voices:
    """Every language the catalogues in `locale_dir` hold; None: English only."""

    def __init__(self, locale_dir: Path | None) -> None:
        self.locale_dir = locale_dir
        found = set()
        if locale_dir is not None and locale_dir.is_dir():
            found = {p.parent.parent.name for p in locale_dir.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")}
        self.languages = sorted(found | {SOURCE_LANGUAGE})
        self._spoken: dict[str, Speech] = {SOURCE_LANGUAGE: ENGLISH}

    def code_for(self, tags: Iterable[str]) -> str:
        """The catalogue that fits a browser's languages best ("de-AT" -> "de"), else English.

        >>> Voices(None).code_for(["de-AT", "en"])
        'en'
        """
        for tag in list(tags)[:MAX_TAGS]:
            if not isinstance(tag, str):
                continue
            name = tag.replace("-", "_")
            if name in self.languages:
                return name
            base = name.split("_")[0].lower()
            if base in self.languages:
                return base
            # Portuguese from anywhere reads the Brazilian catalogue rather than English.
            similar = [code for code in self.languages if code.split("_")[0] == base]
            if similar:
                return similar[0]
        return SOURCE_LANGUAGE

    def speech(self, code: str) -> Speech:
        """The language `code` (one of `languages`; anything else is English)."""
        if code not in self._spoken:
            if code not in self.languages or self.locale_dir is None:
                return ENGLISH
            folder = self.locale_dir
            texts = gettext.translation(DOMAIN, folder, languages=[code], fallback=True)
            cards = gettext.translation(CARDS_DOMAIN, folder, languages=[code], fallback=True)
            self._spoken[code] = Speech(code, texts, cards)
        return self._spoken[code]

    def for_browser(self, tags: Iterable[str]) -> Speech:
        """The language for a browser that asks for these languages, in order."""
        return self.speech(self.code_for(tags))
