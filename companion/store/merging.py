"""A game that comes in from elsewhere beside one the store already holds under its id.

A game log put back in the games folder (restored from a backup, copied from another
machine, touched by a sync tool), a game played in a window that could not save here,
a game brought back from a damaged copy: each is weighed against the saved game with
the same id before anything is written, on the writer thread, in the transaction that
writes it, so nothing queued in between can slip past.

* the same course of play: nothing is written;
* the incoming one is the saved one played further (it begins with every action the
  saved one holds): it replaces it;
* anything else (the saved one is further along, or the two went different ways): the
  saved game is never replaced. The incoming one is kept beside it under a new id, and
  the player is told. Only a copy that holds nothing the saved game lacks (an older
  state of it) may be passed over, where the caller says so.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from companion.core import Game
from companion.core.game import action_text
from companion.store.imports import ID_RE
from companion.store.journal import Journal, RowWriter, change_of

# An id made for a copy kept beside a game: the game's id, cut to leave room for this.
_COPY_ID_ROOM = 70


class Course(Enum):
    """How an incoming game stands to the one saved under its id."""

    NEW = "new"  # nothing is saved under that id
    SAME = "same"
    AHEAD = "ahead"  # the saved game, played further
    BEHIND = "behind"  # an older state of the saved game
    APART = "apart"  # the two went different ways (or began differently)


@dataclass(frozen=True)
class History:
    """What a game's course is compared by: its setup and its recorded actions, as the
    database writes them."""

    setup: str
    actions: tuple[str, ...]
    revision: int


def history_of(game: Game) -> History:
    return History(
        game.setup.model_dump_json(),
        tuple(action_text(action) for action in game.recorded_actions()),
        game.revision,
    )


def held_history(conn: sqlite3.Connection, game_id: str) -> History | None:
    """The history of the game saved under `game_id` (None: there is none)."""
    row = conn.execute("SELECT setup, revision FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        return None
    bodies = conn.execute(
        "SELECT body FROM actions WHERE game_id = ? ORDER BY number", (game_id,)
    ).fetchall()
    revision = row[1] if isinstance(row[1], int) else 0
    return History(str(row[0]), tuple(str(body) for (body,) in bodies), revision)


def compare(held: History | None, incoming: History) -> Course:
    """How `incoming` stands to `held` (see the module)."""
    if held is None:
        return Course.NEW
    if held.setup != incoming.setup:
        return Course.APART
    shorter = min(len(held.actions), len(incoming.actions))
    if held.actions[:shorter] != incoming.actions[:shorter]:
        return Course.APART
    if len(incoming.actions) > len(held.actions):
        return Course.AHEAD
    if len(incoming.actions) < len(held.actions):
        return Course.BEHIND
    if incoming.revision == held.revision:
        return Course.SAME
    # The same actions, undone to a different point: neither is further along.
    return Course.APART


def copy_id(conn: sqlite3.Connection, game_id: str) -> str:
    """A new id for a copy of `game_id` kept beside it, naming no saved game."""
    while True:
        candidate = f"{game_id[:_COPY_ID_ROOM]}-{secrets.token_hex(2)}"
        taken = conn.execute("SELECT 1 FROM games WHERE id = ?", (candidate,)).fetchone()
        if taken is None and ID_RE.match(candidate):
            return candidate


@dataclass
class Merged:
    """How a game that came in stood to the one saved under its id, once written."""

    course: Course | None = None
    # The id it was written under (None: not written, the saved one holds it all).
    written_as: str | None = None


def merge(
    rows: RowWriter,
    game_id: str,
    game: Game,
    *,
    when: float | None,
    pass_older: bool,
    then: Callable[[sqlite3.Connection, str | None], None] | None = None,
) -> tuple[Callable[[sqlite3.Connection], None], Merged]:
    """The writer-thread job that writes `game` under `game_id`, or beside it under a new
    id, or not at all (see the module), and what it did once it ran. `then(conn,
    written_as)` runs in the same transaction."""
    incoming = history_of(game)
    merged = Merged()

    def run(conn: sqlite3.Connection) -> None:
        course = compare(held_history(conn, game_id), incoming)
        target: str | None = game_id
        if course is Course.SAME or (course is Course.BEHIND and pass_older):
            target = None
        elif course in (Course.BEHIND, Course.APART):
            target = copy_id(conn, game_id)
        if target is not None:
            change = change_of(target, Journal(game), mark=False, whole=True, when=when)
            try:
                rows.write(conn, change)
            except BaseException:
                rows.forget(target)
                raise
        if then is not None:
            then(conn, target)
        merged.course, merged.written_as = course, target

    return run, merged


def kept_beside(game_id: str, kept_as: str, where: str) -> str:
    """The words for a game kept beside the one saved under its id."""
    return (
        f"game {game_id} {where} and the one saved under that id went different ways, "
        f"so both are kept: the one {where} as {kept_as}"
    )
