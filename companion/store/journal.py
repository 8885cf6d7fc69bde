"""The action rows of saved games: what of a game is in the database, the change that
brings the database up to date with it, and how that change is written.

A change carries only what is new since the last one (usually one action row and the
game's summary row), so a save costs the same at action 10 and at 10,000. Changes are
built on the thread the game lives on and written by the writer thread.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field

from companion.core import Game, GameState
from companion.core.game import action_text, log_digest
from companion.core.log_versions import LOG_VERSION
from companion.plumbing.errors import StoreError
from companion.store import checkpoints
from companion.store.cover import COVER_KEY, LAST_GAME_KEY, cover_record
from companion.store.people import link_seats
from companion.store.stats import SummaryKeeper, write_summary


@dataclass
class Journal:
    """What of one `Game` object is in the database, or queued to be written there."""

    game: Game
    # Recorded actions 1..rows are there as they are in the game.
    rows: int = 0
    # The newest checkpoint revision there that is still valid.
    checkpoint: int = 0
    # Whether the game's own row is there (else the next change creates it).
    exists: bool = False
    # The game's `sequence` when this was last brought up to date.
    sequence: int = -1
    # The cover the database holds for the game (None: none, or not known).
    cover: str | None = None
    # The game's statistics, folded as far as the last change (made at the first one).
    keeper: SummaryKeeper | None = field(default=None, repr=False)

    def changed_from(self, first: int) -> None:
        """The recorded actions from index `first` on were replaced (see `Game.record_changes`)."""
        if self.keeper is not None:
            self.keeper.changed_from(first)
        self.rows = min(self.rows, first)
        self.checkpoint = min(self.checkpoint, first - first % checkpoints.SAVED_INTERVAL)

    def failed(self, change: Change) -> None:
        """`change` was rolled back: what it carried is not there (a later change built on
        it fails too, and lowers this further)."""
        self.changed_from(change.first)
        if change.setup is not None:
            self.exists = False
        if change.checkpoint is not None:  # not there: the next change carries one
            self.checkpoint = 0
        if change.mark_last:
            self.cover = None  # not known: written again with the next change

    def forget(self) -> None:
        """Nothing of the game is known to be there (a save failed): write it whole next."""
        self.rows = 0
        self.checkpoint = 0
        self.exists = False


@dataclass
class Change:
    """One save of one game, built on the game's thread, written by the writer."""

    game_id: str
    sequence: int
    setup: str | None  # set when the game's row is (re)created
    first: int  # rows after this number are replaced by `rows`
    rows: list[str]
    revision: int
    recorded: int
    players: str
    levels: str
    winners: str
    when: float
    checkpoint: GameState | None
    reset_checkpoints: bool
    # Whether this game becomes the one to resume; it then also gets `cover` (or none,
    # rather than an older one that would show a state that is no longer so).
    mark_last: bool
    cover: str | None
    # Written whole: whatever the database held under this id goes first.
    whole: bool = False
    # The game's statistics summary (`companion.core.statistics`), kept beside its row.
    stats: str | None = None


def change_of(
    game_id: str,
    journal: Journal,
    *,
    mark: bool,
    cover: str | None = None,
    whole: bool = False,
    reset_checkpoints: bool = False,
    when: float | None = None,
) -> Change:
    """What must be written to bring the database up to date with `journal.game`; the
    journal then counts it as written (a failed write is undone by `Journal.forget`).

    `whole` writes the game whole (whatever the id held goes first); `reset_checkpoints`
    replaces its saved checkpoints (ones the log no longer agrees with, say).
    """
    if whole:
        journal.forget()
    game = journal.game
    first = journal.rows
    rows = [action_text(action) for action in game.recorded_actions(first)]
    reset_checkpoints = reset_checkpoints or not journal.exists
    checkpoint = checkpoints.due(journal, reset_checkpoints)
    state = game.state
    names = [player.name for player in state.players]
    if journal.keeper is None or journal.keeper.game is not game:
        journal.keeper = SummaryKeeper(game)
    stats = journal.keeper.summary_text()
    change = Change(
        game_id=game_id,
        sequence=game.sequence,
        setup=None if journal.exists else game.setup.model_dump_json(),
        first=first,
        rows=rows,
        revision=game.revision,
        recorded=game.recorded,
        players=json.dumps(names, ensure_ascii=False),
        levels=json.dumps([player.level for player in state.players]),
        winners=json.dumps([names[i] for i in state.winners], ensure_ascii=False),
        when=time.time() if when is None else when,
        checkpoint=checkpoint,
        reset_checkpoints=reset_checkpoints,
        mark_last=mark,
        cover=cover if mark else None,
        whole=whole,
        stats=stats,
    )
    journal.rows = game.recorded
    journal.exists = True
    journal.sequence = game.sequence
    if mark:
        journal.cover = change.cover
    return change


class RowWriter:
    """Writes changes on the writer thread, keeping each game's last chained fingerprint
    so that appending a row needs no read."""

    def __init__(self, where: object) -> None:
        self.where = where
        # Writer thread only: (number, chain) of each game's last written row, as written
        # through `_conn`. A connection opened anew reads them: the writer opens one when
        # the log was lost, and writes again what it held over older rows.
        self._chains: dict[str, tuple[int, str]] = {}
        self._conn: sqlite3.Connection | None = None

    def forget(self, game_id: str) -> None:
        """Drop what is cached about a game (its rows were rolled back or deleted)."""
        self._chains.pop(game_id, None)

    def write(self, conn: sqlite3.Connection, change: Change) -> None:
        """Runs on the writer thread, inside a transaction."""
        if conn is not self._conn:
            self._chains.clear()
            self._conn = conn
        game_id = change.game_id
        if change.whole:
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        if change.setup is not None:
            conn.execute(
                "INSERT INTO games (id, setup, log_version, revision, recorded, players, "
                "levels, winners, created, updated) VALUES (?, ?, ?, 0, 0, '[]', '[]', '[]', ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET setup = excluded.setup",
                (game_id, change.setup, LOG_VERSION, change.when, change.when),
            )
        conn.execute(
            "DELETE FROM actions WHERE game_id = ? AND number > ?", (game_id, change.first)
        )
        checkpoints.drop(conn, game_id, None if change.reset_checkpoints else change.first)
        chain = self.chain_at(conn, game_id, change.first)
        number = change.first
        rows = []
        for body in change.rows:
            number += 1
            chain = log_digest([body], start=chain)
            rows.append((game_id, number, body, chain))
        conn.executemany(
            "INSERT INTO actions (game_id, number, body, chain) VALUES (?, ?, ?, ?)", rows
        )
        self._chains[game_id] = (number, chain)
        updated = conn.execute(
            "UPDATE games SET revision = ?, recorded = ?, players = ?, levels = ?, "
            "winners = ?, updated = ?, log_version = ?, "
            "played = (SELECT coalesce(max(played), 0) + 1 FROM games) WHERE id = ?",
            (
                change.revision,
                change.recorded,
                change.players,
                change.levels,
                change.winners,
                change.when,
                LOG_VERSION,
                game_id,
            ),
        )
        if updated.rowcount != 1:
            raise StoreError(f"{self.where}: game {game_id} is not in the database")
        if change.stats is not None:
            write_summary(conn, game_id, change.stats)
        if change.setup is not None:  # a new game: its seats are linked to people
            link_seats(conn, game_id, json.loads(change.players), json.loads(change.setup))
        if change.checkpoint is not None:
            at = change.checkpoint.revision
            checkpoints.write(conn, game_id, change.checkpoint, self.chain_at(conn, game_id, at))
        if change.mark_last:
            set_meta(conn, LAST_GAME_KEY, game_id)
            write_cover(conn, game_id, change.cover)

    def chain_at(self, conn: sqlite3.Connection, game_id: str, number: int) -> str:
        """The chained fingerprint of a game's log up to its row `number`."""
        if number == 0:
            return ""
        cached = self._chains.get(game_id)
        if cached is not None and cached[0] == number:
            return cached[1]
        row = conn.execute(
            "SELECT chain FROM actions WHERE game_id = ? AND number = ?", (game_id, number)
        ).fetchone()
        if row is None:
            raise StoreError(f"{self.where}: game {game_id} has no action {number}")
        return str(row[0])


def write_cover(conn: sqlite3.Connection, game_id: str, cover: str | None) -> None:
    """The cover of the game to resume, or none (never an older one: it would show a
    state the game is no longer in)."""
    if cover is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (COVER_KEY,))
    else:
        set_meta(conn, COVER_KEY, cover_record(game_id, cover))


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Keep one small fact in the `meta` table."""
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
