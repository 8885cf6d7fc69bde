"""Dice: an injectable source of d6 results, `secrets` by default."""

from __future__ import annotations

import random
import secrets
from typing import Protocol, runtime_checkable


@runtime_checkable
class RandomSource(Protocol):
    """Anything that rolls a fair six-sided die."""

    def roll_d6(self) -> int:
        """One result from 1 to 6."""
        ...


class SecretsDice:
    """Dice from the operating system's secure random source (the default)."""

    def roll_d6(self) -> int:
        return secrets.randbelow(6) + 1


class SeededDice:
    """Reproducible dice for tests, simulations and benchmarks.

    >>> a, b = SeededDice(7), SeededDice(7)
    >>> [a.roll_d6() for _ in range(5)] == [b.roll_d6() for _ in range(5)]
    True
    """

    def __init__(self, seed: float | str | None = None) -> None:
        self._random = random.Random(seed)

    def roll_d6(self) -> int:
        return self._random.randint(1, 6)


class FixedDice:
    """Dice that give the results they were handed, in order (a physical die, a test).

    >>> dice = FixedDice([6, 1])
    >>> dice.roll_d6(), dice.roll_d6()
    (6, 1)
    """

    def __init__(self, results: list[int] | tuple[int, ...]) -> None:
        self._results = list(results)

    def roll_d6(self) -> int:
        if not self._results:
            raise ValueError("the fixed dice have no results left")
        value = self._results.pop(0)
        if not 1 <= value <= 6:
            raise ValueError(f"a d6 shows 1 to 6, not {value}")
        return value
