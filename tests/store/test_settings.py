"""Settings load with defaults, save atomically, and never silently lose a damaged file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.store import Settings, SettingsStore, StoreError, data_dir
from companion.store.settings import MAX_SETTINGS_BYTES


def test_defaults_when_nothing_is_saved(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path)
    settings = store.load()
    assert settings.theme == "dark"
    assert settings.victory_countdown_s == pytest.approx(2.6)
    assert store.problem is None


def test_saved_settings_come_back(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path)
    settings = store.load()
    settings.theme = "light"
    settings.winning_level = 20
    store.save(settings)

    again = SettingsStore(tmp_path).load()

    assert (again.theme, again.winning_level) == ("light", 20)


def test_a_damaged_file_is_kept_aside_and_reported(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path)
    store.path.write_text('{"theme": "purple"}', encoding="utf-8")

    settings = store.load()

    assert settings == Settings()
    assert store.problem is not None
    assert "field 'theme'" in store.problem and "settings.json" in store.problem
    kept = list(tmp_path.glob("settings.json.damaged-*"))
    assert len(kept) == 1 and json.loads(kept[0].read_text()) == {"theme": "purple"}


def test_invalid_json_is_reported_as_such(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path)
    store.path.write_text("{theme: dark", encoding="utf-8")
    store.load()
    assert store.problem is not None and "not valid JSON" in store.problem


def test_settings_from_a_newer_version_keep_their_unknown_keys(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path)
    store.path.write_text('{"theme": "light", "future_option": 7}', encoding="utf-8")
    store.save(store.load())
    assert json.loads(store.path.read_text())["future_option"] == 7


def test_a_bad_value_is_refused_when_set(tmp_path: Path) -> None:
    settings = SettingsStore(tmp_path).load()
    with pytest.raises(ValueError, match="led_brightness"):
        settings.led_brightness = 0


def test_data_dir_honours_the_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "portable"))
    assert data_dir() == tmp_path / "portable"
    assert data_dir().is_dir()


@pytest.mark.parametrize(
    ("content", "reported"),
    [
        (b'{"theme": "d\xffark"}', "not UTF-8 text (a bad byte at offset 12)"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"{" * 50_000, "not valid JSON"),
    ],
    ids=["invalid-utf8-byte", "deeply-nested", "deeply-open"],
)
def test_any_damaged_file_is_set_aside_and_the_defaults_used(
    tmp_path: Path, content: bytes, reported: str
) -> None:
    store = SettingsStore(tmp_path)
    store.path.write_bytes(content)

    assert store.load() == Settings()

    assert store.problem is not None and reported in store.problem
    kept = list(tmp_path.glob("settings.json.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == content
    assert kept[0].name in store.problem
    assert not store.path.exists()


def test_an_oversized_file_is_set_aside_unread(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path)
    with store.path.open("wb") as handle:
        handle.truncate(MAX_SETTINGS_BYTES + 1)  # sparse: nothing to read, all to refuse
    assert store.load() == Settings()
    assert store.problem is not None and "larger than" in store.problem
    assert len(list(tmp_path.glob("settings.json.damaged-*"))) == 1


def test_a_damaged_file_that_cannot_be_set_aside_is_reported_and_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SettingsStore(tmp_path)
    store.path.write_text('{"theme": "purple"}', encoding="utf-8")
    real_replace = Path.replace

    def read_only_folder(self: Path, target: Path) -> Path:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "replace", read_only_folder)

    assert store.load() == Settings()
    assert store.problem is not None
    assert "field 'theme'" in store.problem
    assert "could not be set aside (Permission denied)" in store.problem
    assert "defaults are in use" in store.problem
    with pytest.raises(StoreError, match="could not be set aside"):
        store.save(Settings(theme="light"))
    assert json.loads(store.path.read_text()) == {"theme": "purple"}

    # Once the folder can be written again, the damaged file is kept before saving.
    monkeypatch.setattr(Path, "replace", real_replace)
    store.save(Settings(theme="light"))
    assert SettingsStore(tmp_path).load().theme == "light"
    (kept,) = tmp_path.glob("settings.json.damaged-*")
    assert json.loads(kept.read_text()) == {"theme": "purple"}
