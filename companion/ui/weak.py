"""Event callbacks that do not keep their owner alive.

Kivy keeps an event's callbacks where Python's garbage collector does not look, so a cycle
that runs through one (a screen whose button calls back into the screen with a lambda) is
never collected: a screen dropped after a language change, or a sheet closed, would live as
long as the app. Kivy holds a bound method weakly; `weakly` does the same for a method with
arguments fixed at bind time.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any


def weakly(method: Callable[..., Any], *args: Any) -> Callable[..., None]:
    """A callback for `bind` that calls `method(*args, *values)` (the event's values after
    its source) while the method's owner lives, and does nothing after."""
    owner = weakref.ref(method.__self__)  # type: ignore[attr-defined]
    func = method.__func__  # type: ignore[attr-defined]

    def call(_source: Any, *values: Any) -> None:
        target = owner()
        if target is not None:
            func(target, *args, *values)

    return call
