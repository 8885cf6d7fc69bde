"""Player names shown to the table hold no control characters or text-direction overrides."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from companion.core.errors import validation_error_line
from companion.core.models import PlayerSetup


def seat(name: str) -> PlayerSetup:
    return PlayerSetup(name=name, colour="#ff0000", sex="female")


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Anna\u202eevil", "U+202E"),  # right-to-left override: shows "Annalive"
        ("\u2066Bram", "U+2066"),  # left-to-right isolate
        ("Cleo\u200f", "U+200F"),  # right-to-left mark
        ("Dev\x1b[31m", "U+001B"),  # a terminal escape
        ("Eve\x00", "U+0000"),
        ("Fay\nGus", "U+000A"),
        ("Hal\u2028Ida", "U+2028"),  # line separator
    ],
)
def test_unsafe_characters_are_refused_naming_the_character(name: str, code: str) -> None:
    with pytest.raises(ValidationError) as caught:
        seat(name)
    line = validation_error_line(caught.value)
    assert line.startswith("name: ")
    assert "control or text-direction characters" in line and code in line


@pytest.mark.parametrize(
    "name", ["Zoë", "Łucja", "محمد", "李雷", "Ana María", "👨\u200d👩\u200d👧 team", "O'Brien"]
)
def test_names_in_any_script_are_welcome(name: str) -> None:
    assert seat(name).name == name


def test_surrounding_white_space_is_trimmed_not_refused() -> None:
    assert seat("  Anna\n").name == "Anna"
    assert seat("\tBram ").name == "Bram"
