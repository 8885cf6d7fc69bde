"""Opening the saved-games database whatever state the data folder is in: the app always opens.

* A database SQLite reports as damaged, or a name that is not a file at all (a folder,
  a named pipe, a link to a device), is set aside as `games.sqlite3.damaged-<time>`
  (with its `-wal` and `-shm`), a new one is started, and the copy set aside is offered
  for recovery (`companion.store.salvage`).
* One that cannot be used for a passing reason (a full disk, a read-only folder, another
  program holding it, the device failing) is never renamed: it is opened read-only so
  its games are shown, saves go to a temporary database, and it is opened again as soon
  as it can be (`GameStore` keeps trying as the game is played).
* One written by a newer version is opened read-only the same way, and left as it is.
* One another program owns (`companion.store.owner`) is opened read-only the same way:
  that program writes it, and this one takes it over once that one has gone.
* A zero-length database is an empty store only the first time: once a database was
  made in the folder (`MADE_MARKER` says so), an empty one is a damaged one.
"""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from companion.plumbing.errors import StoreError
from companion.plumbing.files import atomic_write_text, special_file
from companion.store.database import (
    DATABASE_FILE,
    DamagedDatabaseError,
    NewerDatabaseError,
    UnavailableDatabaseError,
    check,
    connect,
    connect_read_only,
)

# Beside the database: says that a database was made in this folder before.
MADE_MARKER = ".games.sqlite3.made"
DAMAGED_INFIX = ".damaged-"
SIDE_FILES = ("-wal", "-shm")


@dataclass
class Opened:
    """Where the store reads and writes, and what to tell the player about it."""

    conn: sqlite3.Connection  # the read connection of `path`
    path: Path  # where saves go
    # A sentence for the first screen (None: all is well).
    problem: str | None = None
    # What the Saved games screen keeps saying while it holds (None: nothing).
    notice: str | None = None
    # The user's database, open read-only, while saves go to a temporary one.
    source: sqlite3.Connection | None = None
    # The user's database could not be opened for a passing reason: try again later.
    reopen: bool = False


def open_games(database: Path, held_by: str | None = None) -> Opened:
    """Open the database at `database`, or the best that can be had (see the module);
    `held_by` says which other program owns its folder, when one does."""
    said: list[str] = []
    if held_by is not None:
        return _read_only(database, UnavailableDatabaseError(held_by), said, held=True)
    gone = _set_aside_what_is_not_a_file(database, said)
    emptied = not gone and _empty_though_made(database)
    if emptied and _set_aside_damaged(database, "it is empty (0 bytes)", said) is None:
        return _elsewhere(database, UnavailableDatabaseError(said.pop()), said)
    try:
        conn = connect(database)
    except NewerDatabaseError as exc:  # left as it is for the newer version
        return _read_only(database, exc, said, newer=True)
    except UnavailableDatabaseError as exc:
        return _read_only(database, exc, said)
    except DamagedDatabaseError as exc:
        return _start_again(database, exc, said)
    try:
        check(conn, database)
    except DamagedDatabaseError as exc:
        conn.close()
        return _start_again(database, exc, said)
    except UnavailableDatabaseError:  # not checked this time: it opened, so play on
        pass
    _mark_made(database)
    return Opened(conn, database, problem=_sentence(said))


def damaged_copies(folder: Path) -> list[Path]:
    """Damaged databases set aside in `folder` (oldest first), each a recovery candidate."""
    try:
        found = folder.glob(f"*{DAMAGED_INFIX}*")
        return sorted(
            path
            for path in found
            if path.name.startswith(f"{DATABASE_FILE}{DAMAGED_INFIX}")
            and not path.name.endswith(SIDE_FILES)
            and path.is_file()
        )
    except OSError:
        return []


def set_aside_database(database: Path) -> Path:
    """Rename the database with its `-wal` and `-shm` to `<name>.damaged-<time>` (the
    log keeps its suffix, so the copy opens with what its log held); returns the new name.
    Raises OSError when it cannot be renamed (it is then left as it is)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = database.with_name(f"{database.name}{DAMAGED_INFIX}{stamp}")
    number = 1
    while any(Path(f"{kept}{suffix}").exists() for suffix in ("", *SIDE_FILES)):
        number += 1
        kept = database.with_name(f"{database.name}{DAMAGED_INFIX}{stamp}-{number}")
    for suffix in ("", *SIDE_FILES):
        side = Path(f"{database}{suffix}")
        if side.exists() or side.is_symlink():
            side.replace(Path(f"{kept}{suffix}"))
    return kept


def temporary_database() -> Path:
    """A database in a fresh temporary folder, for saves while the user's cannot be used."""
    return Path(tempfile.mkdtemp(prefix="companion-games-")) / DATABASE_FILE


# -- inside -----------------------------------------------------------------------------
def _set_aside_what_is_not_a_file(database: Path, said: list[str]) -> bool:
    """A database, log or index that is not a regular file is never opened: set aside.
    Returns True when the database itself went (a new one is started)."""
    for suffix in SIDE_FILES:
        side = Path(f"{database}{suffix}")
        kind = special_file(side)
        if kind is not None:
            try:
                kept = side.with_name(f"{side.name}{DAMAGED_INFIX}{time.strftime('%Y%m%d-%H%M%S')}")
                side.replace(kept)
            except OSError as exc:
                said.append(f"{side} is {kind}, not a file, and cannot be set aside ({exc})")
            else:
                said.append(f"{side.name} was {kind}, not a file; it was kept as {kept.name}")
    kind = special_file(database)
    if kind is None:
        return False
    return _set_aside_damaged(database, f"it is {kind}, not a file", said) is not None


def _empty_though_made(database: Path) -> bool:
    try:
        return database.stat().st_size == 0 and (database.parent / MADE_MARKER).exists()
    except OSError:
        return False


def _set_aside_damaged(database: Path, why: str, said: list[str]) -> Path | None:
    try:
        kept = set_aside_database(database)
    except OSError as exc:
        said.append(f"{database}: {why}, and it cannot be set aside ({exc.strerror or exc})")
        return None
    said.append(
        f"{database}: {why}; it was kept as {kept.name} and a new one started. "
        "Saved games can recover what it still holds"
    )
    return kept


def _start_again(database: Path, cause: StoreError, said: list[str]) -> Opened:
    why = str(cause).removeprefix(f"{database}: ")
    if _set_aside_damaged(database, why, said) is None:
        return _elsewhere(database, cause, said)
    try:
        conn = connect(database)
    except StoreError as again:
        return _elsewhere(database, again, said)
    _mark_made(database)
    return Opened(conn, database, problem=_sentence(said))


def _read_only(
    database: Path, cause: StoreError, said: list[str], newer: bool = False, held: bool = False
) -> Opened:
    """The user's database read-only, saves into a temporary one."""
    try:
        source, sees_log = connect_read_only(database)
    except StoreError:
        source, sees_log = None, False
    if held:
        what = (
            f"{cause}: what is played here is kept only until this window closes, unless "
            "that one closes first"
        )
    elif newer:
        what = (
            f"{database} was saved by a newer version of the companion: its games are "
            "shown as they are and not changed; new games are kept only until the app closes"
        )
    elif not database.exists():
        what = f"{cause}; games are kept only until the app closes"
    elif source is not None:
        what = (
            f"{cause}: your saved games are shown as they are"
            + ("" if sees_log else " (without their last changes)")
            + "; changes are kept only until the app closes, unless it can be written "
            "again before then"
        )
    else:
        what = (
            f"{cause}: your saved games cannot be shown now; changes are kept only "
            "until the app closes"
        )
    said.append(what)
    opened = _elsewhere(database, cause, said, announce=False)
    opened.source = source
    opened.reopen = not newer
    return opened


def _elsewhere(database: Path, cause: StoreError, said: list[str], announce: bool = True) -> Opened:
    """Play on with a temporary database (the JSON saves found are still taken in)."""
    temporary = temporary_database()
    if announce:
        said.append(f"{cause}; games are kept in {temporary.parent} only until the app closes")
    sentence = _sentence(said)
    return Opened(connect(temporary), temporary, problem=sentence, notice=sentence, reopen=True)


def _mark_made(database: Path) -> None:
    marker = database.parent / MADE_MARKER
    if not marker.exists():
        with contextlib.suppress(OSError):  # a nicety: the store works without it
            atomic_write_text(marker, f"{database.name}\n")


def _sentence(said: list[str]) -> str | None:
    return "; ".join(said) if said else None
