"""Words for the editions, shared by several screens.

The words of a game (phases, the turn, the fight, sexes and traits) are the table
link's too: they are in `companion.table.words`.
"""

from __future__ import annotations

from companion.core import Edition
from companion.ui.i18n import card_name

# The built-in editions by the names their boxes carry (product names: not translated).
# The app's own names for them ("Classic fantasy", ...) describe the setting instead.
EDITION_TITLES = {
    "classic": "Munchkin",
    "fu": "Munchkin Fu",
    "oz": "Munchkin Oz",
    "adventure_time": "Munchkin Adventure Time",
    "disney": "Munchkin Disney",
}


def edition_title(edition: Edition) -> str:
    """An edition by the name a player knows it by: its box's, or (an edition from a card
    pack) its own name in the player's language."""
    return EDITION_TITLES.get(edition.id, card_name(edition.name))


def edition_detail(edition: Edition) -> str:
    """A line that tells editions apart: the setting and its classes."""
    classes = ", ".join(card_name(name) for name in edition.classes)
    return f"{card_name(edition.name)} \u00b7 {classes}" if classes else card_name(edition.name)
