"""New game: players (add, rename, colour, sex, class, race and role card, reorder,
shuffle), who starts, rules.

The rules sit below the players, outside their scrolling list: every switch is on
screen at once on a phone. The edition is picked from a list, each by its box's name.
A class and race chosen here are the game's first actions (the log keeps them as any
other); a role or character card is part of the set-up, as the rulebooks deal it.
"""

from __future__ import annotations

import random
from typing import Any, Final

from kivy.clock import Clock
from kivy.metrics import dp
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
    CardRules,
    Edition,
    GainTrait,
    GameSetup,
    PlayerSetup,
    RollForFirstPlayer,
    Sex,
    Variants,
    box_allows,
    check_player_count,
)
from companion.core.errors import RuleError, first_validation_error
from companion.core.people import person_key
from companion.table.words import sex_name
from companion.ui.i18n import APP_LANGUAGE, _, card_name, ngettext, tr
from companion.ui.labels import edition_detail, edition_title
from companion.ui.picker import Choice, ListPicker, pick_one
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import PLAYER_COLOURS, colour

MIN_PLAYERS = 2
MAX_PLAYERS = 8
EPIC_LEVEL: Final = 20
NORMAL_LEVEL: Final = 10
ROLL_FOR_FIRST = -1  # `first` value meaning "roll dice for the first player"
# How often the linking of older games to people is looked at while it runs (s).
PEOPLE_POLL_S = 0.25

_SEX_CYCLE = (Sex.MALE, Sex.FEMALE, Sex.NONE)


class PlayerRow(BoxLayout):
    """One seat being set up; every control calls back into the screen with its index."""

    owner = ObjectProperty(None)
    index = NumericProperty(0)
    name = StringProperty("")
    colour = ColorProperty([1, 1, 1, 1])
    sex = StringProperty("")
    first = BooleanProperty(False)
    # What the flag does, said while a finger rests on it.
    first_hint = StringProperty("")
    # The class, race and role card chosen, in words ("" hides a choice the edition
    # does not have).
    class_text = StringProperty("")
    race_text = StringProperty("")
    role_text = StringProperty("")


class NewGameScreen(CompanionScreen):
    """Set up the table, then start."""

    edition_name = StringProperty("")
    # The pop-up list on show (an edition, a class, a race or a role to pick), if any.
    picker = ObjectProperty(None, allownone=True)
    epic = BooleanProperty(False)
    no_limit = BooleanProperty(False)
    shared_victory = BooleanProperty(False)
    faster_play = BooleanProperty(False)
    # More or fewer players than the edition's box says, chosen openly as a house rule;
    # its switch shows only while the count needs it.
    house_players = BooleanProperty(False)
    house_needed = BooleanProperty(False)
    house_text = StringProperty("")
    # Seat that starts, or ROLL_FOR_FIRST.
    first = NumericProperty(ROLL_FOR_FIRST)
    first_text = StringProperty("")
    count_text = StringProperty("")
    # Above the chips of the people who played here ("" when there is nobody to offer).
    people_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.players: list[dict[str, Any]] = []
        # Everyone who played here, the one who played last first (offered as chips).
        self.people: list[Any] = []
        self._linking: Any = None
        self.edition_ids = list(EDITIONS)
        self.edition_id = "classic"
        self._load_choices()
        self._load_people()
        self._seed_players()

    def _load_choices(self) -> None:
        settings = self.app.settings
        self.edition_id = settings.edition if settings.edition in EDITIONS else "classic"
        self.epic = settings.winning_level == EPIC_LEVEL
        self.no_limit = False  # a choice for one game, not a default kept in the settings
        self.house_players = False  # likewise
        self.shared_victory = settings.shared_victory
        self.faster_play = settings.faster_play
        self.first = ROLL_FOR_FIRST

    # -- the player list ------------------------------------------------------------
    def _seed_players(self) -> None:
        state = self.session.state
        if state is not None:
            # The same table again: new characters (no class, race or role yet).
            self.players = [
                _fresh({"name": p.name, "colour": p.colour, "sex": p.sex})
                for p in state.setup.players
            ]
            self.house_players = state.setup.variants.house_player_count
        else:
            self.players = []
            for n in range(3):
                self.players.append(self._new_player(n))
        self._rebuild()

    def _new_player(self, n: int) -> dict[str, Any]:
        used = {p["colour"] for p in self.players}
        free = [c for c in PLAYER_COLOURS if c not in used] or list(PLAYER_COLOURS)
        seat = _fresh({"name": _("Player {n}").format(n=n + 1), "colour": free[0], "sex": Sex.NONE})
        seat["placeholder"] = True  # a name nobody typed: a person tapped takes its place
        return seat

    # -- the people who played here ---------------------------------------------------
    def _load_people(self) -> None:
        """Read who played here (and link older games to people, in the background)."""
        from companion.plumbing.errors import StoreError

        store = self.session.games
        try:
            linking = store.people.link_waiting()
            self.people = store.people.list()
        except StoreError:
            self.people = []  # a store that cannot be read now offers nobody
            return
        if linking.running and self._linking is None:
            self._linking = linking
            Clock.schedule_interval(self._linked, PEOPLE_POLL_S)

    def _linked(self, _dt: float) -> bool:
        job = self._linking
        if job is not None and job.running:
            return True
        self._linking = None
        self._load_people()
        self._show_people()
        return False

    def offered(self) -> list[Any]:
        """The people to offer: everyone who played here but is not seated yet (by their
        name, or a name they had before)."""
        seated = {person_key(p["name"]) for p in self.players if p["name"].strip()}
        return [
            person
            for person in self.people
            if seated.isdisjoint(person_key(name) for name in (person.name, *person.aliases))
        ]

    def add_person(self, person_id: int) -> None:
        """Seat someone who played here, with the colour and sex they played last: in
        place of the first seat nobody named, else at the end of the table."""
        person = next((p for p in self.people if p.id == person_id), None)
        if person is None:
            return
        at = next((i for i, p in enumerate(self.players) if p.get("placeholder")), None)
        if at is None:
            if len(self.players) >= MAX_PLAYERS:
                self.add_player()  # says why not
                return
            self.players.append(self._new_player(len(self.players)))
            at = len(self.players) - 1
        taken = {p["colour"] for i, p in enumerate(self.players) if i != at}
        shade = person.colour if person.colour not in taken else self.players[at]["colour"]
        if shade in taken:
            shade = next((c for c in PLAYER_COLOURS if c not in taken), shade)
        sex = person.sex if person.sex in {s.value for s in Sex} else Sex.NONE
        self.players[at] = _fresh({"name": person.name, "colour": shade, "sex": Sex(sex)})
        self._rebuild()

    def _show_people(self) -> None:
        offered = self.offered()
        self.people_text = _("Played here before: tap to seat them") if offered else ""
        self.ids.people.data = [
            {
                "owner": self,
                "person_id": person.id,
                "text": person.name,
                "bg": colour(person.colour),
                "width": _chip_width(person.name, self.app.theme.body),
            }
            for person in offered
        ]

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
        # The new player's row in view, under the Add button (which never scrolls), and once
        # more when the screen is laid out again: the house rule's switch may just have come
        # and taken room from the list.
        self._show_new_row()
        Clock.schedule_once(lambda _dt: self._show_new_row(), 0)

    def _show_new_row(self) -> None:
        self.ids.players_scroll.scroll_to(self.ids.rows.children[0], padding=dp(4), animate=False)

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
            if self.players[index]["name"] != name:
                self.players[index]["placeholder"] = False
            self.players[index]["name"] = name
            self._update_first_text()
            rows = self.ids.rows.children  # last-first
            if len(rows) == len(self.players):
                rows[len(rows) - 1 - index].first_hint = self._first_hint(index, name)

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

    # -- class, race and role card ---------------------------------------------------
    def choose_class(self, index: int) -> ListPicker:
        """The edition's classes to pick one from (or none) for a player."""
        return self._choose_trait(index, "class", _("Class"), _("No class"))

    def choose_race(self, index: int) -> ListPicker:
        """The edition's races to pick one from (or Human) for a player."""
        return self._choose_trait(index, "race", _("Race"), _("Human"))

    def _choose_trait(self, index: int, kind: str, title: str, nothing: str) -> ListPicker:
        edition = EDITIONS[self.edition_id]
        choices = [Choice(None, nothing)]
        choices += [Choice(name, card_name(name)) for name in edition.traits(kind)]  # type: ignore[arg-type]
        player = self.players[index]
        heading = f"{title}: {player['name']}"
        self.picker = pick_one(
            heading, choices, player[kind], lambda name: self._set(index, kind, name)
        )
        return self.picker

    def choose_role(self, index: int) -> ListPicker:
        """The role (or character) cards the app knows for the edition, or none."""
        player = self.players[index]
        choices = [Choice(None, _("None"))]
        choices += [Choice(role, card_name(role.name), _role_detail(role)) for role in self.roles()]
        chosen = player["role"]
        heading = f"{self.role_heading}: {player['name']}"
        self.picker = pick_one(
            heading, choices, chosen, lambda role: self._set(index, "role", role)
        )
        return self.picker

    @property
    def role_heading(self) -> str:
        """ "Role" or "Character", as the edition calls the cards it deals."""
        return _("Character") if EDITIONS[self.edition_id].role_cards == "character" else _("Role")

    def roles(self) -> list[CardRules]:
        """The edition's own role cards, then those of the card packs."""
        found = [card for card in EDITIONS[self.edition_id].cards if card.kind == "role"]
        cards = self.app.cards
        if cards is not None:
            from companion.cards import Role

            names = {card.name.casefold() for card in found}
            for role in cards.of_type(Role):
                if role.name.casefold() not in names:
                    found.append(role.to_rules())
                    names.add(role.name.casefold())
        return found

    def _set(self, index: int, key: str, value: Any) -> None:
        if 0 <= index < len(self.players):
            self.players[index][key] = value
            self._rebuild()

    # -- edition and variants --------------------------------------------------------
    def choose_edition(self) -> ListPicker:
        """Every edition, by its box's name, to pick one from."""
        choices = [
            Choice(edition_id, edition_title(edition), edition_detail(edition))
            for edition_id, edition in EDITIONS.items()
        ]
        self.picker = pick_one(_("Edition"), choices, self.edition_id, self.use_edition)
        return self.picker

    def use_edition(self, edition_id: str) -> None:
        """Play this edition: classes, races and roles it does not have are dropped."""
        edition = EDITIONS[edition_id]
        self.edition_id = edition_id
        for player in self.players:
            if player["class"] not in edition.classes:
                player["class"] = None
            if player["race"] not in edition.races:
                player["race"] = None
            if edition.role_cards is None:
                player["role"] = None
        self._rebuild()

    def cycle_limit(self) -> None:
        """Play to Level 10, then Epic (20), then no limit, then back to 10."""
        if self.no_limit:
            self.no_limit = False
        elif self.epic:
            self.epic, self.no_limit = False, True
        else:
            self.epic = True

    def toggle(self, option: str) -> None:
        """Flip one of the variant switches: "epic", "shared_victory", "faster_play" or
        "house_players"."""
        setattr(self, option, not getattr(self, option))

    # -- start ----------------------------------------------------------------------
    def setup(self) -> GameSetup:
        """The setup the screen describes (raises ValueError when it is not valid)."""
        seats = tuple(
            PlayerSetup(name=p["name"], colour=p["colour"], sex=p["sex"], role=p["role"])
            for p in self.players
        )
        edition: Edition = EDITIONS[self.edition_id]
        variants = Variants(
            winning_level=EPIC_LEVEL if self.epic else NORMAL_LEVEL,
            no_limit=self.no_limit,
            shared_victory=self.shared_victory,
            faster_play=self.faster_play,
            house_player_count=self.house_players and self.house_needed,
        )
        first = 0 if self.first == ROLL_FOR_FIRST else self.first
        return GameSetup(players=seats, edition=edition, variants=variants, first_player=first)

    def start(self) -> None:
        """Start the game; roll for the first player when asked to."""
        try:
            setup = self.setup()
            check_player_count(setup)
        except ValidationError as exc:
            self.app.notify(_setup_problem(exc), error=True)
            return
        except RuleError as exc:
            self.app.notify(tr(exc), error=True)
            return
        self._remember_choices()
        self.session.start(setup)
        for seat, player in enumerate(self.players):
            for kind in ("class", "race"):
                if player[kind]:
                    self.session.act(GainTrait, player=seat, kind=kind, name=player[kind])
        if self.first != ROLL_FOR_FIRST:
            return
        from companion.ui.throws import first_player_with_dice, show_first_player_roll

        if first_player_with_dice(self.app) is None and self.session.act(RollForFirstPlayer):
            show_first_player_roll(self.app)

    def on_house_players(self, *_args: Any) -> None:
        self._update_texts()

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
            self._load_people()
            self._seed_players()
            self.ids.players_scroll.scroll_y = 1  # the list from its top

    def _rebuild(self) -> None:
        """Show the players list on the seats: the rows on screen are filled in again, and
        only a seat more or fewer is drawn or taken away (drawing a whole table of seats
        anew takes a moment on a phone, at every tap on a colour, a flag or an arrow)."""
        box = self.ids.rows
        rows = list(reversed(box.children))  # BoxLayout keeps them last-first
        for index in range(len(self.players)):
            if index < len(rows):
                row = rows[index]
                for key, value in self._row_values(index).items():
                    setattr(row, key, value)
                # What the field and the swatch show, even where a name was typed over or the
                # theme switched since the row was drawn (the buttons' own rule follows it).
                if row.ids.name.text != row.name:
                    row.ids.name.text = row.name
                    row.ids.name.reset_undo()  # Undo in the field is for the name shown now
                row.ids.colour.bg = row.colour
            else:
                box.add_widget(PlayerRow(owner=self, **self._row_values(index)))
        for row in rows[len(self.players) :]:
            box.remove_widget(row)
        self._update_texts()
        self._show_people()

    def _row_values(self, index: int) -> dict[str, Any]:
        """What the row of seat `index` shows, as the players list has it (its index first:
        a name shown anew is typed in for that seat)."""
        player = self.players[index]
        return {
            "index": index,
            "name": player["name"],
            "colour": colour(player["colour"]),
            "sex": sex_name(player["sex"], APP_LANGUAGE),
            "first": self.first == index,
            "first_hint": self._first_hint(index, player["name"]),
            **self._character_texts(player),
        }

    def _first_hint(self, index: int, name: str) -> str:
        if self.first == index:
            return _("{name} goes first. Tap the flag to roll dice for it instead.").format(
                name=name
            )
        return _("Who goes first: tap the flag to let {name} start.").format(name=name)

    def _character_texts(self, player: dict[str, Any]) -> dict[str, str]:
        edition = EDITIONS[self.edition_id]
        klass, race, role = player["class"], player["race"], player["role"]
        return {
            "class_text": _("Class: {name}").format(name=card_name(klass) if klass else _("none")),
            "race_text": _("Race: {name}").format(name=card_name(race) if race else _("Human"))
            if edition.races
            else "",
            "role_text": f"{self.role_heading}: {card_name(role.name) if role else _('none')}"
            if edition.role_cards
            else "",
        }

    def _update_texts(self) -> None:
        self.edition_name = edition_title(EDITIONS[self.edition_id])
        count = len(self.players)
        self.count_text = ngettext("{n} player", "{n} players", count).format(n=count)
        self.house_needed = not box_allows(EDITIONS[self.edition_id], count)
        self.house_text = (
            ngettext("House rule: {n} player: on", "House rule: {n} players: on", count).format(
                n=count
            )
            if self.house_players
            else ngettext(
                "House rule: {n} player: off", "House rule: {n} players: off", count
            ).format(n=count)
        )
        self._update_first_text()

    def _update_first_text(self) -> None:
        if self.first == ROLL_FOR_FIRST or self.first >= len(self.players):
            self.first_text = _("Roll dice for who goes first")
        else:
            self.first_text = _("{name} goes first").format(name=self.players[self.first]["name"])


# A person's chip is as wide as their name, within these bounds (dp).
CHIP_MIN_DP, CHIP_MAX_DP = 64, 200


def _chip_width(name: str, font_size: float) -> float:
    """How wide a chip must be to show `name` whole (up to `CHIP_MAX_DP`)."""
    from kivy.core.text import Label as CoreLabel

    label = CoreLabel(text=name, font_size=font_size)
    label.refresh()
    return max(dp(CHIP_MIN_DP), min(dp(CHIP_MAX_DP), label.content_width + dp(28)))


def _fresh(player: dict[str, Any]) -> dict[str, Any]:
    """A seat with no class, race or role card chosen yet."""
    return {**player, "class": None, "race": None, "role": None}


def _role_detail(role: CardRules) -> str:
    """What a role card gives, in numbers: "+1 to run away", "+2 in combat"."""
    parts = []
    if role.bonus:
        parts.append(_("{bonus:+d} in combat").format(bonus=role.bonus))
    if role.run_away:
        parts.append(_("{bonus:+d} to run away").format(bonus=role.run_away))
    return " · ".join(parts)


def _setup_problem(exc: ValidationError) -> str:
    """What is wrong with the setup, in the language on show when a rule said it (a
    blank name, two names that look the same)."""
    return tr(first_validation_error(exc)[1]).removeprefix("Value error, ")
