"""The card pack format: pydantic models for every kind of card a pack file may hold."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from companion import core

CardId = Annotated[
    str,
    StringConstraints(strip_whitespace=True, pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$"),
]
"""Stable identifier of a card: lowercase letters, digits, '-' and '_' (games refer to it)."""

CardName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
TraitName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Tag = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z][a-z0-9 _-]{0,31}$"),
    # Before the pattern check, so "Undead" is accepted as "undead".
    BeforeValidator(lambda value: value.strip().lower() if isinstance(value, str) else value),
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

    def core_condition(self) -> core.Condition | None:
        """The condition as the rules engine takes it."""
        found = self.condition
        return None if found is None else core.Condition(kind=found[0], value=found[1])


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
    lose: tuple[core.Loss, ...] = ()  # tracked items and traits it takes, by what they are
    lose_items: int = Field(default=0, ge=0, le=10)  # that many items, the victim's choice
    text: str = ""

    def to_spec(self) -> core.BadStuff:
        """The rules engine's Bad Stuff: it applies the numbers and shows the text."""
        return core.BadStuff(
            lose_levels=self.lose_levels,
            death=self.death,
            lose_gear=self.lose_gear,
            lose=self.lose,
            lose_items=self.lose_items,
            text=self.text,
        )


class Grant(_Conditional):
    """A modifier an item, class, race, ally, style or motivation gives its owner.

    A condition (class, race, ...) limits it to owners with that trait;
    `against` limits it to fights against monsters with that tag (e.g. "undead").
    """

    bonus: int = Field(default=0, ge=-50, le=50)
    run_away: int = Field(default=0, ge=-6, le=6)
    wins_ties: bool = False
    ability: core.Ability | None = None  # what the engine knows as an ability (rules-choices)
    against: Tag | None = None
    text: str = ""

    @model_validator(mode="after")
    def _grants_something(self) -> Grant:
        if not (self.bonus or self.run_away or self.wins_ties or self.ability or self.text):
            raise ValueError("grants nothing: give bonus, run_away, wins_ties, ability or text")
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
    pursues_above_level: int = Field(default=0, ge=0, le=20)  # spares that Level and below
    bad_stuff: BadStuff = BadStuff()

    def to_spec(self) -> core.MonsterSpec:
        """The monster as the rules engine fights it (StartCombat, AddMonster)."""
        return core.MonsterSpec(
            name=self.name,
            level=self.level,
            treasure=self.treasure,
            levels_per_kill=self.levels_per_kill,
            modifiers=tuple(
                core.MonsterModifier(
                    bonus=modifier.bonus,
                    condition=modifier.core_condition(),
                    per_empty_hand=modifier.per_empty_hand,
                )
                for modifier in self.modifiers
            ),
            run_away_modifier=self.run_away_modifier,
            bad_stuff=self.bad_stuff.to_spec(),
            tags=frozenset(self.tags),
            pursues_above_level=self.pursues_above_level,
            card_id=self.id,
        )


class Enhancer(Card):
    """A monster enhancer: played onto one monster, changes its strength and treasure."""

    kind: ClassVar[str] = "enhancer"

    bonus: int = Field(ge=-50, le=50)
    treasure: int = Field(default=0, ge=-10, le=10)

    def to_spec(self) -> core.EnhancerSpec:
        """The enhancer as the rules engine adds it to one monster (AddEnhancer)."""
        return core.EnhancerSpec(
            name=self.name, bonus=self.bonus, treasure=self.treasure, card_id=self.id
        )


class Item(Card):
    """A treasure item: worn, carried or used once."""

    kind: ClassVar[str] = "item"

    one_shot: bool = False
    bonus: int = Field(default=0, ge=-50, le=50)
    slot: Slot = "none"
    big: bool = False
    value: int = Field(default=0, ge=0, le=100_000)
    run_away: int = Field(default=0, ge=-6, le=6)
    steed: bool = False  # ridden one at a time; its run-away bonus replaces the rider's own
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

    @field_validator("slot")
    @classmethod
    def _one_shot_not_worn(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("one_shot") and value != "none":
            raise ValueError(f"a one-shot item is used, not worn: leave out slot = {value!r}")
        return value

    def limits(self) -> tuple[tuple[core.Condition, ...], tuple[core.Condition, ...]]:
        """Who may use the item and who may not, as the rules engine judges them: every
        class, race and sex the card names (`ItemSpec.only`, `ItemSpec.not_for`)."""
        only = tuple(core.Condition(kind="class", value=name) for name in self.only_class)
        only += tuple(core.Condition(kind="race", value=name) for name in self.only_race)
        if self.only_sex is not None:
            only += (core.Condition(kind="sex", value=self.only_sex),)
        not_for = tuple(core.Condition(kind="class", value=name) for name in self.not_class)
        not_for += tuple(core.Condition(kind="race", value=name) for name in self.not_race)
        return only, not_for

    def to_spec(self) -> core.ItemSpec:
        """The item as the rules engine carries and equips it (GainItem).

        Bonuses that always apply are added up, and those against a monster's tag kept
        beside them; bonuses that depend on the owner's trait are in the card text for the
        table to apply.
        """
        if self.one_shot:
            raise ValueError(f"{self.name} is used once, not carried: use one_shot_action()")
        slot, hands = _CORE_SLOT[self.slot]
        only, not_for = self.limits()
        return core.ItemSpec(
            name=self.name,
            bonus=self.bonus + _plain(self.grants, "bonus"),
            slot=slot,
            hands=hands,
            big=self.big,
            gold=self.value,
            run_away_bonus=self.run_away + _plain(self.grants, "run_away"),
            only=only,
            not_for=not_for,
            steed=self.steed,
            against=_against(self.grants),
            card_id=self.id,
        )

    def one_shot_action(self, side: Literal["players", "monsters"] = "players") -> core.PlayOneShot:
        """Playing the item in the current combat, for one side (PlayOneShot)."""
        return core.PlayOneShot(
            side=side,
            bonus=self.bonus + _plain(self.grants, "bonus"),
            name=self.name,
            card_id=self.id,
        )


_CORE_SLOT: dict[str, tuple[str, int]] = {
    "headgear": ("headgear", 0),
    "armor": ("armor", 0),
    "footgear": ("footgear", 0),
    "one-hand": ("hands", 1),
    "two-hands": ("hands", 2),
    "none": ("other", 0),
}


def _against(grants: tuple[Grant, ...]) -> tuple[core.TagBonus, ...]:
    """The bonuses against a monster's tag, for every owner."""
    return tuple(
        core.TagBonus(tag=grant.against, bonus=grant.bonus)
        for grant in grants
        if grant.against and grant.bonus and grant.condition is None
    )


def _abilities(grants: tuple[Grant, ...]) -> tuple[core.Ability, ...]:
    """The abilities the engine knows among the grants, for every owner."""
    found: list[core.Ability] = []
    for grant in grants:
        if grant.condition is not None:
            continue
        if grant.wins_ties:
            found.append("wins_ties")
        if grant.ability is not None:
            found.append(grant.ability)
    return tuple(dict.fromkeys(found))


def _plain(grants: tuple[Grant, ...], field: str) -> int:
    """Sum of a field over the grants that always apply (no trait, no monster tag)."""
    return sum(
        getattr(grant, field) for grant in grants if grant.condition is None and not grant.against
    )


class _Trait(Card):
    grants: tuple[Grant, ...] = ()

    @property
    def combat_bonus(self) -> int:
        """The combat bonus that always applies (against every monster, for every owner)."""
        return _plain(self.grants, "bonus")

    @property
    def run_away_bonus(self) -> int:
        """The run-away bonus that always applies (for SetRunAwayBonus)."""
        return _plain(self.grants, "run_away")

    @property
    def wins_ties(self) -> bool:
        """Whether its owner wins ties in combat (for SetWinsTies)."""
        return any(grant.wins_ties and grant.condition is None for grant in self.grants)

    @property
    def abilities(self) -> tuple[core.Ability, ...]:
        """The abilities it gives that the engine knows (winning ties among them)."""
        return _abilities(self.grants)

    @property
    def against(self) -> tuple[core.TagBonus, ...]:
        """Its bonuses against monsters with a tag ("+2 against Undead")."""
        return _against(self.grants)


class _CharacterTrait(_Trait):
    def gain_action(self, player: int) -> core.GainTrait:
        """Giving this class, race, style or motivation to the player in `player`'s seat,
        with what it gives for as long as they have it (the parts that always apply: a
        combat and run-away bonus, bonuses against a monster's tag, abilities)."""
        return core.GainTrait(
            player=player,
            kind=self.kind,
            name=self.name,
            bonus=self.combat_bonus,
            run_away=self.run_away_bonus,
            against=self.against,
            abilities=self.abilities,
        )


class ClassCard(_CharacterTrait):
    """A class (Warrior, Wizard, ...): its name is what monsters and items refer to."""

    kind: ClassVar[str] = "class"


class Race(_CharacterTrait):
    """A race (Elf, Dwarf, ...)."""

    kind: ClassVar[str] = "race"


class Style(_CharacterTrait):
    """A fighting style."""

    kind: ClassVar[str] = "style"


class Motivation(_CharacterTrait):
    """A motivation."""

    kind: ClassVar[str] = "motivation"


class Role(_Trait):
    """A role or character card, dealt at set-up in the editions that have them."""

    kind: ClassVar[str] = "role"

    def to_rules(self) -> core.CardRules:
        """The role as a player's set-up takes it (PlayerSetup.role)."""
        return core.CardRules(
            kind="role",
            name=self.name,
            bonus=self.combat_bonus,
            run_away=self.run_away_bonus,
            against=self.against,
            abilities=self.abilities,
        )


class Ally(_Trait):
    """An ally (or hireling): its bonuses, and whether sacrificing it lets everyone escape."""

    kind: ClassVar[str] = "ally"

    sacrifice_escapes: bool = True

    def to_spec(self) -> core.AllySpec:
        """The ally as the rules engine adds it to a player (SetAlly)."""
        return core.AllySpec(
            name=self.name,
            bonus=_plain(self.grants, "bonus"),
            run_away_bonus=_plain(self.grants, "run_away"),
            card_id=self.id,
        )

    def set_ally_action(self, player: int) -> core.SetAlly:
        """Giving this ally to the player in `player`'s seat."""
        return core.SetAlly(player=player, ally=self.to_spec())


class Curse(Card):
    """A curse or trap. The app shows its text; the table applies it."""

    kind: ClassVar[str] = "curse"

    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    trap: bool = False
    persistent: bool = False


CARD_TYPES: dict[str, type[Card]] = {
    cls.kind: cls
    for cls in (Monster, Enhancer, Item, ClassCard, Race, Style, Motivation, Role, Ally, Curse)
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
    role: tuple[Role, ...] = ()
    ally: tuple[Ally, ...] = ()
    curse: tuple[Curse, ...] = ()

    def cards(self) -> tuple[Card, ...]:
        """Every card of the pack, section by section."""
        out: list[Card] = []
        for kind in CARD_TYPES:
            out.extend(getattr(self, "class_" if kind == "class" else kind))
        return tuple(out)


class EditionFile(_Strict):
    """An edition file (`cards/editions/<id>.toml`): the traits its characters can have, what
    its class, race and role cards give by name, and the rules in which its rulebook
    differs (docs/rules-choices.md)."""

    id: CardId
    name: CardName
    classes: tuple[TraitName, ...] = Field(min_length=1)
    races: tuple[TraitName, ...] = ()
    motivations: tuple[TraitName, ...] = ()
    styles: tuple[TraitName, ...] = ()
    start_door_cards: int = Field(default=4, ge=0, le=10)
    start_treasure_cards: int = Field(default=4, ge=0, le=10)
    role_cards: Literal["role", "character"] | None = None
    cards: tuple[core.CardRules, ...] = ()
    treasure_without_kill: bool = False
    joining_tags: tuple[Tag, ...] = ()
    helper_stays: bool = False
    magic_quotes: bool = False
    open_traits: tuple[Literal["class", "race", "motivation", "style"], ...] = ()

    @model_validator(mode="after")
    def _cards_are_the_edition_s(self) -> EditionFile:
        """A card named by kind must be one of the edition's traits (roles are free)."""
        lists = {
            "class": self.classes,
            "race": self.races,
            "motivation": self.motivations,
            "style": self.styles,
        }
        for card in self.cards:
            names = lists.get(card.kind)
            if names is not None and card.name not in names:
                raise ValueError(
                    f"cards: {card.name} is not one of the edition's {card.kind} names"
                )
        return self

    def to_edition(self) -> core.Edition:
        """The edition as the rules engine takes it (GameSetup.edition)."""
        return core.Edition.model_validate(self.model_dump())
