"""History: every action of the game in words, newest first, with undo and redo.

The list is a RecycleView: only the lines on screen exist as widgets, and a line's
words are worked out when it scrolls into view (a block of neighbours at a time, with
one fold of the log). The list holds the newest SHOWN_STEP actions and a button for
older ones (Kivy lays out every entry of a RecycleView's data on each change), so an
undo costs the same in a 3,000-action game as in a short one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

from kivy.factory import Factory
from kivy.properties import NumericProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.recycleview.views import RecycleDataViewBehavior

from companion.core import BaseAction, Game, GameState, describe
from companion.core.game import CHECKPOINT_INTERVAL
from companion.ui.i18n import ngettext, tr
from companion.ui.recycled import RecycledList
from companion.ui.screens.base import PagedScreen

# Lines worked out together when one scrolls into view: one fold serves them all.
WORDS_BLOCK = CHECKPOINT_INTERVAL
# Actions listed at first, and added by each tap on "Show older actions".
SHOWN_STEP = 100


class HistoryLine(RecycleDataViewBehavior, ButtonBehavior, Label):
    """One log line; a tap takes back its action and every one after it."""

    revision = NumericProperty(0)  # the action's index in the log (0 = the first)
    steps = NumericProperty(1)  # how many actions a tap takes back

    def refresh_view_attrs(self, rv: Any, index: int, data: dict[str, Any]) -> None:
        self._view = rv
        screen = rv.screen
        self.revision = data["revision"]
        self.steps = data["steps"]
        self.text = f"{self.revision + 1}.  {screen.words(self.revision)}"
        super().refresh_view_attrs(rv, index, data)

    def on_release(self) -> None:
        self._view.screen.undo_to(self.steps)


Factory.register("HistoryLine", cls=HistoryLine)


class HistoryMore(ButtonBehavior, Label):
    """The last entry of a long list: lists older actions too."""

    def on_release(self) -> None:
        self.parent.parent.screen.show_older()


Factory.register("HistoryMore", cls=HistoryMore)


class HistoryScreen(PagedScreen):
    """The log as sentences, newest first."""

    count = NumericProperty(0)
    # How many actions the last tap on an older line took back (0: none to bring back).
    jumped = NumericProperty(0)
    page_size = SHOWN_STEP

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # revision -> (the action it was worked out for, its words)
        self._words: dict[int, tuple[BaseAction, str]] = {}
        self.ids.lines.screen = self

    @property
    def entries(self) -> Sequence[str]:
        """The lines' words, newest first (worked out on reading)."""
        return _Entries(self)

    def undo(self) -> None:
        """Take back the newest action."""
        self.jumped = 0
        self.session.undo()

    def undo_to(self, steps: int) -> None:
        """A tap on an entry: take back that action and every one after it (redo restores)."""
        self.session.undo(steps)
        self.jumped = steps if steps > 1 else 0

    def redo(self) -> None:
        """Apply again the action taken back last."""
        self.jumped = 0
        self.session.redo()

    def bring_back(self) -> None:
        """Apply again, in one tap, every action the last tap on an older line took back."""
        steps, self.jumped = self.jumped, 0
        game = self.session.game
        if game is None or steps < 1 or game.recorded - game.revision < steps:
            return
        self.session.redo(steps)

    def words(self, revision: int) -> str:
        """The words of action `revision` (0-based), from the state it met."""
        game = self.session.game
        if game is None or revision >= game.revision:
            return ""
        action = game.action_at(revision)
        known = self._words.get(revision)
        if known is not None and known[0] is action:
            return known[1]
        self._work_out(game, revision)
        return self._words[revision][1]

    def scroll_to(self, revision: int) -> None:
        """Bring the line of action `revision` into view (drawn on the next frame)."""
        game = self.session.game
        if game is None or not 0 <= revision < game.revision:
            return
        position = game.revision - 1 - revision  # newest first
        while position >= self.listed:
            self.show_older()
        self.lines.scroll_to_index(position)

    @property
    def lines(self) -> RecycledList:
        """The scrolling list of lines."""
        return self.ids.lines

    def line_of(self, revision: int) -> HistoryLine | None:
        """The widget showing action `revision`, if it is on screen."""
        for line in self.ids.lines.layout_manager.children:
            if isinstance(line, HistoryLine) and line.revision == revision:
                return line
        return None

    def refresh(self) -> None:
        game = self.session.game
        applied = game.revision if game is not None else 0
        if game is None or (self.jumped and game.recorded - applied < self.jumped):
            self.jumped = 0
        self.count = applied
        shown = min(applied, self.listed)
        data: list[dict[str, Any]] = [
            {"viewclass": "HistoryLine", "revision": revision, "steps": applied - revision}
            for revision in range(applied - 1, applied - 1 - shown, -1)
        ]
        if shown < applied:
            older = min(SHOWN_STEP, applied - shown)
            data.append(
                {
                    "viewclass": "HistoryMore",
                    "text": ngettext(
                        "Show {n} older action", "Show {n} older actions", older
                    ).format(n=older),
                }
            )
        self.ids.lines.data = data

    def _work_out(self, game: Game, revision: int) -> None:
        start = revision - revision % WORDS_BLOCK
        stop = min(start + WORDS_BLOCK, game.revision)
        states = game.states_between(start, stop)
        for index, before in zip(range(start, stop), states, strict=True):
            action = game.action_at(index)
            self._words[index] = (action, _in_words(action, before))


class _Entries(Sequence[str]):
    """The History lines, newest first, worked out when read."""

    def __init__(self, screen: HistoryScreen) -> None:
        self._screen = screen
        game = screen.session.game
        self._count = game.revision if game is not None else 0

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("no such History line")
        revision = self._count - 1 - index
        return f"{revision + 1}.  {self._screen.words(revision)}"

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(self._count))


def _in_words(action: BaseAction, before: GameState) -> str:
    try:
        return tr(describe(action, before))
    except (ValueError, LookupError, AttributeError):
        # A log written by a newer version may hold actions this one cannot word.
        return action.type.replace("_", " ")
