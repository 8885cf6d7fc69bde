"""Name search for live typing: prefix matches first, then typo-tolerant (fuzzy) matches.

Pure Python so it runs unchanged on Android. Prefixes are found by bisecting a
sorted list of every word-start of every name; fuzzy candidates come from a
trigram index and are ranked by edit distance, so a query never scans all names.

A card may be indexed under several names (its English name and its name in the
table's language), and a word may be typed from inside a name: German and Dutch
join words into one ("Knochendrachenküken" holds "drachen"), so every place inside
a word is searched too, ranked below the starts of words.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

FUZZY_CANDIDATES = 20  # edit distance is computed for this many trigram-best names only
FUZZY_MIN_LENGTH = 4  # "wiz" one typo away from "wit" is noise, not help
PREFIX_SCORE = 1.0
WORD_PREFIX_SCORE = 0.9
WORDS_PREFIX_SCORE = 0.88  # "gob acc" -> "Goblin Accountant": each word a word's start
INSIDE_SCORE = 0.86  # "drache" -> "Knochendrachenküken": typed from inside a word
INSIDE_MIN_LENGTH = 3  # "ch" is inside half the names: no help
INSIDE_WORD_LENGTH = 7  # words joined into one are long; inside a short word is mostly noise
FUZZY_MAX_SCORE = 0.85  # any prefix match ranks above any fuzzy one
FUZZY_INSIDE_MIN_LENGTH = 5  # a typo inside a word is looked for from this length on
FUZZY_INSIDE_FACTOR = 0.95  # a near match inside a word ranks below one at a word's start


def normalize(text: str) -> str:
    """Lowercase, accents removed, punctuation as spaces: 'Él-Fo's Hat' -> 'el fo s hat'."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return " ".join("".join(ch if ch.isalnum() else " " for ch in plain).split())


def _trigrams(words: Iterable[str]) -> set[str]:
    grams: set[str] = set()
    for word in words:
        padded = f" {word} "
        grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return grams


class PrefixMatcher:
    """One query, ready to be compared with many names: `distance(text, budget)`.

    Bit-parallel (Myers' algorithm with Hyyrö's transposition step): one column of
    the edit-distance table per letter of the name, as a few integer operations on
    bit masks of the query's letters, instead of one Python step per table cell.
    """

    __slots__ = ("_high", "_length", "_mask", "_positions")

    def __init__(self, query: str) -> None:
        positions: dict[str, int] = {}
        for place, char in enumerate(query):
            positions[char] = positions.get(char, 0) | (1 << place)
        self._positions = positions
        self._length = len(query)
        self._mask = (1 << len(query)) - 1
        self._high = 1 << (len(query) - 1) if query else 0

    def distance(self, text: str, budget: int, anywhere: bool = False) -> int:
        """Fewest edits turning the query into some prefix of `text`, or budget + 1 if more.

        With `anywhere`, into some part of `text` starting at any place in it.
        """
        over = budget + 1
        length = self._length
        if not length:
            return 0
        mask, high, positions = self._mask, self._high, self._positions
        # The top row of the table costs a step per letter skipped at the start, or
        # nothing when the match may start anywhere.
        start = 0 if anywhere else 1
        # Column j holds, bit by bit, how the distance grows down the query against
        # text[:j]; `score` is the bottom cell: the distance to the prefix text[:j].
        up, down, diagonal, before = mask, 0, 0, 0
        score = best = length
        for char in text if anywhere else text[: length + budget]:
            here = positions.get(char, 0)
            swapped = ((~diagonal & here) << 1) & before
            diagonal = ((((here & up) + up) ^ up) | here | down | swapped) & mask
            right = down | (~(diagonal | up) & mask)
            left = diagonal & up
            if right & high:
                score += 1
            elif left & high:
                score -= 1
                if score < best:
                    best = score
            right = ((right << 1) | start) & mask
            left = (left << 1) & mask
            up = left | (~(diagonal | right) & mask)
            down = right & diagonal
            before = here
        return best if best <= budget else over


def prefix_distance(query: str, text: str, budget: int) -> int:
    """Fewest edits turning `query` into some prefix of `text`, or budget + 1 if more.

    Edits are insert, delete, substitute, and swapping two neighbours, each
    counting one.

    >>> prefix_distance("dargon", "dragon hatchling", 2)
    1
    >>> prefix_distance("drag", "dragon hatchling", 2)
    0
    >>> prefix_distance("xyzzy", "dragon", 2)
    3
    """
    return PrefixMatcher(query).distance(text, budget)


def inside_distance(query: str, text: str, budget: int) -> int:
    """Fewest edits turning `query` into some part of `text`, or budget + 1 if more.

    >>> inside_distance("drahce", "knochendrachenkuken", 2)
    1
    >>> inside_distance("drache", "knochendrachenkuken", 0)
    0
    """
    return PrefixMatcher(query).distance(text, budget, anywhere=True)


def _words_in_order(query_words: list[str], words: list[str]) -> bool:
    """Each query word starts a later word of the name than the one before it."""
    position = 0
    for query_word in query_words:
        while position < len(words) and not words[position].startswith(query_word):
            position += 1
        if position == len(words):
            return False
        position += 1
    return True


@dataclass(frozen=True)
class Hit:
    """One search result: the key given to the index, and how well it matched (0..1)."""

    key: str
    score: float


def allowed_typos(length: int) -> int:
    """How many edits a fuzzy match may need: longer queries may hold more typos.

    >>> [allowed_typos(n) for n in (3, 4, 6, 7, 10, 11, 20)]
    [0, 1, 1, 2, 2, 3, 3]
    """
    if length < FUZZY_MIN_LENGTH:
        return 0
    return 1 if length <= 6 else 2 if length <= 10 else 3


class NameIndex:
    """An index of (key, name) pairs answering `search(text)` in well under a millisecond.

    A key may come with several names (a card's name in two languages): it is found by
    any of them, and listed once, by its best match.
    """

    def __init__(self, entries: Iterable[tuple[str, str]]) -> None:
        self._keys: list[str] = []
        self._names: list[str] = []
        self._words: list[list[str]] = []
        starts: list[tuple[str, int]] = []
        insides: list[tuple[str, int]] = []
        postings: dict[str, list[int]] = {}
        for key, name in entries:
            index = len(self._keys)
            norm = normalize(name)
            words = norm.split()
            self._keys.append(key)
            self._names.append(norm)
            self._words.append(words)
            offset = 0
            for word in words:
                # Every later word-start of the name: "big angry duck" -> "angry duck", "duck".
                if offset:
                    starts.append((norm[offset:], index))
                # Every place inside a long word with a few letters left in it, to the
                # word's end: "knochendrachen" -> "nochendrachen", ..., "drachen", ..., "hen".
                if len(word) >= INSIDE_WORD_LENGTH:
                    for inside in range(1, len(word) - INSIDE_MIN_LENGTH + 1):
                        insides.append((word[inside:], index))
                offset += len(word) + 1
            for gram in _trigrams(words):
                postings.setdefault(gram, []).append(index)
        full = sorted((name, index) for index, name in enumerate(self._names))
        self._full = [name for name, _ in full]
        self._full_owner = [index for _, index in full]
        starts.sort()
        self._inner = [text for text, _ in starts]
        self._inner_owner = [index for _, index in starts]
        insides.sort()
        self._inside = [text for text, _ in insides]
        self._inside_owner = [index for _, index in insides]
        self._postings = postings

    def __len__(self) -> int:
        return len(self._keys)

    def search(self, text: str, limit: int = 10) -> list[Hit]:
        """Best matches for what the user typed so far, best first, at most `limit`."""
        query = normalize(text)
        if not query or limit <= 0:
            return []
        scores: dict[int, float] = {}
        self._prefix(query, scores, limit)
        if len(self._distinct(scores)) < limit and len(query) >= INSIDE_MIN_LENGTH:
            self._inside_words(query, scores, limit)
        if len(self._distinct(scores)) < limit and len(query) >= FUZZY_MIN_LENGTH:
            self._fuzzy(query, scores)
        ranked = sorted(
            scores.items(),
            key=lambda item: (-item[1], len(self._names[item[0]]), self._names[item[0]]),
        )
        hits: list[Hit] = []
        listed: set[str] = set()
        for index, score in ranked:
            key = self._keys[index]
            if key in listed:
                continue  # the same card by its other name, matched less well
            listed.add(key)
            hits.append(Hit(key, round(score, 3)))
            if len(hits) == limit:
                break
        return hits

    def _distinct(self, scores: dict[int, float]) -> set[str]:
        return {self._keys[index] for index in scores}

    @staticmethod
    def _starting_with(texts: list[str], owners: list[int], text: str) -> Iterator[int]:
        # Sorted order, so the first matches are the alphabetically first names.
        position = bisect_left(texts, text)
        while position < len(texts) and texts[position].startswith(text):
            yield owners[position]
            position += 1

    def _prefix(self, query: str, scores: dict[int, float], limit: int) -> None:
        # Only `limit` cards are shown; stop collecting once each kind of match has that
        # many (a card found by both its names counts once).
        self._collect(
            self._starting_with(self._full, self._full_owner, query), scores, limit, PREFIX_SCORE
        )
        self._collect(
            self._starting_with(self._inner, self._inner_owner, query),
            scores,
            limit,
            WORD_PREFIX_SCORE,
        )
        query_words = query.split()
        if len(query_words) < 2 or len(self._distinct(scores)) >= limit:
            return
        for texts, owners in ((self._full, self._full_owner), (self._inner, self._inner_owner)):
            matching = (
                index
                for index in self._starting_with(texts, owners, query_words[0])
                if _words_in_order(query_words, self._words[index])
            )
            self._collect(matching, scores, limit, WORDS_PREFIX_SCORE)

    def _inside_words(self, query: str, scores: dict[int, float], limit: int) -> None:
        # A word typed from inside a word of the name: "drache" -> "Knochendrachenküken".
        found = self._starting_with(self._inside, self._inside_owner, query)
        self._collect(found, scores, limit, INSIDE_SCORE)

    def _collect(
        self, found: Iterable[int], scores: dict[int, float], limit: int, score: float
    ) -> None:
        """Score the names found that have no score yet, until `limit` more cards have one."""
        keys: set[str] = set()
        for index in found:
            if len(keys) >= limit:
                return
            if index not in scores:
                scores[index] = score
                keys.add(self._keys[index])

    def _fuzzy(self, query: str, scores: dict[int, float]) -> None:
        grams = _trigrams(query.split())
        counts: Counter[int] = Counter()
        for gram in grams:
            posting = self._postings.get(gram)
            if posting:
                counts.update(posting)
        budget = allowed_typos(len(query))
        matcher = PrefixMatcher(query)
        for index, _ in counts.most_common(FUZZY_CANDIDATES):
            if index in scores:
                continue
            name = self._names[index]
            fewest = budget + 1
            offset = 0
            # Compare with the name from each word's start on, as far as the query
            # reaches: the user may be typing any word of it, and may not be done.
            # Each later try only needs to beat the best so far, and a tail shorter
            # than the query less the budget cannot match at all (later ones are shorter).
            for word in self._words[index]:
                if len(name) - offset < len(query) - (fewest - 1):
                    break
                fewest = min(fewest, matcher.distance(name[offset:], fewest - 1))
                if fewest == 0:
                    break
                offset += len(word) + 1
            factor = 1.0
            if fewest > budget and len(query) >= FUZZY_INSIDE_MIN_LENGTH:
                # Not near any word's start: perhaps near a part of a long, joined word.
                for word in self._words[index]:
                    if len(word) >= INSIDE_WORD_LENGTH and len(word) > len(query) - budget:
                        fewest = min(fewest, matcher.distance(word, budget, anywhere=True))
                factor = FUZZY_INSIDE_FACTOR
            if fewest <= budget:
                scores[index] = (1.0 - fewest / len(query)) * FUZZY_MAX_SCORE * factor
