"""What docs/android.md says of the Android build, checked against buildozer.spec itself:
the API level Play requires, an App Bundle for release, a pinned python-for-android
release, plyer, and no permission beyond the ones the app uses."""

from __future__ import annotations

import configparser
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "buildozer.spec"
ANDROID_NS = "{http://schemas.android.com/apk/res/android}"
# The first python-for-android release that targets API 35 (see buildozer.spec).
OLDEST_P4A = (2026, 5, 9)
PLAY_TARGET_API = 35
# Every permission the app may ask for, and why (docs/android.md, "Permissions").
EXPECTED_PERMISSIONS = {
    "android.permission.BLUETOOTH": {"maxSdkVersion": "30"},
    "android.permission.BLUETOOTH_ADMIN": {"maxSdkVersion": "30"},
    "android.permission.ACCESS_FINE_LOCATION": {"maxSdkVersion": "30"},
    "android.permission.BLUETOOTH_SCAN": {"usesPermissionFlags": "neverForLocation"},
    "android.permission.BLUETOOTH_CONNECT": {},
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


def test_targets_the_api_level_play_requires_and_builds_a_bundle_for_release() -> None:
    app = _spec()["app"]
    assert int(app["android.api"]) == PLAY_TARGET_API
    assert int(app["android.minapi"]) <= int(app["android.api"])
    assert app["android.release_artifact"] == "aab"
    assert app["android.debug_artifact"] == "apk"
    # 16 KB page alignment (required with API 35) comes with NDK r28.
    assert int(re.match(r"(\d+)", app["android.ndk"]).group(1)) >= 28


def test_python_for_android_is_pinned_to_a_release_that_supports_it() -> None:
    app = _spec()["app"]
    branch = app["p4a.branch"]
    found = re.fullmatch(r"v(\d{4})\.(\d{2})\.(\d{2})", branch)
    assert found, f"p4a.branch must name a release tag, not {branch!r}"
    assert tuple(int(part) for part in found.groups()) >= OLDEST_P4A
    assert "p4a.fork" not in app and "p4a.source_dir" not in app


def test_requirements_carry_plyer_and_a_pydantic_matching_its_recipe() -> None:
    requirements = {
        item.split("==")[0]: item.partition("==")[2]
        for item in _list(_spec().get("app", "requirements"))
    }
    for needed in ("python3", "kivy", "pyjnius", "android", "plyer", "bleak", "bumble"):
        assert needed in requirements, needed
    recipe = (ROOT / "android" / "recipes" / "pydantic" / "__init__.py").read_text()
    version = re.search(r'version = "([^"]+)"', recipe)
    assert version is not None and requirements["pydantic"] == version.group(1)
    assert requirements["pydantic-core"], "pydantic-core must be pinned to pydantic's own"


def test_asks_only_for_the_permissions_the_app_uses() -> None:
    assert _permissions() == EXPECTED_PERMISSIONS
    # No location permission reaches Android 12 or later, where BLE needs none.
    for name, fields in _permissions().items():
        if "LOCATION" in name:
            assert int(fields.get("maxSdkVersion", "999")) < 31, name


@pytest.mark.parametrize("sdk_int", range(24, PLAY_TARGET_API + 1))
def test_every_permission_asked_at_run_time_is_declared_for_that_android(sdk_int: int) -> None:
    """A runtime request for a permission the manifest leaves out is refused without a
    dialog, which would switch Bluetooth off for good on that phone."""
    from companion.ui.device_service import bluetooth_permissions

    declared = _permissions()
    for name in bluetooth_permissions(sdk_int):
        assert name in declared, (sdk_int, name)
        assert int(declared[name].get("maxSdkVersion", "999")) >= sdk_int, (sdk_int, name)


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
    # The features Play infers from BLUETOOTH* and ACCESS_WIFI_STATE, and the USB host.
    for feature in ("bluetooth", "bluetooth_le", "wifi", "usb.host"):
        assert features.get(f"android.hardware.{feature}") == "false", feature


def test_the_translations_travel_with_the_app() -> None:
    app = _spec()["app"]
    assert "mo" in _list(app["source.include_exts"])
    assert "toml" in _list(app["source.include_exts"])  # the card packs
    excluded = _list(app["source.exclude_dirs"])
    assert "companion" not in excluded and "cards" not in excluded
