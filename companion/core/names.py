"""The one rule for a name that enters the game log (a player, a monster, a die).

Control characters, and the marks that reorder text around them (a name that flips
"Anna" and the next words on screen), have no place in a name shown to the table,
and a name must fit the log's field. A name a person types is refused when it breaks
the rule (`PlayerSetup`); a name that comes from elsewhere (a card, a die's own
report of itself, an old log) is made to keep it with `log_name`.
"""

from __future__ import annotations

import re

UNSAFE_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
ELLIPSIS = "\u2026"
NAME_MAX = 80  # characters of a monster's, an item's or a die's name in the log (a card's too)


def log_name(text: str, limit: int) -> str:
    """`text` as a name the log can hold: unsafe characters left out, runs of spaces made
    one, and cut to at most `limit` characters (an ellipsis marks the cut).

    >>> log_name("Ruby\\u202e (evil)", 80)
    'Ruby (evil)'
    >>> log_name("A very long name", 10)
    'A very lo…'
    """
    kept = " ".join(UNSAFE_IN_NAME.sub("", text).split())
    if len(kept) <= limit:
        return kept
    return kept[: max(0, limit - 1)].rstrip() + ELLIPSIS
