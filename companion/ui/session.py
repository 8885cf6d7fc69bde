"""The Kivy view-model of the table: Kivy properties for screens to bind to, over the
`Table` application (`companion.table`) that owns the open game, its saving and its
followers.

Screens send actions through `act()` and presses through `press()`, and read `state`;
the table decides, and a refusal is shown through the `notify` callback in the player's
language. The session never navigates: it fires `on_opened` (a game was opened or
closed) and `on_won` (the open game just got a winner), and whoever wired it decides
which screen to show.

The table's recorder is told here only when to write (once the frame that shows a change
is drawn) and is handed the Table's cover as the Table draws it.

Nothing heavy is imported until `load()`: the app creates the session before its first
frame, and the rules engine, the store and the table come in right after.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock, mainthread
from kivy.core.window import Window
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from companion.ui.i18n import _, tr

if TYPE_CHECKING:
    from companion.core import Game, GameSetup, GameState, RandomSource
    from companion.core.presses import Press
    from companion.store import GameStore, Recorder
    from companion.table.app import Table
    from companion.table.outcome import Outcome

log = logging.getLogger(__name__)

# notify(text, error): how the session tells the table what happened.
Notify = Callable[[str, bool], None]
# A change is written after the frame that shows it, or after this long (s) when no
# frame is drawn (a window in the background).
SAVE_AFTER_S = 0.1


class GameSession(EventDispatcher):
    """The open game: state for screens to bind to, actions, undo/redo and saved games.

    Events: `on_opened(game)` after a game is opened or closed (game is None then), and
    `on_won()` when the open game's state first shows a winner.
    """

    # The open game's latest state (None while no game is open); follows the game on the
    # next frame, so a burst of actions redraws once.
    state = ObjectProperty(None, allownone=True)
    game_id = StringProperty("")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)
    # Why the open game's last change is not saved yet ("" when it is): shown on the
    # Table until a later try succeeds.
    save_problem = StringProperty("")

    __events__ = ("on_opened", "on_won")

    def __init__(self, notify: Notify, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._notify = notify
        # Set by load(), right after the app's first frame.
        self.table: Table
        self._unsubscribe: Callable[[], None] | None = None
        # -1: before the coming frame, so the frame right after a tap shows it.
        self._publish_trigger = Clock.create_trigger(self._publish, -1)
        # Makes a cover for a save that cannot wait for the Table to draw the game.
        self._make_cover: Callable[[Game], str] | None = None
        # What runs once the frame showing the latest change is drawn (see `_after_frame`).
        self._after_drawn: list[Callable[[], None]] = []

    def on_opened(self, game: Game | None) -> None:
        """Default handler: nothing (the app binds to it)."""

    def on_won(self) -> None:
        """Default handler: nothing (the app binds to it)."""

    # -- the table's parts, for the screens that show them ------------------------------
    @property
    def game(self) -> Game | None:
        """The open game (None before `load()` and while no game is open)."""
        table = getattr(self, "table", None)
        return table.game if table is not None else None

    @property
    def games(self) -> GameStore:
        """The saved games."""
        return self.table.games

    @games.setter
    def games(self, store: GameStore) -> None:
        self.table.games = store

    @property
    def recorder(self) -> Recorder:
        """What keeps the open game saved (see `companion.store.recorder`)."""
        return self.table.recorder

    @property
    def dice(self) -> RandomSource:
        """Where a new game's dice come from (tests fix them)."""
        return self.table.dice

    @dice.setter
    def dice(self, dice: RandomSource) -> None:
        self.table.dice = dice

    # -- start-up ------------------------------------------------------------------------
    def load(
        self,
        data_dir: Path | None,
        cover: Callable[[Game], str] | None = None,
        kill_seconds: Callable[[], float] | None = None,
    ) -> None:
        """Open the saved games in `data_dir` (the user's data folder when None).

        The Table hands the recorder its cover as it draws (`cover_drawn`); `cover`
        makes one only for a save that cannot wait for that (closing on another screen).
        `kill_seconds` is the wait before a called kill is final (the settings').
        """
        from companion.table.app import Table
        from companion.ui.countdown import clock_timer

        extra: dict[str, Any] = {} if kill_seconds is None else {"kill_seconds": kill_seconds}
        self.table = Table(
            data_dir, schedule=self._after_frame, later=_later, timer=clock_timer, **extra
        )
        # Told on the loop the saves came from, or on the writer thread without one.
        self.recorder.problem_listeners.add(mainthread(self._save_problem_changed))
        self.table.notices.add(lambda text, error: self._notify(tr(text), error))
        self.table.followers.add(self._opened)
        self._make_cover = cover

    def resume(self) -> str | None:
        """Open the last game played; returns why it could not be opened, or None.

        With no last game (or a damaged one) no game is open afterwards.
        """
        problems = self.table.resume()
        return "; ".join(problems) if problems else None

    # -- the open game -------------------------------------------------------------------
    @property
    def live_state(self) -> GameState | None:
        """The game's state right now (`state` follows it on the next frame)."""
        game = self.game
        return game.state if game is not None else None

    def act(self, action: Any, **fields: Any) -> bool:
        """Apply an action (an instance, or an action class plus its fields) to the game.

        A broken rule or a bad value is shown to the user and changes nothing; the
        answer says whether the action was applied.
        """
        if self.game is None:
            self._notify(_("Start a game first."), False)
            return False
        return self._said(self.table.act(action, **fields))

    def press(self, press: Press, seat: int, override: str | None = None) -> bool:
        """A Level or Gear +/- tapped on a screen: the same press path, refusals and words
        as a counter's button or a phone (see `Table.press`)."""
        if self.game is None:
            self._notify(_("Start a game first."), False)
            return False
        return self._said(self.table.press(press, seat, "tap", override=override))

    def _said(self, outcome: Outcome) -> bool:
        if outcome.refused:
            self._notify(tr(outcome.why), True)
        return outcome.applied

    def take_roll(self, seat: int, face: int | None, die: str = "", monster: int = -1) -> bool:
        """A run-away roll typed, rolled or thrown with a smart die on the Run away screen:
        the same path as a phone's roll (see `Table.take_roll`)."""
        chosen = monster if monster >= 0 else None
        return self._said(self.table.take_roll(seat, face, "tap", die=die, monster=chosen))

    def kill(self) -> bool:
        """Call the kill: the table's countdown starts (or the tap hears why not)."""
        return self._said(self.table.kill("tap"))

    def interfere(self) -> None:
        """Wait! Someone plays a card: the countdown stops."""
        outcome = self.table.interfere("tap")
        if outcome.applied:
            self._notify(tr(outcome.why), False)

    def allowed(self, action: Any, **fields: Any) -> bool:
        """Whether the rules would accept the action now (for dimming buttons); changes nothing."""
        return self.game is not None and self.table.allowed(action, **fields)

    def undo(self, steps: int = 1) -> None:
        """Take back the last `steps` actions, saying what was taken back."""
        outcome = self.table.undo(steps)
        self._notify(tr(outcome.why), False)

    def redo(self, steps: int = 1) -> None:
        """Apply again the last `steps` actions taken back, saying what was brought back."""
        outcome = self.table.redo(steps)
        self._notify(tr(outcome.why), False)

    def last_in_words(self) -> str:
        """The action the open game recorded last, in the player's language."""
        return tr(self.table.last_in_words())

    # -- saved games ---------------------------------------------------------------------
    def start(self, setup: GameSetup) -> Game:
        """Open a new game from a setup and save it at once."""
        return self.table.start(setup)

    def open(self, game_id: str) -> bool:
        """Open a saved game; a damaged file is reported and nothing changes."""
        return self.table.open(game_id)

    def adopt(self, game: Game) -> None:
        """Open a game built elsewhere (a demo, say) under a new saved id, and save it."""
        self.table.adopt(game)

    def close(self) -> None:
        """Put the open game away (it stays saved)."""
        self.save()
        self.table.close()

    def delete(self, game_id: str) -> None:
        """Delete a saved game (closing it first if it is open)."""
        self.table.delete(game_id)

    def export(self, game_id: str, dest: Path) -> Path | None:
        """Write a saved game's log to `dest`; returns the file written."""
        from companion.store import StoreError

        self.save()
        if dest.is_dir():
            summary = next((i for i in self.games.list() if i.id == game_id), None)
            dest = export_name(summary, dest)
        try:
            written = self.games.export(game_id, dest)
        except (StoreError, OSError) as exc:
            self._notify(tr(exc), True)
            return None
        self._notify(_("Saved to {path}").format(path=written), False)
        return written

    def meaning(self) -> list[Any]:
        """What the open game, won, meant at this table (`Table.meaning`)."""
        return self.table.meaning()

    def export_plays(self, game_id: str = "") -> list[Path]:
        """Write a finished game (the open one by default) for BG Stats and for a
        spreadsheet into the data folder's exports folder, and say where (a problem is
        said instead)."""
        from companion.store import StoreError

        try:
            written = self.table.export_game(game_id)
        except (StoreError, OSError) as exc:
            self._notify(tr(exc), True)
            return []
        self._notify(
            _("Written for BG Stats and spreadsheets: {paths}").format(
                paths=", ".join(str(path) for path in written)
            ),
            False,
        )
        return written

    def import_file(self, src: Path) -> str | None:
        """Add a game-log file to the saved games; returns its id."""
        from companion.store import StoreError

        if not src.is_file():
            self._notify(_("File not found: {path}").format(path=src), True)
            return None
        from companion.store import imports

        try:
            same = self._saved_copy_of(imports.read_json(src))
            if same is not None:
                self._notify(_("This game is already saved: nothing was added."), False)
                return same
            game_id = self.games.import_file(src)
        except (StoreError, OSError) as exc:
            self._notify(tr(exc), True)
            return None
        self._notify(_("Game imported."), False)
        return game_id

    def _saved_copy_of(self, game: Game) -> str | None:
        """The id of a saved game with the very same log, if any (an import done twice)."""
        text = game.to_json()
        players = tuple(p.name for p in game.state.setup.players)
        for item in self.games.list():
            same_table = item.problem is None and item.players == players
            if same_table and self.games.load(item.id).to_json() == text:
                return item.id
        return None

    def recover(self) -> bool:
        """Bring back what can still be read of a damaged copy of the saved games kept
        aside, saying how much came back; False when nothing could be tried."""
        from companion.store import StoreError

        try:
            report = self.games.recover()
        except (StoreError, OSError) as exc:
            self._notify(tr(exc), True)
            return False
        said = _(
            "Recovered: {whole} whole, {short} with actions that could not be read left out, "
            "{lost} lost."
        ).format(whole=len(report.whole), short=len(report.shortened), lost=len(report.lost))
        if report.beside:
            said += " " + _(
                "{count} went on differently from the game saved under the same name: "
                "both are kept."
            ).format(count=len(report.beside))
        self._notify(said, bool(report.lost or report.shortened or report.beside))
        return True

    def save(self) -> None:
        """Write what changed in the open game and wait until it is on disk (a failure is
        shown, never raised)."""
        game = self.game
        if game is None or not self.game_id:
            return
        if self.recorder.needs_cover and self._make_cover is not None:
            # The Table has not drawn the game as it is now (another screen is on show):
            # the next start must not show an older Table.
            self.recorder.offer_cover(self._make_cover(game))
        self.table.save()

    def cover_drawn(self, cover: str) -> None:
        """The Table drew the open game as it is now: `cover` is what it showed (see
        `companion.store.cover`), kept with the game's next save."""
        if self.game is not None:
            self.recorder.offer_cover(cover)

    # -- inside --------------------------------------------------------------------------
    def _opened(self, game: Game | None, game_id: str) -> None:
        """The table opened `game` (or closed its game: None)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.game_id = game_id
        if game is not None:
            self._unsubscribe = game.subscribe(self._game_changed)
        self.dispatch("on_opened", game)
        self._publish()

    def _game_changed(self, _state: GameState) -> None:
        # The screens follow on the next frame (the counters heard the game before this);
        # the recorder writes the change once that frame is drawn (`_after_frame`).
        self._publish_trigger()

    def _after_frame(self, callback: Callable[[], None]) -> None:
        """When the recorder writes a change: once the frame that shows it is drawn
        (waking the writer thread costs the UI thread a few ms, which the frame must not
        wait for), or after SAVE_AFTER_S when no frame comes. A counter's press is
        acknowledged only once its save is durable, so nothing is acknowledged early."""
        if callback in self._after_drawn:
            return
        self._after_drawn.append(callback)
        if len(self._after_drawn) == 1:
            Window.bind(on_flip=self._frame_drawn)
            Clock.schedule_once(self._frame_drawn, SAVE_AFTER_S)

    def _frame_drawn(self, *_args: Any) -> None:
        Clock.unschedule(self._frame_drawn)
        if self._publish_trigger.is_triggered:  # the frame that shows the change is next
            Clock.schedule_once(self._frame_drawn, SAVE_AFTER_S)
            return
        Window.unbind(on_flip=self._frame_drawn)
        due, self._after_drawn = self._after_drawn, []
        for callback in due:
            self._write(callback)

    def _write(self, callback: Callable[[], None]) -> None:
        from companion.store import StoreError

        try:
            callback()
        except StoreError as exc:  # the store is closed
            self._save_problem_changed(str(exc))

    def _save_problem_changed(self, problem: str | None) -> None:
        if problem and not self.save_problem:  # said at once; the Table keeps showing it
            self._notify(_("The game could not be saved: {problem}").format(problem=problem), True)
        self.save_problem = problem or ""

    def _publish(self, *_args: Any) -> None:
        game = self.game
        before = self.state
        self.state = game.state if game is not None else None
        self.can_undo = bool(game is not None and game.can_undo)
        self.can_redo = bool(game is not None and game.can_redo)
        newly_won = (
            self.state is not None
            and self.state.winners
            and (before is None or not before.winners or before.setup != self.state.setup)
        )
        if newly_won:
            self.dispatch("on_won")


def _later(delay_s: float, callback: Callable[[], None]) -> None:
    """When the recorder tries a failed save again: on the UI thread, after `delay_s`
    (Kivy's clock may be asked from the writer thread)."""
    Clock.schedule_once(lambda _dt: callback(), delay_s)


def export_name(item: Any, folder: Path) -> Path:
    """A file in `folder` named by the game's players and its day ("Anna-Bram 2026-11-24.json"),
    not yet taken: a second export of the day gets "(2)"."""
    import re

    names = "-".join(item.players) if item is not None and item.players else "game"
    # Only what every file system accepts: letters of any script, digits, - and _.
    stem = re.sub(r"[^\w-]+", "_", names).strip("_")[:60] or "game"
    day = item.updated.astimezone().strftime("%Y-%m-%d") if item is not None else ""
    base = f"{stem} {day}".strip()
    path = folder / f"{base}.json"
    n = 2
    while path.exists():
        path = folder / f"{base} ({n}).json"
        n += 1
    return path
