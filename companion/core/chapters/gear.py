"""Gear (RULES.md §5): the hand-kept bonus, tracked items, equipping, discarding, trading."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from companion.core import rules
from companion.core.chapters.base import (
    BaseAction,
    Override,
    Seat,
    item_name,
    player_name,
    step,
    words,
)
from companion.core.chapters.table import alive, find_item, player_at, with_player
from companion.core.errors import RuleError
from companion.core.models import ItemSpec
from companion.core.state import GameState, Item, PlayerState


def _no_gear_change_in_combat(state: GameState, override: str | None) -> None:
    if state.combat is not None and override is None:
        raise RuleError(
            "equipment_in_combat", "Equipment cannot be changed during combat or running away"
        )


def _check_big(player: PlayerState, spec: ItemSpec) -> None:
    """At most one Big item carried; classic Dwarves may carry more (§5)."""
    if not spec.big or any(r.casefold() == "dwarf" for r in player.races):
        return
    if any(i.spec.big for i in player.items):
        raise RuleError("one_big_item", f"{player.name} can carry only one Big item")


def _check_equip(player: PlayerState, spec: ItemSpec, override: str | None) -> None:
    """Equip limits: one headgear, armor and footgear; two hands; restrictions (§5)."""
    if override is not None:
        return
    if spec.requires is not None and not rules.qualifies(player, spec.requires):
        raise RuleError(
            "item_restricted",
            f"{spec.name} can be used only by a {spec.requires.value} ({spec.requires.kind})",
        )
    worn = [i.spec for i in player.items if i.equipped]
    if spec.slot in ("headgear", "armor", "footgear") and any(w.slot == spec.slot for w in worn):
        raise RuleError("slot_taken", f"{player.name} already wears {spec.slot}")
    if spec.hands and sum(w.hands for w in worn) + player.hands_used + spec.hands > 2:
        raise RuleError("hands_full", f"{player.name} has only two hands")


def _equipped(item: Item, on: bool) -> Item:
    return item.evolve(equipped=on)


class SetGearBonus(BaseAction):
    """Set the gear bonus the table counts by hand (and the hands that gear uses)."""

    type: Literal["set_gear_bonus"] = "set_gear_bonus"
    player: Seat
    bonus: Annotated[int, Field(ge=-100, le=100)]
    hands_used: Annotated[int, Field(ge=0, le=2)] | None = None
    override: Override = None


@step.register
def _(action: SetGearBonus, state: GameState, checked: bool) -> GameState:
    """Equipment cannot change during combat (§5)."""
    player = player_at(state, action.player)
    if checked:
        _no_gear_change_in_combat(state, action.override)
        if action.bonus != player.gear_bonus:
            alive(player, "have gear")
    hands = player.hands_used if action.hands_used is None else action.hands_used
    return with_player(state, action.player, gear_bonus=action.bonus, hands_used=hands)


@words.register
def _(a: SetGearBonus, s: GameState) -> str:
    return f"{player_name(s, a.player)}'s gear bonus becomes {a.bonus:+d}"


class SetRunAwayBonus(BaseAction):
    """Set a player's own run-away modifier kept by hand (class, steed, ...)."""

    type: Literal["set_run_away_bonus"] = "set_run_away_bonus"
    player: Seat
    bonus: Annotated[int, Field(ge=-10, le=10)]


@step.register
def _(action: SetRunAwayBonus, state: GameState, checked: bool) -> GameState:
    player_at(state, action.player)
    return with_player(state, action.player, run_away_bonus=action.bonus)


@words.register
def _(a: SetRunAwayBonus, s: GameState) -> str:
    return f"{player_name(s, a.player)}'s run-away bonus becomes {a.bonus:+d}"


class GainItem(BaseAction):
    """A player puts an item in play, carried or equipped."""

    type: Literal["gain_item"] = "gain_item"
    player: Seat
    item: ItemSpec
    equip: bool = False
    override: Override = None


@step.register
def _(action: GainItem, state: GameState, checked: bool) -> GameState:
    """Dead players cannot receive cards; one Big item; equip limits (§5, §8)."""
    player = player_at(state, action.player)
    if checked:
        alive(player, "receive cards")
        if action.override is None:
            _check_big(player, action.item)
        if action.equip:
            _no_gear_change_in_combat(state, action.override)
            _check_equip(player, action.item, action.override)
    item = Item(id=f"i{state.next_item}", spec=action.item, equipped=action.equip)
    state = state.evolve(next_item=state.next_item + 1)
    return with_player(state, action.player, items=(*player.items, item))


@words.register
def _(a: GainItem, s: GameState) -> str:
    how = "equips" if a.equip else "takes"
    return f"{player_name(s, a.player)} {how} {a.item.name} ({a.item.bonus:+d})"


class EquipItem(BaseAction):
    """Equip a carried item (slot limits, restrictions, not in combat)."""

    type: Literal["equip_item"] = "equip_item"
    player: Seat
    item_id: str
    override: Override = None


@step.register
def _(action: EquipItem, state: GameState, checked: bool) -> GameState:
    player = player_at(state, action.player)
    item = find_item(player, action.item_id)
    if checked:
        if item.equipped:
            raise RuleError("already_equipped", f"{item.spec.name} is already equipped")
        _no_gear_change_in_combat(state, action.override)
        _check_equip(player, item.spec, action.override)
    items = tuple(_equipped(i, True) if i is item else i for i in player.items)
    return with_player(state, action.player, items=items)


@words.register
def _(a: EquipItem, s: GameState) -> str:
    return f"{player_name(s, a.player)} equips {item_name(s, a.player, a.item_id)}"


class UnequipItem(BaseAction):
    """Stop using an item but keep carrying it (not in combat)."""

    type: Literal["unequip_item"] = "unequip_item"
    player: Seat
    item_id: str
    override: Override = None


@step.register
def _(action: UnequipItem, state: GameState, checked: bool) -> GameState:
    player = player_at(state, action.player)
    item = find_item(player, action.item_id)
    if checked:
        if not item.equipped:
            raise RuleError("not_equipped", f"{item.spec.name} is not equipped")
        _no_gear_change_in_combat(state, action.override)
    items = tuple(_equipped(i, False) if i is item else i for i in player.items)
    return with_player(state, action.player, items=items)


@words.register
def _(a: UnequipItem, s: GameState) -> str:
    return f"{player_name(s, a.player)} takes off {item_name(s, a.player, a.item_id)}"


class DiscardItem(BaseAction):
    """An item leaves play (lost to Bad Stuff, a curse, a one-shot used up, ...)."""

    type: Literal["discard_item"] = "discard_item"
    player: Seat
    item_id: str


@step.register
def _(action: DiscardItem, state: GameState, checked: bool) -> GameState:
    player = player_at(state, action.player)
    item = find_item(player, action.item_id)
    return with_player(state, action.player, items=tuple(i for i in player.items if i is not item))


@words.register
def _(a: DiscardItem, s: GameState) -> str:
    return f"{player_name(s, a.player)} discards {item_name(s, a.player, a.item_id)}"


class TradeItem(BaseAction):
    """Hand an item from the table to another player (never in combat)."""

    type: Literal["trade_item"] = "trade_item"
    giver: Seat
    receiver: Seat
    item_id: str
    override: Override = None


# --- character -----------------------------------------------------------------------


@step.register
def _(action: TradeItem, state: GameState, checked: bool) -> GameState:
    """Trading: items only, from the table, never in combat (§5)."""
    giver = player_at(state, action.giver)
    receiver = player_at(state, action.receiver)
    item = find_item(giver, action.item_id)
    if checked:
        if action.giver == action.receiver:
            raise RuleError("trade_self", "A player cannot trade with themselves")
        alive(receiver, "receive cards")
        alive(giver, "trade")
        if state.combat is not None and action.override is None:
            raise RuleError("trade_in_combat", "Items cannot be traded during combat")
        if action.override is None:
            _check_big(receiver, item.spec)
    state = with_player(state, action.giver, items=tuple(i for i in giver.items if i is not item))
    moved = item.evolve(equipped=False)
    return with_player(state, action.receiver, items=(*receiver.items, moved))


# character


@words.register
def _(a: TradeItem, s: GameState) -> str:
    item = item_name(s, a.giver, a.item_id)
    return f"{player_name(s, a.giver)} gives {item} to {player_name(s, a.receiver)}"
