"""Table: a tile per player with level and gear steppers, whose turn it is, the phase.

When the tiles would not all fit (5 to 8 players on a phone), each player is a line of
its own instead: name, strength, − Level + — every Level on screen without scrolling;
the current player's line opens to show Gear and traits too when there is room.

What the Table shows is first made into plain values (`table_view`); the same values,
handed to the game's recorder as it draws them and saved with the game, are the game's
cover (`companion.store.cover`): the next start draws the Table from them in its very
first frame, before the rules engine is loaded (`TableScreen.show_cover`). This module
therefore loads the engine only inside the functions that act on a game.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.ui.i18n import APP_LANGUAGE, _, language, ngettext
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour
from companion.ui.widgets import PlayerFace, PlayerTile

CHARITY_MAX_CARDS = 20
# From this many players on, a phone shows a line per player rather than a tile.
LINES_FROM_PLAYERS = 5
# A line is never lower than a thumb's tap (its − and + buttons), nor its Level smaller
# than LEVEL_MIN_SP.
LINE_MIN_DP = 48
LEVEL_MIN_SP = 32
LEVEL_MAX_SP = 52
# A cover shows at most this many players (a game has 2 to 8, the editions allow 10).
MAX_COVER_TILES = 12
_COLOUR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
# What a cover holds, field by field, with the exact type of each value.
_TILE_FIELDS: dict[str, type] = {
    "name": str,
    "colour": str,
    "level": int,
    "gear": int,
    "strength": int,
    "traits": str,
    "dead": bool,
    "turn": bool,
}
_VIEW_FIELDS: dict[str, type] = {
    "language": str,
    "current": int,
    "turn_text": str,
    "phase_text": str,
    "in_combat": bool,
    "charity_phase": bool,
    "can_advance": bool,
    "can_end_turn": bool,
    "charity_text": str,
    "tiles": list,
}
# The view's values that are properties of the screen by the same name.
_SCREEN_FIELDS = tuple(key for key in _VIEW_FIELDS if key not in ("language", "current", "tiles"))


def table_view(state: Any, allowed: Callable[[Any], bool]) -> dict[str, Any]:
    """Everything the Table shows of `state`, as plain values in the language on show.

    `allowed(action_class)` says whether the rules would take that action now.
    """
    from companion.core import AdvancePhase, EndTurn, Phase
    from companion.table.words import phase_line, traits_line, turn_line

    has_races = bool(state.setup.edition.races)
    tiles = [
        {
            "name": player.name,
            "colour": player.colour,
            "level": player.level,
            "gear": player.strength - player.level,
            "strength": player.strength,
            "traits": traits_line(player, has_races, APP_LANGUAGE),
            "dead": player.dead,
            "turn": seat == state.current and not state.winners,
        }
        for seat, player in enumerate(state.players)
    ]
    return {
        "language": language(),
        "current": state.current,
        "turn_text": turn_line(state, APP_LANGUAGE),
        "phase_text": phase_line(state, APP_LANGUAGE),
        "in_combat": state.combat is not None,
        # Charity applies to the current player, alive, at the end of the turn.
        "charity_phase": state.phase == Phase.CHARITY and not state.current_player.dead,
        "can_advance": allowed(AdvancePhase),
        "can_end_turn": allowed(EndTurn),
        "charity_text": _charity_words(state),
        "tiles": tiles,
    }


def cover_text(view: dict[str, Any]) -> str:
    """A Table view as the compact JSON of a saved game's cover."""
    return json.dumps(view, ensure_ascii=False, separators=(",", ":"))


def table_cover(game: Any) -> str:
    """The cover of a game the Table has not drawn as it is now (for a save that cannot
    wait for it: the app closing on another screen). The Table hands over what it draws."""

    def allowed(action_class: Any) -> bool:
        return game.check(action_class()) is None

    return cover_text(table_view(game.state, allowed))


def read_view(cover: str) -> dict[str, Any] | None:
    """The Table view saved in a cover, or None when it is not one this version wrote
    whole (a damaged or foreign cover is never shown)."""
    try:
        view = json.loads(cover)
    except (ValueError, RecursionError):
        return None
    if not _exactly(view, _VIEW_FIELDS):
        return None
    tiles = view["tiles"]
    if not 1 <= len(tiles) <= MAX_COVER_TILES:
        return None
    for tile in tiles:
        if not _exactly(tile, _TILE_FIELDS) or not _COLOUR_RE.match(tile["colour"]):
            return None
    return view


def _exactly(value: Any, fields: dict[str, type]) -> bool:
    return (
        isinstance(value, dict)
        and value.keys() == fields.keys()
        and all(type(value[key]) is kind for key, kind in fields.items())
    )


def _charity_words(state: Any) -> str:
    result = state.charity
    if result is None or result.giver != state.current:
        return ""
    if not result.shares:
        return ngettext(
            "{n} card discarded: nobody is lower.",
            "{n} cards discarded: nobody is lower.",
            result.discarded,
        ).format(n=result.discarded)
    given = ", ".join(
        f"{state.players[seat].name} {count}" for seat, count in result.shares.items()
    )
    return _("Charity: {given}").format(given=given)


class LineMore(BoxLayout):
    """What an opened `PlayerLine` shows under its main part (table.kv)."""

    line = ObjectProperty(None, rebind=True)


class PlayerLine(PlayerFace):
    """One player in a line of its own (see the module's docstring)."""

    # The height of the line's main part (name, strength, − Level +).
    line_height = NumericProperty(dp(LINE_MIN_DP))
    level_size = NumericProperty(sp(LEVEL_MIN_SP))
    name_size = NumericProperty(sp(18))
    # Showing Gear, the traits and the way to the player's screen too.
    opened = BooleanProperty(False)
    # How much taller the line is when opened.
    more_height = NumericProperty(0)

    def on_line_height(self, *_args: Any) -> None:
        self.level_size = max(sp(LEVEL_MIN_SP), min(sp(LEVEL_MAX_SP), self.line_height * 0.72))

    # What the line shows only while opened: built the first time it opens.
    _more: LineMore | None = None

    def __init__(self, **kwargs: Any) -> None:
        self.register_event_type("on_details")
        super().__init__(**kwargs)
        self.on_opened()

    def build_more(self) -> LineMore:
        """The part an opened line adds (traits, Gear, Details), built the first time it is
        needed: most lines at a table of eight never open, and building that part for each
        was nearly half of drawing the Table at the start. Then held here: a closed line
        leaves it out altogether (a part only folded away would still catch the taps meant
        for the line). Its traits, gear and details are among the line's own `ids`."""
        if self._more is None:
            more = self._more = LineMore(line=self)
            more.bind(minimum_height=self.setter("more_height"))
            self.more_height = more.minimum_height
            self.ids.update(more.ids)
        return self._more

    def on_opened(self, *_args: Any) -> None:
        if self.opened:
            more = self.build_more()
            if more.parent is None:
                self.add_widget(more)
        elif self._more is not None and self._more.parent is not None:
            self.remove_widget(self._more)

    def on_details(self) -> None:
        """Default handler: the table screen binds to `on_details` (the player's screen)."""


def _on_the_game(action: Callable[..., None]) -> Callable[..., None]:
    """A Table action on the game. While only the cover is on show (the split second
    before the game is loaded), the tap waits and is played once the game is loaded
    (`TableScreen.play_waiting`): the cover is what the last save left, so the tap means
    the same then. With no game and no cover, it goes nowhere."""

    @functools.wraps(action)
    def act(screen: TableScreen, *args: Any) -> None:
        if screen.session.game is not None:
            action(screen, *args)
        elif screen._cover_shown:
            screen._waiting.append((action, args))

    return act


class TableScreen(CompanionScreen):
    """Everyone at a glance; the buttons below run the current turn."""

    turn_text = StringProperty("")
    phase_text = StringProperty("")
    in_combat = BooleanProperty(False)
    # Charity phase: how many cards the current player has over the hand limit.
    charity_phase = BooleanProperty(False)
    excess = NumericProperty(1)
    charity_text = StringProperty("")
    # The row to give the cards over the limit away is on show (until they are given).
    giving = BooleanProperty(False)
    # Dimmed (still tappable: a tap says why) when the rules would refuse right now.
    can_advance = BooleanProperty(True)
    can_end_turn = BooleanProperty(True)
    columns = NumericProperty(2)
    fill = BooleanProperty(False)
    # A line per player rather than a tile (see the module's docstring).
    lines = BooleanProperty(False)
    give_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tiles: list[PlayerFace] = []
        self._shown_current = -1
        # True while the Table shows a saved game's cover, its game still loading; the
        # taps made meanwhile, each a method and its arguments, wait for it in order.
        self._cover_shown = False
        self._waiting: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
        # The line opened by a tap (None: the current player's, when there is room).
        self._opened: int | None = None
        # Before the frame is drawn, with the layouts it changes (-1): a touch handled in
        # between would otherwise find the lines moved and not yet laid out again.
        self._layout_trigger = Clock.create_trigger(lambda _dt: self._layout(), -1)
        # Methods, not lambdas: Kivy holds a bound method weakly, so a screen dropped after
        # a language change is not kept alive (and rebuilt on every turn of the phone).
        self.app.bind(wide=self._wide_changed)
        self.ids.scroll.bind(height=lambda *_a: self._layout_trigger())
        self._devices_followed: Any = None
        self._shown_low: set[int] = set()  # the seats shown with a low tracker battery
        # The confirmation of giving cards away, while it is on show.
        self.charity_sheet: Any = None
        self.on_excess()

    # -- actions --------------------------------------------------------------------
    # Each one on the game waits for it while only the cover is on show (`_on_the_game`).
    def play_waiting(self) -> int:
        """Play the taps made on the cover, now that its game is loaded (dropped if it
        could not be); returns how many were played."""
        waiting, self._waiting = self._waiting, []
        self._cover_shown = False
        if self.session.game is None:
            return 0
        for action, args in waiting:
            action(self, *args)
        return len(waiting)

    @_on_the_game
    def change_level(self, seat: int, delta: int) -> None:
        """A level stepper on a tile: the press a counter's button or a phone makes."""
        from companion.core.presses import Press

        self.session.press(Press.LEVEL_UP if delta > 0 else Press.LEVEL_DOWN, seat)

    @_on_the_game
    def change_gear(self, seat: int, delta: int) -> None:
        """A gear stepper on a tile: the hand-kept gear bonus goes up or down by one."""
        from companion.core.presses import Press

        self.session.press(Press.GEAR_UP if delta > 0 else Press.GEAR_DOWN, seat)

    @_on_the_game
    def open_player(self, seat: int) -> None:
        """A tap on a tile: the player's details."""
        self.app.show("player", seat=seat)

    @_on_the_game
    def next_phase(self) -> None:
        """Move the turn on to its next phase."""
        from companion.core import AdvancePhase

        self.session.act(AdvancePhase)

    @_on_the_game
    def end_turn(self) -> None:
        """Pass play to the left."""
        from companion.core import EndTurn

        self.session.act(EndTurn)

    def step_excess(self, delta: int) -> None:
        """The stepper of cards over the hand limit."""
        self.excess = max(1, min(CHARITY_MAX_CARDS, self.excess + delta))

    def on_charity_phase(self, *_args: Any) -> None:
        self.giving = self.charity_phase and not self.charity_text

    on_charity_text = on_charity_phase

    def on_excess(self, *_args: Any) -> None:
        self.give_text = ngettext("Give {n} card away", "Give {n} cards away", self.excess).format(
            n=self.excess
        )

    @_on_the_game
    def ask_charity(self) -> None:
        """The Give button: who gets the cards over the limit (the rules pick them), and a
        button to give them; nothing is given until that button is tapped. The sheet on
        show is `charity_sheet` (none when the rules refuse: the refusal is said at once)."""
        from companion.core import Charity, RuleError, apply_action
        from companion.ui.sheets import ChoiceSheet

        state = self.session.live_state
        if state is None:
            return
        cards = int(self.excess)
        try:
            result = apply_action(state, Charity(giver=state.current, cards=cards)).charity
        except RuleError:
            self.give_charity()  # refused: the session says why
            return
        if result is not None and result.shares:
            given = ", ".join(
                f"{state.players[seat].name} {count}"
                for seat, count in result.shares.items()
                if count
            )
            question = _("The lowest Level gets them: {given}").format(given=given)
            answer = self.give_text
        else:
            question = ngettext(
                "Nobody is lower: the card is discarded.",
                "Nobody is lower: the {n} cards are discarded.",
                cards,
            ).format(n=cards)
            answer = ngettext("Discard {n} card", "Discard {n} cards", cards).format(n=cards)
        sheet = self.charity_sheet = ChoiceSheet(
            title=_("Charity: {name}").format(name=state.current_player.name),
            question=question,
            options=[("give", answer)],
            count=1,
            answered=lambda _chosen: self.give_charity(),
        )
        sheet.bind(on_dismiss=lambda *_a: setattr(self, "charity_sheet", None))
        sheet.open()

    @_on_the_game
    def give_charity(self) -> None:
        """The current player gives the excess cards away (the rules pick who gets them);
        the Give button asks first (`ask_charity`)."""
        from companion.core import Charity

        state = self.session.live_state
        if state is not None and self.session.act(Charity, giver=state.current, cards=self.excess):
            self.excess = 1

    @_on_the_game
    def fight(self) -> None:
        """Open the combat screen (the current player fights)."""
        self.app.show("combat")

    # -- drawing --------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state
        if state is None:
            return
        view = table_view(state, self.session.allowed)
        self._show(view)
        # What the Table shows is the game's cover: the next start draws it first.
        self.session.cover_drawn(cover_text(view))

    def show_cover(self, cover: str) -> bool:
        """Draw the Table from a saved game's cover (see `table_cover`); False, drawing
        nothing, when the cover is damaged or in another language than the one on show."""
        view = read_view(cover)
        if view is None or view["language"] != language():
            return False
        self._show(view)
        self._cover_shown = True
        return True

    def _show(self, view: dict[str, Any]) -> None:
        tiles = view["tiles"]
        if len(self.tiles) != len(tiles):
            self._make_tiles(len(tiles))
        low = self._shown_low = self._low_battery_seats()
        for seat, (tile, shown) in enumerate(zip(self.tiles, tiles, strict=True)):
            tile.battery_low = seat in low
            for key in _TILE_FIELDS:  # each a property of the tile by the same name
                setattr(tile, key, colour(shown[key]) if key == "colour" else shown[key])
        current = view["current"]
        if current != self._shown_current:
            # Whose turn it is must be on screen without scrolling (5-8 players on a phone);
            # an opened line follows the turn.
            self._shown_current = current
            self._opened = None
            if self.lines:
                self._layout()  # the current player's line opens, when there is room
            Clock.schedule_once(lambda _dt: self.show_current(), 0)
        for key in _SCREEN_FIELDS:
            setattr(self, key, view[key])

    def _wide_changed(self, *_args: Any) -> None:
        self._make_tiles(len(self.tiles))

    def _statuses_changed(self, *_args: Any) -> None:
        # The Table shows one thing of the counters, which trackers' batteries are low:
        # counters connecting and claimed change their statuses many times, not that.
        if self._low_battery_seats() != self._shown_low:
            self._state_changed(None, None)

    def _low_battery_seats(self) -> set[int]:
        """Seats whose tracker reports a low battery (and follow the counters from now on)."""
        devices = self.app.devices
        if devices is None:
            return set()
        if self._devices_followed is not devices:
            devices.bind(statuses=self._statuses_changed)
            self._devices_followed = devices
        # Here, not at the top: the Table draws its first frame before the device layer loads.
        from companion.devices.status import Role

        return {
            seat
            for status in devices.statuses
            if status.role is Role.TRACKER and status.battery_low
            for seat in status.players
        }

    def show_current(self) -> None:
        """Scroll the current player's tile into view (when the tiles scroll at all)."""
        current = self._shown_current
        if not 0 <= current < len(self.tiles):
            return
        scroll = self.ids.scroll
        if self.ids.tiles.height > scroll.height:
            scroll.scroll_to(self.tiles[current], padding=dp(4), animate=False)

    def open_line(self, seat: int) -> None:
        """A tap on a player's line: open it (Gear, traits, details), or close it again."""
        # By what the line shows: the current player's line stays closed when the table has
        # no room for it opened, and a tap on it then opens it.
        self._opened = -1 if self.tiles[seat].opened else seat
        self._layout()
        line = self.tiles[seat]
        if self.ids.tiles.height > self.ids.scroll.height:
            self.ids.scroll.scroll_to(line, padding=dp(4), animate=False)

    def on_pre_enter(self, *args: Any) -> None:
        self._shown_current = -1  # coming back: show whose turn it is again
        super().on_pre_enter(*args)

    def _make_tiles(self, count: int) -> None:
        grid = self.ids.tiles
        grid.clear_widgets()
        self.tiles = []
        self.lines = not self.app.wide and count >= LINES_FROM_PLAYERS
        self._opened = None
        for seat in range(count):
            tile: PlayerFace
            if self.lines:
                # A tap on a line opens it; its Details button goes to the player's screen.
                tile = PlayerLine(index=seat)
                tile.bind(
                    on_release=lambda t: self.open_line(t.index),
                    on_details=lambda t: self.open_player(t.index),
                )
                tile.bind(more_height=lambda *_a: self._layout_trigger())
            else:
                tile = PlayerTile(index=seat)
                tile.bind(on_release=lambda t: self.open_player(t.index))
            tile.bind(
                on_level_step=lambda t, d: self.change_level(t.index, d),
                on_gear_step=lambda t, d: self.change_gear(t.index, d),
            )
            grid.add_widget(tile)
            self.tiles.append(tile)
        self._layout()

    def _layout(self) -> None:
        if self.lines:
            self._layout_lines()
            return
        count = max(1, len(self.tiles))
        if self.app.wide:
            self.columns = min(4, count) if count not in (5, 6) else 3
        else:
            self.columns = 1 if count <= 2 else 2
        # Tiles share the height when they all fit; otherwise they keep theirs and scroll.
        rows = -(-count // self.columns)
        needed = sum(tile.height for tile in self.tiles[:: self.columns]) if self.tiles else 0
        fits = needed <= self.ids.scroll.height or rows * dp(150) <= self.ids.scroll.height
        for tile in self.tiles:
            tile.compact = not fits
        self.fill = fits

    def _layout_lines(self) -> None:
        """Every line shares the height there is; the opened one gets room for Gear first."""
        self.columns = 1
        self.fill = False
        lines: list[PlayerLine] = self.tiles
        if not lines:
            return
        room = self.ids.scroll.height - dp(2) * (len(lines) - 1)
        opened = self._opened if self._opened is not None else self._shown_current
        if self._opened is None and 0 <= opened < len(lines):
            more = lines[opened].build_more().minimum_height
            if room < len(lines) * dp(LINE_MIN_DP) + more:
                opened = -1  # the current player's line stays closed: every Level comes first
        for seat, line in enumerate(lines):
            line.opened = seat == opened
        extra = [line.more_height if line.opened else 0.0 for line in lines]
        main = max(dp(LINE_MIN_DP), (room - sum(extra)) / len(lines))
        for line, more in zip(lines, extra, strict=True):
            line.line_height = main
            line.height = main + more
        if main * len(lines) + sum(extra) <= room + 1:
            self.ids.scroll.scroll_y = 1  # all of it in view: nothing to scroll
