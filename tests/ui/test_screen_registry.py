"""Every screen module is in the registry, and every registry line names a real screen."""

from __future__ import annotations

from pathlib import Path

from companion.ui import screens
from companion.ui.screens import SCREENS, kv_path, registry

# The base class, the pure view functions beside the screens that use them, and a part
# of a screen kept in a module of its own (the Combat screen's help).
NOT_SCREENS = {"__init__", "base", "combat_view", "combat_help"}


def test_every_screen_module_is_registered() -> None:
    folder = Path(screens.__file__).parent
    modules = {path.stem for path in folder.glob("*.py")} - NOT_SCREENS
    assert modules == set(registry())


def test_every_entry_has_its_class_and_layout() -> None:
    from companion.ui.screens.base import CompanionScreen

    for entry in SCREENS:
        module = entry.load()
        assert issubclass(getattr(module, entry.cls), CompanionScreen), entry.name
        assert kv_path(module).exists(), entry.name


def test_navigation_order_is_unambiguous() -> None:
    orders = [entry.nav_order for entry in SCREENS if entry.nav_order is not None]
    assert len(orders) == len(set(orders))
