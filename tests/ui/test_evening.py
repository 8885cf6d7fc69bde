"""A whole evening through the real app at 360x640, from New game to the win, with the
virtual counters on: four players in English, and eight in German who switch to Russian.

Every step is a player's taps: items found in the card list by their name in the game's
language, fights with a card monster and with a monster entered by its level, a helper,
one-shots, a sale, a run away that fails and costs an item, a death, Charity, Undo and
Redo, a roll on the Dice screen, a language switch and the light theme mid-game. After
every step the table is looked at as the players would:

- every counter shows exactly the game: each player's Level on their tracker and on the
  level board, and no die roll once its moment is over (nor played a second time);
- every word on screen is a word of the language on show (its catalogue's, a card's or
  a player's name): none missing from the catalogue, none left from another language;
- no words leave their box, end in an ellipsis or break inside a word;
- nothing was logged at WARNING or above.

Six moments of each evening are kept as screenshots (the path is printed; the eight
players' are also kept in docs/screenshots as evening-*.png).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from companion.commands.screenshots import recompress_png
from companion.devices import wire
from companion.devices.status import Role
from companion.ui import i18n
from tests.ui.conftest import PHONE, Harness
from tests.ui.items_driving import press
from tests.ui.looking import visible_labels
from tests.ui.test_devices import lit_bar
from tests.ui.test_i18n_live import _picker, _row
from tests.ui.test_layout_states import problems_on_show

pytestmark = pytest.mark.slow

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# s: nine counters start, connect, are claimed and synced on a busy 2-core machine.
COUNTERS_START_S = 60.0
# s: a change reaches every counter in a fraction of a second; generous for a loaded machine.
COUNTERS_FOLLOW_S = 20.0
ROLL_SHOW_S = wire.ROLL_SHOW_MS / 1000
# Letters only: numbers, signs and symbols (⚔, ☠, ▶) are the same in every language.
WORD = re.compile(r"[^\W\d_]+")
# What is not words in a catalogue's text: placeholders and markup.
NOT_WORDS = re.compile(r"\{[^}]*\}|\[[^\]]*\]")


@dataclass(frozen=True)
class Night:
    """One evening: who plays, the language it starts in and the one switched to mid-game
    (and whether it switches back), and the search words that find each card."""

    names: tuple[str, ...]
    language: str
    switch_to: str
    switch_back: bool
    docs: bool  # its screenshots are also the docs'


# What a player types to find a card in each language: a word or two of its name there.
SEARCH = {
    "colander": {"en": "colander", "de": "nudelsieb", "ru": "дуршлаг"},
    "pan": {"en": "frying pan", "de": "bratpfanne", "ru": "сковорода"},
    "opinions": {"en": "loud opinions", "de": "lauten meinungen", "ru": "громких"},
    "onesie": {"en": "onesie", "de": "strampler", "ru": "кольчужный"},
    "skates": {"en": "roller skates", "de": "rollschuhe", "ru": "ролики"},
    "crown": {"en": "tin crown", "de": "blechkrone", "ru": "жестяная"},
    "sofa": {"en": "carnivorous", "de": "fleischfressend", "ru": "плотоядный"},
    "hangover": {"en": "hangover", "de": "kater", "ru": "похмелье"},
}
CARDS = {
    "colander": "gen-colander-helm",
    "pan": "gen-frying-pan-of-justice",
    "opinions": "gen-helmet-of-loud-opinions",
    "onesie": "gen-chainmail-onesie",
    "skates": "gen-roller-skates-of-doom",
    "crown": "gen-tin-crown",
    "sofa": "gen-carnivorous-sofa",
    "hangover": "gen-thousand-year-hangover",
}

NIGHTS = {
    "four-en": Night(("Anna", "Bram", "Cleo", "Dev"), "en", "de", True, docs=False),
    "eight-de": Night(
        ("Anna", "Bram", "Cleo", "Dev", "Emil", "Frieda", "Gustav", "Ida"),
        "de",
        "ru",
        False,
        docs=True,
    ),
}


# -- the words of a language -------------------------------------------------------------
@functools.cache
def catalogue_words(language: str) -> frozenset[str]:
    """Every word the app can show in `language`: its catalogues' translations (the app's
    texts and the cards' names), and the languages' own names (Settings lists them). In
    English the texts are the catalogue's message ids."""
    from babel.messages.pofile import read_po

    words: set[str] = {w.casefold() for name in i18n.LANGUAGES.values() for w in WORD.findall(name)}
    for domain in (i18n.DOMAIN, i18n.CARDS_DOMAIN):
        path = Path(i18n.LOCALE_DIR) / language / "LC_MESSAGES" / f"{domain}.po"
        with path.open("rb") as handle:
            catalogue = read_po(handle, locale=language.replace("-", "_"), domain=domain)
        for entry in catalogue:
            if not entry.id or entry.fuzzy:
                continue
            texts = list(entry.string) if isinstance(entry.string, tuple) else [entry.string]
            if language == "en":
                texts += list(entry.id) if isinstance(entry.id, tuple) else [entry.id]
            for text in texts:
                words.update(w.casefold() for w in WORD.findall(NOT_WORDS.sub(" ", text or "")))
    return frozenset(words)


def foreign_words(texts: list[str], language: str, names: tuple[str, ...]) -> list[str]:
    """The words on show that are not words of `language`: each with the text it is in."""
    known = catalogue_words(language) | {w.casefold() for n in names for w in WORD.findall(n)}
    english = catalogue_words("en")
    found = []
    for text in texts:
        for word in WORD.findall(text):
            if word.casefold() not in known:
                told = " (English)" if language != "en" and word.casefold() in english else ""
                found.append(f"{word!r}{told} in {text!r}")
    return found


# -- what the counters show --------------------------------------------------------------
def plays_a_roll(frame: Any) -> bool:
    """A tracker's bar plays a die roll: white LEDs (a running light, then the value), where
    a Level is lit in its player's colour (no player's colour is a grey)."""
    lit = [pixel for pixel in frame.pixels[: frame.spaces] if any(pixel)]
    return bool(lit) and all(r == g == b for r, g, b in lit)


def tracker_problem(frame: Any, seat: int, state: Any) -> str:
    """Why a tracker's picture is not the Level of its player ("" when it is)."""
    player = state.players[seat]
    text = frame.text.strip()
    if plays_a_roll(frame) or text.startswith("d"):
        return f"{frame.name} still plays a die roll"
    if seat in state.winners:
        return ""  # the winner's bar runs round in their colour
    level = min(player.level, frame.spaces)
    if lit_bar(frame) != level:
        return f"{frame.name} lights {lit_bar(frame)} for {player.name}'s Level {player.level}"
    if frame.text and text != str(player.level) and not (player.dead and not text):
        return f"{frame.name} reads {frame.text!r} for {player.name}'s Level {player.level}"
    return ""


def board_problem(frame: Any, seats: tuple[int, ...], state: Any) -> str:
    """Why a level board's picture is not the players' Levels ("" when it is): each player
    its own light in the space of its Level; in a fight the fighter's space filled."""
    if state.winners:
        return ""  # a chase in the winner's colour
    per, spaces = frame.positions, frame.spaces
    wanted = {(state.players[seat].level - 1) * per + p for p, seat in enumerate(seats)}
    if state.combat is not None:
        fighter = state.players[state.combat.fighter].level
        wanted |= {(fighter - 1) * per + p for p in range(per)}
    lit = {i for i, pixel in enumerate(frame.pixels[: spaces * per]) if any(pixel)}
    if lit != wanted:
        return f"{frame.name} lights LEDs {sorted(lit)}, the Levels are at {sorted(wanted)}"
    return ""


def counters_problem(service: Any, game: Any) -> str:
    """Why the counters do not show exactly the game now ("" when they do)."""
    state = game.state
    statuses = service.statuses
    if len(statuses) != len(state.players) + 1 or not all(s.ours for s in statuses):
        return f"{len(statuses)} counters for {len(state.players)} players and a board"
    rev = game.sequence & 0xFFFF
    for status in statuses:
        frame = service.frames.get(status.key)
        if frame is None:
            return f"{status.name} shows nothing yet"
        if frame.rev != rev:
            return f"{status.name} shows revision {frame.rev} of the game's {rev}"
        if status.role is Role.TRACKER:
            problem = tracker_problem(frame, status.players[0], state)
        else:
            problem = board_problem(frame, status.players, state)
        if problem:
            return problem
    return ""


class RollsPlayed:
    """Counts the die rolls each tracker starts playing: a roll is played once, never again."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.rolling: dict[str, bool] = {}
        self.played: dict[str, int] = {}
        service.bind(frames=self.seen)

    def seen(self, _service: Any, frames: dict[str, Any]) -> None:
        for key, frame in frames.items():
            if frame.role is not Role.TRACKER:
                continue
            rolling = plays_a_roll(frame) or frame.text.strip().startswith("d")
            if rolling and not self.rolling.get(key, False):
                self.played[key] = self.played.get(key, 0) + 1
            self.rolling[key] = rolling

    def stop(self) -> None:
        self.service.unbind(frames=self.seen)


class WarningsKept(logging.Handler):
    """Every record at WARNING or above that reaches the app's log."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def warnings_kept() -> Iterator[WarningsKept]:
    kept = WarningsKept()
    loggers = [logging.root]
    if not logging.getLogger("kivy").propagate:
        loggers.append(logging.getLogger("kivy"))
    for logger in loggers:
        logger.addHandler(kept)
    try:
        yield kept
    finally:
        for logger in loggers:
            logger.removeHandler(kept)


# -- the evening -------------------------------------------------------------------------
@dataclass
class Evening:
    """The app at the table, looked at after every step."""

    ui: Harness
    night: Night
    shots: Path
    service: Any
    log: WarningsKept
    rolls: RollsPlayed
    language: str = "en"
    steps: list[str] = field(default_factory=list)
    rolls_made: int = 0
    _last_roll: Any = None
    _revision: int = 0

    @property
    def session(self) -> Any:
        return self.ui.app.session

    @property
    def state(self) -> Any:
        return self.session.live_state

    def seat(self, name: str) -> int:
        return self.night.names.index(name)

    async def service_ready(self) -> None:
        """The counters have come up for the table: a level board and a tracker per player."""
        players = len(self.night.names)
        service = self.service
        await self.ui.until(
            lambda: len(service.statuses) == players + 1 and all(s.ours for s in service.statuses),
            f"a level board and {players} trackers are claimed",
            COUNTERS_START_S,
        )
        await service.manager.wait_synced(timeout_s=COUNTERS_START_S)

    async def checked(self, step: str) -> None:
        """After a step: the counters show exactly the game, the words on screen are the
        language's and fit, and nothing went to the log."""
        ui = self.ui
        self.steps.append(step)
        ui.pump(frames=4)
        game = self.session.game
        if game is not None:
            # A roll made, not one come back by Undo (as the counters count them).
            roll, forward = game.state.last_roll, game.revision > self._revision
            if roll is not None and roll is not self._last_roll and forward:
                self.rolls_made += 1
            self._last_roll, self._revision = roll, game.revision
            await self.counters_show_the_game(step)
        ui.pump(frames=4)
        from kivy.core.window import Window

        texts = [label.text for label in visible_labels(Window)]
        foreign = foreign_words(texts, self.language, self.night.names)
        assert not foreign, f"after {step} ({self.language}): " + "; ".join(foreign)
        problems = problems_on_show(ui, f"{step} on {ui.app.manager.current}")
        assert not problems, "\n".join(problems)
        said = [f"{r.name}: {r.getMessage()}" for r in self.log.records]
        assert not said, f"after {step}: logged {said}"

    async def counters_show_the_game(self, step: str) -> None:
        """Wait until every counter shows the game; a roll just made plays for its
        moment first."""
        game = self.session.game
        problem = [""]

        def agree() -> bool:
            problem[0] = counters_problem(self.service, game)
            return not problem[0]

        try:
            await self.ui.until(
                agree, "the counters show the game", COUNTERS_FOLLOW_S + ROLL_SHOW_S
            )
        except AssertionError:
            raise AssertionError(f"after {step}: {problem[0]}") from None
        played = {key: count for key, count in self.rolls.played.items() if count > self.rolls_made}
        assert not played, f"after {step}: rolls played again {played} ({self.rolls_made} made)"

    def shoot(self, moment: str) -> None:
        """Keep a picture of the screen as it is now."""
        from kivy.core.window import Window

        self.ui.pump(frames=2)
        count = len(self.night.names)
        path = self.shots / f"evening-{count}-{self.language}-{moment}.png"
        Path(Window.screenshot(str(path))).replace(path)  # Kivy numbers the file it writes
        if self.night.docs:
            (DOCS_SCREENSHOTS / f"evening-{moment}.png").write_bytes(
                recompress_png(path.read_bytes())
            )

    # -- what players do ------------------------------------------------------------------
    def table(self) -> Any:
        if self.ui.app.manager.current != "table":
            self.ui.nav("table")
        return self.ui.screen("table")

    def level_up(self, name: str, times: int = 1) -> None:
        """A card says "go up a Level": + on the player's tile or line on the Table."""
        table = self.table()
        seat = self.seat(name)
        for _ in range(times):
            before = self.state.players[seat].level
            self.ui.tap(table.tiles[seat].level_button(1))
            assert self.state.players[seat].level == before + 1, self.ui.banner()

    def open_player(self, name: str) -> Any:
        """The player's screen, from their tile (or their line's Details, at a big table)."""
        table = self.table()
        seat = self.seat(name)
        tile = table.tiles[seat]
        if table.lines:
            if not tile.opened:
                self.ui.tap(tile.ids.name)
                # A list hands a tap on to what is in it 0.2 s later.
                self.ui.wait_until(lambda: tile.opened, timeout_s=5)
            press(self.ui, tile.ids.details)
        else:
            press(self.ui, tile)
        assert self.ui.app.manager.current == "player"
        screen = self.ui.screen("player")
        assert screen.seat == seat
        return screen

    def add_card_item(self, screen: Any, card: str, wear: bool = True) -> None:
        """Add an item from the card list, found by a few words of its name in the language
        on show."""
        ui = self.ui
        seat = screen.seat
        before = len(self.state.players[seat].items)
        press(ui, screen.ids.add_item)
        sheet = screen.sheet
        assert sheet is not None and sheet.parent is not None, "the add sheet did not open"
        sheet.ids.name.text = SEARCH[card][self.language]
        ui.pump()
        found = [r for r in sheet.ids.results.children[0].children if r.card_id == CARDS[card]]
        assert found, f"{SEARCH[card][self.language]!r} finds no {CARDS[card]} in {self.language}"
        press(ui, found[0])
        press(ui, sheet.ids.wear if wear else sheet.ids.carry)
        ui.wait_until(lambda: sheet.parent is None, timeout_s=5)
        items = self.state.players[seat].items
        assert len(items) == before + 1, sheet.problem
        assert items[-1].spec.card_id == CARDS[card]

    def item_rows(self, screen: Any) -> dict[str, Any]:
        rows = [w for w in screen.ids.item_box.children if type(w).__name__ == "ItemRow"]
        return {row.item_id: row for row in rows}

    def combat(self) -> Any:
        """Fight! on the Table: the Combat screen for the player whose turn it is."""
        table = self.table()
        press(self.ui, table.ids.fight)
        assert self.ui.app.manager.current == "combat"
        return self.ui.screen("combat")

    def card_monster(self, combat: Any, card: str) -> None:
        """A monster found in the card list by its name in the language on show."""
        combat.ids.search.text = SEARCH[card][self.language]
        self.ui.pump()
        found = [b for b in combat.ids.results.children if b.card_id == CARDS[card]]
        assert found, f"{SEARCH[card][self.language]!r} finds no {CARDS[card]} in {self.language}"
        press(self.ui, found[0])

    def level_monster(self, combat: Any, level: int, bad_stuff: str = "none") -> None:
        """A monster entered by its level, then its Bad Stuff, as the table reads the card."""
        press(self.ui, combat.level_buttons[level])
        if bad_stuff != "none":
            press(self.ui, combat.bad_stuff_buttons[bad_stuff])

    def helper(self, combat: Any, name: str) -> None:
        press(self.ui, combat.ids.helper)
        choice = next(b for b in combat.helper_menu.container.children if b.seat == self.seat(name))
        press(self.ui, choice)
        assert self.state.combat.helper == self.seat(name)

    async def kill(self, combat: Any) -> None:
        press(self.ui, combat.ids.kill)
        await self.ui.until(lambda: self.state.combat is None, "the monsters are killed")

    def run_away(self, combat: Any) -> Any:
        press(self.ui, combat.ids.run_away)
        assert self.ui.app.manager.current == "run_away"
        return self.ui.screen("run_away")

    def die_shows(self, run: Any, value: int) -> None:
        """The die on the table shows `value`: its button on the Run away screen."""
        buttons = {b.value: b for b in run.ids.physical.children}
        press(self.ui, buttons[value])

    def next_turn(self) -> None:
        table = self.table()
        current = self.state.current
        press(self.ui, table.ids.end_turn)
        assert self.state.current != current, self.ui.banner()

    def settings(self) -> Any:
        self.ui.nav("settings")
        return self.ui.screen("settings")

    def switch_language(self, code: str) -> None:
        settings = self.settings()
        press(self.ui, settings.ids.language)
        self.ui.tap(_row(_picker(), self.ui, i18n.LANGUAGES[code]))
        self.ui.pump(frames=4)
        assert i18n.language() == code
        self.language = code


async def play_the_evening(evening: Evening) -> None:
    ui, night = evening.ui, evening.night
    names = night.names
    anna, bram, _cleo, dev = names[:4]

    # New game: every player in, Anna starts.
    new_game = ui.set_up_game(list(names))
    press(ui, next(reversed(new_game.ids.rows.children)).ids.first)
    await evening.checked("the New game filled")
    evening.shoot("new-game")
    press(ui, new_game.ids.start)
    assert ui.app.manager.current == "table", ui.banner()
    await evening.service_ready()
    await evening.checked("the start")

    # Anna's turn: two Levels from cards, two items from the card list, then a fight with
    # a card monster she cannot beat alone: Bram helps, and a one-shot.
    evening.level_up(anna, 2)
    await evening.checked("Anna goes up two Levels")
    player = evening.open_player(anna)
    evening.add_card_item(player, "colander")
    await evening.checked("Anna wears a helmet from the cards")
    evening.add_card_item(player, "pan")
    await evening.checked("Anna takes a frying pan from the cards")
    assert evening.state.players[0].strength == 3 + 1 + 3
    combat = evening.combat()
    evening.card_monster(combat, "sofa")
    await evening.checked("a card monster joins the fight")
    assert combat.verdict == i18n._("Monsters win")
    evening.helper(combat, bram)
    await evening.checked("Bram helps")
    press(ui, combat.ids.players_shots.ids.b2)
    await evening.checked("a one-shot for the fighters")
    assert combat.verdict == i18n._("Players win")
    combat.ids.scroll.scroll_y = 1  # the fighter and the helper in view
    evening.shoot("fight-with-a-helper")
    await evening.kill(combat)
    await evening.checked("the monster is killed")
    assert evening.state.players[0].level == 4

    # Charity at the end of Anna's turn: her cards over the limit go to the lowest Levels.
    table = evening.table()
    for _phase in range(3):
        if evening.state.phase == "charity":
            break
        press(ui, table.ids.next_phase)
        await evening.checked(f"the next phase: {evening.state.phase}")
    assert evening.state.phase == "charity"
    press(ui, table.ids.excess.ids.plus)
    press(ui, table.ids.give)
    assert table.charity_sheet is not None
    await evening.checked("asked before giving")
    evening.shoot("charity")
    press(ui, table.charity_sheet.buttons["give"])
    assert evening.state.charity is not None
    await evening.checked("two cards given away")
    evening.next_turn()
    await evening.checked("Bram's turn")

    # Bram's turn: a helmet and armour from the cards, and a monster entered by its level
    # whose Bad Stuff takes an item; he fails to run away and picks which one goes.
    player = evening.open_player(bram)
    evening.add_card_item(player, "opinions")
    evening.add_card_item(player, "onesie")
    await evening.checked("Bram takes two items from the cards")
    combat = evening.combat()
    evening.level_monster(combat, 12, "item")
    await evening.checked("a Level 12 monster that takes an item")
    run = evening.run_away(combat)
    await evening.checked("Run away")
    evening.die_shows(run, 2)
    await evening.checked("Bram is caught")
    assert run.ids.picks.children, "the Bad Stuff does not ask which item it takes"
    ui.wait_until(lambda: not run.ids.die.rolling)
    evening.shoot("run-away-caught")
    lost = CARDS["opinions"]
    option = next(
        b
        for b in run.ids.picks.walk(restrict=True)
        if getattr(b, "text", "") == i18n.card_name(ui.app.cards.get(lost).name)
    )
    press(ui, option)
    assert [i.spec.card_id for i in evening.state.players[1].items] == [CARDS["onesie"]]
    await evening.checked("the Bad Stuff takes the helmet")
    press(ui, run.ids.done)
    await evening.checked("back at the Table")
    evening.next_turn()
    await evening.checked("Cleo's turn")

    # Mid-game the table reads in another language.
    evening.switch_language(night.switch_to)
    await evening.checked("the language switched")

    # Cleo's turn: a card monster that kills; she cannot run away and dies.
    combat = evening.combat()
    evening.card_monster(combat, "hangover")
    await evening.checked("a deadly card monster")
    run = evening.run_away(combat)
    evening.die_shows(run, 1)
    await evening.checked("Cleo is caught")
    assert evening.state.players[2].dead
    press(ui, run.ids.done)
    await evening.checked("Cleo is dead")

    # The light theme, for the rest of the evening.
    settings = evening.settings()
    press(ui, settings.ids.theme)
    assert ui.app.settings.theme == "light"
    await evening.checked("the light theme")
    evening.table()
    await evening.checked("the Table in the light theme")
    evening.shoot("light-theme")
    if night.switch_back:
        evening.switch_language(night.language)
        await evening.checked("the language switched back")
    evening.next_turn()
    await evening.checked("Dev's turn")

    # Dev's turn: a die roll, then two items from the cards sold for a Level, taken back
    # and done again.
    ui.nav("dice")
    press(ui, ui.screen("dice").ids.roll)
    await evening.checked("a die roll on the Dice screen")
    player = evening.open_player(dev)
    evening.add_card_item(player, "skates", wear=False)
    evening.add_card_item(player, "crown", wear=False)
    await evening.checked("Dev takes two items from the cards")
    for item in evening.state.players[3].items:
        press(ui, evening.item_rows(player)[item.id].ids.sale)  # rows are redrawn each time
    await evening.checked("two items marked for sale")
    press(ui, player.ids.sell)
    sold = (player.sale_text, ui.banner(), [r.for_sale for r in evening.item_rows(player).values()])
    assert evening.state.players[3].level == 2 and not evening.state.players[3].items, sold
    await evening.checked("the sale")
    press(ui, ui.app.root.ids.undo)
    assert evening.state.players[3].level == 1 and len(evening.state.players[3].items) == 2
    await evening.checked("the sale undone")
    press(ui, ui.app.root.ids.redo)
    assert evening.state.players[3].level == 2 and not evening.state.players[3].items
    await evening.checked("the sale redone")

    # Round the table to Anna, who reaches Level 9 and wins with a Level 1 monster.
    while evening.state.current != 0:
        evening.next_turn()
        await evening.checked(f"{evening.state.current_player.name}'s turn")
    evening.level_up(anna, 5)
    await evening.checked("Anna at Level 9")
    combat = evening.combat()
    evening.level_monster(combat, 1)
    await evening.checked("a Level 1 monster")
    press(ui, combat.ids.kill)
    await ui.until(lambda: ui.app.manager.current == "game_over", "Game over")
    assert evening.state.winners == (0,)
    await evening.checked("Game over")
    evening.shoot("game-over")
    # Every roll of the evening played once on every tracker, and only once.
    trackers = [s.key for s in evening.service.statuses if s.role is Role.TRACKER]
    played = {key: evening.rolls.played.get(key, 0) for key in trackers}
    assert played == dict.fromkeys(trackers, evening.rolls_made), played


@pytest.mark.parametrize("night", sorted(NIGHTS))
async def test_an_evening_from_new_game_to_the_win(ui: Harness, tmp_path: Path, night: str) -> None:
    from kivy.core.window import Window

    assert tuple(Window.size) == PHONE
    service = ui.app.devices
    assert service is not None and service.virtual_wanted
    plan = NIGHTS[night]
    i18n.set_language(plan.language)
    ui.app.settings.language = plan.language
    ui.pump()
    rolls = RollsPlayed(service)
    running = asyncio.ensure_future(service.run())
    print(f"screenshots of the evening: {tmp_path}")
    try:
        with warnings_kept() as log:
            evening = Evening(ui, plan, tmp_path, service, log, rolls, language=plan.language)
            await play_the_evening(evening)
    finally:
        rolls.stop()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        ui.app.theme.apply("dark")
        i18n.set_language("en")
        ui.app.settings.language = "en"
        ui.pump()
