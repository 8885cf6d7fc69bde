"""Names a package exports but imports only when first used (PEP 562).

`companion.core` and `companion.store` export their names this way, so a module that
needs only a light part of either (the counters' process, the cover read before the
first frame) does not import pydantic and the rules engine with it. It lives in the
lowest layer so that every package may use it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """The module `__getattr__` of `package`: each name in `homes` is imported from the
    module given there the first time it is asked for, then kept in the package."""

    def load(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return load
