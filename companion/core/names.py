"""The one rule for a name that enters the game log (a player, a monster, a die).

Control characters, and the marks that reorder text around them (a name that flips
"Anna" and the next words on screen), have no place in a name shown to the table,
and a name must fit the log's field. A name that comes from elsewhere (a card, a die's
own report of itself, an old log) is made to keep that rule with `log_name`.

A player's name that enters a new game (typed on the New game screen, given to
`companion serve`, read from an imported log) is made normal with `normal_name` and
refused when it shows nothing; two players of one game may not have names that look
the same (`refuse_lookalikes`), compared by Unicode's confusable skeletons (UTS #39)
with case and width folded. A game the app saved itself keeps its names as they were
written (`saved_name`), so no old save stops opening. docs/rules-choices.md, "Player
names", says why.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from companion.core.errors import RuleError
from companion.core.phrase import Phrase

UNSAFE_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
ELLIPSIS = "\u2026"
NAME_MAX = 80  # characters of a monster's, an item's or a die's name in the log (a card's too)

# Unicode's confusable prototypes and default-ignorable code points, made from Unicode's
# own files by tools/lookalike_data.py.
LOOKALIKES_FILE = Path(__file__).with_name("lookalikes.json")
ZWNJ = "\u200c"  # ZERO WIDTH NON-JOINER: keeps two Arabic-script letters from joining
ZWJ = "\u200d"  # ZERO WIDTH JOINER: makes one emoji of several (a family, an astronaut)
EMOJI_STYLE = frozenset("\ufe0e\ufe0f")  # text or emoji style of the symbol before it
BLANK_CELL = "\u2800"  # BRAILLE PATTERN BLANK: shows as a space, yet is no space to Python
VIRAMA = 9  # the canonical combining class of a virama, which a joiner after it shapes


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


def normal_name(text: str) -> str:
    """A player's name as it enters a new game: composed (NFC), with the characters that
    show nothing left out, spaces around it trimmed and runs of spaces inside made one.

    Raises RuleError when it holds a control or text-direction character, or shows
    nothing once made normal (nothing left, or only combining marks).

    >>> normal_name("  Ann\\u200b  Lee\\u00ad ")
    'Ann Lee'
    >>> normal_name("Zoe\\u0308") == "Zo\\u00eb"
    True
    >>> normal_name("\\u3164")
    Traceback (most recent call last):
    ...
    companion.core.errors.RuleError: A player's name cannot be blank or invisible
    """
    text = _refuse_unsafe(text.strip())
    shown = _shown(unicodedata.normalize("NFC", text).replace(BLANK_CELL, " "))
    name = unicodedata.normalize("NFC", " ".join(shown.split()))
    if looks_blank(name):
        raise RuleError("name_blank", Phrase("A player's name cannot be blank or invisible"))
    return name


def saved_name(text: str) -> str:
    """A player's name read from a game the app saved: trimmed, and held to the rule it
    was taken under (not blank, no control or text-direction character), never changed
    further, so that a save from before `normal_name` opens as it was."""
    text = _refuse_unsafe(text.strip())
    if not text:
        raise RuleError("name_blank", Phrase("A player's name cannot be blank or invisible"))
    return text


def looks_blank(name: str) -> bool:
    """Whether a name shows nothing: empty, spaces, or combining marks with no letter.

    >>> looks_blank("\\u0301\\u0301"), looks_blank("Bo")
    (True, False)
    """
    return all(char.isspace() or unicodedata.category(char)[0] == "M" for char in name)


def skeleton(text: str) -> str:
    """UTS #39's skeleton: decomposed (NFD), the default-ignorable code points left out,
    each character replaced by its confusable prototype, and decomposed again. Two
    strings with the same skeleton look alike; a skeleton is for comparing, never shown.

    >>> skeleton("\\u0410nn") == skeleton("Ann")  # a Cyrillic A
    True
    """
    ignorable, prototypes = _tables()
    mapped = "".join(
        prototypes.get(char, char)
        for char in unicodedata.normalize("NFD", text)
        if not ignorable(char)
    )
    return unicodedata.normalize("NFD", mapped)


def same_looking(first: str, second: str) -> bool:
    """Whether two names look the same at the table: the same skeleton once widths and
    compatibility forms are folded (NFKC) and spaces made one, with or without case.

    >>> same_looking("Ann", "ann"), same_looking("Ann", "\\uff21\\uff4e\\uff4e")
    (True, True)
    >>> same_looking("Ann", "Anna")
    False
    """
    return not _looks(first).isdisjoint(_looks(second))


def lookalike_seats(names: Sequence[str]) -> tuple[int, int] | None:
    """The first two seats whose names look the same (`same_looking`), or None.

    >>> lookalike_seats(["Ann", "Bo", "ANN"])
    (0, 2)
    """
    seen: dict[str, int] = {}
    for seat, name in enumerate(names):
        looks = _looks(name)
        for look in looks:
            if look in seen:
                return seen[look], seat
        seen.update(dict.fromkeys(looks, seat))
    return None


def refuse_lookalikes(names: Sequence[str]) -> None:
    """Raises RuleError naming two players whose names look the same, if any do."""
    seats = lookalike_seats(names)
    if seats is not None:
        first, second = (names[seat] for seat in seats)
        raise RuleError(
            "names_look_alike",
            Phrase(
                "“{first}” and “{second}” look like the same name: give one of them another name",
                first=first,
                second=second,
            ),
        )


def _refuse_unsafe(text: str) -> str:
    unsafe = UNSAFE_IN_NAME.search(text)
    if unsafe:
        raise RuleError(
            "name_unsafe",
            Phrase(
                "A player's name cannot hold control or text-direction characters ({code})",
                code=f"U+{ord(unsafe.group()):04X}",
            ),
        )
    return text


def _shown(text: str) -> str:
    """`text` without the characters that show nothing: zero-width spaces, the word
    joiner, soft hyphens, the BOM, variation selectors, fillers, tags. A joiner or a
    style selector stays where it changes what its neighbours look like (see `_shapes`)."""
    ignorable, _ = _tables()
    kept: list[str] = []
    for at, char in enumerate(text):
        if not ignorable(char) or _shapes(kept[-1] if kept else "", char, text[at + 1 : at + 2]):
            kept.append(char)
    return "".join(kept)


def _shapes(before: str, char: str, after: str) -> bool:
    """Whether an invisible character between `before` and `after` changes how they look:
    the emoji or text style of a symbol (❤️), a joiner inside an emoji (👨‍👩‍👧) or after
    a virama (Indic conjuncts), a non-joiner between Arabic-script letters."""
    if not before:
        return False
    if char in EMOJI_STYLE:
        return _symbol(before)
    if char in (ZWJ, ZWNJ) and unicodedata.combining(before) == VIRAMA:
        return True
    if char == ZWJ:
        return _symbol(before) and bool(after) and _symbol(after)
    if char == ZWNJ:
        return bool(after) and _joins(before) and _joins(after)
    return False


def _symbol(char: str) -> bool:
    return char in EMOJI_STYLE or unicodedata.category(char)[0] == "S"


def _joins(char: str) -> bool:
    return unicodedata.bidirectional(char) == "AL"


def _looks(name: str) -> frozenset[str]:
    """How a name looks, as skeletons: as written and case-folded."""
    folded = unicodedata.normalize("NFKC", " ".join(name.split()))
    return frozenset((skeleton(folded), skeleton(folded.casefold())))


@functools.cache
def _tables() -> tuple[_Ranges, dict[str, str]]:
    data = json.loads(LOOKALIKES_FILE.read_text(encoding="utf-8"))
    prototypes = {
        chr(int(source, 16)): "".join(chr(int(point, 16)) for point in target.split())
        for source, target in data["prototypes"].items()
    }
    return _Ranges(data["default_ignorable"]), prototypes


class _Ranges:
    """Membership in sorted, disjoint [first, last] code point ranges."""

    def __init__(self, ranges: list[list[int]]) -> None:
        self._firsts = [first for first, _ in ranges]
        self._lasts = [last for _, last in ranges]

    def __call__(self, char: str) -> bool:
        at = bisect.bisect_right(self._firsts, ord(char)) - 1
        return at >= 0 and ord(char) <= self._lasts[at]
