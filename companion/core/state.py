"""The game state: an immutable snapshot that the rules engine folds out of the action log."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import computed_field, model_validator

from companion.core.models import (
    AllySpec,
    EnhancerSpec,
    Frozen,
    GameSetup,
    ItemSpec,
    MonsterSpec,
    Sex,
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


class TraitBonus(Frozen):
    """A lasting "+N in combat" that comes with a class, race, motivation or style: part
    of the character, so it survives death and lost gear and goes with the trait (§4)."""

    kind: TraitKind
    name: str
    bonus: int


class PlayerState(Frozen):
    """One player's character: level, gear, traits, ally, and whether they are dead."""

    name: str
    colour: str
    sex: Sex
    level: int = 1
    gear_bonus: int = 0  # a bonus the table keeps by hand, beside tracked items
    hands_used: int = 0  # hands taken by gear counted in gear_bonus
    run_away_bonus: int = 0  # class abilities, steeds and the like, kept by hand
    items: tuple[Item, ...] = ()
    classes: tuple[str, ...] = ()
    races: tuple[str, ...] = ()
    motivations: tuple[str, ...] = ()
    styles: tuple[str, ...] = ()
    super_munchkin: bool = False
    half_breed: bool = False
    extra_motivated: bool = False
    trait_bonuses: tuple[TraitBonus, ...] = ()  # one entry per trait that gives a bonus
    ally: AllySpec | None = None
    dead: bool = False

    @model_validator(mode="before")
    @classmethod
    def _drop_computed(cls, data: Any) -> Any:
        # A dumped state carries the computed figures; reading it back recomputes them.
        if isinstance(data, dict) and ("strength" in data or "empty_hands" in data):
            data = {k: v for k, v in data.items() if k not in ("strength", "empty_hands")}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def strength(self) -> int:
        """Combat strength outside any combat effect: Level + equipped gear + trait
        bonuses + Ally (§6)."""
        items = sum(i.spec.bonus for i in self.items if i.equipped)
        ally = self.ally.bonus if self.ally else 0
        return self.level + self.gear_bonus + items + self.trait_bonus + ally

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
        """The player's own run-away modifier: by hand, equipped items and Ally (§7)."""
        items = sum(i.spec.run_away_bonus for i in self.items if i.equipped)
        ally = self.ally.run_away_bonus if self.ally else 0
        return self.run_away_bonus + items + ally

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
    roll: int
    modifier: int
    escaped: bool
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
    level_only: frozenset[int] = frozenset()  # players who fight with their Level only
    wins_ties: bool = False  # a card lets the fighters win ties
    started_in: Phase = Phase.KICK_OPEN_THE_DOOR
    running: bool = False  # someone has started to run away; nothing else changes now
    rolls: tuple[RunAwayRoll, ...] = ()
    escaped: frozenset[int] = frozenset()  # fighters safe from every monster (ally sacrifice)
    fighter_strength: int = 0
    helper_strength: int = 0
    players_strength: int = 0
    monsters_strength: int = 0
    fighters_winning: bool = False
    treasure: int = 0  # treasures won with the monsters in play and those a card removed
    levels: int = 0  # levels the fighter gains for killing every monster

    @property
    def fighters(self) -> tuple[int, ...]:
        """The fighter and, if any, the helper."""
        return (self.fighter,) if self.helper is None else (self.fighter, self.helper)


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
        players = tuple(PlayerState(name=p.name, colour=p.colour, sex=p.sex) for p in setup.players)
        phase = Phase.LISTEN_AT_THE_DOOR if setup.variants.faster_play else Phase.KICK_OPEN_THE_DOOR
        return cls(setup=setup, players=players, current=setup.first_player, phase=phase)
