"""The dependency arrows of docs/architecture.md hold: lower layers never import higher ones."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "companion"

# layer -> what it may import (besides itself, the standard library and third parties)
ALLOWED = {
    "core": set(),
    "cards": {"core", "resources"},
    "store": {"core", "resources"},
    "devices": {"core", "store", "resources"},
    "ui": {"core", "cards", "store", "devices", "resources"},
}
# Third-party packages a layer must not touch (the UI toolkit stays in the UI).
FORBIDDEN_THIRD_PARTY = {
    "core": {"kivy", "serial", "bleak", "bumble", "platformdirs"},
    "cards": {"kivy", "serial", "bleak", "bumble"},
    "store": {"kivy", "serial", "bleak", "bumble"},
    "devices": {"kivy"},
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
