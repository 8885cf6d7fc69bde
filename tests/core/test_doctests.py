"""The small examples in the rules engine's docstrings stay true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import companion.core

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(companion.core.__path__, "companion.core.")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_rules_carry_examples() -> None:
    finder = doctest.DocTestFinder()
    with_examples = [
        name
        for name in MODULES
        if any(t.examples for t in finder.find(importlib.import_module(name)))
    ]
    assert {"companion.core.rules", "companion.core.game"} <= set(with_examples)
