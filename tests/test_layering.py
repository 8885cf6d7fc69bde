"""The dependency arrows of docs/architecture.md hold: lower layers never import higher ones."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "companion"
FIRMWARE = PACKAGE.parent / "firmware"

# layer -> what it may import (besides itself, the standard library and third parties)
ALLOWED = {
    # Shared plumbing (task sets, listener registries, file helpers, the error root, where
    # files are): every layer may use it, and it uses none of them.
    "plumbing": set(),
    "core": {"plumbing"},
    "cards": {"core", "plumbing"},
    "store": {"core", "plumbing"},
    # The table as an application: the open game, its saving, its roll offers and the
    # followers. The adapters (devices, web, ui, commands) reach the game through it.
    "table": {"core", "cards", "store", "plumbing"},
    "devices": {"core", "store", "table", "plumbing"},
    # The table link sits beside the counters: it follows the table as they do.
    "web": {"core", "store", "table", "plumbing"},
    "ui": {"core", "cards", "store", "table", "devices", "web", "plumbing"},
    # The command line sits on top: it may use every layer but never the other way round.
    "commands": {"core", "cards", "store", "table", "devices", "web", "ui", "plumbing"},
}
# Nothing below the command line may reach up into it.
TOP = {"commands", "cli"}
# Third-party packages a layer must not touch (the UI toolkit stays in the UI).
FORBIDDEN_THIRD_PARTY = {
    "plumbing": {"kivy", "serial", "bleak", "bumble", "aiohttp", "pydantic"},
    "core": {"kivy", "serial", "bleak", "bumble", "platformdirs", "aiohttp"},
    "cards": {"kivy", "serial", "bleak", "bumble", "aiohttp"},
    "store": {"kivy", "serial", "bleak", "bumble", "aiohttp"},
    "table": {"kivy", "serial", "bleak", "bumble", "aiohttp"},
    "devices": {"kivy", "aiohttp"},
    "web": {"kivy", "serial", "bleak", "bumble"},
    "commands": set(),
}


def module_name(path: Path) -> str:
    """`companion/ui/screens/base.py` -> `companion.ui.screens.base` (a package: its folder)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> Iterator[tuple[str, list[str]]]:
    """(module, names taken from it) for every import in a file, anywhere in it (functions
    and TYPE_CHECKING blocks too), relative imports made absolute; `import a` gives (a, [])."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                yield (
                    ".".join([*base, node.module] if node.module else base),
                    [alias.name for alias in node.names],
                )
            elif node.module:
                yield node.module, [alias.name for alias in node.names]


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports; `from companion.x import y` also counts `companion.x.y`."""
    names: set[str] = set()
    for module, taken in imports(path):
        names.add(module)
        if module.split(".")[0] == "companion":
            names.update(f"{module}.{name}" for name in taken)
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


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Module of `companion` -> the modules of `companion` it imports (by any route)."""
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets: set[str] = set()
        for module, taken in imports(path):
            # `from package import module` reaches that module, not the package's others.
            submodules = {f"{module}.{t}" for t in taken} & files.keys()
            targets.update(submodules)
            if not taken or len(submodules) < len(taken):
                targets.add(module)
        graph[name] = (targets & files.keys()) - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other round a circle (Tarjan's algorithm)."""
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = lowest[module] = len(order)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in order:
                visit(target)
                lowest[module] = min(lowest[module], lowest[target])
            elif target in stack:
                lowest[module] = min(lowest[module], order[target])
        if lowest[module] == order[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_no_modules_import_each_other_round_a_circle() -> None:
    """Arrows point one way between modules too, type-only imports included: a screen or
    a service declares the little it needs of the app instead of naming the app's parts."""
    graph = import_graph()
    told = [
        " -> ".join(group)
        + "; each imports: "
        + "; ".join(f"{m} -> {sorted(graph[m] & set(group))}" for m in group)
        for group in cycles(graph)
    ]
    assert told == []


def test_cycle_check_sees_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("layer", ["store", "devices"])
def test_store_and_devices_import_nothing_from_the_ui(layer: str) -> None:
    wrong = [
        f"{module} imports {target}"
        for module, targets in sorted(import_graph().items())
        if module.startswith(f"companion.{layer}")
        for target in sorted(targets)
        if target == "companion.ui" or target.startswith("companion.ui.")
    ]
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


# The simulation (virtual counters and dice, their radio and faults) is a layer of its own
# above the device layer: it may use these, and only these layers may use it.
SIM = "companion.devices.sim"
SIM_MAY_IMPORT = {"core", "table", "devices", "plumbing"}
SIM_USERS = {"ui", "commands"}


def layer_of(module: str) -> str:
    """`companion.devices.sim.fleet` -> "devices.sim"; `companion.ui.app` -> "ui"."""
    if module == SIM or module.startswith(f"{SIM}."):
        return "devices.sim"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_the_simulation_sits_above_the_devices_and_only_the_app_uses_it() -> None:
    wrong = []
    for module, targets in sorted(import_graph().items()):
        source = layer_of(module)
        for target in sorted(targets):
            into = layer_of(target)
            if into == source:
                continue
            if source == "devices.sim" and into not in SIM_MAY_IMPORT:
                wrong.append(f"{module} imports {target}")
            if into == "devices.sim" and source not in SIM_USERS:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_every_package_is_on_the_map() -> None:
    """A new package gets its arrows here and its place in docs/architecture.md, or nothing
    would check what it imports."""
    known = set(ALLOWED) | TOP | {"__main__"}
    packages = {layer_of(module_name(path)) for path in PACKAGE.rglob("*.py")} - {"companion"}
    assert packages - known - {"devices.sim"} == set()
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    map_section = doc.split("## Dependency arrows", 1)[1].split("\n## ", 1)[0]
    missing = sorted(
        p for p in packages - {"__main__", "cli"} if f"`{p.replace('.', '/')}`" not in map_section
    )
    missing += [] if "`firmware`" in map_section else ["firmware"]
    assert missing == [], "docs/architecture.md's map does not name these packages"


# A game built before it is handed to the table (the screenshots' demo game) is no way in.
BUILDS_A_GAME = {"commands/screenshots.py"}


def test_the_adapters_reach_the_game_through_the_table() -> None:
    """A screen, a counter, a phone or a command changes the open game through the table
    (`companion/table/`: one path decides, saves and answers), never by `game.apply`."""
    wrong = []
    for layer in ("ui", "web", "devices", "commands"):
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            rel = path.relative_to(PACKAGE).as_posix()
            if rel.startswith("devices/sim/") or rel in BUILDS_A_GAME:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("apply", "undo", "redo")
                    and ast.unparse(node.func.value).endswith("game")
                ):
                    wrong.append(f"{rel}:{node.lineno} {ast.unparse(node.func)}")
    assert wrong == []
