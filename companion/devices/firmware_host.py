"""Loads the counter firmware into this Python as a board runs it: `wire`, `micropython`, `counter`.

On a board, `wire`, `seal`, `framing` and the `counter` package sit at the top
of the file system and `micropython` is built in. Here the app's own modules are
registered under those names (the very same module objects, so their classes
and errors are the app's),
a small `micropython` stands in with what the firmware uses outside a board,
and the `counter` package is loaded from the shipped `firmware/` folder without
touching `sys.path`. The firmware modules then import only what a board has.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

from companion.devices import framing, seal, wire
from companion.plumbing.places import shipped

PACKAGE = "counter"
# The modules the app's virtual counters use (the rest need pins or a radio).
HOST_MODULES = ("board", "logic", "serial_link", "session", "store")


def const(value: Any) -> Any:
    """MicroPython folds `const()` into the bytecode; here it is the value itself."""
    return value


def micropython_shim() -> types.ModuleType:
    """A `micropython` module with the parts the firmware needs when it is not on a board."""
    module = types.ModuleType("micropython")
    module.const = const  # type: ignore[attr-defined]
    return module


def install() -> None:
    """Register `wire`, `seal`, `framing` and (unless a test put its own there) `micropython`
    as top-level modules."""
    sys.modules.setdefault("wire", wire)
    sys.modules.setdefault("seal", seal)
    sys.modules.setdefault("framing", framing)
    sys.modules.setdefault("micropython", micropython_shim())


def load() -> types.ModuleType:
    """The firmware's `counter` package with its host-usable modules imported, as on a board."""
    install()
    package = sys.modules.get(PACKAGE)
    if package is None:
        folder = shipped("firmware") / PACKAGE
        spec = importlib.util.spec_from_file_location(
            PACKAGE, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        if spec is None or spec.loader is None:
            raise ImportError(f"no counter firmware at {folder}")
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        try:
            spec.loader.exec_module(package)
        except BaseException:
            del sys.modules[PACKAGE]
            raise
    for name in HOST_MODULES:
        importlib.import_module(f"{PACKAGE}.{name}")
    return package
