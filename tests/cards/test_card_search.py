"""Name search: prefixes while typing, whole words, typos, and speed over thousands of cards."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from companion.cards import CardDatabase, Monster, NameIndex, load_database, normalize
from companion.cards.search import allowed_typos, prefix_distance

NAMES = {
    "a": "Angry Teapot",
    "b": "Bone Dragon Hatchling",
    "c": "Pocket Dragon",
    "d": "Dragon",
    "e": "Goblin Accountant",
    "f": "Élan Vital Shrub",
    "g": "Wizard",
    "h": "Wizard-Eating Cabbage",
}


@pytest.fixture(scope="module")
def index() -> NameIndex:
    return NameIndex(NAMES.items())


def keys(index: NameIndex, text: str, limit: int = 10) -> list[str]:
    return [hit.key for hit in index.search(text, limit)]


def test_prefix_of_the_name_comes_first(index: NameIndex) -> None:
    assert keys(index, "wiz") == ["g", "h"]
    assert keys(index, "drag")[0] == "d"  # the name itself starts with it
    assert set(keys(index, "drag")) == {"b", "c", "d"}  # other names have a word starting so


def test_each_typed_word_may_start_a_word(index: NameIndex) -> None:
    assert keys(index, "gob acc") == ["e"]
    assert keys(index, "acc gob") == []  # words keep their order


def test_typos_are_forgiven_in_proportion_to_length(index: NameIndex) -> None:
    assert keys(index, "drgon")[0] == "d"
    assert "e" in keys(index, "goblin acountant")
    assert keys(index, "wiq") == []  # three letters: no room for a typo


def test_case_accents_and_punctuation_do_not_matter(index: NameIndex) -> None:
    assert keys(index, "ELAN") == ["f"]
    assert keys(index, "wizard eating") == ["h"]
    assert normalize("Él-Fo's  Hat") == "el fo s hat"


def test_empty_query_and_limit(index: NameIndex) -> None:
    assert keys(index, "   ") == []
    assert len(keys(index, "d", limit=1)) == 1


def test_scores_rank_prefixes_above_typos(index: NameIndex) -> None:
    hits = index.search("dragn")
    assert hits[0].key == "d"
    assert all(0 < hit.score <= 1 for hit in hits)


def test_prefix_distance() -> None:
    assert prefix_distance("dargon", "dragon hatchling", 2) == 1
    assert prefix_distance("drag", "dragon", 1) == 0
    assert prefix_distance("xyzzy", "dragon", 2) == 3  # over budget: budget + 1
    assert [allowed_typos(n) for n in (3, 4, 7, 11)] == [0, 1, 2, 3]


def test_database_search_by_kind() -> None:
    cards = load_database(user=False)
    assert [card.id for card in cards.search("pocket drag")] == ["gen-ally-pocket-dragon"]
    assert all(card.kind == "item" for card in cards.search("s", kind="item"))
    assert cards.search("pocket dragon", kind="monster") == []


def _benchmark() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "card_search.py"
    spec = importlib.util.spec_from_file_location("card_search_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building
    spec.loader.exec_module(module)
    return module


def test_live_typing_over_5000_cards_finds_the_card_being_typed() -> None:
    # Speed is measured by benchmarks/card_search.py beside its baseline; a timed
    # assertion here would be flaky on a shared machine. This checks the answers.
    bench = _benchmark()
    names = bench.generated_names(5000, seed=3)
    assert len(set(names)) == 5000
    cards = CardDatabase.from_cards(
        Monster(id=f"m{number}", name=name, level=1) for number, name in enumerate(names)
    )
    queries = bench.make_queries(names, 1500, seed=3)
    typed = [q for q in queries if q.kind == "typing" and len(q.text) >= 12]
    typos = [q for q in queries if q.kind == "typo"]
    assert typed and typos

    def found(query: object) -> bool:
        return query.wanted in [card.name for card in cards.search(query.text, limit=10)]

    # Once a name is typed past its common first word, the card is always offered;
    # most misspellings still find it.
    assert all(map(found, typed))
    assert sum(map(found, typos)) / len(typos) >= 0.75


def test_benchmark_prints_both_searches(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _benchmark()
    bench.main(["--cards", "300", "--queries", "40"])
    out = capsys.readouterr().out
    assert "name index" in out and "naive difflib scan" in out and "target" in out
    assert "first keystroke on a fresh table" in out


def test_rapidfuzz_baseline_is_the_fastest_scorer_at_equal_recall() -> None:
    bench = _benchmark()
    trials = [
        bench.Trial("WRatio", 0.66, 16.0),
        bench.Trial("partial_ratio", 1.0, 8.0),
        bench.Trial("QRatio", 0.85, 0.4),
        bench.Trial("slow_exact", 1.0, 20.0),
    ]
    assert bench.best_scorer(trials, 0.99).scorer == "partial_ratio"
    assert bench.best_scorer(trials, 0.8).scorer == "QRatio"
    # None as good as the index: the most accurate one stands in.
    assert bench.best_scorer(trials[:1] + trials[2:3], 0.99).scorer == "QRatio"


def test_a_word_typed_from_inside_a_joined_word_is_found() -> None:
    index = NameIndex(
        [("b", "Bone Dragon Hatchling"), ("b", "Knochendrachenküken"), ("t", "Teekessel")]
    )
    assert keys(index, "knochen") == ["b"]
    assert keys(index, "drache") == ["b"]  # inside the compound
    assert keys(index, "kuken") == ["b"]
    assert keys(index, "drahce") == ["b"]  # and with a slip
    assert keys(index, "bone") == ["b"]  # its other name
    assert keys(index, "drag") == ["b"]  # listed once whichever names match
    assert keys(index, "ch") == []  # two letters inside a word are no help
    hits = NameIndex([("a", "Drachenhort"), ("b", "Knochendrache")]).search("drache")
    assert [hit.key for hit in hits] == ["a", "b"]  # a word's start ranks first


@pytest.mark.parametrize(
    ("language", "typed"),
    [
        ("de", "knochen"),
        ("de", "drache"),
        ("de", "Knochendrachenkücken"),  # a slip in the long German name
        ("de", "bone"),  # the English name still works
        ("ru", "костяного"),
        ("ru", "детёныш"),
        ("ru", "детеныш"),
        ("ru", "дракона"),
        ("ru", "драокна"),
        ("uk", "кістяного"),
        ("fr", "os"),
    ],
)
def test_a_card_is_found_by_the_name_the_table_reads(language: str, typed: str) -> None:
    from companion.cards.database import translated_name

    cards = load_database(user=False)
    shown = translated_name("Bone Dragon Hatchling", language)
    if typed == "os":  # a two-letter word is typed on to the name the table reads
        typed = shown.split()[0][:5]
    found = [card.id for card in cards.search(typed, kind="monster", language=language)]
    assert "gen-bone-dragon-hatchling" in found, (shown, found)


def test_the_table_s_language_is_followed_at_each_search() -> None:
    cards = load_database(user=False)
    assert cards.search("knochen") == []  # English: no German names
    speaking = ["de"]
    cards.follow_language(lambda: speaking[0])
    assert cards.search("knochen")[0].id == "gen-bone-dragon-hatchling"
    speaking[0] = "ru"
    assert cards.search("knochen") == []
    assert "gen-bone-dragon-hatchling" in [c.id for c in cards.search("костяного")]


def test_the_command_searches_in_a_language(capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import main

    assert main(["cards", "search", "--language", "de", "knochendrache"]) == 0
    out = capsys.readouterr().out
    assert "gen-bone-dragon-hatchling" in out and "Knochendrachenküken" in out
    assert main(["cards", "search", "--language", "xx", "drache"]) == 2
