"""The game state: an immutable snapshot that the rules engine folds out of the action log."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import computed_field, model_validator

from companion.core.models import (
    LEGACY_RULES,
    RULES_VERSION,
    SECOND_READING,
    Ability,
    AllySpec,
    CardRules,
    Condition,
    EnhancerSpec,
    Frozen,
    GameSetup,
    ItemSpec,
    MonsterSpec,
    SeatSet,
    Sex,
    TagBonus,
    TraitKind,
)
from companion.core.phrase import Phrase, plural_phrase


class Phase(StrEnum):
    """Where the current player's turn is (RULES.md §3)."""

    LISTEN_AT_THE_DOOR = "listen_at_the_door"  # faster-play variant only
    KICK_OPEN_THE_DOOR = "kick_open_the_door"
    LOOT_OR_TROUBLE = "loot_or_trouble"  # Look for Trouble or Loot the Room
    CHARITY = "charity"
    GAME_OVER = "game_over"


class Item(Frozen):
    """An item a player carries; only equipped items give bonuses (RULES.md §5)."""

    id: str
    spec: ItemSpec
    equipped: bool = False


HUMAN = "Human"


class TraitBonus(Frozen):
    """What a class, race, motivation or style gives for as long as the player has it: a
    lasting "+N in combat", a run-away bonus, bonuses against monsters with a tag, and
    abilities. Part of the character, so it survives death and lost gear and goes with the
    trait (§4). One entry per trait that gives anything."""

    kind: TraitKind
    name: str
    bonus: int = 0
    run_away: int = 0
    against: tuple[TagBonus, ...] = ()
    abilities: tuple[Ability, ...] = ()

    @property
    def gives_anything(self) -> bool:
        return bool(self.bonus or self.run_away or self.against or self.abilities)


_COMPUTED = ("strength", "empty_hands", "ally")


class PlayerState(Frozen):
    """One player's character: level, gear, traits, role, Allies, and whether they are dead.

    `rules` is the rules version the game plays by (`GameSetup.rules`), kept here because
    what counts in a character's strength depends on it.
    """

    name: str
    colour: str
    sex: Sex
    level: int = 1
    gear_bonus: int = 0  # a bonus the table keeps by hand, beside tracked items
    hands_used: int = 0  # hands taken by gear counted in gear_bonus
    run_away_bonus: int = 0  # a run-away bonus the table keeps by hand
    items: tuple[Item, ...] = ()
    classes: tuple[str, ...] = ()
    races: tuple[str, ...] = ()
    motivations: tuple[str, ...] = ()
    styles: tuple[str, ...] = ()
    super_munchkin: bool = False
    half_breed: bool = False
    extra_motivated: bool = False
    trait_bonuses: tuple[TraitBonus, ...] = ()  # one entry per trait that gives anything
    role: CardRules | None = None  # the role or character card dealt at set-up
    allies: tuple[AllySpec, ...] = ()
    dead: bool = False
    double_sale_turn: int = 0  # the turn in which the one double-price sale was made
    rules: int = RULES_VERSION

    @model_validator(mode="before")
    @classmethod
    def _drop_computed(cls, data: Any) -> Any:
        # A dumped state carries the computed figures; reading it back recomputes them. A
        # state from before several Allies were kept has its one Ally as `ally`.
        if isinstance(data, dict) and any(k in data for k in _COMPUTED):
            ally = data.get("ally")
            data = {k: v for k, v in data.items() if k not in _COMPUTED}
            if ally is not None and "allies" not in data:
                data["allies"] = (ally,)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ally(self) -> AllySpec | None:
        """The first Ally (most characters have at most one)."""
        return self.allies[0] if self.allies else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def strength(self) -> int:
        """Combat strength outside any combat effect: Level + worn gear that counts + trait
        and role bonuses + Allies (§6). Bonuses against a monster's tag count only in a
        fight against it (`tag_bonus`)."""
        total = self.level + self.gear_bonus + self.trait_bonus
        for item in self.items:
            if item.equipped and self.counts(item):
                total += item.spec.bonus
        for ally in self.allies:
            total += ally.bonus
        return total + (self.role.bonus if self.role is not None else 0)

    def counts(self, item: Item) -> bool:
        """Whether an equipped item's bonuses count: a restricted one only while its owner
        qualifies (from rules 3 on; before, an item once equipped always counted)."""
        return self.rules <= LEGACY_RULES or self.may_use(item.spec)

    def may_use(self, spec: ItemSpec) -> bool:
        """Whether the character qualifies for an item (RULES.md §11, restrictions both ways).

        For each kind of trait the item is `only` for, the character has one of those
        named (a Warrior or a Cleric); the character has none of its `not_for` traits,
        unless the one class of a Super Munchkin (the one race of a Half-Breed, the one
        motivation of Extra Motivated) is the one forbidden: that trait brings none of its
        disadvantages (from rules 3 on).
        """
        kinds = {condition.kind for condition in spec.only}
        for kind in kinds:
            if not any(self.has(c) for c in spec.only if c.kind == kind):
                return False
        for condition in spec.not_for:
            if self.has(condition) and not (
                self.rules > LEGACY_RULES and self.single_boosted(condition.kind)
            ):
                return False
        return True

    @property
    def counting_items(self) -> tuple[Item, ...]:
        """Equipped items whose bonuses count: a restricted one only while its owner
        qualifies (from rules 3 on; before, an item once equipped always counted)."""
        return tuple(i for i in self.items if i.equipped and self.counts(i))

    @property
    def trait_bonus(self) -> int:
        """The combat bonus of the player's classes, races, motivations and styles."""
        return sum(t.bonus for t in self.trait_bonuses)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def empty_hands(self) -> int:
        """Hands not holding an equipped item (each character has two)."""
        held = sum(i.spec.hands for i in self.items if i.equipped) + self.hands_used
        return max(0, 2 - held)

    @property
    def total_run_away_bonus(self) -> int:
        """The player's run-away modifier (§7): their own (kept by hand, traits, role), the
        counting items and the Allies. A ridden Steed's bonus takes the place of their own."""
        own = self.run_away_bonus + sum(t.run_away for t in self.trait_bonuses)
        if self.role is not None:
            own += self.role.run_away
        items = 0
        steed: int | None = None
        for item in self.items:
            spec = item.spec
            if not (item.equipped and self.counts(item)):
                continue
            if spec.steed and self.rules >= SECOND_READING:
                # The ridden Steed's number, penalty or nothing included (RULES.md §11).
                steed = spec.run_away_bonus
            elif not spec.run_away_bonus:
                continue
            elif spec.steed:
                steed = max(steed or 0, spec.run_away_bonus)
            else:
                items += spec.run_away_bonus
        if steed is not None and (steed or self.rules >= SECOND_READING):
            own = steed
        return own + items + sum(a.run_away_bonus for a in self.allies)

    def can(self, ability: Ability) -> bool:
        """Whether the player's traits or role give this ability (from rules 3 on)."""
        if self.rules <= LEGACY_RULES:
            return False
        if self.role is not None and ability in self.role.abilities:
            return True
        return any(ability in t.abilities for t in self.trait_bonuses)

    @property
    def abilities(self) -> frozenset[Ability]:
        """What the player's traits, role and Allies let them do (from rules 3 on)."""
        if self.rules <= LEGACY_RULES:
            return frozenset()
        found = {a for t in self.trait_bonuses for a in t.abilities}
        if self.role is not None:
            found.update(self.role.abilities)
        return frozenset(found)

    def tag_bonus(self, tags: frozenset[str]) -> int:
        """Bonuses of traits, role and counting items against monsters with these tags."""
        if not tags:
            return 0
        sources = [t.against for t in self.trait_bonuses]
        sources += [i.spec.against for i in self.counting_items]
        if self.role is not None:
            sources.append(self.role.against)
        return sum(b.bonus for against in sources for b in against if b.tag in tags)

    def has(self, condition: Condition) -> bool:
        """Whether the character has the trait a monster or item cares about.

        A character without a race is Human; traits compare without regard to case. From
        rules 3 on, a Half-Breed with one race is half that race and half Human, so Human
        matches too (docs/rules-choices.md).
        """
        want = condition.value.casefold()
        if condition.kind == "sex":
            return self.sex.value == want
        if condition.kind == "race" and want == HUMAN.casefold():
            return not self.races or (self.single_boosted("race") and self.rules > LEGACY_RULES)
        return any(t.casefold() == want for t in self.traits(condition.kind))

    def single_boosted(self, kind: str) -> bool:
        """Super Munchkin with one class, Half-Breed with one race, Extra Motivated with one
        motivation: all the advantages of that one trait and none of its disadvantages."""
        if kind == "class":
            return self.super_munchkin and len(self.classes) == 1
        if kind == "race":
            return self.half_breed and len(self.races) == 1
        if kind == "motivation":
            return self.extra_motivated and len(self.motivations) == 1
        return False

    def traits(self, kind: TraitKind) -> tuple[str, ...]:
        """The player's classes, races, motivations or styles."""
        return {
            "class": self.classes,
            "race": self.races,
            "motivation": self.motivations,
            "style": self.styles,
        }[kind]


class MonsterInPlay(Frozen):
    """A monster in the current combat, with the enhancers played on it."""

    spec: MonsterSpec
    enhancers: tuple[EnhancerSpec, ...] = ()
    strength: int = 0  # level + enhancers + conditional bonuses against these fighters
    treasure: int = 0  # treasure number adjusted by its enhancers, never below 0


class AbilityUse(Frozen):
    """An ability a player used in this combat, powered by `cards` discards (§4): the
    Warrior's berserking, the Cleric's turning, the Thief's backstab (on `target`)."""

    player: int
    ability: Literal["berserking", "turning", "backstab"]
    cards: int = 1
    target: int | None = None


class OneShot(Frozen):
    """A one-shot bonus played in this combat on one side; discarded when it ends (§5)."""

    side: Literal["players", "monsters"]
    bonus: int
    name: str = ""
    card_id: str | None = None


class Said(Frozen):
    """One clause the engine said, kept so the app can still translate it after the state
    went through JSON (a checkpoint): the template, its plural form and count, and its
    values (numbers and names, never translated in the core). Without a template it is
    words shown as written: a card's own text.

    >>> said = Said.of(plural_phrase("lost a level", "lost {levels} levels", 2, levels=2))
    >>> said.phrase(), Said.model_validate_json(said.model_dump_json()) == said
    ('lost 2 levels', True)
    """

    template: str = ""
    plural: str | None = None
    count: int | None = None
    params: tuple[tuple[str, int | str], ...] = ()
    text: str = ""  # the words as written, when there is no template

    @classmethod
    def of(cls, words: str) -> Said:
        """A Phrase as its template and values; any other text as written.

        The values are kept as plain numbers and names: a value that is itself a Phrase
        would not be translated after a copy through JSON, so none may be one.
        """
        if not isinstance(words, Phrase):
            return cls(text=words)
        if any(isinstance(v, Phrase) for v in words.params.values()):
            raise ValueError(f"a value of {words.template!r} is a sentence itself")
        return cls(
            template=words.template,
            plural=words.plural,
            count=words.number,
            params=tuple(words.params.items()),
        )

    def phrase(self) -> str:
        """The English words: a Phrase (which the app translates) or the written text."""
        if not self.template:
            return self.text
        if self.plural is not None and self.count is not None:
            return plural_phrase(self.template, self.plural, self.count, **dict(self.params))
        return Phrase(self.template, **dict(self.params))


class RunAwayRoll(Frozen):
    """One fighter's run-away roll against one monster and what came of it (§7)."""

    fighter: int
    monster: int
    roll: int  # 0 when the monster did not pursue the fighter and no roll was needed
    modifier: int
    escaped: bool
    pursued: bool = True
    # What the Bad Stuff did when the roll failed, one clause per part, kept translatable.
    bad_stuff_said: tuple[Said, ...] = ()
    levels_lost: int = 0
    gear_lost: int = 0  # points of the hand-kept gear bonus
    items_lost: tuple[str, ...] = ()  # names of tracked items the Bad Stuff took
    traits_lost: tuple[str, ...] = ()  # classes, races, ... the Bad Stuff took
    died: bool = False

    @model_validator(mode="before")
    @classmethod
    def _read_words(cls, data: Any) -> Any:
        # A dumped roll carries its English words; reading it back rebuilds them from the
        # clauses. A state from before the clauses were kept has only the words: they are
        # kept as written.
        if isinstance(data, dict) and "bad_stuff" in data:
            words = data["bad_stuff"]
            data = {k: v for k, v in data.items() if k != "bad_stuff"}
            if words and not data.get("bad_stuff_said"):
                data["bad_stuff_said"] = ({"text": words},)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def bad_stuff(self) -> str:
        """What the Bad Stuff did, in English words ("lost a level; lost Pointy Hat")."""
        return "; ".join(part.phrase() for part in self.bad_stuff_said)


class CombatState(Frozen):
    """The active combat, including the live verdict (RULES.md §6, §7)."""

    fighter: int
    helper: int | None = None
    monsters: tuple[MonsterInPlay, ...]
    removed: tuple[MonsterSpec, ...] = ()  # monsters taken out by a card
    removed_treasure: int = 0  # their treasure, won unless the fighters run away (§6)
    one_shots: tuple[OneShot, ...] = ()
    uses: tuple[AbilityUse, ...] = ()  # abilities used in this combat
    level_only: SeatSet = frozenset()  # players who fight with their Level only
    wins_ties: bool = False  # a card lets the fighters win ties
    helped: bool = False  # someone helped at some point: the treasure is drawn face up
    compelled: bool = False  # a card made the helper help (they did not volunteer)
    started_in: Phase = Phase.KICK_OPEN_THE_DOOR
    running: bool = False  # someone has started to run away; nothing else changes now
    rolls: tuple[RunAwayRoll, ...] = ()
    escaped: SeatSet = frozenset()  # fighters safe from every monster (ally sacrifice)
    fighter_strength: int = 0
    helper_strength: int = 0
    players_strength: int = 0
    monsters_strength: int = 0
    fighters_winning: bool = False
    ties_won_by_ability: bool = False  # a fighter's class (the Warrior) wins ties
    treasure: int = 0  # treasures won with the monsters in play and those a card removed
    levels: int = 0  # levels the fighter gains for killing every monster

    @property
    def fighters(self) -> tuple[int, ...]:
        """The fighter and, if any, the helper."""
        return (self.fighter,) if self.helper is None else (self.fighter, self.helper)

    def counts_level_only(self, seat: int) -> bool:
        """Whether a fighter counts their Level alone: a card on them says so, or a monster
        in the fight has that power, which binds everyone who fights it (RULES.md §11)."""
        return seat in self.level_only or any(m.spec.level_only for m in self.monsters)


class CombatResult(Frozen):
    """How the last combat ended: killed, defeated without a kill, ran away, or a death."""

    outcome: Literal["kill", "defeat", "ran_away", "fighter_died"]
    fighter: int
    helper: int | None = None
    monsters: tuple[str, ...] = ()
    levels: int = 0
    treasure: int = 0
    treasure_face_up: bool = False  # drawn face up when the kill was helped (§6)
    rolls: tuple[RunAwayRoll, ...] = ()
    helper_levels: int = 0  # levels the helper gained for helping (the Elf)
    helper_treasure: int = 0  # how many of the treasures the helper takes, as agreed
    helper_picks_first: bool = False
    turn: int = 0  # the turn it ended in (0: a state saved before this was kept)


class DieRoll(Frozen):
    """A recorded d6 result, who rolled it and why."""

    value: int
    player: int | None = None
    purpose: str = ""


class LootOrder(Frozen):
    """Who takes a card from a dead player's body, in order (RULES.md §8)."""

    dead: int
    order: tuple[int, ...]
    rolls: tuple[int, ...] = ()


class CharityResult(Frozen):
    """Where a player's excess cards went at the end of a turn (RULES.md §3)."""

    giver: int
    cards: int
    shares: dict[int, int]  # recipient seat -> cards; empty when the cards were discarded
    discarded: int = 0


class GameState(Frozen):
    """An immutable snapshot of the whole game after `revision` applied actions.

    `revision` grows with every action and goes back on undo (the state after an undo
    *is* the earlier state); `Game.sequence` is the counter that never goes back.
    """

    setup: GameSetup
    revision: int = 0
    players: tuple[PlayerState, ...]
    current: int = 0
    turn: int = 1
    phase: Phase = Phase.KICK_OPEN_THE_DOOR
    combat: CombatState | None = None
    winners: tuple[int, ...] = ()
    last_roll: DieRoll | None = None
    last_combat: CombatResult | None = None
    loot: LootOrder | None = None
    charity: CharityResult | None = None
    next_item: int = 1  # items get ids "i1", "i2", ... in the order they enter play
    quotes: tuple[str, ...] = ()  # magic quotes said so far (none may be said twice)

    @property
    def rules(self) -> int:
        """The rules version the game plays by (`GameSetup.rules`)."""
        return self.setup.rules

    @property
    def no_limit(self) -> bool:
        """Nobody wins by reaching a Level: the "no limit" variant."""
        return self.setup.variants.no_limit

    @property
    def winning_level(self) -> int:
        """Level 10, or 20 in Epic (RULES.md §1).

        With no limit nobody wins by Level, and this is the top of the level track
        instead: one above the highest Level so far, at least the setup's winning level,
        so boards and counters always have room for every player.
        """
        variants = self.setup.variants
        if variants.no_limit:
            return max(variants.winning_level, max(p.level for p in self.players) + 1)
        return variants.winning_level

    @property
    def current_player(self) -> PlayerState:
        """The player whose turn it is."""
        return self.players[self.current]

    @property
    def game_over(self) -> bool:
        """Someone has won."""
        return bool(self.winners)

    def strength_of(self, seat: int) -> int:
        """A player's effective combat strength: as counted in the combat when they fight
        in it (Level only, if a card says so), otherwise Level + gear + Ally."""
        combat = self.combat
        if combat is not None and seat == combat.fighter:
            return combat.fighter_strength
        if combat is not None and seat == combat.helper:
            return combat.helper_strength
        return self.players[seat].strength

    @classmethod
    def initial(cls, setup: GameSetup) -> GameState:
        """The state before any action: everyone at Level 1, the first player's turn."""
        players = tuple(
            PlayerState(name=p.name, colour=p.colour, sex=p.sex, role=p.role, rules=setup.rules)
            for p in setup.players
        )
        phase = Phase.LISTEN_AT_THE_DOOR if setup.variants.faster_play else Phase.KICK_OPEN_THE_DOOR
        return cls(setup=setup, players=players, current=setup.first_player, phase=phase)
