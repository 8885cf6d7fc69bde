"""Card name search speed over generated cards, beside a naive linear difflib scan.

    .venv/bin/python benchmarks/card_search.py [--cards 5000] [--queries 300] [--seed 1]

Queries imitate live typing (every prefix of a name, letter by letter) and
typos (a letter dropped, swapped, replaced). Both searches answer the same
queries in the same run; the figures are milliseconds per query.
"""

from __future__ import annotations

import argparse
import difflib
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from companion.cards import CardDatabase, Monster, normalize

TARGET_MS = 5.0
LIMIT = 10

_ADJECTIVES = [
    "angry",
    "ancient",
    "bashful",
    "bloated",
    "cranky",
    "damp",
    "dizzy",
    "eldritch",
    "fluffy",
    "furious",
    "gloomy",
    "greasy",
    "grumpy",
    "haunted",
    "hungry",
    "itchy",
    "jolly",
    "lanky",
    "lumpy",
    "moody",
    "mouldy",
    "nervous",
    "nosy",
    "overdue",
    "petty",
    "pompous",
    "prickly",
    "queasy",
    "rowdy",
    "rusty",
    "sarcastic",
    "shifty",
    "sleepy",
    "smelly",
    "soggy",
    "spooky",
    "squeaky",
    "sticky",
    "surly",
    "tangled",
    "tipsy",
    "toothy",
    "unwashed",
    "vain",
    "wobbly",
    "yawning",
    "zealous",
]
_NOUNS = [
    "accordion",
    "badger",
    "banshee",
    "basilisk",
    "beetle",
    "bishop",
    "blob",
    "cabbage",
    "cactus",
    "chimera",
    "cobbler",
    "cyclops",
    "dentist",
    "djinn",
    "dragon",
    "duck",
    "eel",
    "ferret",
    "gargoyle",
    "ghost",
    "ghoul",
    "gnoll",
    "goblin",
    "golem",
    "goose",
    "gremlin",
    "griffin",
    "hag",
    "harpy",
    "imp",
    "jellyfish",
    "kobold",
    "lich",
    "llama",
    "mimic",
    "minotaur",
    "moth",
    "mummy",
    "newt",
    "ogre",
    "oyster",
    "penguin",
    "phantom",
    "pixie",
    "poltergeist",
    "raccoon",
    "sofa",
    "spectre",
    "sphinx",
    "squid",
    "toad",
    "troll",
    "vampire",
    "walrus",
    "wasp",
    "weasel",
    "werewolf",
    "wight",
    "wizard",
    "wraith",
    "yeti",
    "zombie",
]
_ENDINGS = [
    "of Doom",
    "of the Deep",
    "of Mondays",
    "of the Swamp",
    "of Regret",
    "from Accounting",
    "of the Attic",
    "with a Grudge",
    "in a Hat",
    "of Many Teeth",
    "of the North",
    "of Small Print",
    "on Wheels",
]


def generated_names(count: int, seed: int) -> list[str]:
    """`count` distinct monster-like names, the same for the same seed."""
    rng = random.Random(seed)
    endings = ["", "", ""] + [" " + ending for ending in _ENDINGS]
    names: set[str] = set()
    while len(names) < count:
        words = [rng.choice(_ADJECTIVES), rng.choice(_NOUNS)]
        if rng.random() < 0.4:
            words.insert(0, rng.choice(_ADJECTIVES))
        name = " ".join(words).title() + rng.choice(endings)
        if rng.random() < 0.3:
            name += f" {rng.randint(2, 99)}"
        names.add(name)
    return sorted(names)


def typo(word: str, rng: random.Random) -> str:
    """One typing slip: a letter dropped, two neighbours swapped, or one replaced."""
    if len(word) < 5:
        return word
    at = rng.randrange(1, len(word) - 2)
    slip = rng.choice(("drop", "swap", "replace"))
    if slip == "drop":
        return word[:at] + word[at + 1 :]
    if slip == "swap":
        return word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    return word[:at] + rng.choice("aeioustr") + word[at + 1 :]


@dataclass(frozen=True)
class Query:
    text: str
    wanted: str
    kind: str  # "typing" or "typo"


def make_queries(names: Sequence[str], count: int, seed: int) -> list[Query]:
    """Letter-by-letter prefixes of some names, and misspelt versions of others."""
    rng = random.Random(seed + 1)
    queries: list[Query] = []
    while len(queries) < count:
        name = rng.choice(names)
        if rng.random() < 0.6:
            for length in range(1, min(len(name), 14) + 1):
                queries.append(Query(name[:length], name, "typing"))
        else:
            words = name.split()
            words = words[: rng.randint(1, len(words))]
            queries.append(Query(typo(" ".join(words), rng), name, "typo"))
    return queries[:count]


def naive_search(names: Sequence[str]) -> Callable[[str], list[str]]:
    """The obvious way: check every name for a prefix, then difflib for near misses."""
    normalized = [normalize(name) for name in names]

    def search(text: str) -> list[str]:
        query = normalize(text)
        if not query:
            return []
        hits = [
            name for name, norm in zip(names, normalized, strict=True) if norm.startswith(query)
        ]
        if len(hits) < LIMIT:
            close = difflib.get_close_matches(query, normalized, n=LIMIT, cutoff=0.6)
            by_norm = dict(zip(normalized, names, strict=True))
            hits += [by_norm[norm] for norm in close if by_norm[norm] not in hits]
        return hits[:LIMIT]

    return search


@dataclass(frozen=True)
class Timing:
    mean_ms: float
    p95_ms: float
    max_ms: float
    typo_recall: float  # share of typo queries whose intended card is among the results


def measure(search: Callable[[str], list[str]], queries: Sequence[Query]) -> Timing:
    """Time each query once; also count how often a misspelt name was still found."""
    times: list[float] = []
    found = typos = 0
    for query in queries:
        start = time.perf_counter()
        hits = search(query.text)
        times.append((time.perf_counter() - start) * 1000)
        if query.kind == "typo":
            typos += 1
            found += query.wanted in hits
    times.sort()
    return Timing(
        mean_ms=statistics.fmean(times),
        p95_ms=times[int(0.95 * (len(times) - 1))],
        max_ms=times[-1],
        typo_recall=found / typos if typos else 1.0,
    )


def run(cards: int = 5000, queries: int = 300, seed: int = 1) -> tuple[Timing, Timing, float]:
    """(index timing, naive timing, index build time in ms) for one generated table."""
    names = generated_names(cards, seed)
    monsters = [
        Monster(id=f"bench-{number}", name=name, level=1 + number % 20)
        for number, name in enumerate(names)
    ]
    start = time.perf_counter()
    database = CardDatabase.from_cards(monsters)
    build_ms = (time.perf_counter() - start) * 1000
    asked = make_queries(names, queries, seed)

    def indexed(text: str) -> list[str]:
        return [card.name for card in database.search(text, limit=LIMIT)]

    return measure(indexed, asked), measure(naive_search(names), asked), build_ms


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    index, naive, build_ms = run(args.cards, args.queries, args.seed)
    print(
        f"card name search: {args.cards} generated cards, {args.queries} queries, seed {args.seed}"
    )
    print(f"index built in {build_ms:.0f} ms (database with name index)")
    print(f"{'':24}{'mean ms':>10}{'p95 ms':>10}{'max ms':>10}{'typo recall':>13}")
    for label, timing in (("name index", index), ("naive difflib scan", naive)):
        print(
            f"{label:24}{timing.mean_ms:10.3f}{timing.p95_ms:10.3f}{timing.max_ms:10.3f}"
            f"{timing.typo_recall:13.0%}"
        )
    print(f"speed-up (mean): {naive.mean_ms / index.mean_ms:.0f}x")
    verdict = "met" if index.p95_ms < TARGET_MS else "NOT met"
    print(f"target: p95 < {TARGET_MS} ms per query: {verdict}")
    return 0 if index.p95_ms < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
