"""The cover of the game to resume: what its first screen showed, read before anything heavy.

Every save of the game to resume also writes, in the same transaction, a small text the
app made from that game's state (the app decides what it holds; for the store it is an
opaque string). On the next start the app reads it back with `read_cover` and draws the
game's first screen from it in its very first frame, while the rules engine and the log
are still loading; the loaded game then replaces it. The log stays the truth: a cover
only ever shows what the last save wrote, and one that cannot be read is ignored.

This module uses the standard library alone (no pydantic, no rules engine), so reading
a cover costs a few milliseconds.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

from companion.store.database import DATABASE_FILE

log = logging.getLogger(__name__)

COVER_KEY = "cover"
LAST_GAME_KEY = "last_game"
# A cover is a screenful of words; anything far larger is not one of ours.
MAX_COVER_CHARS = 64 * 1024


def cover_record(game_id: str, cover: str) -> str:
    """The value stored under `COVER_KEY`: the cover and the game it belongs to."""
    return json.dumps({"game": game_id, "cover": cover}, ensure_ascii=False)


def read_cover(folder: Path) -> tuple[str, str] | None:
    """(game id, cover) of the game to resume in the data folder `folder`, or None.

    None when there is no database, no game to resume, no cover for it, or anything is
    damaged: the start then goes the long way. Never writes, never raises.
    """
    path = Path(folder) / DATABASE_FILE
    try:
        if not path.is_file():
            return None
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
    except (sqlite3.Error, ValueError, OSError) as exc:  # unreadable folder or file
        log.info("no cover: %s cannot be opened (%s)", path, exc)
        return None
    try:
        rows = dict(
            conn.execute(
                "SELECT key, value FROM meta WHERE key IN (?, ?)", (COVER_KEY, LAST_GAME_KEY)
            ).fetchall()
        )
        record = rows.get(COVER_KEY)
        last = rows.get(LAST_GAME_KEY)
        if not isinstance(record, str) or not isinstance(last, str):
            return None
        if len(record) > MAX_COVER_CHARS:
            return None
        saved = json.loads(record)
        if not isinstance(saved, dict) or saved.get("game") != last:
            return None
        cover = saved.get("cover")
        if not isinstance(cover, str):
            return None
        if conn.execute("SELECT 1 FROM games WHERE id = ?", (last,)).fetchone() is None:
            return None
        return last, cover
    except (sqlite3.Error, ValueError, RecursionError) as exc:
        log.info("no cover: %s (%s)", path, exc)
        return None
    finally:
        conn.close()
