"""Card packs: the schema of pack and edition files, loading and validating them, name search.

Typical use::

    from companion.cards import load_database
    cards = load_database()            # built-in packs + the user's packs
    cards.search("gobl")               # -> [Monster(...), ...]
    spec = cards.monster("gen-goblin-accountant").to_spec()   # companion.core input
"""

from companion.cards.database import CardDatabase, UnknownCardError, load_database
from companion.cards.loading import (
    LoadedPack,
    LoadResult,
    builtin_cards_dir,
    load_all,
    load_edition,
    load_editions,
    read_edition,
    read_editions,
    read_pack,
    user_packs_dir,
)
from companion.cards.problems import PackError, Problem
from companion.cards.schema import (
    CARD_TYPES,
    Ally,
    BadStuff,
    Card,
    ClassCard,
    Curse,
    EditionFile,
    Enhancer,
    Grant,
    Item,
    Monster,
    MonsterModifier,
    Motivation,
    Pack,
    PackInfo,
    Race,
    Role,
    Style,
)
from companion.cards.search import NameIndex, normalize
from companion.plumbing.places import DATA_DIR_ENV, user_data_dir

__all__ = [
    "CARD_TYPES",
    "DATA_DIR_ENV",
    "Ally",
    "BadStuff",
    "Card",
    "CardDatabase",
    "ClassCard",
    "Curse",
    "EditionFile",
    "Enhancer",
    "Grant",
    "Item",
    "LoadResult",
    "LoadedPack",
    "Monster",
    "MonsterModifier",
    "Motivation",
    "NameIndex",
    "Pack",
    "PackError",
    "PackInfo",
    "Problem",
    "Race",
    "Role",
    "Style",
    "UnknownCardError",
    "builtin_cards_dir",
    "load_all",
    "load_database",
    "load_edition",
    "load_editions",
    "normalize",
    "read_edition",
    "read_editions",
    "read_pack",
    "user_data_dir",
    "user_packs_dir",
]
