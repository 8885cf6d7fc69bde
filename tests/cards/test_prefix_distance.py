"""The bit-parallel prefix distance agrees with the textbook table, cell by cell."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards.search import PrefixMatcher, prefix_distance


def reference(query: str, text: str) -> int:
    """Restricted Damerau distance from `query` to the closest prefix of `text`, by full table."""
    rows, cols = len(query) + 1, len(text) + 1
    table = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        table[i][0] = i
    for j in range(cols):
        table[0][j] = j
    for i in range(1, rows):
        for j in range(1, cols):
            table[i][j] = min(
                table[i - 1][j] + 1,
                table[i][j - 1] + 1,
                table[i - 1][j - 1] + (query[i - 1] != text[j - 1]),
            )
            if i > 1 and j > 1 and query[i - 1] == text[j - 2] and query[i - 2] == text[j - 1]:
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
    return min(table[-1])


letters = st.text(alphabet="abcde ", max_size=14)


@settings(max_examples=3000, deadline=None)
@given(letters, letters, st.integers(min_value=0, max_value=4))
def test_matches_the_full_table(query: str, text: str, budget: int) -> None:
    expected = reference(query, text)
    assert prefix_distance(query, text, budget) == (expected if expected <= budget else budget + 1)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab", min_size=60, max_size=90), st.text(alphabet="ab", max_size=100))
def test_long_queries_past_any_machine_word(query: str, text: str) -> None:
    expected = reference(query, text)
    assert PrefixMatcher(query).distance(text, 3) == min(expected, 4)


def test_one_matcher_serves_many_names() -> None:
    matcher = PrefixMatcher("gobiln acc")
    assert [matcher.distance(name, 2) for name in ("goblin accountant", "goblet", "gob")] == [
        1,
        3,
        3,
    ]


def reference_inside(query: str, text: str) -> int:
    """Restricted Damerau distance from `query` to the closest part of `text`, by full table."""
    rows, cols = len(query) + 1, len(text) + 1
    table = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        table[i][0] = i  # the top row stays 0: the part may start anywhere
    for i in range(1, rows):
        for j in range(1, cols):
            table[i][j] = min(
                table[i - 1][j] + 1,
                table[i][j - 1] + 1,
                table[i - 1][j - 1] + (query[i - 1] != text[j - 1]),
            )
            if i > 1 and j > 1 and query[i - 1] == text[j - 2] and query[i - 2] == text[j - 1]:
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
    return min(table[-1])


@settings(max_examples=3000, deadline=None)
@given(letters, letters, st.integers(min_value=0, max_value=4))
def test_inside_matches_the_full_table(query: str, text: str, budget: int) -> None:
    from companion.cards.search import inside_distance

    expected = reference_inside(query, text)
    assert inside_distance(query, text, budget) == (expected if expected <= budget else budget + 1)
