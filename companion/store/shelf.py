"""The statistics side of the saved games: every game's summary read in one query (no
game is opened), kept between readings so that after a save only the games saved since
are read again, and the summaries of games saved before statistics were kept made once,
on a worker thread (`companion.store.stats` holds the tables' queries and the sums)."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable

from companion.core import GameSetup
from companion.core.game import collector_paused
from companion.core.log_versions import read_actions, readable_version, upgrade_setup
from companion.core.models import SAVED_GAME
from companion.core.statistics import STATS_ENGINE, GameSummary, summarise
from companion.plumbing.errors import CompanionError, StoreError
from companion.store.reading import Reader
from companion.store.stats import (
    PEOPLE_SUMMARIES_QUERY,
    SAVED_SINCE_QUERY,
    STATS_SEEN_QUERY,
    SUMMARIES_QUERY,
    WAITING_QUERY,
    KeptStatistics,
    StoredStatistics,
    Summarising,
    write_summary_made_late,
)
from companion.store.writer import Job

log = logging.getLogger(__name__)


class StatisticsShelf:
    """Reads and makes the statistics summaries of one store: `submit` queues a job for
    its writer thread, `settle` waits until what is queued is written."""

    def __init__(
        self,
        reader: Reader,
        submit: Callable[[Job], object],
        settle: Callable[[], object],
    ) -> None:
        self._reader = reader
        self._submit = submit
        self._settle = settle
        self._summarising: Summarising | None = None
        # The statistics last read, and what the tables looked like then.
        self._cache: tuple[object, StoredStatistics] | None = None
        self._kept = KeptStatistics()
        # Held while the summaries are read: the first reading may be made ahead, on a
        # worker thread, while the screen asks for them.
        self._reading = threading.RLock()

    def read(self) -> StoredStatistics:
        """Every saved game's statistics summary, read from the `stats` table in one query:
        the games not summarised yet and those that could not be read are counted, not
        shown."""
        with self._reading:
            return self._read()

    def read_ahead(self) -> None:
        """Read the summaries once on a worker thread, so that the first opening of the
        statistics finds them read (a thousand games take a few tenths of a second)."""

        def read() -> None:
            try:
                self.read()
            except Exception as exc:  # a store closed meanwhile: read when they are opened
                log.info("statistics could not be read ahead: %s", exc)

        threading.Thread(target=read, name="companion-store-read-ahead", daemon=True).start()

    def _read(self) -> StoredStatistics:
        reader = self._reader
        source = reader.source
        # Read again only when a game was saved, summarised or deleted since the last time.
        seen = reader.one(STATS_SEEN_QUERY, (STATS_ENGINE,))
        cached = self._cache
        if source is None and cached is not None and cached[0] == seen:
            return cached[1]
        kept = self._kept
        before = cached[0] if cached is not None else None
        if (
            source is None
            and isinstance(before, tuple)
            and seen is not None
            and before[:2] == seen[:2]
            and before[3:] == seen[3:]
        ):
            # As many games and summaries as before, none deleted, nobody renamed or
            # merged: only saves since, of the games played since.
            stored = kept.read_changed(reader.all(SAVED_SINCE_QUERY, (kept.played,)))
            self._cache = (seen, stored)
            return stored
        rows = reader.all(PEOPLE_SUMMARIES_QUERY, ())
        if source is not None:  # the user's games, read-only while saves go elsewhere
            own = {row[0] for row in rows}
            try:
                theirs = reader.all(SUMMARIES_QUERY, (), source)
            except StoreError:  # an earlier schema, with no summaries: all of them wait
                try:
                    theirs = [
                        (row[0], None, None)
                        for row in reader.all("SELECT id FROM games", (), source)
                    ]
                except StoreError as exc:
                    log.warning("the read-only saved games cannot be read: %s", exc)
                    theirs = []
            # Their `played` counts apart from ours: not read as saves since.
            rows += [(*row[:3], None, None, *row[5:]) for row in theirs if row[0] not in own]
        stored = kept.read_all(rows)
        self._cache = (seen, stored)
        return stored

    def by_game(self) -> dict[str, GameSummary]:
        """Each saved game's summary by the game's id, as `read` finds them (the games
        waiting to be summarised and those that could not be read left out)."""
        with self._reading:
            self._read()
            return {
                game_id: found
                for game_id, (_row, found) in self._kept.games.items()
                if isinstance(found, GameSummary)
            }

    def summarise_waiting(self) -> Summarising:
        """Summarise, once, on a worker thread, the games saved before statistics were
        kept (or by an older way of making them); returns how far it has got. A game that
        cannot be read is kept as such, and counted."""
        running = self._summarising
        if running is not None and running.running:
            return running
        found = self._reader.all(WAITING_QUERY, (STATS_ENGINE,))
        job = self._summarising = Summarising(len(found))
        threading.Thread(
            target=job.run,
            args=([str(row[0]) for row in found], self._summary_text, self._keep_summary),
            kwargs={"settle": self._settle},
            name="companion-store-statistics",
            daemon=True,
        ).start()
        return job

    def stop(self, timeout_s: float) -> None:
        """Stop summarising older games (what is done stays done)."""
        if self._summarising is not None:
            self._summarising.stop()
            self._summarising.finished.wait(timeout_s)

    def _summary_text(self, game_id: str) -> str | None:
        """A saved game's summary, folded from its log (None when it cannot be read whole)."""
        reader = self._reader
        row = reader.one(
            "SELECT setup, revision, recorded, log_version FROM games WHERE id = ?", (game_id,)
        )
        if row is None:
            return None
        setup_text, revision, recorded, version = row
        if not isinstance(revision, int) or not isinstance(recorded, int):
            return None
        conn: sqlite3.Connection = reader.conn
        try:
            with collector_paused():
                bodies = reader.bodies(conn, game_id)
                _digests, intact = reader.verified(conn, game_id, bodies, None)
                if intact < recorded or revision > recorded:
                    return None
                setup = GameSetup.model_validate(
                    upgrade_setup(readable_version(version), json.loads(str(setup_text))),
                    context={SAVED_GAME: True},
                )
                actions = read_actions(version, "[" + ",".join(bodies[:revision]) + "]")
                return summarise(setup, actions).to_json()
        except (CompanionError, ValueError, RecursionError) as exc:
            log.info("game %s cannot be summarised: %s", game_id, exc)
            return None

    def _keep_summary(self, game_id: str, summary: str | None) -> None:
        self._submit(Job(lambda conn: write_summary_made_late(conn, game_id, summary)))
