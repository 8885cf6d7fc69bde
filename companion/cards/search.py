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

FUZZY_CANDIDATES = 40  # edit distance is computed for this many trigram-best names only
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


def osa_distance(a: str, b: str) -> int:
    """Edit distance counting insert, delete, substitute and swapping neighbours as one.

    >>> osa_distance("dragon", "dargon")
    1
    """
    if a == b:
        return 0
    if not a or not b:
        return len(a) or len(b)
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, before[j - 2] + 1)
            current[j] = best
        before, previous = previous, current
    return previous[-1]


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
                # Every word-start of the name, e.g. "big angry duck", "angry duck", "duck".
                starts.append((norm[offset:], index))
                offset += len(word) + 1
            for gram in _trigrams(words):
                postings.setdefault(gram, []).append(index)
        starts.sort()
        self._starts = starts
        self._start_texts = [text for text, _ in starts]
        self._postings = postings

    def __len__(self) -> int:
        return len(self._keys)

    def search(self, text: str, limit: int = 10) -> list[Hit]:
        """Best matches for what the user typed so far, best first, at most `limit`."""
        query = normalize(text)
        if not query or limit <= 0:
            return []
        scores: dict[int, float] = {}
        self._prefix(query, scores)
        if len(scores) < limit and len(query) >= FUZZY_MIN_LENGTH:
            self._fuzzy(query, scores)
        ranked = sorted(
            scores.items(),
            key=lambda item: (-item[1], len(self._names[item[0]]), self._names[item[0]]),
        )
        return [Hit(self._keys[i], round(score, 3)) for i, score in ranked[:limit]]

    def _starting_with(self, text: str) -> Iterator[int]:
        position = bisect_left(self._start_texts, text)
        texts, starts = self._start_texts, self._starts
        while position < len(texts) and texts[position].startswith(text):
            yield starts[position][1]
            position += 1

    def _prefix(self, query: str, scores: dict[int, float]) -> None:
        for index in self._starting_with(query):
            score = PREFIX_SCORE if self._names[index].startswith(query) else WORD_PREFIX_SCORE
            if scores.get(index, 0.0) < score:
                scores[index] = score
        query_words = query.split()
        if len(query_words) < 2:
            return
        for index in set(self._starting_with(query_words[0])):
            if index not in scores and _words_in_order(query_words, self._words[index]):
                scores[index] = WORDS_PREFIX_SCORE

    def _fuzzy(self, query: str, scores: dict[int, float]) -> None:
        query_words = query.split()
        grams = _trigrams(query_words)
        counts: Counter[int] = Counter()
        for gram in grams:
            posting = self._postings.get(gram)
            if posting:
                counts.update(posting)
        width = len(query_words)
        budget = allowed_typos(len(query))
        for index, _ in counts.most_common(FUZZY_CANDIDATES):
            if index in scores:
                continue
            words = self._words[index]
            fewest = budget + 1
            # Compare with every run of as many words as the query has, and with
            # the same run cut to the query's length (the user may still be typing).
            for start in range(max(1, len(words) - width + 1)):
                window = " ".join(words[start : start + width])
                for candidate in (window, window[: len(query)]):
                    fewest = min(fewest, osa_distance(query, candidate))
            if fewest <= budget:
                scores[index] = (1.0 - fewest / len(query)) * FUZZY_MAX_SCORE
