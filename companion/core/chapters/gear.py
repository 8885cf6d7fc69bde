"""Gear (RULES.md §5): the hand-kept bonus, tracked items, equipping, discarding, trading."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters import allowance
from companion.core.chapters.base import (
    SEX_WORDS,
    SLOT_WORDS,
    BaseAction,
    Override,
    Seat,
    item_name,
    player_name,
    rule,
    step,
    words,
)
from companion.core.chapters.table import alive, find_item, player_at, with_player
from companion.core.errors import RuleError
from companion.core.models import LEGACY_RULES, SECOND_READING, ItemSpec
from companion.core.phrase import Phrase, joined, phrase_template
from companion.core.state import GameState, Item, PlayerState


def fighting(state: GameState, seat: int) -> bool:
    """Whether the player fights or helps in the combat going on."""
    return state.combat is not None and seat in state.combat.fighters


def _no_gear_change_in_combat(
    state: GameState, seats: tuple[int, ...], override: str | None
) -> None:
    """Equipment cannot change for those in a combat or running away; the others may
    re-equip and trade meanwhile (the rulebooks: trading, and when you may take actions)."""
    combat = state.combat
    if combat is not None and override is None and any(s in combat.fighters for s in seats):
        raise RuleError(
            "equipment_in_combat",
            Phrase("Equipment cannot be changed during combat or running away"),
        )


def check_can_carry(player: PlayerState, spec: ItemSpec) -> None:
    """At most one Big item carried, the classic Dwarf any number (§5); from rules 4, at
    most one Steed in play, and a Steed carries itself: it is not counted as Big
    (RULES.md §11, Steeds)."""
    second_reading = player.rules >= SECOND_READING
    if spec.steed and second_reading:
        if any(i.spec.steed for i in player.items):
            raise RuleError(
                "one_steed", Phrase("{name} can have only one Steed in play", name=player.name)
            )
        return
    if not spec.big:
        return
    limit = allowance.big_item_limit(player)
    if limit is not None and len(allowance.big_items(player)) >= limit:
        raise RuleError(
            "one_big_item", Phrase("{name} can carry only one Big item", name=player.name)
        )


def _either(names: list[str]) -> str:
    """Trait names joined with "or", each one a card's name the app translates."""
    text: str = names[0]
    for name in names[1:]:
        text = Phrase("{what} or {trait}", what=text, trait=name)
    return text


def item_limits(spec: ItemSpec) -> str | None:
    """Who may use an item, in words ("Warrior or Cleric only; not for Elf"), or None
    when anyone may (RULES.md §11, restrictions both ways)."""
    clauses: list[str] = []
    for kind in ("class", "race", "style", "motivation", "sex"):
        named = [c.value for c in spec.only if c.kind == kind]
        if not named:
            continue
        if kind == "sex":
            sexes = [SEX_WORDS.get(value, value) for value in named]
            clauses.append(Phrase("{sex} only", sex=joined(sexes, "or")))
        else:
            clauses.append(Phrase("{trait} only", trait=_either(named)))
    for kind in ("class", "race", "style", "motivation", "sex"):
        named = [c.value for c in spec.not_for if c.kind == kind]
        if not named:
            continue
        if kind == "sex":
            sexes = [SEX_WORDS.get(value, value) for value in named]
            clauses.append(Phrase("not for {sex}", sex=joined(sexes, "or")))
        else:
            clauses.append(Phrase("not for {trait}", trait=_either(named)))
    if not clauses:
        return None
    text = clauses[0]
    for clause in clauses[1:]:
        text = Phrase("{first}; {second}", first=text, second=clause)
    return text


def _check_equip(player: PlayerState, spec: ItemSpec, override: str | None) -> None:
    """Equip limits: one headgear, armor and footgear; two hands; one Steed; restrictions (§5)."""
    if override is not None:
        return
    if not rules.may_use_item(player, spec):
        raise RuleError(
            "item_restricted",
            Phrase(
                "{name} may not use {item}: {limits}",
                name=player.name,
                item=spec.name,
                limits=item_limits(spec) or "",
            ),
        )
    worn = [i.spec for i in player.items if i.equipped]
    if spec.slot in ("headgear", "armor", "footgear") and any(w.slot == spec.slot for w in worn):
        raise RuleError(
            "slot_taken",
            Phrase("{name} already wears {slot}", name=player.name, slot=SLOT_WORDS[spec.slot]),
        )
    if spec.hands and sum(w.hands for w in worn) + player.hands_used + spec.hands > 2:
        raise RuleError("hands_full", Phrase("{name} has only two hands", name=player.name))
    if spec.steed and any(w.steed for w in worn):
        raise RuleError("one_steed", Phrase("{name} can ride only one Steed", name=player.name))


def _with_equipped(state: GameState, seat: int, item_id: str, on: bool) -> GameState:
    player = state.players[seat]
    items = tuple(i.evolve(equipped=on) if i.id == item_id else i for i in player.items)
    return with_player(state, seat, items=items)


def _item_words(template: str, state: GameState, seat: int, item_id: str) -> str:
    """A History sentence about one player's tracked item ("{name} equips {item}")."""
    return Phrase(template, name=player_name(state, seat), item=item_name(state, seat, item_id))


def without_item(state: GameState, seat: int, item_id: str) -> GameState:
    """The state with one of a player's tracked items out of play."""
    player = state.players[seat]
    return with_player(state, seat, items=tuple(i for i in player.items if i.id != item_id))


class SetGearBonus(BaseAction):
    """Set the gear bonus the table counts by hand (and the hands that gear uses)."""

    type: Literal["set_gear_bonus"] = "set_gear_bonus"
    player: Seat
    bonus: Annotated[int, Field(ge=-100, le=100)]
    hands_used: Annotated[int, Field(ge=0, le=2)] | None = None
    override: Override = None


@rule.register
def rule_set_gear_bonus(action: SetGearBonus, state: GameState) -> None:
    """Equipment cannot change during combat (§5)."""
    player = player_at(state, action.player)
    _no_gear_change_in_combat(state, (action.player,), action.override)
    if action.bonus != player.gear_bonus:
        alive(player, phrase_template("have gear"))


@step.register
def step_set_gear_bonus(action: SetGearBonus, state: GameState) -> GameState:
    """The hand-kept gear bonus, and the hands it uses, become the ones given (§5)."""
    player = state.players[action.player]
    hands = player.hands_used if action.hands_used is None else action.hands_used
    return with_player(state, action.player, gear_bonus=action.bonus, hands_used=hands)


@words.register
def words_set_gear_bonus(a: SetGearBonus, s: GameState) -> str:
    """History: whose gear bonus becomes what."""
    return Phrase(
        "{name}'s gear bonus becomes {bonus:+d}", name=player_name(s, a.player), bonus=a.bonus
    )


class SetRunAwayBonus(BaseAction):
    """Set a player's own run-away modifier kept by hand (class, steed, ...)."""

    type: Literal["set_run_away_bonus"] = "set_run_away_bonus"
    player: Seat
    bonus: Annotated[int, Field(ge=-10, le=10)]


@rule.register
def rule_set_run_away_bonus(action: SetRunAwayBonus, state: GameState) -> None:
    """Any seated player may keep a run-away modifier by hand (§7)."""
    player_at(state, action.player)


@step.register
def step_set_run_away_bonus(action: SetRunAwayBonus, state: GameState) -> GameState:
    """The player's hand-kept run-away modifier becomes the one given (§7)."""
    return with_player(state, action.player, run_away_bonus=action.bonus)


@words.register
def words_set_run_away_bonus(a: SetRunAwayBonus, s: GameState) -> str:
    """History: whose run-away bonus becomes what."""
    return Phrase(
        "{name}'s run-away bonus becomes {bonus:+d}", name=player_name(s, a.player), bonus=a.bonus
    )


class GainItem(BaseAction):
    """A player puts an item in play, carried or equipped."""

    type: Literal["gain_item"] = "gain_item"
    player: Seat
    item: ItemSpec
    equip: bool = False
    override: Override = None


@rule.register
def rule_gain_item(action: GainItem, state: GameState) -> None:
    """Dead players cannot receive cards; one Big item; equip limits (§5, §8)."""
    player = player_at(state, action.player)
    alive(player, phrase_template("receive cards"))
    if action.override is None:
        check_can_carry(player, action.item)
        if state.rules > LEGACY_RULES and fighting(state, action.player):
            raise RuleError(
                "items_in_combat",
                Phrase("In combat only one-shots may be played from the hand"),
            )
    if action.equip:
        _no_gear_change_in_combat(state, (action.player,), action.override)
        _check_equip(player, action.item, action.override)


@step.register
def step_gain_item(action: GainItem, state: GameState) -> GameState:
    """The item comes into play, carried or equipped, under the next item id (§5)."""
    player = state.players[action.player]
    item = Item(id=f"i{state.next_item}", spec=action.item, equipped=action.equip)
    state = state.evolve(next_item=state.next_item + 1)
    return with_player(state, action.player, items=(*player.items, item))


@words.register
def words_gain_item(a: GainItem, s: GameState) -> str:
    """History: who takes or equips which item, and its bonus."""
    template = (
        phrase_template("{name} equips {item} ({bonus:+d})")
        if a.equip
        else phrase_template("{name} takes {item} ({bonus:+d})")
    )
    return Phrase(template, name=player_name(s, a.player), item=a.item.name, bonus=a.item.bonus)


class EquipItem(BaseAction):
    """Equip a carried item (slot limits, restrictions, not in combat)."""

    type: Literal["equip_item"] = "equip_item"
    player: Seat
    item_id: str
    override: Override = None


@rule.register
def rule_equip_item(action: EquipItem, state: GameState) -> None:
    """Equipping: a carried item, not in combat, within the slots and restrictions (§5)."""
    player = player_at(state, action.player)
    item = find_item(player, action.item_id)
    if item.equipped:
        raise RuleError(
            "already_equipped", Phrase("{item} is already equipped", item=item.spec.name)
        )
    _no_gear_change_in_combat(state, (action.player,), action.override)
    _check_equip(player, item.spec, action.override)


@step.register
def step_equip_item(action: EquipItem, state: GameState) -> GameState:
    """The carried item is equipped and counts from then on (§5)."""
    return _with_equipped(state, action.player, action.item_id, True)


@words.register
def words_equip_item(a: EquipItem, s: GameState) -> str:
    """History: who equips which item."""
    return _item_words(phrase_template("{name} equips {item}"), s, a.player, a.item_id)


class UnequipItem(BaseAction):
    """Stop using an item but keep carrying it (not in combat)."""

    type: Literal["unequip_item"] = "unequip_item"
    player: Seat
    item_id: str
    override: Override = None


@rule.register
def rule_unequip_item(action: UnequipItem, state: GameState) -> None:
    """Only an equipped item can be taken off, and not in combat (§5)."""
    item = find_item(player_at(state, action.player), action.item_id)
    if not item.equipped:
        raise RuleError("not_equipped", Phrase("{item} is not equipped", item=item.spec.name))
    _no_gear_change_in_combat(state, (action.player,), action.override)


@step.register
def step_unequip_item(action: UnequipItem, state: GameState) -> GameState:
    """The item stays carried but no longer counts (§5)."""
    return _with_equipped(state, action.player, action.item_id, False)


@words.register
def words_unequip_item(a: UnequipItem, s: GameState) -> str:
    """History: who takes off which item."""
    return _item_words(phrase_template("{name} takes off {item}"), s, a.player, a.item_id)


class DiscardItem(BaseAction):
    """An item leaves play (lost to Bad Stuff, a curse, a one-shot used up, ...)."""

    type: Literal["discard_item"] = "discard_item"
    player: Seat
    item_id: str


@rule.register
def rule_discard_item(action: DiscardItem, state: GameState) -> None:
    """Only an item the player has can leave play."""
    find_item(player_at(state, action.player), action.item_id)


@step.register
def step_discard_item(action: DiscardItem, state: GameState) -> GameState:
    """The item leaves play."""
    return without_item(state, action.player, action.item_id)


@words.register
def words_discard_item(a: DiscardItem, s: GameState) -> str:
    """History: who discards which item."""
    return _item_words(phrase_template("{name} discards {item}"), s, a.player, a.item_id)


class TradeItem(BaseAction):
    """Hand an item from the table to another player (never in combat)."""

    type: Literal["trade_item"] = "trade_item"
    giver: Seat
    receiver: Seat
    item_id: str
    override: Override = None


@rule.register
def rule_trade_item(action: TradeItem, state: GameState) -> None:
    """Trading: items only, from the table, never while you or your partner are in combat
    (§5; the rulebooks' Trading)."""
    giver = player_at(state, action.giver)
    receiver = player_at(state, action.receiver)
    item = find_item(giver, action.item_id)
    if action.giver == action.receiver:
        raise RuleError("trade_self", Phrase("A player cannot trade with themselves"))
    alive(receiver, phrase_template("receive cards"))
    alive(giver, phrase_template("trade"))
    if action.override is None and (
        fighting(state, action.giver) or fighting(state, action.receiver)
    ):
        raise RuleError("trade_in_combat", Phrase("Items cannot be traded during combat"))
    if action.override is None:
        check_can_carry(receiver, item.spec)


@step.register
def step_trade_item(action: TradeItem, state: GameState) -> GameState:
    """The item passes to the receiver, carried and not equipped (§5)."""
    return give_item(state, action.giver, action.receiver, action.item_id)


def give_item(state: GameState, giver: int, receiver: int, item_id: str) -> GameState:
    """The state with one of the giver's items carried, not equipped, by the receiver."""
    item = find_item(state.players[giver], item_id)
    state = without_item(state, giver, item_id)
    taker = state.players[receiver]
    return with_player(state, receiver, items=(*taker.items, item.evolve(equipped=False)))


@words.register
def words_trade_item(a: TradeItem, s: GameState) -> str:
    """History: who gives which item to whom."""
    item = item_name(s, a.giver, a.item_id)
    return Phrase(
        "{giver} gives {item} to {receiver}",
        giver=player_name(s, a.giver),
        item=item,
        receiver=player_name(s, a.receiver),
    )
