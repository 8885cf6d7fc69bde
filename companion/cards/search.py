"""Name search for live typing: prefix matches first, then typo-tolerant (fuzzy) matches.

Pure Python so it runs unchanged on Android. Prefixes are found by bisecting a
sorted list of every word-start of every name; fuzzy candidates come from a
trigram index and are ranked by edit distance, so a query never scans all names.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

FUZZY_CANDIDATES = 20  # edit distance is computed for this many trigram-best names only
FUZZY_MIN_LENGTH = 4  # "wiz" one typo away from "wit" is noise, not help
PREFIX_SCORE = 1.0
WORD_PREFIX_SCORE = 0.9
WORDS_PREFIX_SCORE = 0.88  # "gob acc" -> "Goblin Accountant": each word a word's start
FUZZY_MAX_SCORE = 0.85  # any prefix match ranks above any fuzzy one


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

    def distance(self, text: str, budget: int) -> int:
        """Fewest edits turning the query into some prefix of `text`, or budget + 1 if more."""
        over = budget + 1
        length = self._length
        if not length:
            return 0
        mask, high, positions = self._mask, self._high, self._positions
        # Column j holds, bit by bit, how the distance grows down the query against
        # text[:j]; `score` is the bottom cell: the distance to the prefix text[:j].
        up, down, diagonal, before = mask, 0, 0, 0
        score = best = length
        for char in text[: length + budget]:
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
            right = ((right << 1) | 1) & mask
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
    """An index of (key, name) pairs answering `search(text)` in well under a millisecond."""

    def __init__(self, entries: Iterable[tuple[str, str]]) -> None:
        self._keys: list[str] = []
        self._names: list[str] = []
        self._words: list[list[str]] = []
        starts: list[tuple[str, int]] = []
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
                offset += len(word) + 1
            for gram in _trigrams(words):
                postings.setdefault(gram, []).append(index)
        full = sorted((name, index) for index, name in enumerate(self._names))
        self._full = [name for name, _ in full]
        self._full_owner = [index for _, index in full]
        starts.sort()
        self._inner = [text for text, _ in starts]
        self._inner_owner = [index for _, index in starts]
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
        if len(scores) < limit and len(query) >= FUZZY_MIN_LENGTH:
            self._fuzzy(query, scores)
        ranked = sorted(
            scores.items(),
            key=lambda item: (-item[1], len(self._names[item[0]]), self._names[item[0]]),
        )
        return [Hit(self._keys[i], round(score, 3)) for i, score in ranked[:limit]]

    @staticmethod
    def _starting_with(texts: list[str], owners: list[int], text: str) -> Iterator[int]:
        # Sorted order, so the first matches are the alphabetically first names.
        position = bisect_left(texts, text)
        while position < len(texts) and texts[position].startswith(text):
            yield owners[position]
            position += 1

    def _prefix(self, query: str, scores: dict[int, float], limit: int) -> None:
        # Only `limit` results are shown; stop collecting once each kind of match has that many.
        for index in islice(self._starting_with(self._full, self._full_owner, query), limit):
            scores[index] = PREFIX_SCORE
        found = 0
        for index in self._starting_with(self._inner, self._inner_owner, query):
            if found >= limit:
                break
            if index not in scores:
                scores[index] = WORD_PREFIX_SCORE
                found += 1
        query_words = query.split()
        if len(query_words) < 2 or len(scores) >= limit:
            return
        found = 0
        for texts, owners in ((self._full, self._full_owner), (self._inner, self._inner_owner)):
            for index in self._starting_with(texts, owners, query_words[0]):
                if found >= limit:
                    return
                if index not in scores and _words_in_order(query_words, self._words[index]):
                    scores[index] = WORDS_PREFIX_SCORE
                    found += 1

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
            if fewest <= budget:
                scores[index] = (1.0 - fewest / len(query)) * FUZZY_MAX_SCORE
