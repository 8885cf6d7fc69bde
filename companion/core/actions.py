"""Actions: the frozen, serialisable records that make up a game's log.

Each action names players by seat (0-based index). Actions that a card may allow
against the rules carry `override`: the card or reason, written into the log
("a card says otherwise"). Dice actions carry their result; leave it out and the
game rolls one and records it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from companion.core.models import (
    AllySpec,
    EnhancerSpec,
    Frozen,
    ItemSpec,
    MonsterSpec,
    Sex,
)
from companion.core.state import TraitKind

Seat = Annotated[int, Field(ge=0, le=7)]
D6 = Annotated[int, Field(ge=1, le=6)]
Override = Annotated[str, Field(min_length=1, max_length=200)] | None


class BaseAction(Frozen):
    """Common base of every action."""

    type: str


# --- levels ---------------------------------------------------------------------------


class GoUpLevel(BaseAction):
    """A card (Go Up a Level and the like) raises a player's Level."""

    type: Literal["go_up_level"] = "go_up_level"
    player: Seat
    levels: Annotated[int, Field(ge=1, le=20)] = 1
    override: Override = None


class LoseLevel(BaseAction):
    """A curse, trap or card lowers a player's Level (never below 1)."""

    type: Literal["lose_level"] = "lose_level"
    player: Seat
    levels: Annotated[int, Field(ge=1, le=20)] = 1


class SetLevel(BaseAction):
    """Put a player's Level at a number, e.g. to mirror a card; rules still apply."""

    type: Literal["set_level"] = "set_level"
    player: Seat
    level: Annotated[int, Field(ge=1, le=100)]
    override: Override = None


class SellItems(BaseAction):
    """Sell items for levels: 1 level per full 1000 gold, no change given (RULES.md §5)."""

    type: Literal["sell_items"] = "sell_items"
    player: Seat
    gold: Annotated[int, Field(ge=0, le=1_000_000)] = 0  # value of untracked items sold
    item_ids: tuple[str, ...] = ()  # tracked items sold; their value adds to `gold`
    override: Override = None


# --- gear ----------------------------------------------------------------------------


class SetGearBonus(BaseAction):
    """Set the gear bonus the table counts by hand (and the hands that gear uses)."""

    type: Literal["set_gear_bonus"] = "set_gear_bonus"
    player: Seat
    bonus: Annotated[int, Field(ge=-100, le=100)]
    hands_used: Annotated[int, Field(ge=0, le=2)] | None = None
    override: Override = None


class SetRunAwayBonus(BaseAction):
    """Set a player's own run-away modifier kept by hand (class, steed, ...)."""

    type: Literal["set_run_away_bonus"] = "set_run_away_bonus"
    player: Seat
    bonus: Annotated[int, Field(ge=-10, le=10)]


class GainItem(BaseAction):
    """A player puts an item in play, carried or equipped."""

    type: Literal["gain_item"] = "gain_item"
    player: Seat
    item: ItemSpec
    equip: bool = False
    override: Override = None


class EquipItem(BaseAction):
    """Equip a carried item (slot limits, restrictions, not in combat)."""

    type: Literal["equip_item"] = "equip_item"
    player: Seat
    item_id: str
    override: Override = None


class UnequipItem(BaseAction):
    """Stop using an item but keep carrying it (not in combat)."""

    type: Literal["unequip_item"] = "unequip_item"
    player: Seat
    item_id: str
    override: Override = None


class DiscardItem(BaseAction):
    """An item leaves play (lost to Bad Stuff, a curse, a one-shot used up, ...)."""

    type: Literal["discard_item"] = "discard_item"
    player: Seat
    item_id: str


class TradeItem(BaseAction):
    """Hand an item from the table to another player (never in combat)."""

    type: Literal["trade_item"] = "trade_item"
    giver: Seat
    receiver: Seat
    item_id: str
    override: Override = None


# --- character -----------------------------------------------------------------------


class GainTrait(BaseAction):
    """Take a class, race, motivation or style card (RULES.md §4)."""

    type: Literal["gain_trait"] = "gain_trait"
    player: Seat
    kind: TraitKind
    name: Annotated[str, Field(min_length=1, max_length=60)]
    override: Override = None


class LoseTrait(BaseAction):
    """Discard a class, race, motivation or style (allowed any time, even in combat)."""

    type: Literal["lose_trait"] = "lose_trait"
    player: Seat
    kind: TraitKind
    name: str


class SetTraitBoost(BaseAction):
    """Play or lose Super Munchkin (class), Half-Breed (race) or Extra Motivated."""

    type: Literal["set_trait_boost"] = "set_trait_boost"
    player: Seat
    kind: Literal["class", "race", "motivation"]
    on: bool = True


class ChangeSex(BaseAction):
    """A card changes a character's sex."""

    type: Literal["change_sex"] = "change_sex"
    player: Seat
    sex: Sex


class SetAlly(BaseAction):
    """Play an Ally (any time, even in combat); one at a time."""

    type: Literal["set_ally"] = "set_ally"
    player: Seat
    ally: AllySpec
    override: Override = None


class DiscardAlly(BaseAction):
    """An Ally leaves play."""

    type: Literal["discard_ally"] = "discard_ally"
    player: Seat


class Die(BaseAction):
    """A player dies: keeps Level and traits, loses items and Ally (RULES.md §8)."""

    type: Literal["die"] = "die"
    player: Seat
    reason: str = ""


class LootTheBody(BaseAction):
    """Order the looting of a dead player: highest Level first, ties by dice (§8)."""

    type: Literal["loot_the_body"] = "loot_the_body"
    player: Seat
    rolls: tuple[D6, ...] | None = None


# --- turn ----------------------------------------------------------------------------


class RollForFirstPlayer(BaseAction):
    """Everyone rolls a d6, highest goes first, ties roll again (RULES.md §2)."""

    type: Literal["roll_for_first_player"] = "roll_for_first_player"
    rolls: tuple[D6, ...] | None = None


class AdvancePhase(BaseAction):
    """Move the current turn on to its next phase (RULES.md §3)."""

    type: Literal["advance_phase"] = "advance_phase"


class EndTurn(BaseAction):
    """Play passes to the left; dead players come back (RULES.md §2, §8)."""

    type: Literal["end_turn"] = "end_turn"


class Charity(BaseAction):
    """Give away cards over the hand limit to the lowest-Level players (RULES.md §3).

    `shares` maps recipient seat to card count; leave it out for an even split with
    the extra cards going to the first recipients to the giver's left.
    """

    type: Literal["charity"] = "charity"
    giver: Seat
    cards: Annotated[int, Field(ge=1, le=100)]
    shares: dict[Seat, Annotated[int, Field(ge=0)]] | None = None
    override: Override = None


class RollDie(BaseAction):
    """Roll a d6 for anything a card asks for; the result is recorded."""

    type: Literal["roll_die"] = "roll_die"
    player: Seat | None = None
    roll: D6 | None = None
    purpose: Annotated[str, Field(max_length=200)] = ""


# --- combat --------------------------------------------------------------------------


class StartCombat(BaseAction):
    """A fighter faces one or more monsters (RULES.md §6)."""

    type: Literal["start_combat"] = "start_combat"
    fighter: Seat
    monsters: Annotated[tuple[MonsterSpec, ...], Field(min_length=1)]
    override: Override = None


class AddMonster(BaseAction):
    """Another monster joins the combat (Wandering Monster, Undead joining Undead...)."""

    type: Literal["add_monster"] = "add_monster"
    monster: MonsterSpec


class RemoveMonster(BaseAction):
    """A card takes a monster out of the combat without killing it."""

    type: Literal["remove_monster"] = "remove_monster"
    monster: Annotated[int, Field(ge=0)]


class AddEnhancer(BaseAction):
    """An enhancer is played on one monster: strength and treasure change."""

    type: Literal["add_enhancer"] = "add_enhancer"
    monster: Annotated[int, Field(ge=0)]
    enhancer: EnhancerSpec


class AddHelper(BaseAction):
    """Another player helps the fighter (at most one helper)."""

    type: Literal["add_helper"] = "add_helper"
    helper: Seat


class RemoveHelper(BaseAction):
    """The helper leaves the combat."""

    type: Literal["remove_helper"] = "remove_helper"


class PlayOneShot(BaseAction):
    """A one-shot bonus for the players' side or the monsters' side (RULES.md §5)."""

    type: Literal["play_one_shot"] = "play_one_shot"
    side: Literal["players", "monsters"]
    bonus: Annotated[int, Field(ge=-100, le=100)]
    name: str = ""
    card_id: str | None = None


class ClearOneShots(BaseAction):
    """Take back every one-shot entered for one side, e.g. after a mistaken tap (RULES.md §5)."""

    type: Literal["clear_one_shots"] = "clear_one_shots"
    side: Literal["players", "monsters"]


class FightWithLevelOnly(BaseAction):
    """A card makes a fighter count only their Level (RULES.md §6)."""

    type: Literal["fight_with_level_only"] = "fight_with_level_only"
    player: Seat
    on: bool = True


class SetWinsTies(BaseAction):
    """A card lets the players' side win ties (the classic Warrior, for one)."""

    type: Literal["set_wins_ties"] = "set_wins_ties"
    on: bool = True
    reason: str = ""


class ResolveCombat(BaseAction):
    """End the combat by killing the monsters, or defeating them without a kill (§6)."""

    type: Literal["resolve_combat"] = "resolve_combat"
    outcome: Literal["kill", "defeat"]
    treasure: Annotated[int, Field(ge=0, le=100)] | None = None  # for a defeat a card pays
    override: Override = None


class RunAway(BaseAction):
    """One fighter rolls to run away from one monster: 5+ escapes (RULES.md §7)."""

    type: Literal["run_away"] = "run_away"
    fighter: Seat
    monster: Annotated[int, Field(ge=0)]
    roll: D6 | None = None
    override: Override = None


class SacrificeAlly(BaseAction):
    """Give up the Ally to escape every monster; the owner decides for the partner (§4)."""

    type: Literal["sacrifice_ally"] = "sacrifice_ally"
    player: Seat
    partner_escapes: bool = False


ACTION_TYPES: tuple[type[BaseAction], ...] = (
    GoUpLevel,
    LoseLevel,
    SetLevel,
    SellItems,
    SetGearBonus,
    SetRunAwayBonus,
    GainItem,
    EquipItem,
    UnequipItem,
    DiscardItem,
    TradeItem,
    GainTrait,
    LoseTrait,
    SetTraitBoost,
    ChangeSex,
    SetAlly,
    DiscardAlly,
    Die,
    LootTheBody,
    RollForFirstPlayer,
    AdvancePhase,
    EndTurn,
    Charity,
    RollDie,
    StartCombat,
    AddMonster,
    RemoveMonster,
    AddEnhancer,
    AddHelper,
    RemoveHelper,
    PlayOneShot,
    ClearOneShots,
    FightWithLevelOnly,
    SetWinsTies,
    ResolveCombat,
    RunAway,
    SacrificeAlly,
)

Action = Annotated[
    GoUpLevel
    | LoseLevel
    | SetLevel
    | SellItems
    | SetGearBonus
    | SetRunAwayBonus
    | GainItem
    | EquipItem
    | UnequipItem
    | DiscardItem
    | TradeItem
    | GainTrait
    | LoseTrait
    | SetTraitBoost
    | ChangeSex
    | SetAlly
    | DiscardAlly
    | Die
    | LootTheBody
    | RollForFirstPlayer
    | AdvancePhase
    | EndTurn
    | Charity
    | RollDie
    | StartCombat
    | AddMonster
    | RemoveMonster
    | AddEnhancer
    | AddHelper
    | RemoveHelper
    | PlayOneShot
    | ClearOneShots
    | FightWithLevelOnly
    | SetWinsTies
    | ResolveCombat
    | RunAway
    | SacrificeAlly,
    Field(discriminator="type"),
]

ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
ACTIONS_ADAPTER: TypeAdapter[list[Action]] = TypeAdapter(list[Action])


def parse_action(data: object) -> BaseAction:
    """Build an action from its JSON-ready dict (raises pydantic's ValidationError)."""
    return ACTION_ADAPTER.validate_python(data)
