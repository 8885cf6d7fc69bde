"""The loaded cards of a table: look-up by id, by kind, and name search."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TypeVar

from companion.cards.loading import LoadedPack, LoadResult, load_all
from companion.cards.problems import PackError, Problem
from companion.cards.schema import Card, EditionFile, Enhancer, Item, Monster, Pack, PackInfo
from companion.cards.search import NameIndex
from companion.plumbing.errors import CompanionError
from companion.plumbing.places import LOCALE_DIR

C = TypeVar("C", bound=Card)

# The translation catalogue of the shipped cards' names (companion/locale/<lang>/LC_MESSAGES/
# cards.mo, made by `./tasks i18n`); the app shows the names from it (companion.ui.i18n).
CARDS_DOMAIN = "cards"
SOURCE_LANGUAGE = "en"


@cache
def _catalogue(language: str) -> gettext.NullTranslations:
    return gettext.translation(
        CARDS_DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True
    )


def translated_name(name: str, language: str) -> str:
    """A shipped card's name in `language` ("de", "pt_BR"...); any other name as it is.

    >>> translated_name("Bone Dragon Hatchling", "de")
    'Knochendrachenküken'
    >>> translated_name("My Own Kettle", "de"), translated_name("Wizard", "en")
    ('My Own Kettle', 'Wizard')
    """
    if not name or language == SOURCE_LANGUAGE:
        return name
    return _catalogue(language).gettext(name)


def _english() -> str:
    return SOURCE_LANGUAGE


class UnknownCardError(CompanionError, KeyError, ValueError):
    """No loaded card has this id (or the card is of another kind than asked for)."""

    def __init__(self, card_id: str, message: str | None = None) -> None:
        super().__init__(card_id)
        self.card_id = card_id
        self.message = message or f"no card has the id {card_id!r}"

    def __str__(self) -> str:
        return self.message


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


class CardDatabase:
    """Every card of the loaded packs, with the file each came from."""

    def __init__(
        self,
        packs: Sequence[LoadedPack] = (),
        editions: dict[str, EditionFile] | None = None,
        problems: Sequence[Problem] = (),
    ) -> None:
        self.packs: tuple[LoadedPack, ...] = tuple(packs)
        self.editions: dict[str, EditionFile] = dict(editions or {})
        self.problems: tuple[Problem, ...] = tuple(problems)
        self._cards: dict[str, Card] = {}
        self._source: dict[str, LoadedPack] = {}
        for loaded in self.packs:
            for card in loaded.pack.cards():
                if card.id in self._cards:
                    raise PackError(
                        [Problem(loaded.path, f"id {card.id!r} is used twice", field="id")]
                    )
                self._cards[card.id] = card
                self._source[card.id] = loaded
        # Name indexes by kind (None: every kind) and language, each built on first use.
        self._indexes: dict[tuple[str | None, str], NameIndex] = {}
        self._search_index(None, SOURCE_LANGUAGE)  # at once, as loading the packs did always
        # The language the table reads the cards in (asked at each search): searches find
        # a card by its name in that language as well as by its English name.
        self.language: Callable[[], str] = _english

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> CardDatabase:
        """A database of loose cards (tests, benchmarks, generated content)."""
        by_kind: dict[str, list[Card]] = {}
        for card in cards:
            by_kind.setdefault("class_" if card.kind == "class" else card.kind, []).append(card)
        pack = Pack(pack=PackInfo(id="loose", name="Loose cards"), **by_kind)
        return cls([LoadedPack(pack=pack, path=Path("<memory>"))])

    def __len__(self) -> int:
        return len(self._cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self._cards.values())

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._cards

    def get(self, card_id: str) -> Card:
        """The card with this id; raises UnknownCardError."""
        try:
            return self._cards[card_id]
        except KeyError:
            raise UnknownCardError(card_id) from None

    def source(self, card_id: str) -> LoadedPack:
        """The pack (and file) the card came from."""
        self.get(card_id)
        return self._source[card_id]

    def of_type(self, card_type: type[C]) -> list[C]:
        """All cards of one model, e.g. `db.of_type(Monster)`, in file order."""
        return [card for card in self._cards.values() if type(card) is card_type]

    def monster(self, card_id: str) -> Monster:
        """The monster with this id; raises UnknownCardError if it is not a monster."""
        return self._typed(card_id, Monster)

    def enhancer(self, card_id: str) -> Enhancer:
        """The monster enhancer with this id."""
        return self._typed(card_id, Enhancer)

    def item(self, card_id: str) -> Item:
        """The item with this id."""
        return self._typed(card_id, Item)

    def _typed(self, card_id: str, card_type: type[C]) -> C:
        card = self.get(card_id)
        if not isinstance(card, card_type):
            raise UnknownCardError(
                card_id, f"card {card_id!r} is {_a(card.kind)}, not {_a(card_type.kind)}"
            )
        return card

    def follow_language(self, language: Callable[[], str]) -> None:
        """Search in the language `language()` says at each search (the app's own)."""
        self.language = language

    def prepare_search(self, kinds: Iterable[str] = (), language: str | None = None) -> None:
        """Build the name indexes of `kinds` now, for `language` (by default the table's);
        each is otherwise built by its first search."""
        for kind in kinds:
            self._search_index(kind, language or self.language())

    def _search_index(self, kind: str | None, language: str) -> NameIndex:
        index = self._indexes.get((kind, language))
        if index is None:
            index = NameIndex(self._names(kind, language))
            self._indexes[kind, language] = index
        return index

    def _names(self, kind: str | None, language: str) -> Iterator[tuple[str, str]]:
        for card in self._cards.values():
            if kind is not None and card.kind != kind:
                continue
            yield card.id, card.name
            shown = translated_name(card.name, language)
            if shown != card.name:
                yield card.id, shown

    def search(
        self, text: str, *, kind: str | None = None, limit: int = 10, language: str | None = None
    ) -> list[Card]:
        """Cards whose name starts with, contains a word starting with, holds, or nearly is
        `text`, by the name the table reads (in `language`, by default the table's) or by
        the English name.

        `kind` limits the search to one kind ("monster", "item", ...).
        """
        index = self._search_index(kind, language or self.language())
        return [self._cards[hit.key] for hit in index.search(text, limit)]


def load_database(
    *, user: bool = True, extra: Sequence[Path] = (), strict: bool = True
) -> CardDatabase:
    """The built-in packs plus the user's packs (and `extra` files), ready to use.

    strict=True raises PackError on any problem. strict=False leaves the files
    with problems out and keeps the problems in `database.problems`, so the app
    can start and show them.
    """
    result: LoadResult = load_all(user=user, extra=extra)
    if strict and result.problems:
        raise PackError(result.problems)
    return CardDatabase(result.packs, result.editions, result.problems)
