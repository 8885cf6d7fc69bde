"""The rules for the people a table plays with, kept across games: who a name means, what
a person may be renamed to, and when two entries may be merged into one person. Pure:
the store keeps the people and asks these rules before it changes them.

A person's name is a player's name (`companion.core.names`): made normal, never blank,
and never one that looks like another person's, or a New game could not tell them
apart. Two entries are one person only if they never sat at the same game.
"""

from __future__ import annotations

from collections.abc import Iterable

from companion.core.errors import RuleError
from companion.core.names import normal_name, same_looking
from companion.core.phrase import Phrase
from companion.core.statistics import player_key

# The longest name a seat takes (`PlayerSetup.name`).
PERSON_NAME_MAX = 40


def person_key(name: str) -> str:
    """How a typed name finds a person: as statistics put games together, whatever its
    case and spacing.

    >>> person_key("  ann  LEE ") == person_key("Ann Lee")
    True
    """
    return player_key(name)


def new_person_name(text: str, others: Iterable[str]) -> str:
    """`text` as a person's new name (made normal), or RuleError: blank, too long, or
    looking like the name of one of `others` (everyone else who played here).

    >>> new_person_name(" Anna ", ["Bo"])
    'Anna'
    >>> new_person_name("bo", ["Bo"])
    Traceback (most recent call last):
    ...
    companion.core.errors.RuleError: “bo” looks like “Bo”, who has played here: merge them instead
    """
    name = normal_name(text)
    if len(name) > PERSON_NAME_MAX:
        raise RuleError(
            "name_long",
            Phrase("A player's name can be at most {n} characters long", n=PERSON_NAME_MAX),
        )
    for other in others:
        if same_looking(name, other):
            raise RuleError(
                "person_lookalike",
                Phrase(
                    "“{name}” looks like “{other}”, who has played here: merge them instead",
                    name=name,
                    other=other,
                ),
            )
    return name


def unknown_person(name: str) -> RuleError:
    """The error for a name that is nobody who played here."""
    if not name.strip():
        return RuleError("name_blank", Phrase("A player's name cannot be blank or invisible"))
    return RuleError("person_unknown", Phrase("Nobody called “{name}” has played here", name=name))


def check_merge(first: str, second: str, *, same: bool, played_together: bool) -> None:
    """Whether the entries `first` and `second` may become one person: not one entry
    named twice, and never two people who sat at the same game (RuleError otherwise).

    >>> check_merge("Ann", "Anne", same=False, played_together=False)
    >>> check_merge("Ann", "Bo", same=False, played_together=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    companion.core.errors.RuleError: “Ann” and “Bo” played in the same game, so they are ...
    """
    if same:
        raise RuleError(
            "person_merge_self",
            Phrase("“{name}” and “{other}” are the same entry already", name=first, other=second),
        )
    if played_together:
        raise RuleError(
            "person_played_together",
            Phrase(
                "“{first}” and “{second}” played in the same game, so they are two people",
                first=first,
                second=second,
            ),
        )
