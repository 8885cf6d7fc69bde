"""One registry of callbacks: add returns its own remover, emit calls each in turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")


class Listeners(Generic[P]):
    """Callbacks called in the order they were added; each `add` returns a remover.

    A callback added or removed while `emit` runs takes effect from the next emit.

    >>> seen = []
    >>> listeners: Listeners[[int]] = Listeners()
    >>> remove = listeners.add(seen.append)
    >>> listeners.emit(1)
    >>> remove()
    >>> listeners.emit(2)
    >>> seen, len(listeners)
    ([1], 0)
    """

    def __init__(self) -> None:
        self._callbacks: dict[int, Callable[P, object]] = {}
        self._next_key = 0

    def add(self, callback: Callable[P, object]) -> Callable[[], None]:
        """Register `callback`; call the returned function to remove it (twice is harmless)."""
        key = self._next_key
        self._next_key += 1
        self._callbacks[key] = callback

        def remove() -> None:
            self._callbacks.pop(key, None)

        return remove

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        """Call every registered callback with the same arguments."""
        for callback in list(self._callbacks.values()):
            callback(*args, **kwargs)

    def clear(self) -> None:
        """Remove every callback."""
        self._callbacks.clear()

    def __len__(self) -> int:
        return len(self._callbacks)

    def __bool__(self) -> bool:
        return bool(self._callbacks)
