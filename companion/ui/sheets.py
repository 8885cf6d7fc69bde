"""Sheets over a screen for one decision: which of several things a player gives up (an
allowance that went, or an ability's choice), what to do with one item (wear, sell, give,
discard), and the quote that unlocks a Magic card."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.modalview import ModalView

from companion.ui.i18n import _, card_name, tr
from companion.ui.questions import allowance_text
from companion.ui.weak import weakly
from companion.ui.widgets import FlatButton

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

OPTION_HEIGHT_DP = 52
# Air above and below the words of an option that wraps onto several lines.
OPTION_PADDING_DP = 12


def option_button(text: str, font_size: float | None = None) -> FlatButton:
    """A button for one option among several side by side: a long name wraps and the
    button grows to hold it, never below a finger's size."""
    button = FlatButton(text=text, size_hint_y=None, height=dp(OPTION_HEIGHT_DP))
    if font_size is not None:
        button.font_size = font_size

    def fit(widget: FlatButton, size: tuple[float, float]) -> None:
        widget.height = max(dp(OPTION_HEIGHT_DP), size[1] + dp(OPTION_PADDING_DP))

    button.bind(texture_size=fit)
    return button


class Sheet(ModalView):
    """A rounded panel over a dimmed screen, as tall as what it holds and never taller
    than the window; a tap beside it or the back key closes it and changes nothing."""

    # True from the moment it starts to close (it then fades out for a few frames).
    closing = BooleanProperty(False)

    def on_pre_open(self) -> None:
        self.closing = False

    def on_pre_dismiss(self) -> None:
        self.closing = True


class ChoiceSheet(Sheet):
    """Pick `count` of the options: with one to pick a single tap answers; with several,
    taps mark them and a button gives the answer once enough are marked."""

    title = StringProperty("")
    question = StringProperty("")
    count = NumericProperty(1)
    chosen = ListProperty([])

    def __init__(
        self,
        title: str,
        question: str,
        options: Sequence[tuple[str, str]],
        count: int,
        answered: Callable[[tuple[str, ...]], Any],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.title = title
        self.question = question
        self.count = count
        self._answered = answered
        self.buttons: dict[str, FlatButton] = {}
        grid = self.ids.options
        for key, label in options:
            button = option_button(label)
            button.bind(on_release=weakly(self.pick, key))
            grid.add_widget(button)
            self.buttons[key] = button

    def pick(self, key: str) -> None:
        """A tap on an option."""
        if self.count == 1:
            self.chosen = [key]
            self.confirm()
            return
        if key in self.chosen:
            self.chosen = [k for k in self.chosen if k != key]
        else:
            self.chosen = [*self.chosen, key][-int(self.count) :]

    def on_chosen(self, _sheet: Any, chosen: list[str]) -> None:
        for key, button in self.buttons.items():
            button.selected = key in chosen

    def confirm(self) -> None:
        """Give the answer (once enough options are marked)."""
        if len(self.chosen) != self.count:
            return
        self.dismiss()
        self._answered(tuple(self.chosen))


def ask_allowances(
    excesses: Sequence[Any],
    name: str,
    title: str,
    done: Callable[[tuple[str, ...]], Any],
    picks: tuple[str, ...] = (),
    again: Callable[[tuple[str, ...]], Sequence[Any]] | None = None,
) -> ChoiceSheet | None:
    """Ask, one sheet after the other, what the player gives up for each allowance that
    goes (the engine's `allowance_questions`), then call `done` with every pick. A pick
    may take another allowance with it (the Monk class, a second style): `again(picks)`
    gives what is still to ask once these are answered. Closing a sheet without an answer
    changes nothing. Returns the sheet on show (None: nothing to ask, `done` was called)."""
    if not excesses:
        more = tuple(again(picks)) if again is not None else ()
        if not more:
            done(picks)
            return None
        excesses = more
    first, rest = excesses[0], tuple(excesses[1:])
    sheet = ChoiceSheet(
        title=title,
        question=allowance_text(first.what, name, first.count),
        options=[(key, card_name(label)) for key, label in first.options],
        count=first.count,
        answered=lambda chosen: ask_allowances(rest, name, title, done, picks + chosen, again),
    )
    sheet.open()
    return sheet


class ItemSheet(Sheet):
    """One item's changes, one tap each: wear or take off, into or out of the sale, give
    to another player, discard. `owner` is the Player screen that applies them."""

    owner = ObjectProperty(None)
    item_id = StringProperty("")
    title = StringProperty("")
    detail = StringProperty("")
    worn = BooleanProperty(False)
    for_sale = BooleanProperty(False)
    can_wear = BooleanProperty(True)

    def __init__(self, players: Sequence[tuple[int, str, bool]], **kwargs: Any) -> None:
        """`players`: (seat, name, may receive it now) for each other player."""
        super().__init__(**kwargs)
        grid = self.ids.receivers
        self.receivers: dict[int, FlatButton] = {}
        for seat, name, allowed in players:
            button = option_button(name)
            button.dimmed = not allowed
            button.bind(on_release=weakly(self.give, seat))
            grid.add_widget(button)
            self.receivers[seat] = button
        if not players:
            self.ids.give_caption.text = ""

    def toggle_worn(self) -> None:
        """Wear it, or take it off and carry it."""
        self.dismiss()
        self.owner.toggle_worn(self.item_id)

    def toggle_sale(self) -> None:
        """Into the sale being put together on the Player screen, or out of it."""
        self.dismiss()
        self.owner.toggle_sale(self.item_id)

    def give(self, seat: int) -> None:
        """Give (trade) it to another player."""
        self.dismiss()
        self.owner.trade(self.item_id, seat)

    def discard(self) -> None:
        """It leaves play."""
        self.dismiss()
        self.owner.discard(self.item_id)


class QuoteSheet(Sheet):
    """Magic by quoting: the player types what they quote, and the rules refuse a quote
    already said in this game; the sheet then stays open with the reason, to try another."""

    title = StringProperty("")
    problem = StringProperty("")

    def __init__(self, session: Any, seat: int, **kwargs: Any) -> None:
        """`session`: the game session that checks and records the quote."""
        super().__init__(**kwargs)
        self.session = session
        self.seat = seat

    def say(self) -> None:
        """Record the quote, or say why the rules refuse it."""
        from pydantic import ValidationError

        from companion.core import SayQuote
        from companion.core.errors import validation_error_line

        text = self.ids.quote.text.strip()
        game = self.session.game
        if game is None:
            return
        if not text:
            self.problem = _("Type the quote first.")
            return
        try:
            action = SayQuote(player=self.seat, quote=text)
        except ValidationError as exc:
            self.problem = validation_error_line(exc)
            return
        refused = game.check(action)
        if refused is not None:
            self.problem = tr(refused)
            return
        if self.session.act(action):
            self.dismiss()
