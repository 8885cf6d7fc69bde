"""Translated strings: every user-visible text goes through `_()` (gettext, domain "companion").

Catalogues live in `companion/ui/locale/<lang>/LC_MESSAGES/companion.mo` and are read with
the standard library's gettext; `./tasks i18n` (companion.ui.catalogues, with Babel) keeps the
template, the `.po` files and the compiled `.mo` files up to date.

The rules engine's sentences (rule errors, History lines) arrive as `Phrase`s: `tr()`
translates their template and fills in their values, translating values that are
Phrases themselves. A language change is announced to `on_change` listeners, which
rebuild what they show.
"""

from __future__ import annotations

import gettext
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.core.listeners import Listeners

# The rules engine (companion.core) loads after the app's first frame, so this module,
# read before it, imports nothing of it at import time: the listeners are made on first
# use, and until the engine is loaded no Phrase can exist.
_PHRASE_MODULE = "companion.core.phrase"

DOMAIN = "companion"
LOCALE_DIR = Path(__file__).with_name("locale")
SOURCE_LANGUAGE = "en"
# Every shipped language, by its own name (so a player finds theirs in any language).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "es": "Español",
    "fr": "Français",
    "it": "Italiano",
    "pl": "Polski",
    "pt_BR": "Português (Brasil)",
    "ru": "Русский",
}
# The environment variables that name the user's language, strongest first (as gettext reads them).
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_translation: gettext.NullTranslations = gettext.NullTranslations()
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
    global _translation, _language
    code = supported(language) or SOURCE_LANGUAGE
    _translation = gettext.translation(
        DOMAIN, localedir=LOCALE_DIR, languages=[code], fallback=True
    )
    changed = code != _language
    _language = code
    if changed and _listeners is not None:
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
        from companion.core.listeners import Listeners

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


def tr(message: object) -> str:
    """A text from the engine (or anywhere) in the current language.

    A `Phrase` has its template translated and its values filled in (values that are
    Phrases are translated too); an exception is its message; any other text is looked up
    as it is, and shown untranslated when the catalogue does not have it.
    """
    loaded = sys.modules.get(_PHRASE_MODULE)
    phrase_type: type = loaded.Phrase if loaded is not None else _NoPhrase
    if isinstance(message, BaseException):
        first = message.args[0] if len(message.args) == 1 else None
        message = first if isinstance(first, phrase_type) else str(message)
    if isinstance(message, phrase_type):
        if message.plural is not None and message.number is not None:
            template = ngettext(message.template, message.plural, message.number)
        else:
            template = _(message.template)
        values = {k: tr(v) if isinstance(v, phrase_type) else v for k, v in message.params.items()}
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError):  # a broken translation: keep the English
            return str(message)
    text = str(message)
    return _(text) if text else text


class _NoPhrase:
    """Stands for the Phrase type while the engine is not loaded (nothing is one then)."""
