"""New game: players (add, rename, colour, sex, reorder, shuffle), who starts, rules."""

from __future__ import annotations

import random
from typing import Any, Final

from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from pydantic import ValidationError

from companion.core import (
    EDITIONS,
    Edition,
    GameSetup,
    PlayerSetup,
    RollForFirstPlayer,
    Sex,
    Variants,
)
from companion.core.errors import first_validation_error
from companion.ui.i18n import _, ngettext
from companion.ui.labels import sex_name
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import PLAYER_COLOURS, colour

MIN_PLAYERS = 2
MAX_PLAYERS = 8
EPIC_LEVEL: Final = 20
NORMAL_LEVEL: Final = 10
ROLL_FOR_FIRST = -1  # `first` value meaning "roll dice for the first player"

_SEX_CYCLE = (Sex.MALE, Sex.FEMALE, Sex.NONE)


class PlayerRow(BoxLayout):
    """One seat being set up; every control calls back into the screen with its index."""

    owner = ObjectProperty(None)
    index = NumericProperty(0)
    name = StringProperty("")
    colour = ColorProperty([1, 1, 1, 1])
    sex = StringProperty("")
    first = BooleanProperty(False)


class NewGameScreen(CompanionScreen):
    """Set up the table, then start."""

    edition_name = StringProperty("")
    epic = BooleanProperty(False)
    no_limit = BooleanProperty(False)
    shared_victory = BooleanProperty(False)
    faster_play = BooleanProperty(False)
    # Seat that starts, or ROLL_FOR_FIRST.
    first = NumericProperty(ROLL_FOR_FIRST)
    first_text = StringProperty("")
    count_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.players: list[dict[str, Any]] = []
        self.edition_ids = list(EDITIONS)
        self.edition_id = "classic"
        self._load_choices()
        self._seed_players()

    def _load_choices(self) -> None:
        settings = self.app.settings
        self.edition_id = settings.edition if settings.edition in EDITIONS else "classic"
        self.epic = settings.winning_level == EPIC_LEVEL
        self.no_limit = False  # a choice for one game, not a default kept in the settings
        self.shared_victory = settings.shared_victory
        self.faster_play = settings.faster_play
        self.first = ROLL_FOR_FIRST

    # -- the player list ------------------------------------------------------------
    def _seed_players(self) -> None:
        state = self.session.state
        if state is not None:
            self.players = [
                {"name": p.name, "colour": p.colour, "sex": p.sex} for p in state.setup.players
            ]
        else:
            self.players = []
            for n in range(3):
                self.players.append(self._new_player(n))
        self._rebuild()

    def _new_player(self, n: int) -> dict[str, Any]:
        used = {p["colour"] for p in self.players}
        free = [c for c in PLAYER_COLOURS if c not in used] or list(PLAYER_COLOURS)
        return {"name": _("Player {n}").format(n=n + 1), "colour": free[0], "sex": Sex.NONE}

    def add_player(self) -> None:
        """Add a seat at the end of the table."""
        if len(self.players) >= MAX_PLAYERS:
            self.app.notify(
                ngettext(
                    "A game has at most {n} player.", "A game has at most {n} players.", MAX_PLAYERS
                ).format(n=MAX_PLAYERS),
                True,
            )
            return
        self.players.append(self._new_player(len(self.players)))
        self._rebuild()

    def remove_player(self, index: int) -> None:
        """Remove a seat."""
        if len(self.players) <= MIN_PLAYERS:
            self.app.notify(
                ngettext(
                    "A game needs at least {n} player.",
                    "A game needs at least {n} players.",
                    MIN_PLAYERS,
                ).format(n=MIN_PLAYERS),
                True,
            )
            return
        del self.players[index]
        if self.first >= len(self.players):
            self.first = 0
        self._rebuild()

    def rename(self, index: int, name: str) -> None:
        """Typing in a name field (no rebuild, so the keyboard stays open)."""
        if 0 <= index < len(self.players):
            self.players[index]["name"] = name
            self._update_first_text()

    def cycle_colour(self, index: int) -> None:
        """Next free colour for a player."""
        player = self.players[index]
        taken = {p["colour"] for i, p in enumerate(self.players) if i != index}
        at = PLAYER_COLOURS.index(player["colour"]) if player["colour"] in PLAYER_COLOURS else -1
        for step in range(1, len(PLAYER_COLOURS) + 1):
            candidate = PLAYER_COLOURS[(at + step) % len(PLAYER_COLOURS)]
            if candidate not in taken:
                player["colour"] = candidate
                break
        self._rebuild()

    def cycle_sex(self, index: int) -> None:
        """Male -> female -> neither -> male."""
        player = self.players[index]
        player["sex"] = _SEX_CYCLE[(_SEX_CYCLE.index(player["sex"]) + 1) % len(_SEX_CYCLE)]
        self._rebuild()

    def move(self, index: int, delta: int) -> None:
        """Move a seat up or down the table order."""
        target = index + delta
        if not 0 <= target < len(self.players):
            return
        self.players[index], self.players[target] = self.players[target], self.players[index]
        if self.first == index:
            self.first = target
        elif self.first == target:
            self.first = index
        self._rebuild()

    def shuffle(self) -> None:
        """Shuffle the seating order."""
        random.shuffle(self.players)
        self._rebuild()

    def choose_first(self, index: int) -> None:
        """Tap a seat's flag to make it start; tap again to go back to rolling for it."""
        self.first = ROLL_FOR_FIRST if self.first == index else index
        self._rebuild()

    def cycle_first(self) -> None:
        """Roll for it -> first seat -> second seat -> ... -> roll for it."""
        nxt = self.first + 1
        self.first = ROLL_FOR_FIRST if nxt >= len(self.players) else nxt
        self._rebuild()

    # -- edition and variants --------------------------------------------------------
    def next_edition(self) -> None:
        """Cycle through the editions."""
        at = self.edition_ids.index(self.edition_id)
        self.edition_id = self.edition_ids[(at + 1) % len(self.edition_ids)]
        self._update_texts()

    def cycle_limit(self) -> None:
        """Play to Level 10, then Epic (20), then no limit, then back to 10."""
        if self.no_limit:
            self.no_limit = False
        elif self.epic:
            self.epic, self.no_limit = False, True
        else:
            self.epic = True

    def toggle(self, option: str) -> None:
        """Flip one of the variant switches: "epic", "shared_victory" or "faster_play"."""
        setattr(self, option, not getattr(self, option))

    # -- start ----------------------------------------------------------------------
    def setup(self) -> GameSetup:
        """The setup the screen describes (raises ValueError when it is not valid)."""
        seats = tuple(
            PlayerSetup(name=p["name"], colour=p["colour"], sex=p["sex"]) for p in self.players
        )
        edition: Edition = EDITIONS[self.edition_id]
        variants = Variants(
            winning_level=EPIC_LEVEL if self.epic else NORMAL_LEVEL,
            no_limit=self.no_limit,
            shared_victory=self.shared_victory,
            faster_play=self.faster_play,
        )
        first = 0 if self.first == ROLL_FOR_FIRST else self.first
        return GameSetup(players=seats, edition=edition, variants=variants, first_player=first)

    def start(self) -> None:
        """Start the game; roll for the first player when asked to."""
        try:
            setup = self.setup()
        except ValidationError as exc:
            self.app.notify(_setup_problem(exc), error=True)
            return
        self._remember_choices()
        self.session.start(setup)
        if self.first != ROLL_FOR_FIRST:
            return
        from companion.ui.throws import first_player_with_dice

        with_dice = first_player_with_dice(self.app, self._say_first)
        if with_dice is None and self.session.act(RollForFirstPlayer):
            self._say_first()

    def _say_first(self) -> None:
        state = self.session.game.state if self.session.game else None
        if state is not None:
            self.app.notify(_("{name} goes first.").format(name=state.current_player.name))

    def _remember_choices(self) -> None:
        settings = self.app.settings
        settings.edition = self.edition_id
        settings.winning_level = EPIC_LEVEL if self.epic else NORMAL_LEVEL
        settings.shared_victory = self.shared_victory
        settings.faster_play = self.faster_play
        self.app.save_settings()

    # -- drawing --------------------------------------------------------------------
    def prepare(self, **params: Any) -> None:
        fresh = params.pop("fresh", False)
        super().prepare(**params)
        if fresh:
            self._load_choices()
            self._seed_players()

    def _rebuild(self) -> None:
        box = self.ids.rows
        box.clear_widgets()
        for index, player in enumerate(self.players):
            box.add_widget(
                PlayerRow(
                    owner=self,
                    index=index,
                    name=player["name"],
                    colour=colour(player["colour"]),
                    sex=sex_name(player["sex"]),
                    first=self.first == index,
                )
            )
        self._update_texts()

    def _update_texts(self) -> None:
        self.edition_name = EDITIONS[self.edition_id].name
        self.count_text = ngettext("{n} player", "{n} players", len(self.players)).format(
            n=len(self.players)
        )
        self._update_first_text()

    def _update_first_text(self) -> None:
        if self.first == ROLL_FOR_FIRST or self.first >= len(self.players):
            self.first_text = _("Roll dice for who goes first")
        else:
            self.first_text = _("{name} goes first").format(name=self.players[self.first]["name"])


def _setup_problem(exc: ValidationError) -> str:
    return first_validation_error(exc)[1].removeprefix("Value error, ")
