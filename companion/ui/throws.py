"""Several throws in one go from the smart dice: the roll for the first player and the ties
when the others loot a body. The engine takes such an action with every roll in it, so the
throws are collected first, one player at a time, and the action is applied with them.

Each player throws their own die, or the "whoever is rolling" die is thrown once per player
in seat order; players still tied throw again, as the rules ask (for the first player only
a tie for the highest throw matters). A player with no die, or a die that goes away, never
holds the table up: "Roll the rest here" rolls what is left on screen. With no die for
anyone who has to throw, nothing here runs and the screen rolls as before.

Whoever goes first, the table sees every throw that decided it, on dice or on screen,
until someone taps OK.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView

from companion.core import LootTheBody, RollForFirstPlayer, rules
from companion.core.chapters.rolls import Settle, d6, highest_by_rolls
from companion.core.dice import RandomSource, SecretsDice
from companion.ui.dice_service import DiceService, dice_service
from companion.ui.i18n import _
from companion.ui.weak import weakly

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

Groups = Sequence[Sequence[int]]
# (rolls, die per roll) -> what they decided, in words (shown when the pop-up stays open).
ThrowsDone = Callable[[tuple[int, ...], tuple[str, ...]], str | None]


class _Short(Exception):
    """The rolls so far do not settle the order yet."""


def _throwers(
    groups: Groups, rolls: Sequence[int], settle: Settle = rules.order_by_rolls
) -> tuple[list[int], bool]:
    """Who throws, in order, as far as `rolls` go (plus whoever is next), and whether the
    rolls settle the order (every tie, or with `highest_by_rolls` the tie for first)."""
    given = iter(rolls)
    seats: list[int] = []

    def draw() -> int:
        value = next(given, None)
        if value is None:
            raise _Short
        return value

    try:
        settle(groups, draw, seats.append)
    except _Short:
        return seats, False
    return seats, True


def thrown_by(
    groups: Groups, rolls: Sequence[int], settle: Settle = rules.order_by_rolls
) -> list[int]:
    """The seat that made each throw of `rolls` (ties throw again, in seat order).

    >>> thrown_by([[0, 1, 2]], [3, 5, 5, 2, 6])
    [0, 1, 2, 1, 2]
    >>> thrown_by([[0, 1, 2]], [6, 2, 2], highest_by_rolls)  # a tie below first: no throw
    [0, 1, 2]
    """
    return _throwers(groups, rolls, settle)[0][: len(rolls)]


def next_thrower(
    groups: Groups, rolls: Sequence[int], settle: Settle = rules.order_by_rolls
) -> int | None:
    """The seat whose throw the order needs next after `rolls`, or None once they settle it.

    >>> next_thrower([[0, 1]], [4])
    1
    >>> next_thrower([[0, 1]], [4, 4, 2])  # a tie: both throw again
    1
    >>> next_thrower([[0, 1]], [4, 4, 2, 5]) is None
    True
    """
    seats, settled = _throwers(groups, rolls, settle)
    return None if settled else seats[-1]


class ThrowsPopup(ModalView):
    """Whose throw the table waits for, each throw so far and which die gave it."""

    title = StringProperty("")
    waiting_text = StringProperty("")
    problem = StringProperty("")
    thrown = StringProperty("")  # one line per throw: "Anna: 5 on Ruby (d6)"
    done = BooleanProperty(False)
    # What the throws decided ("Bram goes first."), shown with an OK button once done.
    result = StringProperty("")
    collector = ObjectProperty(None, allownone=True)  # the ThrowCollector its buttons speak to

    def cancel(self) -> None:
        """The Cancel button: the collector gives up (nothing is applied)."""
        if self.collector is not None:
            self.collector.cancel()
        else:
            self.dismiss()

    def roll_rest_here(self) -> None:
        """The "Roll the rest here" button."""
        if self.collector is not None:
            self.collector.roll_rest_here()


class ThrowCollector:
    """Collects the throws `groups` need from the dice, then calls `on_done(rolls, dice)`."""

    def __init__(
        self,
        dice: DiceService,
        groups: Groups,
        names: Sequence[str],
        title: str,
        on_done: ThrowsDone,
        rng: RandomSource | None = None,
        keep_open: bool = False,
        settle: Settle = rules.order_by_rolls,
    ) -> None:
        self.dice = dice
        self.groups = [list(group) for group in groups]
        self.settle = settle  # which ties need throwing again
        self.names = list(names)
        self.on_done = on_done
        self.rng: RandomSource = rng if rng is not None else SecretsDice()
        self.rolls: list[int] = []
        self.dice_named: list[str] = []
        self.seats: list[int] = []  # who made each throw
        self.popup = ThrowsPopup(title=title, collector=self)
        # Stay on show once done, for the table to read every throw (then OK).
        self.keep_open = keep_open
        self.popup.bind(on_dismiss=weakly(self.stop))
        self._stop: Callable[[], None] = _nothing

    # -- what the pop-up's buttons call -----------------------------------------------------
    def start(self) -> None:
        """Show the pop-up and wait for the first throw."""
        self.popup.open()
        self._next()

    def roll_rest_here(self) -> None:
        """Roll every throw still needed on screen and apply the action."""
        self.stop()
        while (seat := next_thrower(self.groups, self.rolls, self.settle)) is not None:
            self._record(seat, d6(self.rng), "")
        self._finish()

    def cancel(self) -> None:
        """Give up: nothing is applied."""
        self.stop()
        self.popup.dismiss()

    def stop(self) -> None:
        """Stop waiting for a die."""
        self._stop()
        self._stop = _nothing

    # -- inside ---------------------------------------------------------------------------
    def _next(self) -> None:
        seat = next_thrower(self.groups, self.rolls, self.settle)
        if seat is None:
            self._finish()
            return
        name = self.names[seat]
        if not self.dice.has_dice_for(seat):  # no die for this player: the app rolls it
            self._record(seat, d6(self.rng), "")
            self._next()
            return
        dice = ", ".join(source.label for source in self.dice.hub.dice_for(seat))
        if seat in self.seats:
            text = _("Tie: {name} throws again ({die})")
        else:
            text = _("Waiting for {name}'s throw ({die})")
        self.popup.waiting_text = text.format(name=name, die=dice)
        self._stop = self.dice.wait_roll(
            seat,
            lambda value, label: self._thrown(seat, value, label),
            self._problem,
            on_end=self._lost,
        )

    def _thrown(self, seat: int, value: int, label: str) -> None:
        self._stop = _nothing
        self.popup.problem = ""
        self._record(seat, value, label)
        self._next()

    def _record(self, seat: int, value: int, label: str) -> None:
        self.rolls.append(value)
        self.dice_named.append(label)
        self.seats.append(seat)
        line = throw_line(self.names[seat], value, label)
        self.popup.thrown = "\n".join(filter(None, (self.popup.thrown, line)))

    def _problem(self, text: str) -> None:
        self.popup.problem = text

    def _lost(self) -> None:
        self._stop = _nothing
        self.popup.waiting_text = _("The die went away: roll the rest here.")

    def _finish(self) -> None:
        self.popup.done = True
        self.popup.waiting_text = ""
        if not self.keep_open:
            self.popup.dismiss()
        said = self.on_done(tuple(self.rolls), tuple(self.dice_named))
        if self.keep_open:
            if said:
                self.popup.result = said
            else:  # refused (and said why): nothing to read here
                self.popup.dismiss()


def throw_line(name: str, value: int, die: str) -> str:
    """One throw in words: on which die, or rolled on screen."""
    if die:
        return _("{name}: {value} on {die}").format(name=name, value=value, die=die)
    return _("{name}: {value} rolled here").format(name=name, value=value)


def _nothing() -> None:
    """Stopping a wait that is not running."""


def collect_throws(
    app: Any,
    groups: Groups,
    names: Sequence[str],
    title: str,
    on_done: ThrowsDone,
    keep_open: bool = False,
    settle: Settle = rules.order_by_rolls,
) -> ThrowCollector | None:
    """Start collecting the throws for `groups` when a die serves anyone who has to throw.

    Returns the running collector, or None when no die serves them (or nobody has to throw):
    the caller then applies its action with the rolls left out, and the app rolls them.
    """
    dice = dice_service(app)
    throwers = {seat for group in groups if len(group) > 1 for seat in group}
    if dice is None or not any(dice.has_dice_for(seat) for seat in throwers):
        return None
    collector = ThrowCollector(
        dice, groups, names, title, on_done, keep_open=keep_open, settle=settle
    )
    collector.start()
    return collector


def first_player_with_dice(app: Any) -> ThrowCollector | None:
    """Roll for the first player with the dice; once the roll is applied the pop-up says
    who goes first and stays until OK.

    None: no die serves anyone, the caller rolls on screen (then `show_first_player_roll`).
    """
    session = app.session
    state = session.game.state if session.game is not None else None
    if state is None:
        return None
    names = [p.name for p in state.players]

    def done(rolls: tuple[int, ...], dice: tuple[str, ...]) -> str | None:
        if session.act(RollForFirstPlayer(rolls=rolls, dice=dice)):
            return _first_words(session.game.state)
        return None

    return collect_throws(
        app,
        [range(len(names))],
        names,
        _first_title(),
        done,
        keep_open=True,
        settle=highest_by_rolls,
    )


def show_first_player_roll(app: Any) -> ThrowsPopup | None:
    """After the first player was rolled for on screen: every throw and who goes first, on
    show until OK (the last action must be that roll)."""
    game = app.session.game
    if game is None or not game.revision:
        return None
    action = game.action_at(game.revision - 1)
    if not isinstance(action, RollForFirstPlayer) or action.rolls is None:
        return None
    state = game.state
    names = [p.name for p in state.players]
    seats = thrown_by([range(len(names))], action.rolls, highest_by_rolls)
    popup = ThrowsPopup(
        title=_first_title(),
        thrown="\n".join(round_lines(names, seats, action.rolls)),
        done=True,
        result=_first_words(state),
    )
    popup.open()
    return popup


def round_lines(names: Sequence[str], seats: Sequence[int], rolls: Sequence[int]) -> list[str]:
    """The throws a round to a line ("Anna 3 · Bram 5 · Cleo 5"), then each round of the
    tied throwing again ("Tie: Bram 2 · Cleo 6")."""
    rounds: list[list[str]] = []
    seen: set[int] = set()
    for seat, value in zip(seats, rolls, strict=False):
        if not rounds or seat in seen:
            rounds.append([])
            seen = set()
        seen.add(seat)
        rounds[-1].append(_("{name} {value}").format(name=names[seat], value=value))
    lines = [" \u00b7 ".join(throws) for throws in rounds]
    return lines[:1] + [_("Tie: {throws}").format(throws=line) for line in lines[1:]]


def _first_title() -> str:
    return _("Everyone rolls for the first player")


def _first_words(state: Any) -> str:
    return _("{name} goes first.").format(name=state.current_player.name)


def loot_with_dice(app: Any, dead: int, looted: Callable[[], None]) -> ThrowCollector | None:
    """Break the looting ties for `dead`'s body with the dice; `looted()` runs once applied.

    None: the rules refuse the looting now, no tie needs a die, or no die serves the tied
    players; the caller applies it as before.
    """
    session = app.session
    if session.game is None or not session.allowed(LootTheBody, player=dead):
        return None
    state = session.game.state
    names = [p.name for p in state.players]

    def done(rolls: tuple[int, ...], dice: tuple[str, ...]) -> str | None:
        session.act(LootTheBody(player=dead, rolls=rolls, dice=dice))
        looted()
        return None

    groups = rules.loot_groups(state.players, dead)
    title = _("Ties roll for {name}'s body").format(name=names[dead])
    return collect_throws(app, groups, names, title, done)
