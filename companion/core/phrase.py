"""Sentences the rules engine says to people, kept translatable: a template plus its values.

A `Phrase` is the English sentence itself (a `str`, so logs, tests and `str(err)` read
as before) that also remembers the `{placeholder}` template it came from and the values
filled in. The app translates the template and fills in the same values, so names and
numbers never have to be cut out of a translated sentence; a value that is itself a
Phrase is translated too. The core never translates anything itself.

>>> p = Phrase("{name} goes up to Level {level}", name="Ann", level=3)
>>> p, p.template, p.params["level"]
('Ann goes up to Level 3', '{name} goes up to Level {level}', 3)
>>> plural_phrase("{n} level", "{n} levels", 2, n=2)
'2 levels'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


class Phrase(str):
    """An English sentence with the template and values it was made from.

    `plural` and `number` are set for a sentence with singular and plural forms
    (made by `plural_phrase`); the translation then picks the form for `number`. (Not
    `count`: a Phrase is a `str`, and `str.count` must keep working on it.)

    >>> cards = plural_phrase("{n} card", "{n} cards", 3, n=3)
    >>> cards, cards.number, cards.count("c")
    ('3 cards', 3, 1)
    """

    template: str
    plural: str | None
    number: int | None
    params: dict[str, Any]

    def __new__(cls, template: str, /, **params: Any) -> Phrase:
        return cls._make(template, None, None, params)

    @classmethod
    def _make(
        cls, template: str, plural: str | None, count: int | None, params: dict[str, Any]
    ) -> Phrase:
        chosen = template if plural is None or count == 1 else plural
        phrase = str.__new__(cls, chosen.format(**params))
        phrase.template = template
        phrase.plural = plural
        phrase.number = count
        phrase.params = params
        return phrase

    def spoken(
        self,
        gettext: Callable[[str], str],
        ngettext: Callable[[str, str, int], str],
        value: Callable[[str, object], object] | None = None,
    ) -> str:
        """The sentence in a language, given that language's gettext functions.

        The template is translated and the values filled in; values that are Phrases
        are spoken too, and `value(key, value)` (when given) says any other value in
        that language (a card's name, say). A translation that breaks the template
        gives the English.

        >>> german = {"{name} goes up": "{name} steigt auf", "a level": "eine Stufe"}.get
        >>> Phrase("{name} goes up", name="Ann").spoken(lambda t: german(t, t), None)
        'Ann steigt auf'
        >>> Phrase("{name} breaks it", name="Ann").spoken(lambda t: "{nom}", None)
        'Ann breaks it'
        """
        if self.plural is not None and self.number is not None:
            template = ngettext(self.template, self.plural, self.number)
        else:
            template = gettext(self.template)
        values = {
            key: (
                item.spoken(gettext, ngettext, value)
                if isinstance(item, Phrase)
                else value(key, item)
                if value is not None
                else item
            )
            for key, item in self.params.items()
        }
        try:
            return template.format(**values)
        except (KeyError, IndexError, ValueError):
            return str(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Copies and pickles keep the template, not only the English text.
        return (_rebuild, (self.template, self.plural, self.number, self.params))


def _rebuild(
    template: str, plural: str | None, count: int | None, params: dict[str, Any]
) -> Phrase:
    return Phrase._make(template, plural, count, params)


def plural_phrase(singular: str, plural: str, count: int, /, **params: Any) -> Phrase:
    """A Phrase with a singular and a plural template; `count` chooses between them.

    >>> plural_phrase("{n} card", "{n} cards", 1, n=1)
    '1 card'
    """
    return Phrase._make(singular, plural, count, params)


def phrase_template(template: str) -> str:
    """Marks a template kept in a constant so the translation tools find it (returns it)."""
    return template


def joined(names: Iterable[str], word: str = "and") -> str:
    """Names joined with "and" (or "or"): "A and B and C", as a Phrase the app can translate.

    >>> joined(["Ann", "Bo", "Cy"])
    'Ann and Bo and Cy'
    >>> joined(["Ann"])
    'Ann'
    """
    items = list(names)
    if not items:
        return ""
    text: str = items[0]
    for name in items[1:]:
        if word == "or":
            text = Phrase("{first} or {second}", first=text, second=name)
        else:
            text = Phrase("{first} and {second}", first=text, second=name)
    return text
