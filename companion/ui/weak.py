"""Event callbacks that do not keep their owner alive.

Kivy keeps an event's callbacks where Python's garbage collector does not look, so a cycle
that runs through one (a screen whose button calls back into the screen with a lambda) is
never collected: a screen dropped after a language change, or a sheet closed, would live as
long as the app. Kivy holds a bound method weakly; `weakly` does the same for a method with
arguments fixed at bind time.
"""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections.abc import Callable, Iterator
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


@contextlib.contextmanager
def collector_held() -> Iterator[None]:
    """For a change that reaches many bindings at once (the theme, the language): the
    collector waits until the change is done.

    A collection in the middle of it would free widgets whose kv bindings are still on
    the list being called, and Kivy would call one of them after its widget was gone
    (ReferenceError, half the screen in the old colours). Held, such a widget only hears
    the change once more; it is freed, and its bindings with it, at the next collection."""
    if not gc.isenabled():  # held already (the app's start holds it)
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
