"""Keeps the open game saved: the recorder follows the `Game` and owns its durability.

The recorder is the one follower of a game that saves it; nothing else tells the store
that the game changed. Whoever runs it says only *when* a change is written (`schedule`:
the app waits for the frame that shows the change, so the disk never holds up a frame)
and hands over the game's cover as it draws it (`offer_cover`); the store never calls
into the app. Whoever must not act before a change is on disk (a counter's press is
acknowledged only then) awaits `wait_durable(game.sequence)`.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Protocol

from companion.core import Game
from companion.core.statistics import GameSummary
from companion.plumbing.listeners import Listeners
from companion.store.durability import Durability
from companion.store.imports import check_id
from companion.store.journal import Change, Journal, change_of
from companion.store.stats import SummaryKeeper
from companion.store.writer import Job

# How long a blocking save waits for the writer before reporting a problem (s).
SAVE_TIMEOUT_S = 30.0
# A save that failed is tried again after this long, doubled after each failure up to
# the most (s): soon enough that a freed disk is used at once, rare enough not to churn.
RETRY_FIRST_S = 1.0
RETRY_MOST_S = 30.0

#: schedule(callback): call `callback` on the game's thread when the change is to be
#: written (the app: once the frame showing it is drawn). None: at once.
Schedule = Callable[[Callable[[], None]], object]
#: later(delay_s, callback): call `callback` on the game's thread after `delay_s`; may
#: be called from any thread. None: a failed save is tried again with the next change.
Later = Callable[[float, Callable[[], None]], object]


class RecordingStore(Protocol):
    """What a recorder needs of its store (the `GameStore` is the one real store)."""

    durability: Durability

    def journal(self, game_id: str, game: Game) -> Journal:
        """What the store has of the game already, to write only what is new."""

    def submit(self, change: Change) -> Job:
        """Queue a change of a game for writing."""

    def submit_cover(self, game_id: str, cover: str) -> Job:
        """Queue the game's cover for writing."""

    def keep_writing(self) -> None:
        """Have the writer up while a game is open."""


class Recorder:
    """Follows one game at a time (`follow`) and writes what changed in it."""

    def __init__(
        self, store: RecordingStore, schedule: Schedule | None = None, later: Later | None = None
    ) -> None:
        self._store = store
        self._schedule = schedule
        self._later = later
        # The journal is also reset from the writer thread when a save fails.
        self._lock = threading.Lock()
        self.game_id = ""
        self.game: Game | None = None
        self._journal: Journal | None = None
        self._unfollow: list[Callable[[], None]] = []
        # A change of the game waits to be written; the cover alone waits to be written.
        self._due = False
        self._cover_due = False
        # (game sequence, cover) as last handed over.
        self._cover: tuple[int, str] | None = None
        # Why the followed game's last change is not on disk (None: it is, or is on its
        # way). Told to `problem_listeners` when it changes, on the loop the saves came
        # from, or on the writer thread without one.
        self.problem: str | None = None
        self.problem_listeners: Listeners[[str | None]] = Listeners()
        self._retry_s = RETRY_FIRST_S
        self._retry_waiting = False
        store.durability.durable_listeners.add(self._durable)

    # -- following -------------------------------------------------------------------------
    def follow(self, game_id: str, game: Game | None) -> None:
        """Keep `game` saved under `game_id` from now on (None: no game). What the game
        followed so far still had to write is queued first."""
        if game is not None:
            check_id(game_id)
        self.save_soon()
        self._stop_following()
        if game is None:
            return
        self.game_id, self.game = game_id, game
        self._store.keep_writing()  # up while the game is open: no start on the next tap
        self._journal = self._store.journal(game_id, game)
        self._unfollow = [
            game.record_changes.add(self._recorded),
            game.subscribe(self._changed),
        ]

    def close(self) -> None:
        """Queue what is due and follow no game any more."""
        self.save_soon()
        self._stop_following()

    def offer_cover(self, cover: str) -> None:
        """The cover of the followed game as it is now (see `companion.store.cover`), made
        by whoever drew it. It goes with the next change, or alone once it is time to
        write when the change it shows was written without it."""
        game, journal = self.game, self._journal
        if game is None or journal is None:
            return
        self._cover = (game.sequence, cover)
        if not self._due and not self._cover_due and cover != journal.cover:
            self._cover_due = True
            self._ask()

    def summary(self) -> GameSummary | None:
        """The followed game's statistics summary as it stands (folding only the actions
        new since the last save); None when no game is followed."""
        game, journal = self.game, self._journal
        if game is None or journal is None:
            return None
        if journal.keeper is None or journal.keeper.game is not game:
            journal.keeper = SummaryKeeper(game)
        return journal.keeper.summary()

    @property
    def needs_cover(self) -> bool:
        """Whether no cover handed over shows the followed game as it is now."""
        return self.game is not None and self._current_cover() is None

    # -- writing ---------------------------------------------------------------------------
    def save_soon(self) -> None:
        """Queue what is due for the writer thread and return at once."""
        journal = self._journal
        if journal is None:
            return
        if self._due:
            self._due = self._cover_due = False
            self._submit(self._change(journal))
        elif self._cover_due:
            self._cover_due = False
            cover = self._current_cover()
            if cover is not None and cover != journal.cover:
                journal.cover = cover
                self._store.submit_cover(self.game_id, cover)

    def save(self) -> None:
        """Write what changed and return once it is on disk; StoreError when it cannot be."""
        journal = self._journal
        if journal is None:
            return
        self._due = self._cover_due = False
        self._submit(self._change(journal)).wait(SAVE_TIMEOUT_S)

    def wait_durable(self, sequence: int) -> Awaitable[None]:
        """Finishes once the followed game's change numbered `sequence` (a `Game.sequence`)
        is on disk; raises StoreError when the save carrying it failed. The game is the
        one followed when this is called, whatever is opened before the await."""
        return self._store.durability.wait(self.game_id, sequence)

    def is_durable(self, sequence: int) -> bool:
        """Whether the followed game's change numbered `sequence` is on disk."""
        return self._store.durability.is_durable(self.game_id, sequence)

    # -- told by the store -----------------------------------------------------------------
    def written_elsewhere(self, game_id: str) -> None:
        """What the database holds of that game is no longer known: write it whole next.
        Called on any thread (a failed save is reported on the writer thread)."""
        with self._lock:
            if game_id == self.game_id and self._journal is not None:
                self._journal.forget()

    def renamed(self, game_id: str, new_id: str) -> None:
        """The game saved as `game_id` goes on as `new_id` (it was kept beside another
        program's game of that id): the followed game is saved there from now on."""
        with self._lock:
            if game_id == self.game_id:
                self.game_id = new_id

    def change_failed(self, change: Change) -> None:
        """A change was rolled back (told on the writer thread): what it carried is not
        in the database, so the next change writes it again."""
        with self._lock:
            if change.game_id == self.game_id and self._journal is not None:
                self._journal.failed(change)

    def save_failed(self, game_id: str, message: str) -> None:
        """A save of that game was rolled back (told on the loop or the writer thread):
        say so, and try again after a while (the change is not lost: it is in the game)."""
        if game_id != self.game_id:
            return
        self.problem = message
        self.problem_listeners.emit(message)
        if self._later is not None and not self._retry_waiting:
            self._retry_waiting = True
            delay, self._retry_s = self._retry_s, min(self._retry_s * 2, RETRY_MOST_S)
            self._later(delay, self._retry)

    def deleted(self, game_id: str) -> None:
        """That game was deleted: follow it no more, and write nothing more of it."""
        if game_id == self.game_id:
            self._due = self._cover_due = False
            self._stop_following()

    # -- inside ----------------------------------------------------------------------------
    def _retry(self) -> None:
        self._retry_waiting = False
        if self.game is not None and self.problem is not None:
            self._due = True
            self.save_soon()

    def _durable(self, game_id: str, _sequence: int) -> None:
        if game_id == self.game_id and self.problem is not None:
            self.problem = None
            self._retry_s = RETRY_FIRST_S
            self.problem_listeners.emit(None)

    def _recorded(self, first: int) -> None:
        with self._lock:
            if self._journal is not None:
                self._journal.changed_from(first)

    def _changed(self, _state: object) -> None:
        if not self._due:
            self._due = True
            self._ask()

    def _ask(self) -> None:
        if self._schedule is None:
            self.save_soon()
        else:
            self._schedule(self.save_soon)

    def _change(self, journal: Journal) -> Change:
        with self._lock:
            return change_of(self.game_id, journal, mark=True, cover=self._current_cover())

    def _current_cover(self) -> str | None:
        """The cover handed over, when it shows the game as it is now."""
        offered, game = self._cover, self.game
        if offered is None or game is None or offered[0] != game.sequence:
            return None
        return offered[1]

    def _submit(self, change: Change) -> Job:
        return self._store.submit(change)

    def _stop_following(self) -> None:
        for stop in self._unfollow:
            stop()
        self._unfollow = []
        self.game_id, self.game, self._journal = "", None, None
        self._due = self._cover_due = False
        self._cover = None
        if self.problem is not None:  # the game put away is said no more
            self.problem = None
            self.problem_listeners.emit(None)
