"""Where the companion finds the data it ships with, its translations and the user's own data
folder."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_DIR_NAME = "munchkin-companion"
# Overrides the platform's data folder (tests, portable installs).
DATA_DIR_ENV = "COMPANION_DATA_DIR"
# The user's settings, in the data folder (read by companion.store.settings).
SETTINGS_FILE = "settings.json"
# The app's log, a folder in the data folder holding only log files (the oldest are deleted).
LOG_DIR_NAME = "logs"

_PACKAGE = Path(__file__).resolve().parent.parent
# The translation catalogues: <lang>/LC_MESSAGES/<domain>.mo, and the .pot templates.
LOCALE_DIR = _PACKAGE / "locale"
# An installed wheel carries the top-level data folders inside the package
# (see [tool.hatch.build.targets.wheel.force-include] in pyproject.toml).
_SHIPPED = _PACKAGE / "_shipped"


def shipped(relative: str) -> Path:
    """A data folder or file that ships with the app, e.g. `shipped("cards")`.

    From a source checkout (or an editable install) this is the top-level folder
    of the repository; from an installed wheel, its copy inside the package.
    """
    packaged = _SHIPPED / relative
    if packaged.exists():
        return packaged
    return _PACKAGE.parent / relative


def user_data_dir() -> Path:
    """The user's data folder: $COMPANION_DATA_DIR if set, else the platform's usual place."""
    override = os.environ.get(DATA_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_data_dir(APP_DIR_NAME))


def log_dir(data: Path | None = None) -> Path:
    """Where the app writes its log: the logs folder of its data folder (`data`, or the
    user's)."""
    return (data if data is not None else user_data_dir()) / LOG_DIR_NAME


def data_dir() -> Path:
    """The user's data folder for the companion (created on first use)."""
    path = user_data_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path
