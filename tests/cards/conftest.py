"""Card tests read only the built-in packs plus what a test writes into its own data folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from companion.cards import DATA_DIR_ENV


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh user data folder, so the developer's own packs never leak into a test."""
    folder = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    return folder


@pytest.fixture
def user_pack(data_dir: Path) -> Callable[[str, str], Path]:
    """Write a pack file into the user's packs folder; returns its path."""

    def write(name: str, text: str) -> Path:
        path = data_dir / "packs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write
