"""Inputs of the rules engine: game setup, editions, variants and the combat specs cards become."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal, Self, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationInfo,
    field_validator,
    model_validator,
)

from companion.core.errors import RuleError
from companion.core.names import NAME_MAX, log_name, normal_name, refuse_lookalikes, saved_name
from companion.core.phrase import Phrase, phrase_template

MIN_PLAYERS = 2  # the rulebooks say 3..6; 2 and 7..8 are common house rules
MAX_PLAYERS = 8
BOX_PLAYERS = (3, 6)  # what every shipped edition's box says (`Edition.players`)

# The rules this engine plays by. A game keeps the rules it started with (`GameSetup.rules`):
# games saved by versions that played by rules 2 (logs of version 1 and 2) are judged by
# them still, so an old save reaches the same results; new games play by these.
RULES_VERSION = 5
LEGACY_RULES = 2
# The rules from which the second reading (RULES.md §11) holds: a game saved under rules 3
# replays as it was played, though it sold after its Charity, say.
SECOND_READING = 4
# The rules from which what goes with a lost allowance goes too (RULES.md §11, a cascade
# counts: a Super Munchkin Monk giving up the Monk class gives up a second style), and a
# Big item given up on one's own turn is sold only if the sale buys a level (else it goes
# to the lowest-Level player who can carry it). A game of rules 4 replays as it was played.
LOST_ALLOWANCE = 5

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
# The validation context key of a setup read from a game the app saved itself
# (`context={SAVED_GAME: True}`): its player names were taken under the rule of their
# day and are kept as written, so an old save never stops opening (names.py).
SAVED_GAME = "saved_game"
# A name that enters the log from a card, a die or an old log: made to keep the log's rule.
LoggedName = Annotated[str, AfterValidator(lambda name: log_name(name, NAME_MAX))]


def in_fixed_order(values: frozenset[Any]) -> list[Any]:
    """A set as a log or a saved state writes it: sorted, so one game is one text.

    A set's own order follows the process's string hashing, which differs from run to run.

    >>> in_fixed_order(frozenset({"undead", "demon"}))
    ['demon', 'undead']
    """
    return sorted(values)


# Sets of the engine's models, written in a fixed order (`in_fixed_order`).
TagSet = Annotated[frozenset[str], PlainSerializer(in_fixed_order, when_used="json")]
SeatSet = Annotated[frozenset[int], PlainSerializer(in_fixed_order, when_used="json")]


_set = object.__setattr__
_new = object.__new__


class Frozen(BaseModel):
    """Base of every immutable model of the core (setup, specs, actions, state)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    def evolve(self, **changes: Any) -> Self:
        """A copy with some fields changed, without validation (the engine's hot path).

        Does what `model_copy(update=...)` does for these plain frozen models at a
        fraction of the cost; callers pass values of the right types.
        """
        new = _new(self.__class__)
        _set(new, "__dict__", {**self.__dict__, **changes})
        fields_set = self.__pydantic_fields_set__
        if not fields_set.issuperset(changes):
            fields_set = fields_set.union(changes)
        _set(new, "__pydantic_fields_set__", fields_set)
        _set(new, "__pydantic_extra__", None)
        _set(new, "__pydantic_private__", None)
        return new


class Sex(StrEnum):
    """A character's sex; some characters are neither (RULES.md §2)."""

    MALE = "male"
    FEMALE = "female"
    NONE = "none"


TraitKind = Literal["class", "race", "motivation", "style"]

# What a class, race, role or card lets its owner do that changes a number the app shows
# (docs/rules-choices.md, "Abilities"):
Ability = Literal[
    "wins_ties",  # the players' side wins ties
    "berserking",  # discard up to 3 cards in a combat, +1 each
    "turning",  # discard up to 3 cards in a combat against Undead, +3 each
    "flight",  # discard up to 3 cards after a run-away roll, +1 each to it
    "charm",  # discard the whole hand (3 cards at least): one monster goes, its treasure won
    "backstab",  # discard a card: -2 to a player in a combat, once per victim and combat
    "theft",  # try to steal a small item: 4+ on a die, or lose a Level
    "helper_level",  # a Level for each monster killed in a combat you helped in
    "big_items",  # carry any number of Big items
    "double_sale",  # once a turn, one item sells for double its value
    "two_allies",  # keep two Allies
]
ABILITIES: tuple[Ability, ...] = get_args(Ability)


class TagBonus(Frozen):
    """A combat bonus that counts only against monsters with a tag ("+3 against Undead")."""

    tag: Annotated[str, Field(min_length=1, max_length=32)]
    bonus: int

    @field_validator("tag")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.strip().casefold()


class CardRules(Frozen):
    """What an edition's class, race, motivation, style, role or character card gives its
    owner: lasting bonuses and abilities. A player who takes the card by name gets these
    (a card from a pack brings its own numbers)."""

    kind: Literal["class", "race", "motivation", "style", "role"]
    name: Annotated[str, Field(min_length=1, max_length=60)]
    bonus: int = 0
    run_away: int = 0
    against: tuple[TagBonus, ...] = ()
    abilities: tuple[Ability, ...] = ()


class Edition(Frozen):
    """An edition's names for classes, races, motivations and styles (RULES.md §4), and the
    rules in which its rulebook differs from the others (docs/rules-choices.md).

    No races means every character is Human.
    """

    id: str
    name: str
    classes: tuple[str, ...]
    races: tuple[str, ...] = ()
    motivations: tuple[str, ...] = ()
    styles: tuple[str, ...] = ()
    start_door_cards: int = 4
    start_treasure_cards: int = 4
    # Each player is dealt a role (or character) card at set-up; these are the ones the
    # engine knows by name (others can be entered with their numbers).
    role_cards: Literal["role", "character"] | None = None
    cards: tuple[CardRules, ...] = ()
    # A monster a card removes without a kill still gives its treasure, unless the card
    # says otherwise (otherwise: no treasure unless the card says so).
    treasure_without_kill: bool = False
    # Monsters with one of these tags may join a fight against a monster with the same tag
    # without a card that brings them in.
    joining_tags: tuple[str, ...] = ()
    helper_stays: bool = False  # a player who volunteered to help cannot back out
    magic_quotes: bool = False  # magic by quoting: a quote may not be repeated in a game
    # How many can play, as the box says; other counts (MIN_PLAYERS..MAX_PLAYERS) only by
    # the house rule `Variants.house_player_count`, chosen at New game (RULES.md §11).
    players: tuple[int, int] = BOX_PLAYERS
    # Kinds of character card the edition leaves to its deck rather than to a closed list
    # (the martial-arts Styles): any card of that kind is one of the edition's, with the
    # numbers the card brings; the names listed above are the ones the screens offer.
    open_traits: tuple[TraitKind, ...] = ()

    def traits(self, kind: TraitKind) -> tuple[str, ...]:
        """The edition's classes, races, motivations or styles."""
        if kind == "class":
            return self.classes
        if kind == "race":
            return self.races
        return self.motivations if kind == "motivation" else self.styles

    def card(self, kind: str, name: str) -> CardRules | None:
        """What the edition's card of this kind and name gives, if the edition says."""
        folded = name.casefold()
        return next((c for c in self.cards if c.kind == kind and c.name.casefold() == folded), None)


CLASSIC = Edition(
    id="classic",
    name="Classic fantasy",
    classes=("Warrior", "Wizard", "Cleric", "Thief"),
    races=("Elf", "Dwarf", "Halfling"),
    cards=(
        CardRules(kind="class", name="Warrior", abilities=("wins_ties", "berserking")),
        CardRules(kind="class", name="Wizard", abilities=("flight", "charm")),
        CardRules(kind="class", name="Cleric", abilities=("turning",)),
        CardRules(kind="class", name="Thief", abilities=("backstab", "theft")),
        CardRules(kind="race", name="Elf", run_away=1, abilities=("helper_level",)),
        CardRules(kind="race", name="Dwarf", abilities=("big_items",)),
        CardRules(kind="race", name="Halfling", abilities=("double_sale",)),
    ),
    joining_tags=("undead",),
)
FU = Edition(
    id="fu",
    name="Martial arts",
    classes=("Ninja", "Yakuza", "Samurai", "Monk"),
    styles=("Crane", "Dragon", "Mantis", "Monkey", "Snake", "Tiger"),
    open_traits=("style",),
    treasure_without_kill=True,
)
OZ = Edition(
    id="oz",
    name="Emerald land",
    classes=("Professor", "Wizard", "Royalty", "Soldier"),
    cards=(CardRules(kind="class", name="Wizard", abilities=("charm",)),),
)
ADVENTURE_TIME = Edition(
    id="adventure_time",
    name="Land of candy",
    classes=("Hero", "Musician", "Royalty", "Wizard"),
    role_cards="character",
    joining_tags=("undead", "demon"),
)
DISNEY = Edition(
    id="disney",
    name="Fairy-tale kingdom",
    classes=("Princess", "Hero", "Companion", "Fairy Godmother"),
    motivations=("Love", "Adventure", "Family", "Inspiration"),
    role_cards="role",
    cards=(CardRules(kind="role", name="Sidekick", abilities=("two_allies",)),),
    helper_stays=True,
    magic_quotes=True,
)
EDITIONS: dict[str, Edition] = {e.id: e for e in (CLASSIC, FU, OZ, ADVENTURE_TIME, DISNEY)}


MAX_LEVEL = 99  # with no limit, Levels stop here: two digits on a counter's display


class Variants(Frozen):
    """Optional rules: Epic plays to Level 20, no limit, shared victory, faster play
    (RULES.md §1, §3, §6).

    With `no_limit` nobody wins by reaching a Level and Levels go on up to MAX_LEVEL;
    `winning_level` is then only where the level track starts out.
    """

    winning_level: int = Field(default=10, ge=2, le=100)
    no_limit: bool = False
    shared_victory: bool = False
    faster_play: bool = False
    # A house rule chosen openly at New game: more or fewer players than the box says
    # (2, or 7 to 8; `Edition.players`).
    house_player_count: bool = False


class PlayerSetup(Frozen):
    """One seat at the table: name, standie colour ("#rrggbb"), starting sex, and the role or
    character card dealt at set-up in the editions that have them (RULES.md §2)."""

    name: Annotated[str, Field(max_length=40)]
    colour: str
    sex: Sex
    role: CardRules | None = None

    @field_validator("name")
    @classmethod
    def _name_keeps_the_rule(cls, value: str, info: ValidationInfo) -> str:
        """A new name is made normal, or refused (blank, invisible, unsafe); a saved
        game's name is kept as it was written (names.py)."""
        return saved_name(value) if _saved(info) else normal_name(value)

    @field_validator("colour")
    @classmethod
    def _colour_is_hex(cls, value: str) -> str:
        if not _COLOUR.match(value):
            raise ValueError(f"colour must look like #rrggbb, not {value!r}")
        return value.lower()


class GameSetup(Frozen):
    """Everything fixed before the first action: seats, edition, variants, who starts, and
    the rules the game plays by (`RULES_VERSION`; older saves keep `LEGACY_RULES`)."""

    players: tuple[PlayerSetup, ...]
    edition: Edition
    variants: Variants = Variants()
    first_player: int = 0
    rules: Annotated[int, Field(ge=LEGACY_RULES, le=RULES_VERSION)] = RULES_VERSION

    @field_validator("edition", mode="before")
    @classmethod
    def _edition_by_id(cls, value: Any, info: ValidationInfo) -> Any:
        """A built-in edition may be named by its id ("fu"); the full object stays possible
        for a custom edition. Whoever reads a log may pass the editions it knows as the
        validation context `{"editions": {...}}`; the core's own are the default."""
        if not isinstance(value, str):
            return value
        context = info.context if isinstance(info.context, dict) else {}
        known: Mapping[str, Edition] = context.get("editions") or EDITIONS
        if value not in known:
            raise ValueError(f"no edition is called {value!r}; known: {', '.join(sorted(known))}")
        return known[value]

    @field_validator("players")
    @classmethod
    def _names_told_apart(
        cls, players: tuple[PlayerSetup, ...], info: ValidationInfo
    ) -> tuple[PlayerSetup, ...]:
        """No two players' names look the same; a saved game is held to the rule it was
        started under, no two names spelt alike (names.py). A field's validator, not the
        model's: pydantic runs a model's own again on every state made from the setup."""
        if not _saved(info):
            refuse_lookalikes([p.name for p in players])
            return players
        names = [p.name.casefold() for p in players]
        if len(set(names)) != len(names):
            raise ValueError("two players cannot have the same name")
        return players

    @model_validator(mode="after")
    def _check(self) -> GameSetup:
        count = len(self.players)
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise ValueError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {count}")
        if not 0 <= self.first_player < count:
            raise ValueError(f"first player must be a seat from 0 to {count - 1}")
        for seat, player in enumerate(self.players):
            if player.role is not None and player.role.kind != "role":
                raise ValueError(f"players.{seat}.role: a {player.role.kind} card is not a role")
            if player.role is not None and self.edition.role_cards is None:
                raise ValueError(f"{self.edition.name} deals no role or character cards")
        return self


def box_allows(edition: Edition, count: int) -> bool:
    """Whether the edition's box is for `count` players (else only by the house rule).

    >>> box_allows(CLASSIC, 3), box_allows(CLASSIC, 2), box_allows(CLASSIC, 7)
    (True, False, False)
    """
    low, high = edition.players
    return low <= count <= high


def check_player_count(setup: GameSetup) -> None:
    """RuleError when a new game seats a count of players its edition's box does not name
    without choosing the house rule for it (RULES.md §11): two, or seven to eight, are
    played openly, never by accident. New game asks it; a game saved under rules before 4
    never did."""
    count = len(setup.players)
    if (
        setup.rules < SECOND_READING
        or setup.variants.house_player_count
        or box_allows(setup.edition, count)
    ):
        return
    low, high = setup.edition.players
    raise RuleError(
        "player_count",
        Phrase(
            "The box is for {low} to {high} players: {count} play only by the house rule",
            low=low,
            high=high,
            count=count,
        ),
    )


# An imported game log that seats such a count under rules 4 or later without the house
# rule: the file's name and the rule `check_player_count` broke (`file`, `why`).
IMPORT_WITHOUT_HOUSE_RULE = phrase_template(
    "{file}: {why}; the log does not choose that house rule"
)


def _saved(info: ValidationInfo) -> bool:
    """Whether the setup being read is one of a game the app saved (`SAVED_GAME`)."""
    return isinstance(info.context, dict) and bool(info.context.get(SAVED_GAME))


# --- combat inputs (the card database converts cards into these) ----------------------


ConditionKind = Literal["class", "race", "sex", "style", "motivation"]


class Condition(Frozen):
    """A trait a monster or item cares about, e.g. class "Wizard" or sex "female".

    Race "Human" matches a character with no race.
    """

    kind: ConditionKind
    value: str


class MonsterModifier(Frozen):
    """A monster's extra strength: always, against a trait, or per empty hand (RULES.md §6)."""

    bonus: int
    condition: Condition | None = None
    per_empty_hand: bool = False


# What a Bad Stuff may name as lost: a worn item by its slot, the equipped item with the
# biggest bonus, a Big item, or a trait of a kind (RULES.md §7).
Loss = Literal[
    "headgear",
    "armor",
    "footgear",
    "biggest_item",
    "big_item",
    "class",
    "race",
    "style",
    "motivation",
]


class BadStuff(Frozen):
    """What a monster does to a fighter who fails to run away (RULES.md §7).

    `lose_gear` lowers the hand-kept gear bonus by that many points; `lose` names the
    tracked items and traits that go (when several fit, the victim chooses); `lose_items`
    takes that many tracked items of the victim's choice (worn or carried); `text` is
    the rest, for the table. When a tracked item was taken, `lose_gear` is not applied
    as well: beside a named item it is the same loss for tables that count gear by hand.
    """

    lose_levels: int = Field(default=0, ge=0)
    death: bool = False
    lose_gear: int = Field(default=0, ge=0)
    lose: tuple[Loss, ...] = ()
    lose_items: int = Field(default=0, ge=0, le=20)
    text: str = ""


QuickBadStuff = Literal[
    "none", "lose_level", "lose_levels", "headgear", "armor", "footgear", "lose_items", "death"
]


def quick_bad_stuff(kind: QuickBadStuff, count: int = 1) -> BadStuff:
    """The Bad Stuff a table picks in one tap for a monster entered by its Level alone:
    nothing, a Level, `count` Levels, the headgear/armor/footgear worn, `count` items of the
    victim's choice, or death.

    >>> quick_bad_stuff("lose_levels", 2).lose_levels, quick_bad_stuff("footgear").lose
    (2, ('footgear',))
    """
    if kind == "lose_level":
        return BadStuff(lose_levels=1)
    if kind == "lose_levels":
        return BadStuff(lose_levels=count)
    if kind in ("headgear", "armor", "footgear"):
        return BadStuff(lose=(kind,))
    if kind == "lose_items":
        return BadStuff(lose_items=count)
    return BadStuff(death=kind == "death")


class MonsterSpec(Frozen):
    """A monster card as the engine needs it.

    `tags` are what cards refer to ("undead", "demon"), always in lower case;
    `pursues_above_level` > 0 means it will not pursue anyone of that Level or below: they
    need not roll to run away from it. `level_only` is the monster's own power that whoever
    fights it counts their Level only: the fighter and any helper, one who joins later
    included (RULES.md §11).
    """

    name: LoggedName
    level: int
    treasure: int = Field(default=1, ge=0)
    levels_per_kill: int = Field(default=1, ge=0)
    modifiers: tuple[MonsterModifier, ...] = ()
    run_away_modifier: int = 0
    bad_stuff: BadStuff = BadStuff()
    tags: TagSet = frozenset()
    pursues_above_level: int = Field(default=0, ge=0)
    level_only: bool = False
    card_id: str | None = None

    @field_validator("tags")
    @classmethod
    def _lower_tags(cls, value: frozenset[str]) -> frozenset[str]:
        return frozenset(tag.strip().casefold() for tag in value)


class EnhancerSpec(Frozen):
    """A monster enhancer: changes one monster's strength and treasure (RULES.md §6)."""

    name: LoggedName
    bonus: int
    treasure: int = 0
    card_id: str | None = None


# --- gear and allies ----------------------------------------------------------------------

Slot = Literal["headgear", "armor", "footgear", "hands", "other"]


class ItemSpec(Frozen):
    """An item card: bonus, slot and hands, Big or not, gold value (RULES.md §5).

    An item in the "hands" slot takes 1 or 2 hands; other slots take none. A Steed is
    ridden one at a time; its run-away bonus takes the place of the rider's own.
    `against` bonuses count only against monsters with that tag.

    Who may use it (RULES.md §11, restrictions both ways): `only` names the traits it is
    for, one of each kind named being enough (class Warrior or class Cleric; and, when a
    sex is named too, that sex as well); `not_for` names the traits that may not use it.
    A log written before these two kept a single trait as `requires`; it reads as `only`.
    """

    name: LoggedName
    bonus: int = 0
    slot: Slot = "other"
    hands: int = Field(default=0, ge=0, le=2)
    big: bool = False
    gold: int = Field(default=0, ge=0)
    run_away_bonus: int = 0
    only: tuple[Condition, ...] = ()
    not_for: tuple[Condition, ...] = ()
    steed: bool = False
    against: tuple[TagBonus, ...] = ()
    card_id: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _requires_is_only(cls, data: Any) -> Any:
        # Logs and saved states from before `only` name one trait as `requires`.
        if isinstance(data, dict) and "requires" in data:
            data = dict(data)
            needed = data.pop("requires")
            if needed is not None and "only" not in data:
                data["only"] = (needed,)
        return data

    @property
    def restricted(self) -> bool:
        """Whether the item names who may, or may not, use it."""
        return bool(self.only or self.not_for)

    @model_validator(mode="after")
    def _hands_match_slot(self) -> ItemSpec:
        if self.slot == "hands" and self.hands == 0:
            raise ValueError(f"{self.name}: an item held in the hands takes 1 or 2 hands")
        if self.slot != "hands" and self.hands:
            raise ValueError(f"{self.name}: only items held in the hands take hands")
        return self


class AllySpec(Frozen):
    """An Ally (or Hireling): a combat bonus and a possible run-away bonus (RULES.md §4)."""

    name: LoggedName
    bonus: int = 0
    run_away_bonus: int = 0
    card_id: str | None = None
