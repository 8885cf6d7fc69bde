"""Which change of each saved game is on disk, told across threads.

The writer thread reports every commit and every failure here. Whoever waits for a
change to be durable (a counter's press is acknowledged only then) is woken on the
asyncio loop it waits on; listeners are told on that loop too, or on the writer thread
when the store has never been used from a loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from companion.plumbing.errors import StoreError
from companion.plumbing.listeners import Listeners


class Durability:
    """The newest durable `Game.sequence` of each game, and who waits for which."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._durable: dict[str, int] = {}
        self._waiters: list[tuple[str, int, asyncio.Future[None]]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        # Told (game id, sequence) once the change numbered `sequence` is on disk.
        self.durable_listeners: Listeners[[str, int]] = Listeners()
        # Told (game id, message) when a save could not be written.
        self.problem_listeners: Listeners[[str, str]] = Listeners()

    def remember_loop(self) -> None:
        """Note the asyncio loop running now (if any): news is delivered on it."""
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return

    def is_durable(self, game_id: str, sequence: int) -> bool:
        """Whether the change numbered `sequence` of that game is on disk."""
        with self._lock:
            return self._durable.get(game_id, -1) >= sequence

    def wait(self, game_id: str, sequence: int) -> asyncio.Future[None]:
        """A future that is done once the change numbered `sequence` of that game is on
        disk, or fails with StoreError when the save carrying it failed. Call it on the
        running loop; the game is the one named now, whatever happens before the await."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._durable.get(game_id, -1) >= sequence:
                future.set_result(None)
            else:
                self._waiters.append((game_id, sequence, future))
        return future

    def forget(self, game_id: str) -> None:
        """A deleted game: whoever still waits for it is told it will not be saved."""
        with self._lock:
            self._durable.pop(game_id, None)
        self._deliver(self._fail_waiters, game_id, f"game {game_id} was deleted")

    # -- from the writer thread ------------------------------------------------------------
    def committed(self, reached: dict[str, int]) -> None:
        """These games are on disk up to these sequences."""
        if not reached:
            return
        with self._lock:
            for game_id, sequence in reached.items():
                if sequence > self._durable.get(game_id, -1):
                    self._durable[game_id] = sequence
        self._deliver(self._announce, reached)

    def failed(self, game_id: str, message: str) -> None:
        """A save of that game was rolled back: whoever waits for it is told so."""
        self._deliver(self._announce_failure, game_id, message)

    def _deliver(self, callback: Callable[..., None], *args: object) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(callback, *args)
                return
            except RuntimeError:  # the loop closed in the meantime
                pass
        callback(*args)

    def _announce(self, reached: dict[str, int]) -> None:
        with self._lock:
            ready = [w for w in self._waiters if reached.get(w[0], -1) >= w[1]]
            self._waiters = [w for w in self._waiters if w not in ready]
        for _game_id, _sequence, future in ready:
            if not future.done():
                future.set_result(None)
        for game_id, sequence in reached.items():
            self.durable_listeners.emit(game_id, sequence)

    def _announce_failure(self, game_id: str, message: str) -> None:
        self._fail_waiters(game_id, message)
        self.problem_listeners.emit(game_id, message)

    def _fail_waiters(self, game_id: str, message: str) -> None:
        with self._lock:
            failed = [w for w in self._waiters if w[0] == game_id]
            self._waiters = [w for w in self._waiters if w[0] != game_id]
        for _game_id, _sequence, future in failed:
            if not future.done():
                future.set_exception(StoreError(message))
