"""The dependency arrows of docs/architecture.md hold: lower layers never import higher ones."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "companion"
FIRMWARE = PACKAGE.parent / "firmware"

# layer -> what it may import (besides itself, the standard library and third parties)
ALLOWED = {
    "core": set(),
    "cards": {"core", "resources"},
    "store": {"core", "resources"},
    "devices": {"core", "store", "resources"},
    # The table link sits beside the counters: it follows the game as they do.
    "web": {"core", "store", "devices", "resources"},
    "ui": {"core", "cards", "store", "devices", "web", "resources"},
    # The command line sits on top: it may use every layer but never the other way round.
    "commands": {"core", "cards", "store", "devices", "web", "ui", "resources"},
}
# Nothing below the command line may reach up into it.
TOP = {"commands", "cli"}
# Third-party packages a layer must not touch (the UI toolkit stays in the UI).
FORBIDDEN_THIRD_PARTY = {
    "core": {"kivy", "serial", "bleak", "bumble", "platformdirs"},
    "cards": {"kivy", "serial", "bleak", "bumble"},
    "store": {"kivy", "serial", "bleak", "bumble"},
    "devices": {"kivy"},
    "web": {"kivy"},
    "commands": set(),
}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "companion":
                names.update(f"companion.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    wrong = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[0] == "companion" and len(parts) > 1:
                target = parts[1]
                if target != layer and target not in ALLOWED[layer]:
                    wrong.append(f"{path.relative_to(PACKAGE)} imports {name}")
            elif parts[0] in FORBIDDEN_THIRD_PARTY.get(layer, set()):
                wrong.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert wrong == []


def test_no_layer_reaches_up_into_the_command_line() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in TOP or rel.name == "cli.py" or rel.name == "__main__.py":
            continue
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[0] == "companion" and len(parts) > 1 and parts[1] in TOP:
                wrong.append(f"{rel} imports {name}")
    assert wrong == []


def test_no_module_imports_private_names_of_another() -> None:
    """`from x import _name` across files means two modules share one's insides."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                private = [
                    a.name
                    for a in node.names
                    # `_` is gettext's marker and dunders are public by convention
                    if a.name.startswith("_") and a.name != "_" and not a.name.endswith("__")
                ]
                if private and not node.module.startswith("__"):
                    wrong.append(
                        f"{path.relative_to(PACKAGE)}: from {node.module} import {private}"
                    )
    assert wrong == []


def test_firmware_imports_nothing_from_the_app() -> None:
    """A board has no `companion`: the firmware sees the codec as top-level `wire` only."""
    wrong = []
    for path in sorted(FIRMWARE.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for name in imported_modules(path):
            if name.split(".")[0] == "companion":
                wrong.append(f"{path.relative_to(FIRMWARE)} imports {name}")
    assert wrong == []


def test_the_device_layer_knows_nothing_of_its_simulation() -> None:
    """Virtual counters and dice, their radio and faults sit beside the device layer
    (`devices/sim/`): a virtual counter's link is handed over like any other, so nothing
    else in `devices` imports them."""
    sim = PACKAGE / "devices" / "sim"
    wrong = []
    for path in sorted((PACKAGE / "devices").rglob("*.py")):
        if sim in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            if any(name.startswith("companion.devices.sim") for name in names):
                wrong.append(f"{path.relative_to(PACKAGE)} imports the simulation")
    assert wrong == []
