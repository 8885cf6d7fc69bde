"""Settings load with defaults, save atomically, and never silently lose a damaged file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.store import Settings, SettingsStore, data_dir


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
