"""What docs/android.md says of the Android build, checked against buildozer.spec itself
without building: the API level Play requires, 16 KB pages, a pinned python-for-android,
every package the app imports on a phone (and what those import) in the requirements
at versions the code accepts, the table link's pages and the card and language data
packed, and exactly the permissions the app and bleak ask for. Also: a build without
the table link's web stack says so on Invite instead of failing with a traceback."""

from __future__ import annotations

import ast
import asyncio
import configparser
import fnmatch
import importlib.metadata as metadata
import re
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "buildozer.spec"
ANDROID_NS = "{http://schemas.android.com/apk/res/android}"
# Google Play: API 36 for new apps and updates since 2026-08-31.
PLAY_TARGET_API = 36
# The oldest Android the Python that python-for-android builds runs on (PEP 738), and
# python-for-android's RECOMMENDED_NDK_API (pythonforandroid/recommendations.py).
MIN_API = 24
# python-for-android's develop line with the libpython link fix for Rust extensions
# (pull request #3333, merged after the v2026.05.09 release).
P4A_COMMIT = "a608f593978c4a9df55626a89a43c7435a7ad08e"
# The stock python-for-android recipes the build uses, with their versions at that
# commit (pythonforandroid/recipes/<name>/__init__.py), and the recipes they pull in.
STOCK_RECIPES = {
    "python3": "3.14.2",
    "kivy": "2.3.1",
    "pyjnius": "1.7.0",
    "android": None,
    "pydantic-core": "2.41.4",
    "cryptography": "46.0.3",
    "aiohttp": "3.8.3",
}
RECIPE_DEPENDENCIES = {"cffi", "pycparser", "openssl", "libffi", "setuptools", "six"}
# Recipes that install the Python packages they need themselves (python_depends), which
# differ from what the same package needs on a desktop.
SELF_SUFFICIENT_RECIPES = {"kivy"}
# Modules that exist only on a phone (python-for-android's recipes and plyer).
ANDROID_ONLY_MODULES = {"android": "android", "jnius": "pyjnius", "plyer": "plyer"}
# Files packed but never run on a phone: Babel keeps the catalogues up to date at build time.
BUILD_TIME_ONLY = {"companion/ui/catalogues.py"}
# How an Android phone answers environment markers (Python 3.13+ says "android").
ANDROID_MARKERS = {
    "python_version": "3.14",
    "python_full_version": "3.14.2",
    "sys_platform": "android",
    "platform_system": "Android",
    "platform_python_implementation": "CPython",
    "implementation_name": "cpython",
    "platform_machine": "aarch64",
    "os_name": "posix",
    "extra": "",
}
# What the app and bleak may ask for, and why (docs/android.md, "Permissions").
EXPECTED_PERMISSIONS = {
    "android.permission.BLUETOOTH": {"maxSdkVersion": "30"},
    "android.permission.BLUETOOTH_ADMIN": {"maxSdkVersion": "30"},
    "android.permission.BLUETOOTH_SCAN": {"usesPermissionFlags": "neverForLocation"},
    "android.permission.BLUETOOTH_CONNECT": {},
    "android.permission.ACCESS_FINE_LOCATION": {},
    "android.permission.ACCESS_COARSE_LOCATION": {},
    "android.permission.INTERNET": {},
    "android.permission.ACCESS_NETWORK_STATE": {},
    "android.permission.ACCESS_WIFI_STATE": {},
}


def _spec() -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser()
    parser.read(SPEC, encoding="utf-8")
    return parser


def _list(value: str) -> list[str]:
    """A buildozer list: comma separated, over as many lines as it likes."""
    return [item.strip() for item in value.replace("\n", " ").split(",") if item.strip()]


def _requirements() -> dict[str, str]:
    """buildozer's requirements: normalised name -> pinned version ("" when not pinned)."""
    found: dict[str, str] = {}
    for item in _list(_spec().get("app", "requirements")):
        name, _, version = item.partition("==")
        found[canonicalize_name(name)] = version
    return found


def _local_recipes() -> dict[str, str | None]:
    """Our recipes in android/recipes (name -> version), bleak's copied one included."""
    found: dict[str, str | None] = {"bleak": None}  # copied from bleak before a build
    for path in (ROOT / "android" / "recipes").glob("*/__init__.py"):
        version = re.search(r'^\s*version = "([^"]+)"', path.read_text(), re.MULTILINE)
        found[path.parent.name] = version.group(1) if version else None
    return found


def _pyproject_specifiers() -> dict[str, SpecifierSet]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {
        canonicalize_name(req.name): req.specifier
        for req in map(Requirement, project["dependencies"])
    }


def _permissions() -> dict[str, dict[str, str]]:
    """buildozer's permission syntax: NAME, or (name=...;attribute=value;...)."""
    found: dict[str, dict[str, str]] = {}
    for item in _list(_spec().get("app", "android.permissions")):
        if item.startswith("("):
            assert item.endswith(")"), item
            fields = dict(part.split("=", 1) for part in item[1:-1].split(";"))
            name = fields.pop("name")
        else:
            name, fields = item, {}
        if "." not in name:
            name = f"android.permission.{name}"
        assert name not in found, f"{name} listed twice"
        found[name] = fields
    return found


def _declared_for(name: str, sdk_int: int) -> bool:
    fields = _permissions().get(name)
    return fields is not None and int(fields.get("maxSdkVersion", "999")) >= sdk_int


def _packed(path: str) -> bool:
    """Whether buildozer packs this repository file (source.* settings)."""
    app = _spec()["app"]
    if Path(path).suffix.lstrip(".") not in _list(app["source.include_exts"]):
        return False
    if any(
        path == folder or path.startswith(f"{folder}/")
        for folder in _list(app["source.exclude_dirs"])
    ):
        return False
    return not any(
        fnmatch.fnmatch(path, pattern) for pattern in _list(app.get("source.exclude_patterns", ""))
    )


def _imported_on_android() -> dict[str, set[str]]:
    """Top-level third-party modules the packed app imports anywhere (-> which files)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "companion").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative in BUILD_TIME_ONLY or not _packed(relative):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in ("companion", "__future__"):
                    found.setdefault(top, set()).add(relative)
    return found


def _distribution(module: str) -> str:
    if module in ANDROID_ONLY_MODULES:
        return ANDROID_ONLY_MODULES[module]
    distributions = metadata.packages_distributions().get(module)
    assert distributions, f"{module} is imported but installed by no package here"
    return canonicalize_name(distributions[0])


def _dependencies_on_android(distribution: str) -> list[Requirement]:
    """What an installed package requires on an Android phone."""
    found = []
    for line in metadata.requires(distribution) or []:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(ANDROID_MARKERS):
            found.append(requirement)
    return found


# -- the build -------------------------------------------------------------------------------
def test_targets_the_api_level_play_requires_with_16_kb_pages() -> None:
    app = _spec()["app"]
    assert int(app["android.api"]) == PLAY_TARGET_API
    assert int(app["android.minapi"]) == MIN_API
    assert int(app["android.ndk_api"]) == int(app["android.minapi"])
    assert app["android.release_artifact"] == "aab"
    assert app["android.debug_artifact"] == "apk"
    # NDK r28 links every native library for 16 KB pages by default.
    ndk = re.match(r"(\d+)", app["android.ndk"])
    assert ndk is not None and int(ndk.group(1)) >= 28
    assert "64" in app["android.archs"]  # Play requires a 64-bit build


def test_python_for_android_is_pinned_to_a_commit_with_the_libpython_fix() -> None:
    app = _spec()["app"]
    assert app["p4a.branch"] == "develop"
    assert app["p4a.commit"] == P4A_COMMIT
    assert "p4a.fork" not in app and "p4a.source_dir" not in app


# -- what goes into the package -------------------------------------------------------------
def test_every_module_the_app_imports_on_a_phone_is_built() -> None:
    """A module left out of the requirements is found missing on the phone only."""
    requirements = _requirements()
    recipes = set(STOCK_RECIPES) | set(_local_recipes())
    imported = _imported_on_android()
    assert {"aiohttp", "segno", "bleak", "kivy", "pydantic"} <= set(imported)
    for module, files in imported.items():
        distribution = _distribution(module)
        assert distribution in requirements or distribution in recipes, (distribution, files)


def test_every_package_those_need_on_a_phone_is_built_too() -> None:
    """Dependencies with their Android markers, all the way down: python-for-android's
    recipes install none of theirs, and its own lookup gives up on packages without a
    ready-made Android wheel."""
    requirements = _requirements()
    provided = set(requirements) | RECIPE_DEPENDENCIES
    todo = [_distribution(module) for module in _imported_on_android()]
    seen: set[str] = set()
    while todo:
        distribution = todo.pop()
        if distribution in seen or distribution in ANDROID_ONLY_MODULES.values():
            continue
        seen.add(distribution)
        assert distribution in provided, f"{distribution} is needed on the phone"
        if distribution in SELF_SUFFICIENT_RECIPES:
            continue
        todo.extend(canonicalize_name(r.name) for r in _dependencies_on_android(distribution))
    assert {"multidict", "yarl", "frozenlist", "propcache", "pyee", "websockets"} <= seen


def test_pinned_versions_are_ones_the_code_accepts() -> None:
    requirements = _requirements()
    accepted = _pyproject_specifiers()
    local = _local_recipes()
    for name, specifier in accepted.items():
        version = requirements.get(name) or local.get(name) or STOCK_RECIPES.get(name)
        if version:
            assert specifier.contains(version.removeprefix("v")), (name, version, specifier)
    # The stock aiohttp recipe's own version is too old for the code: it must be pinned,
    # to the release the tests run against (its dependencies above are that release's).
    assert not accepted["aiohttp"].contains(STOCK_RECIPES["aiohttp"])
    assert requirements["aiohttp"] == metadata.version("aiohttp")
    # bleak's recipe clones bleak's repository at the tag of the bleak it was copied from.
    assert requirements["bleak"] == f"v{metadata.version('bleak')}"
    # Our pydantic recipe and the pin agree; pydantic-core is pinned to a release.
    assert requirements["pydantic"] == local["pydantic"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", requirements["pydantic-core"])
    # Bumble on Android needs a cryptography the stock recipe provides.
    for requirement in _dependencies_on_android("bumble"):
        if canonicalize_name(requirement.name) == "cryptography":
            assert requirement.specifier.contains(STOCK_RECIPES["cryptography"])


def test_the_table_link_pages_and_the_data_travel_with_the_app() -> None:
    static = ROOT / "companion" / "web" / "static"
    pages = [path.relative_to(ROOT).as_posix() for path in static.iterdir()]
    assert {Path(page).suffix for page in pages} >= {".html", ".css", ".js", ".svg"}
    for page in pages:
        assert _packed(page), page
    for folder in ("cards", "companion/locale", "hardware/pinouts", "firmware/counter"):
        files = [p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix != ".md"]
        files = [p for p in files if "__pycache__" not in p.parts]
        assert files, folder
        for path in files:
            assert _packed(path.relative_to(ROOT).as_posix()), path
    assert not _packed("tests/test_android_spec.py")
    assert not _packed("firmware/deploy.py")


# -- permissions -----------------------------------------------------------------------------
def test_asks_only_for_the_permissions_the_app_and_bleak_use() -> None:
    assert _permissions() == EXPECTED_PERMISSIONS


def _bleak_scan_requests() -> list[str]:
    """The permissions bleak's Android scanner requests itself before every scan."""
    import bleak

    scanner = Path(bleak.__file__).parent / "backends" / "p4android" / "scanner.py"
    call = re.search(r"request_permissions\(\s*\[(.*?)\]", scanner.read_text(), re.DOTALL)
    assert call is not None, "bleak's scanner no longer asks for permissions itself"
    names = re.findall(r'Permission\.(\w+)|"android\.permission\.(\w+)"', call.group(1))
    return [f"android.permission.{a or b}" for a, b in names]


@pytest.mark.parametrize("sdk_int", range(MIN_API, PLAY_TARGET_API + 1))
def test_every_permission_asked_at_run_time_is_declared_for_that_android(sdk_int: int) -> None:
    """A runtime request for a permission the manifest leaves out is refused without a
    dialog: for the app's own requests that switches Bluetooth off, and bleak's scanner
    fails unless at least one of the location permissions it asks for is granted."""
    from companion.ui.android_permissions import bluetooth_permissions

    for name in bluetooth_permissions(sdk_int):
        assert _declared_for(name, sdk_int), (sdk_int, name)
    assert any(_declared_for(name, sdk_int) for name in _bleak_scan_requests()), sdk_int
    # From Android 12 a fine location request counts only together with the coarse one.
    assert _declared_for("android.permission.ACCESS_COARSE_LOCATION", sdk_int)


# The permissions Android asks the user about (the rest are granted at install), and the
# API level each is asked from.
RUNTIME_FROM_API = {
    "android.permission.BLUETOOTH_SCAN": 31,
    "android.permission.BLUETOOTH_CONNECT": 31,
    "android.permission.ACCESS_FINE_LOCATION": 23,
    "android.permission.ACCESS_COARSE_LOCATION": 23,
}


@pytest.mark.parametrize("sdk_int", range(MIN_API, PLAY_TARGET_API + 1))
def test_one_request_asks_for_everything_a_scan_needs_before_bleak_asks(sdk_int: int) -> None:
    """The app's one request holds every permission the manifest declares that Android asks
    the user about (all are the scan's), so Android asks about them together, and every
    one of those bleak's scanner asks for again itself: bleak then finds them granted and
    asks nothing the user sees (what it asks beyond is not declared: refused unasked)."""
    from companion.ui.android_permissions import bluetooth_permissions

    asked = bluetooth_permissions(sdk_int)
    asked_at_runtime = {
        name
        for name, since in RUNTIME_FROM_API.items()
        if sdk_int >= since and _declared_for(name, sdk_int)
    }
    assert len(asked) == len(set(asked))
    assert set(asked) == asked_at_runtime, sdk_int
    bleak_may_show = {name for name in _bleak_scan_requests() if _declared_for(name, sdk_int)}
    assert bleak_may_show and bleak_may_show <= set(asked), sdk_int


async def test_the_app_asks_once_and_reads_an_approximate_location_as_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a phone (Android's modules stood in for): one request for everything, and the
    answer read as bleak reads it, approximate location being enough for a scan."""
    import types

    import kivy.utils

    from companion.ui import android_permissions

    calls: list[list[str]] = []
    answers: list[list[bool]] = []

    def request_permissions(names: list[str], callback: Any) -> None:
        calls.append(list(names))
        callback(names, answers.pop(0))

    class Version:
        SDK_INT = 34

    permissions = types.ModuleType("android.permissions")
    permissions.request_permissions = request_permissions  # type: ignore[attr-defined]
    jnius = types.ModuleType("jnius")
    jnius.autoclass = lambda _name: Version  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "android", types.ModuleType("android"))
    monkeypatch.setitem(sys.modules, "android.permissions", permissions)
    monkeypatch.setitem(sys.modules, "jnius", jnius)
    monkeypatch.setattr(kivy.utils, "platform", "android")

    answers += [[True, True, False, True], [True, True, False, False], [False, True, True, True]]
    said = [await android_permissions.ask_android_permissions(timeout_s=5.0) for _ in range(3)]
    assert said == [True, False, False]  # approximate; no location; no Nearby devices
    assert calls == [android_permissions.bluetooth_permissions(34)] * 3  # one request each time


def test_the_table_link_may_listen_and_find_its_address() -> None:
    for name in ("INTERNET", "ACCESS_NETWORK_STATE", "ACCESS_WIFI_STATE"):
        assert _declared_for(f"android.permission.{name}", PLAY_TARGET_API), name


def test_hardware_behind_the_permissions_is_optional() -> None:
    app = _spec()["app"]
    assert "android.features" not in app  # those would be required
    path = (SPEC.parent / app["android.extra_manifest_xml"]).resolve()
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(
        f'<manifest xmlns:android="{ANDROID_NS[1:-1]}">{text}</manifest>'
    )  # a fragment inside <manifest>
    features = {
        element.get(f"{ANDROID_NS}name"): element.get(f"{ANDROID_NS}required")
        for element in root.iter("uses-feature")
    }
    # The features Play infers from BLUETOOTH*, ACCESS_*_LOCATION and ACCESS_WIFI_STATE,
    # and the USB host.
    for feature in ("bluetooth", "bluetooth_le", "wifi", "usb.host"):
        assert features.get(f"android.hardware.{feature}") == "false", feature


# -- a build without the web stack ---------------------------------------------------------
class _Host:
    """The app as the table link sees it: only what it says to the host."""

    def __init__(self) -> None:
        self.session: Any = None
        self.data_dir: Path | None = None
        self.said: list[tuple[str, bool]] = []
        self.told = asyncio.Event()

    def notify(self, text: str, error: bool = False) -> None:
        self.said.append((text, error))
        self.told.set()


@pytest.mark.parametrize("missing", ["aiohttp", "segno"])
async def test_turning_the_link_on_without_its_web_stack_says_what_is_missing(
    missing: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from companion.ui.link_service import TableLinkService

    monkeypatch.setitem(sys.modules, missing, None)  # `import` fails as if not installed
    for name in [name for name in sys.modules if name.startswith("companion.web.")]:
        if name != "companion.web.keys":
            monkeypatch.delitem(sys.modules, name)
    host = _Host()
    host.data_dir = tmp_path
    service = TableLinkService(host, host="127.0.0.1", port=0)
    service.turn_on()
    await asyncio.wait_for(host.told.wait(), 10)
    assert not service.running and service.link is None
    [(text, error)] = host.said
    assert error and missing in text and "Traceback" not in text
    assert "table link" in text
