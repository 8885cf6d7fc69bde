"""The card pack format: pydantic models for every kind of card a pack file may hold."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

CardId = Annotated[
    str,
    StringConstraints(strip_whitespace=True, pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$"),
]
"""Stable identifier of a card: lowercase letters, digits, '-' and '_' (games refer to it)."""

CardName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
TraitName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Tag = Annotated[
    str,
    StringConstraints(strip_whitespace=True, to_lower=True, pattern=r"^[a-z][a-z0-9 _-]{0,31}$"),
]
Sex = Literal["male", "female", "none"]
Slot = Literal["headgear", "armor", "footgear", "one-hand", "two-hands", "none"]

CONDITION_KINDS: tuple[str, ...] = ("class", "race", "sex", "style", "motivation")
"""Traits a bonus can depend on, in the order the file format lists them."""


class _Strict(BaseModel):
    # Unknown keys are errors so that a misspelt field is reported, not ignored.
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class _Conditional(_Strict):
    """Mixin: at most one of class/race/sex/style/motivation names who the bonus is for."""

    class_: TraitName | None = Field(default=None, alias="class")
    race: TraitName | None = None
    sex: Sex | None = None
    style: TraitName | None = None
    motivation: TraitName | None = None

    @model_validator(mode="after")
    def _one_condition(self) -> _Conditional:
        given = [kind for kind in CONDITION_KINDS if self._value_of(kind) is not None]
        if len(given) > 1:
            raise ValueError(
                "give at most one of class, race, sex, style, motivation "
                f"(found {', '.join(given)})"
            )
        return self

    def _value_of(self, kind: str) -> str | None:
        return self.class_ if kind == "class" else getattr(self, kind)

    @property
    def condition(self) -> tuple[str, str] | None:
        """The (kind, value) this bonus depends on, e.g. ("class", "Wizard"), or None."""
        for kind in CONDITION_KINDS:
            value = self._value_of(kind)
            if value is not None:
                return kind, value
        return None


class MonsterModifier(_Conditional):
    """A monster's conditional strength: "+3 against Wizards", "+2 per empty hand"."""

    bonus: int = Field(ge=-50, le=50)
    per_empty_hand: bool = False

    @field_validator("bonus")
    @classmethod
    def _not_zero(cls, value: int) -> int:
        if value == 0:
            raise ValueError("a bonus of 0 changes nothing; remove the modifier or give a number")
        return value

    @model_validator(mode="after")
    def _says_when(self) -> MonsterModifier:
        if self.condition is None and not self.per_empty_hand:
            raise ValueError(
                "say when the bonus counts: class, race, sex, style, motivation "
                "or per_empty_hand = true (an unconditional bonus belongs in level)"
            )
        return self


class BadStuff(_Strict):
    """What happens to a fighter who fails to run away; numbers where the app can apply them."""

    lose_levels: int = Field(default=0, ge=0, le=20)
    death: bool = False
    lose_gear: int = Field(default=0, ge=0, le=10)
    text: str = ""


class Grant(_Conditional):
    """A modifier an item, class, race, ally, style or motivation gives its owner.

    A condition (class, race, ...) limits it to owners with that trait;
    `against` limits it to fights against monsters with that tag (e.g. "undead").
    """

    bonus: int = Field(default=0, ge=-50, le=50)
    run_away: int = Field(default=0, ge=-6, le=6)
    wins_ties: bool = False
    against: Tag | None = None
    text: str = ""

    @model_validator(mode="after")
    def _grants_something(self) -> Grant:
        if not (self.bonus or self.run_away or self.wins_ties or self.text):
            raise ValueError("grants nothing: give bonus, run_away, wins_ties or text")
        return self


class Card(_Strict):
    """Fields every card has."""

    kind: ClassVar[str] = "card"

    id: CardId
    name: CardName
    text: str = ""


class Monster(Card):
    """A monster: level, rewards, conditional strength, run-away modifier, Bad Stuff."""

    kind: ClassVar[str] = "monster"

    level: int = Field(ge=1, le=99)
    treasure: int = Field(default=1, ge=0, le=20)
    levels_per_kill: int = Field(default=1, ge=1, le=5)
    modifiers: tuple[MonsterModifier, ...] = ()
    run_away_modifier: int = Field(default=0, ge=-6, le=6)
    tags: tuple[Tag, ...] = ()
    bad_stuff: BadStuff = BadStuff()


class Enhancer(Card):
    """A monster enhancer: played onto one monster, changes its strength and treasure."""

    kind: ClassVar[str] = "enhancer"

    bonus: int = Field(ge=-50, le=50)
    treasure: int = Field(default=0, ge=-10, le=10)


class Item(Card):
    """A treasure item: worn, carried or used once."""

    kind: ClassVar[str] = "item"

    bonus: int = Field(default=0, ge=-50, le=50)
    slot: Slot = "none"
    big: bool = False
    value: int = Field(default=0, ge=0, le=100_000)
    one_shot: bool = False
    run_away: int = Field(default=0, ge=-6, le=6)
    only_class: tuple[TraitName, ...] = ()
    only_race: tuple[TraitName, ...] = ()
    only_sex: Sex | None = None
    not_class: tuple[TraitName, ...] = ()
    not_race: tuple[TraitName, ...] = ()
    grants: tuple[Grant, ...] = ()

    @field_validator("value")
    @classmethod
    def _whole_gold(cls, value: int) -> int:
        if value % 100:
            raise ValueError("gold values come in hundreds")
        return value

    @model_validator(mode="after")
    def _one_shot_not_worn(self) -> Item:
        if self.one_shot and self.slot != "none":
            raise ValueError(f"a one-shot item is used, not worn: leave out slot = {self.slot!r}")
        return self


class _Trait(Card):
    grants: tuple[Grant, ...] = ()


class ClassCard(_Trait):
    """A class (Warrior, Wizard, ...): its name is what monsters and items refer to."""

    kind: ClassVar[str] = "class"


class Race(_Trait):
    """A race (Elf, Dwarf, ...)."""

    kind: ClassVar[str] = "race"


class Style(_Trait):
    """A fighting style."""

    kind: ClassVar[str] = "style"


class Motivation(_Trait):
    """A motivation."""

    kind: ClassVar[str] = "motivation"


class Ally(_Trait):
    """An ally (or hireling): its bonuses, and whether sacrificing it lets everyone escape."""

    kind: ClassVar[str] = "ally"

    sacrifice_escapes: bool = True


class Curse(Card):
    """A curse or trap. The app shows its text; the table applies it."""

    kind: ClassVar[str] = "curse"

    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    trap: bool = False
    persistent: bool = False


CARD_TYPES: dict[str, type[Card]] = {
    cls.kind: cls
    for cls in (Monster, Enhancer, Item, ClassCard, Race, Style, Motivation, Ally, Curse)
}
"""Card kind -> model, in the order a pack file lists its sections."""


class PackInfo(_Strict):
    """The `[pack]` table: who made the pack and which editions it is for."""

    id: CardId
    name: CardName
    description: str = ""
    author: str = ""
    editions: tuple[CardId, ...] = ()


class Pack(_Strict):
    """One pack file: a `[pack]` table and one array of tables per card kind."""

    pack: PackInfo
    monster: tuple[Monster, ...] = ()
    enhancer: tuple[Enhancer, ...] = ()
    item: tuple[Item, ...] = ()
    class_: tuple[ClassCard, ...] = Field(default=(), alias="class")
    race: tuple[Race, ...] = ()
    style: tuple[Style, ...] = ()
    motivation: tuple[Motivation, ...] = ()
    ally: tuple[Ally, ...] = ()
    curse: tuple[Curse, ...] = ()

    def cards(self) -> tuple[Card, ...]:
        """Every card of the pack, section by section."""
        out: list[Card] = []
        for kind in CARD_TYPES:
            out.extend(getattr(self, "class_" if kind == "class" else kind))
        return tuple(out)


class EditionFile(_Strict):
    """An edition file (`cards/editions/<id>.toml`): the traits its characters can have."""

    id: CardId
    name: CardName
    classes: tuple[TraitName, ...] = Field(min_length=1)
    races: tuple[TraitName, ...] = ()
    motivations: tuple[TraitName, ...] = ()
    styles: tuple[TraitName, ...] = ()
    start_door_cards: int = Field(default=4, ge=0, le=10)
    start_treasure_cards: int = Field(default=4, ge=0, le=10)
    description: str = ""
