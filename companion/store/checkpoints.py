"""Checkpoints of a saved game's state, so a long game resumes without folding its whole log.

The log stays the truth: a checkpoint is used only when the chained fingerprint of the
log prefix it was taken at (`companion.core.game.log_digest`, recomputed from the rows
read) and the digest of the rules engine that computed it both match ours.
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

import companion.core as core_package
from companion.core import Game, GameState
from companion.core.game import CHECKPOINT_INTERVAL
from companion.core.log_versions import LOG_VERSION
from companion.core.models import SAVED_GAME


class Kept(Protocol):
    """What is known of a game's saved rows (the store's `Journal`)."""

    game: Game
    # The revision of the newest checkpoint saved.
    checkpoint: int


# A checkpoint is saved every this many actions, so a resume folds at most this many
# (a multiple of the in-memory interval, so it also serves undo at once).
SAVED_INTERVAL = 8 * CHECKPOINT_INTERVAL


def due(journal: Kept, reset: bool) -> GameState | None:
    """The state to save as a checkpoint with the next change, if one is due (the journal
    then counts it as saved)."""
    revision = journal.game.revision
    at = revision - revision % SAVED_INTERVAL
    if at == 0 or (at <= journal.checkpoint and not reset):
        return None
    journal.checkpoint = at
    return journal.game.state_at(at)


def write(conn: sqlite3.Connection, game_id: str, state: GameState, digest: str) -> None:
    """Keep `state` as a checkpoint of the game, with the fingerprint of its log prefix."""
    conn.execute(
        "INSERT OR REPLACE INTO checkpoints (game_id, revision, digest, engine, state) "
        "VALUES (?, ?, ?, ?, ?)",
        (game_id, state.revision, digest, engine_fingerprint(), state.model_dump_json()),
    )


def drop(conn: sqlite3.Connection, game_id: str, after: int | None) -> None:
    """Forget the game's checkpoints past revision `after` (all of them when None)."""
    if after is None:
        conn.execute("DELETE FROM checkpoints WHERE game_id = ?", (game_id,))
    else:
        conn.execute("DELETE FROM checkpoints WHERE game_id = ? AND revision > ?", (game_id, after))


def newest(conn: sqlite3.Connection, game_id: str, revision: int) -> tuple[object, ...] | None:
    """The row of the game's newest checkpoint at or before `revision`, if any."""
    row: tuple[object, ...] | None = conn.execute(
        "SELECT revision, digest, engine, state FROM checkpoints "
        "WHERE game_id = ? AND revision <= ? ORDER BY revision DESC LIMIT 1",
        (game_id, revision),
    ).fetchone()
    return row


def trusted(row: tuple[object, ...] | None, digests: Mapping[int, str] | None) -> GameState | None:
    """The checkpoint in `row` (see `newest`) when the fingerprint of the log prefix read
    (`digests`: revision -> fingerprint of the actions read up to it) matches the one it
    was taken at, and the rules that computed it are ours; else None."""
    if row is None or digests is None:
        return None
    at, digest, engine, state = row
    if not isinstance(at, int) or not isinstance(state, str) or at not in digests:
        return None
    if engine != engine_fingerprint() or digest != digests[at]:
        return None
    try:
        checkpoint = GameState.model_validate_json(state, context={SAVED_GAME: True})
    except ValidationError:
        return None
    return checkpoint if checkpoint.revision == at else None


@functools.cache
def engine_fingerprint() -> str:
    """Which rules wrote a checkpoint: the log version and a digest of the rules engine's
    source. A checkpoint is only trusted by the very rules that computed it; after an
    update it is rebuilt from the log."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(Path(core_package.__file__).parent.rglob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return f"{LOG_VERSION}/{digest.hexdigest()}"
