"""Translated strings: every user-visible text goes through `_()` (gettext, domain "companion").

Catalogues live in `companion/ui/locale/<lang>/LC_MESSAGES/companion.mo` and are read with
the standard library's gettext; `./tasks i18n` (companion.ui.catalogues, with Babel) keeps the
template, the `.po` files and the compiled `.mo` files up to date.
"""

from __future__ import annotations

import gettext
from pathlib import Path

DOMAIN = "companion"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES: dict[str, str] = {"en": "English"}

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


def set_language(language: str) -> str:
    """Use the catalogue of `language` (falling back to the source English); returns it."""
    global _translation, _language
    _translation = gettext.translation(
        DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True
    )
    _language = language
    return language


def language() -> str:
    """The language currently in use."""
    return _language


def _(message: str) -> str:
    """The translation of `message` in the current language."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The translation of a message that depends on a count."""
    return _translation.ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message for extraction without translating it yet (it is translated on display)."""
    return message
