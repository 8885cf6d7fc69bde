"""The rules engine: one function applies one action to a state and returns the next state.

`apply_action` checks every rule first and raises `RuleError` (changing nothing);
`apply_unchecked` only applies, for replaying a log that was checked when it was
written. `fill_rolls` rolls the dice an action left open, so the log always holds
the results and a replay is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import singledispatch

from companion.core import rules
from companion.core.actions import (
    AddEnhancer,
    AddHelper,
    AddMonster,
    AdvancePhase,
    BaseAction,
    ChangeSex,
    Charity,
    ClearOneShots,
    Die,
    DiscardAlly,
    DiscardItem,
    EndTurn,
    EquipItem,
    FightWithLevelOnly,
    GainItem,
    GainTrait,
    GoUpLevel,
    LootTheBody,
    LoseLevel,
    LoseTrait,
    PlayOneShot,
    RemoveHelper,
    RemoveMonster,
    ResolveCombat,
    RollDie,
    RollForFirstPlayer,
    RunAway,
    SacrificeAlly,
    SellItems,
    SetAlly,
    SetGearBonus,
    SetLevel,
    SetRunAwayBonus,
    SetTraitBoost,
    SetWinsTies,
    StartCombat,
    TradeItem,
    UnequipItem,
)
from companion.core.dice import RandomSource
from companion.core.errors import RuleError
from companion.core.models import ItemSpec
from companion.core.state import (
    CharityResult,
    CombatResult,
    CombatState,
    DieRoll,
    GameState,
    Item,
    LootOrder,
    MonsterInPlay,
    OneShot,
    Phase,
    PlayerState,
    RunAwayRoll,
    TraitKind,
)

_TRAIT_WORDS = {"class": "class", "race": "race", "motivation": "motivation", "style": "style"}
_TRAIT_FIELDS = {
    "class": "classes",
    "race": "races",
    "motivation": "motivations",
    "style": "styles",
}
_BOOSTS = {
    "class": ("super_munchkin", "Super Munchkin"),
    "race": ("half_breed", "Half-Breed"),
    "motivation": ("extra_motivated", "Extra Motivated"),
}
_COMBAT_PHASES = (Phase.KICK_OPEN_THE_DOOR, Phase.LOOT_OR_TROUBLE)


# --- entry points -----------------------------------------------------------------------


def apply_action(state: GameState, action: BaseAction) -> GameState:
    """Check every rule, then apply the action; on a broken rule raise RuleError."""
    if state.winners:
        names = " and ".join(state.players[w].name for w in state.winners)
        raise RuleError("game_over", f"The game is over: {names} won")
    return _finish(state, _handler(action)(action, state, True))


def apply_unchecked(state: GameState, action: BaseAction) -> GameState:
    """Apply an action that is known to be legal (e.g. from a checked log), skipping checks."""
    return _finish(state, _handler(action)(action, state, False))


def _handler(action: BaseAction) -> Callable[[BaseAction, GameState, bool], GameState]:
    # The registry is a plain dict: reading it directly skips singledispatch's MRO walk
    # and weak-reference cache on the replay hot path.
    found = _step.registry.get(type(action))
    return found if found is not None else _step.dispatch(type(action))


def replay(state: GameState, actions: Iterable[BaseAction], checked: bool = True) -> GameState:
    """Fold a sequence of actions into a state: the state of a game *is* this fold."""
    step = apply_action if checked else apply_unchecked
    for action in actions:
        state = step(state, action)
    return state


def _d6(dice: RandomSource) -> int:
    value = dice.roll_d6()
    if not isinstance(value, int) or not 1 <= value <= 6:
        raise ValueError(f"a d6 shows 1 to 6, but the dice gave {value!r}")
    return value


@singledispatch
def fill_rolls(action: BaseAction, state: GameState, dice: RandomSource) -> BaseAction:
    """Roll, with `dice`, any die result the action leaves open, and return the full action."""
    return action


@fill_rolls.register
def _(action: RunAway, state: GameState, dice: RandomSource) -> BaseAction:
    return action if action.roll is not None else action.evolve(roll=_d6(dice))


@fill_rolls.register
def _(action: RollDie, state: GameState, dice: RandomSource) -> BaseAction:
    return action if action.roll is not None else action.evolve(roll=_d6(dice))


@fill_rolls.register
def _(action: LootTheBody, state: GameState, dice: RandomSource) -> BaseAction:
    seats = len(state.players)
    if action.rolls is not None or not 0 <= action.player < seats:
        return action
    if not state.players[action.player].dead:
        return action  # the rules will refuse it; no die is rolled for nothing
    groups = rules.loot_groups(state.players, action.player)
    _, used = rules.order_by_rolls(groups, lambda: _d6(dice))
    return action.evolve(rolls=used)


@fill_rolls.register
def _(action: RollForFirstPlayer, state: GameState, dice: RandomSource) -> BaseAction:
    if action.rolls is not None or state.turn != 1:
        return action
    _, used = rules.order_by_rolls([list(range(len(state.players)))], lambda: _d6(dice))
    return action.evolve(rolls=used)


# --- shared helpers -----------------------------------------------------------------------


def _finish(before: GameState, state: GameState) -> GameState:
    """Count the action and refresh the live combat verdict if anything it reads changed."""
    if state is before:
        state = state.evolve()
    fields = state.__dict__
    # `state` was built by this very step and nobody else holds it yet, so finishing it
    # in place is safe and saves one more copy of the whole state per action.
    fields["revision"] = before.revision + 1
    combat = state.combat
    if combat is not None and not _verdict_inputs_same(before, state):
        fields["combat"] = _refresh_combat(state, combat)
    return state


def _verdict_inputs_same(before: GameState, after: GameState) -> bool:
    """Whether the combat verdict can be kept: states are immutable, so `is` means unchanged."""
    old, new = before.combat, after.combat
    if old is None or new is None:
        return False
    return (
        new.monsters is old.monsters
        and new.one_shots is old.one_shots
        and new.level_only is old.level_only
        and new.wins_ties == old.wins_ties
        and new.fighter == old.fighter
        and new.helper == old.helper
        and all(after.players[s] is before.players[s] for s in new.fighters)
    )


def _refresh_monster(monster: MonsterInPlay, fighters: list[PlayerState]) -> MonsterInPlay:
    strength = rules.monster_strength(monster.spec, monster.enhancers, fighters)
    treasure = rules.monster_treasure(monster.spec, monster.enhancers)
    if strength == monster.strength and treasure == monster.treasure:
        return monster
    return monster.evolve(strength=strength, treasure=treasure)


def _refresh_combat(state: GameState, combat: CombatState) -> CombatState:
    """Recompute both sides' strength, the verdict and the rewards (RULES.md §6)."""
    fighters = [state.players[s] for s in combat.fighters]
    monsters = tuple(_refresh_monster(m, fighters) for m in combat.monsters)
    if all(new is old for new, old in zip(monsters, combat.monsters, strict=True)):
        monsters = combat.monsters  # keep the identity, so the next action can skip this
    fighter = rules.combat_strength(fighters[0], combat.fighter in combat.level_only)
    helper = (
        rules.combat_strength(fighters[1], combat.helper in combat.level_only)
        if combat.helper is not None
        else 0
    )
    player_shots = sum(s.bonus for s in combat.one_shots if s.side == "players")
    monster_shots = sum(s.bonus for s in combat.one_shots if s.side == "monsters")
    players = fighter + helper + player_shots
    monster_total = sum(m.strength for m in monsters) + monster_shots
    return combat.evolve(
        **{
            "monsters": monsters,
            "fighter_strength": fighter,
            "helper_strength": helper,
            "players_strength": players,
            "monsters_strength": monster_total,
            "fighters_winning": rules.fighters_win(players, monster_total, combat.wins_ties),
            "treasure": sum(m.treasure for m in monsters),
            "levels": sum(m.spec.levels_per_kill for m in monsters),
        }
    )


def _seat(state: GameState, seat: int) -> PlayerState:
    if not 0 <= seat < len(state.players):
        raise RuleError("no_such_player", f"There is no player in seat {seat + 1}")
    return state.players[seat]


def _with_player(state: GameState, seat: int, **changes: object) -> GameState:
    players = list(state.players)
    players[seat] = players[seat].evolve(**changes)
    return state.evolve(players=tuple(players))


def _alive(player: PlayerState, doing: str) -> None:
    if player.dead:
        raise RuleError("dead_player", f"{player.name} is dead and cannot {doing}")


def _combat(state: GameState) -> CombatState:
    if state.combat is None:
        raise RuleError("no_combat", "There is no combat going on")
    return state.combat


def _not_running(combat: CombatState) -> None:
    if combat.running:
        raise RuleError(
            "running_away", "Running away has started: finish the rolls before anything else"
        )


def _no_gear_change_in_combat(state: GameState, override: str | None) -> None:
    if state.combat is not None and override is None:
        raise RuleError(
            "equipment_in_combat", "Equipment cannot be changed during combat or running away"
        )


def _find_item(player: PlayerState, item_id: str) -> Item:
    for item in player.items:
        if item.id == item_id:
            return item
    raise RuleError("no_such_item", f"{player.name} has no item {item_id}")


def _win(state: GameState, seats: tuple[int, ...]) -> GameState:
    return state.evolve(winners=seats, phase=Phase.GAME_OVER, combat=None)


def _raise_level(
    state: GameState,
    seat: int,
    levels: int,
    checked: bool,
    *,
    source: str,
    override: str | None,
    by_kill: bool = False,
) -> GameState:
    """Go up levels through the rules (RULES.md §1, §8).

    Dead players cannot go up; the winning level comes only from a kill unless a card
    says otherwise; there are no levels above the winning level.
    """
    player = state.players[seat]
    target = state.winning_level
    new_level = min(target, player.level + levels)
    if checked:
        if player.dead and override is None:
            raise RuleError("dead_cannot_level", f"{player.name} is dead and cannot go up a level")
        if new_level >= target and not by_kill and override is None:
            raise RuleError("winning_level_by_kill", f"{source} cannot take you to Level {target}")
    state = _with_player(state, seat, level=new_level)
    return _win(state, (seat,)) if new_level >= target else state


def _kill_player(state: GameState, seat: int) -> GameState:
    """Death: keep Level and traits, lose items, gear and Ally (RULES.md §8)."""
    return _with_player(state, seat, dead=True, items=(), gear_bonus=0, hands_used=0, ally=None)


def _end_combat(state: GameState, result: CombatResult) -> GameState:
    """The combat is over: one-shots are discarded, the turn moves on to Charity."""
    combat = _combat(state)
    phase = state.phase
    if combat.fighter == state.current and combat.started_in in _COMBAT_PHASES:
        phase = Phase.CHARITY
    return state.evolve(combat=None, last_combat=result, phase=phase)


def _fighter_done(state: GameState, combat: CombatState, seat: int) -> bool:
    if state.players[seat].dead or seat in combat.escaped:
        return True
    faced = {r.monster for r in combat.rolls if r.fighter == seat}
    return len(faced) >= len(combat.monsters)


def _maybe_finish_running(state: GameState) -> GameState:
    """After every fighter has rolled against every monster (or died), the monsters go (§7)."""
    combat = _combat(state)
    if not all(_fighter_done(state, combat, s) for s in combat.fighters):
        return state
    result = CombatResult(
        outcome="ran_away",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.spec.name for m in combat.monsters),
        rolls=combat.rolls,
    )
    return _end_combat(state, result)


def _draw(rolls: tuple[int, ...] | None, what: str) -> tuple[Iterator[int], list[int]]:
    if rolls is None:
        raise RuleError("roll_missing", f"The die roll for {what} was not recorded")
    used: list[int] = []
    source = iter(rolls)

    def gen() -> Iterator[int]:
        for value in source:
            used.append(value)
            yield value

    return gen(), used


def _ordered_by_rolls(
    groups: list[list[int]], rolls: tuple[int, ...] | None, what: str, checked: bool
) -> tuple[int, ...]:
    values, used = _draw(rolls, what)

    def draw() -> int:
        try:
            return next(values)
        except StopIteration:
            raise RuleError("roll_missing", f"More die rolls are needed for {what}") from None

    order, _ = rules.order_by_rolls(groups, draw)
    if checked and rolls is not None and len(used) != len(rolls):
        raise RuleError("extra_rolls", f"More die rolls were recorded than {what} needs")
    return order


# --- the one function that applies actions --------------------------------------------------


@singledispatch
def _step(action: BaseAction, state: GameState, checked: bool) -> GameState:
    raise RuleError("unknown_action", f"The game does not know the action {action.type!r}")


# levels


@_step.register
def _(action: GoUpLevel, state: GameState, checked: bool) -> GameState:
    """Go Up a Level cards never give the winning level; dead players cannot go up (§1, §8)."""
    _seat(state, action.player)
    return _raise_level(
        state,
        action.player,
        action.levels,
        checked,
        source="A Go Up a Level card",
        override=action.override,
    )


@_step.register
def _(action: LoseLevel, state: GameState, checked: bool) -> GameState:
    """A player's Level is never below 1 (§1)."""
    player = _seat(state, action.player)
    return _with_player(state, action.player, level=max(1, player.level - action.levels))


@_step.register
def _(action: SetLevel, state: GameState, checked: bool) -> GameState:
    """Setting a Level by hand goes through the same rules as going up (§1)."""
    player = _seat(state, action.player)
    if checked and action.level > state.winning_level:
        raise RuleError(
            "no_such_level", f"Levels go up to {state.winning_level} in this game, not beyond"
        )
    if action.level <= player.level:
        return _with_player(state, action.player, level=action.level)
    return _raise_level(
        state,
        action.player,
        action.level - player.level,
        checked,
        source="Setting a Level by hand",
        override=action.override,
    )


@_step.register
def _(action: SellItems, state: GameState, checked: bool) -> GameState:
    """Selling: on your own turn, not in combat, 1000 gold per level, no change, never
    to the winning level (§5)."""
    player = _seat(state, action.player)
    sold = [_find_item(player, i) for i in action.item_ids]
    gold = action.gold + sum(i.spec.gold for i in sold)
    levels = rules.levels_for_gold(gold)
    if checked:
        _alive(player, "sell items")
        if len(set(action.item_ids)) != len(action.item_ids):
            raise RuleError("no_such_item", "The same item cannot be sold twice")
        if action.override is None:
            if action.player != state.current:
                raise RuleError("sell_own_turn", "You can sell items only on your own turn")
            if state.combat is not None:
                raise RuleError("sell_in_combat", "You cannot sell items during combat")
        if levels < 1:
            raise RuleError(
                "sell_minimum",
                f"{gold} gold buys no level: a level costs 1000 gold and no change is given",
            )
        if player.level + levels >= state.winning_level and action.override is None:
            raise RuleError(
                "sell_to_win", f"Selling items cannot take you to Level {state.winning_level}"
            )
    if sold:
        keep = tuple(i for i in player.items if i.id not in action.item_ids)
        state = _with_player(state, action.player, items=keep)
    return _raise_level(
        state,
        action.player,
        levels,
        False,
        source="Selling items",
        override=action.override,
    )


# gear


@_step.register
def _(action: SetGearBonus, state: GameState, checked: bool) -> GameState:
    """Equipment cannot change during combat (§5)."""
    player = _seat(state, action.player)
    if checked:
        _no_gear_change_in_combat(state, action.override)
        if action.bonus != player.gear_bonus:
            _alive(player, "have gear")
    hands = player.hands_used if action.hands_used is None else action.hands_used
    return _with_player(state, action.player, gear_bonus=action.bonus, hands_used=hands)


@_step.register
def _(action: SetRunAwayBonus, state: GameState, checked: bool) -> GameState:
    _seat(state, action.player)
    return _with_player(state, action.player, run_away_bonus=action.bonus)


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


@_step.register
def _(action: GainItem, state: GameState, checked: bool) -> GameState:
    """Dead players cannot receive cards; one Big item; equip limits (§5, §8)."""
    player = _seat(state, action.player)
    if checked:
        _alive(player, "receive cards")
        if action.override is None:
            _check_big(player, action.item)
        if action.equip:
            _no_gear_change_in_combat(state, action.override)
            _check_equip(player, action.item, action.override)
    item = Item(id=f"i{state.next_item}", spec=action.item, equipped=action.equip)
    state = state.evolve(next_item=state.next_item + 1)
    return _with_player(state, action.player, items=(*player.items, item))


def _equipped(item: Item, on: bool) -> Item:
    return item.evolve(equipped=on)


@_step.register
def _(action: EquipItem, state: GameState, checked: bool) -> GameState:
    player = _seat(state, action.player)
    item = _find_item(player, action.item_id)
    if checked:
        if item.equipped:
            raise RuleError("already_equipped", f"{item.spec.name} is already equipped")
        _no_gear_change_in_combat(state, action.override)
        _check_equip(player, item.spec, action.override)
    items = tuple(_equipped(i, True) if i is item else i for i in player.items)
    return _with_player(state, action.player, items=items)


@_step.register
def _(action: UnequipItem, state: GameState, checked: bool) -> GameState:
    player = _seat(state, action.player)
    item = _find_item(player, action.item_id)
    if checked:
        if not item.equipped:
            raise RuleError("not_equipped", f"{item.spec.name} is not equipped")
        _no_gear_change_in_combat(state, action.override)
    items = tuple(_equipped(i, False) if i is item else i for i in player.items)
    return _with_player(state, action.player, items=items)


@_step.register
def _(action: DiscardItem, state: GameState, checked: bool) -> GameState:
    player = _seat(state, action.player)
    item = _find_item(player, action.item_id)
    return _with_player(state, action.player, items=tuple(i for i in player.items if i is not item))


@_step.register
def _(action: TradeItem, state: GameState, checked: bool) -> GameState:
    """Trading: items only, from the table, never in combat (§5)."""
    giver = _seat(state, action.giver)
    receiver = _seat(state, action.receiver)
    item = _find_item(giver, action.item_id)
    if checked:
        if action.giver == action.receiver:
            raise RuleError("trade_self", "A player cannot trade with themselves")
        _alive(receiver, "receive cards")
        _alive(giver, "trade")
        if state.combat is not None and action.override is None:
            raise RuleError("trade_in_combat", "Items cannot be traded during combat")
        if action.override is None:
            _check_big(receiver, item.spec)
    state = _with_player(state, action.giver, items=tuple(i for i in giver.items if i is not item))
    moved = item.evolve(equipped=False)
    return _with_player(state, action.receiver, items=(*receiver.items, moved))


# character


def _edition_names(state: GameState, kind: TraitKind) -> tuple[str, ...]:
    edition = state.setup.edition
    return {
        "class": edition.classes,
        "race": edition.races,
        "motivation": edition.motivations,
        "style": edition.styles,
    }[kind]


@_step.register
def _(action: GainTrait, state: GameState, checked: bool) -> GameState:
    """One class/race/motivation/style at a time unless Super Munchkin, Half-Breed,
    Extra Motivated or (styles) a Monk (§4)."""
    player = _seat(state, action.player)
    kind = action.kind
    word = _TRAIT_WORDS[kind]
    known = _edition_names(state, kind)
    name = next((k for k in known if k.casefold() == action.name.casefold()), action.name)
    have = player.traits(kind)
    if checked:
        edition = state.setup.edition.name
        if action.override is None:
            if not known:
                raise RuleError("no_such_trait", f"{edition} has no {word} cards")
            if name not in known:
                raise RuleError("no_such_trait", f"{name} is not a {word} in {edition}")
        if any(h.casefold() == name.casefold() for h in have):
            raise RuleError("has_trait", f"{player.name} is already a {name}")
        limit = rules.trait_limit(player, kind)
        if len(have) >= limit and action.override is None:
            extra = {
                "class": "unless you are a Super Munchkin",
                "race": "unless you are a Half-Breed",
                "motivation": "unless you are Extra Motivated",
                "style": "unless you are a Monk",
            }[kind]
            raise RuleError("trait_limit", f"You can have only one {word} at a time {extra}")
    return _with_player(state, action.player, **{_TRAIT_FIELDS[kind]: (*have, name)})


@_step.register
def _(action: LoseTrait, state: GameState, checked: bool) -> GameState:
    """A class (or race, ...) can be discarded any time, even in combat (§4)."""
    player = _seat(state, action.player)
    have = player.traits(action.kind)
    keep = tuple(h for h in have if h.casefold() != action.name.casefold())
    if checked and len(keep) == len(have):
        raise RuleError("no_such_trait", f"{player.name} is not a {action.name}")
    return _with_player(state, action.player, **{_TRAIT_FIELDS[action.kind]: keep})


@_step.register
def _(action: SetTraitBoost, state: GameState, checked: bool) -> GameState:
    player = _seat(state, action.player)
    field, card = _BOOSTS[action.kind]
    if checked:
        if getattr(player, field) == action.on:
            state_word = "already" if action.on else "not"
            raise RuleError("boost_unchanged", f"{player.name} is {state_word} {card}")
        if not action.on and len(player.traits(action.kind)) > 1:
            raise RuleError(
                "boost_in_use",
                f"Discard one {_TRAIT_WORDS[action.kind]} before losing {card}",
            )
    return _with_player(state, action.player, **{field: action.on})


@_step.register
def _(action: ChangeSex, state: GameState, checked: bool) -> GameState:
    player = _seat(state, action.player)
    if checked and player.sex == action.sex:
        raise RuleError("sex_unchanged", f"{player.name} is already {action.sex.value}")
    return _with_player(state, action.player, sex=action.sex)


@_step.register
def _(action: SetAlly, state: GameState, checked: bool) -> GameState:
    """At most one Ally; it may be played any time, even in combat (§4)."""
    player = _seat(state, action.player)
    if checked:
        _alive(player, "play an Ally")
        if player.ally is not None and action.override is None:
            raise RuleError("one_ally", "You can have only one Ally at a time")
    return _with_player(state, action.player, ally=action.ally)


@_step.register
def _(action: DiscardAlly, state: GameState, checked: bool) -> GameState:
    player = _seat(state, action.player)
    if checked and player.ally is None:
        raise RuleError("no_ally", f"{player.name} has no Ally")
    return _with_player(state, action.player, ally=None)


@_step.register
def _(action: Die, state: GameState, checked: bool) -> GameState:
    """Death keeps Level and traits, loses items; a dead fighter's combat ends (§8)."""
    player = _seat(state, action.player)
    if checked and player.dead:
        raise RuleError("already_dead", f"{player.name} is already dead")
    state = _kill_player(state, action.player)
    combat = state.combat
    if combat is None or action.player not in combat.fighters:
        return state
    if combat.running:
        return _maybe_finish_running(state)
    if action.player == combat.helper:
        helper_gone = combat.evolve(helper=None, level_only=combat.level_only - {action.player})
        return state.evolve(combat=helper_gone)
    result = CombatResult(
        outcome="fighter_died",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.spec.name for m in combat.monsters),
    )
    return _end_combat(state, result)


@_step.register
def _(action: LootTheBody, state: GameState, checked: bool) -> GameState:
    """Looting the body: the others take a card each, highest Level first, ties by dice (§8)."""
    player = _seat(state, action.player)
    if checked and not player.dead:
        raise RuleError("not_dead", f"{player.name} is alive: only a dead player's body is looted")
    groups = rules.loot_groups(state.players, action.player)
    order = _ordered_by_rolls(groups, action.rolls, "the looting order", checked)
    rolls = action.rolls or ()
    update: dict[str, object] = {
        "loot": LootOrder(dead=action.player, order=order, rolls=rolls),
    }
    if rolls:
        update["last_roll"] = DieRoll(value=rolls[-1], purpose="looting order")
    return state.evolve(**update)


# turn


@_step.register
def _(action: RollForFirstPlayer, state: GameState, checked: bool) -> GameState:
    """Who goes first: everyone rolls, highest first, ties roll again (§2)."""
    if checked and (state.turn != 1 or state.combat is not None or state.last_combat is not None):
        raise RuleError("first_player_chosen", "The first player is chosen before play begins")
    order = _ordered_by_rolls(
        [list(range(len(state.players)))], action.rolls, "choosing the first player", checked
    )
    rolls = action.rolls or ()
    return state.evolve(
        **{
            "current": order[0],
            "last_roll": DieRoll(value=max(rolls), player=order[0], purpose="first player"),
        }
    )


@_step.register
def _(action: AdvancePhase, state: GameState, checked: bool) -> GameState:
    """The turn's phases in order: (Listen at the Door), Kick Open the Door, Look for
    Trouble or Loot the Room, Charity (§3)."""
    if checked:
        if state.combat is not None:
            raise RuleError("finish_combat", "Finish the combat first")
        if state.phase == Phase.CHARITY:
            raise RuleError("end_turn", "Charity is the last phase: end the turn")
    following = {
        Phase.LISTEN_AT_THE_DOOR: Phase.KICK_OPEN_THE_DOOR,
        Phase.KICK_OPEN_THE_DOOR: Phase.LOOT_OR_TROUBLE,
        Phase.LOOT_OR_TROUBLE: Phase.CHARITY,
    }
    return state.evolve(phase=following.get(state.phase, state.phase))


@_step.register
def _(action: EndTurn, state: GameState, checked: bool) -> GameState:
    """Play passes to the left; the dead return at the start of the next turn (§2, §8)."""
    if checked and state.combat is not None:
        raise RuleError("finish_combat", "Finish the combat before ending the turn")
    players = state.players
    if any(p.dead for p in players):
        players = tuple(p.evolve(dead=False) if p.dead else p for p in players)
    faster = state.setup.variants.faster_play
    return state.evolve(
        **{
            "players": players,
            "current": (state.current + 1) % len(players),
            "turn": state.turn + 1,
            "phase": Phase.LISTEN_AT_THE_DOOR if faster else Phase.KICK_OPEN_THE_DOOR,
            "loot": None,
            "charity": None,
        }
    )


@_step.register
def _(action: Charity, state: GameState, checked: bool) -> GameState:
    """Charity: excess cards go to the lowest-Level players, split as evenly as possible;
    a giver who is lowest (or tied) discards them (§3)."""
    giver = _seat(state, action.giver)
    recipients = rules.charity_recipients(state.players, action.giver)
    to_left = [s for s in rules.seats_to_the_left(action.giver, len(state.players))]
    ordered = [s for s in to_left if s in recipients]
    if checked:
        _alive(giver, "give Charity")
        if state.combat is not None:
            raise RuleError("finish_combat", "Charity comes after the combat")
        if action.giver != state.current and action.override is None:
            raise RuleError("charity_own_turn", "Charity is given at the end of your own turn")
    if action.shares is None:
        shares = rules.even_split(action.cards, ordered)
    else:
        shares = {s: n for s, n in action.shares.items() if n}
        if checked:
            counts = [shares.get(s, 0) for s in ordered]
            if not recipients:
                if shares:
                    raise RuleError(
                        "charity_discard",
                        f"{giver.name} has the lowest Level, so the excess cards are discarded",
                    )
            elif (
                any(s not in recipients for s in shares)
                or sum(counts) != action.cards
                or max(counts) - min(counts) > 1
            ):
                names = ", ".join(state.players[s].name for s in ordered)
                raise RuleError(
                    "charity_split",
                    f"Charity goes to the lowest-Level players ({names}), "
                    "split as evenly as possible",
                )
    result = CharityResult(
        giver=action.giver,
        cards=action.cards,
        shares=shares,
        discarded=0 if recipients else action.cards,
    )
    return state.evolve(charity=result)


@_step.register
def _(action: RollDie, state: GameState, checked: bool) -> GameState:
    if action.player is not None:
        _seat(state, action.player)
    if action.roll is None:
        raise RuleError("roll_missing", "The die roll was not recorded")
    roll = DieRoll(value=action.roll, player=action.player, purpose=action.purpose)
    return state.evolve(last_roll=roll)


# combat


@_step.register
def _(action: StartCombat, state: GameState, checked: bool) -> GameState:
    """Monsters are fought when kicking open the door or looking for trouble (§3, §6)."""
    fighter = _seat(state, action.fighter)
    if checked:
        if state.combat is not None:
            raise RuleError("one_combat", "A combat is already going on")
        _alive(fighter, "fight")
        if action.override is None:
            if action.fighter != state.current:
                raise RuleError("fight_own_turn", "Monsters are fought on your own turn")
            if state.phase not in _COMBAT_PHASES:
                raise RuleError(
                    "fight_phase",
                    "Monsters are fought after kicking open the door or when looking for trouble",
                )
    combat = CombatState(
        fighter=action.fighter,
        monsters=tuple(MonsterInPlay(spec=m) for m in action.monsters),
        started_in=state.phase,
    )
    return state.evolve(combat=combat)


def _combat_update(state: GameState, checked: bool, **changes: object) -> GameState:
    combat = _combat(state)
    if checked:
        _not_running(combat)
    return state.evolve(combat=combat.evolve(**changes))


def _monster_index(combat: CombatState, index: int) -> int:
    if not 0 <= index < len(combat.monsters):
        raise RuleError("no_such_monster", f"There is no monster number {index + 1} in this combat")
    return index


@_step.register
def _(action: AddMonster, state: GameState, checked: bool) -> GameState:
    """More monsters join: the fighters must beat their combined strength (§6)."""
    combat = _combat(state)
    monsters = (*combat.monsters, MonsterInPlay(spec=action.monster))
    return _combat_update(state, checked, monsters=monsters)


@_step.register
def _(action: RemoveMonster, state: GameState, checked: bool) -> GameState:
    """A card takes a monster away; with none left, the fighters defeated them without a
    kill (§6)."""
    combat = _combat(state)
    index = _monster_index(combat, action.monster)
    gone = combat.monsters[index]
    rest = combat.monsters[:index] + combat.monsters[index + 1 :]
    state = _combat_update(state, checked, monsters=rest, removed=(*combat.removed, gone.spec))
    if rest:
        return state
    result = CombatResult(
        outcome="defeat",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=tuple(m.name for m in (*combat.removed, gone.spec)),
    )
    return _end_combat(state, result)


@_step.register
def _(action: AddEnhancer, state: GameState, checked: bool) -> GameState:
    """An enhancer goes on one monster: its strength and treasure change (§6)."""
    combat = _combat(state)
    index = _monster_index(combat, action.monster)
    monsters = list(combat.monsters)
    target = monsters[index]
    monsters[index] = target.evolve(enhancers=(*target.enhancers, action.enhancer))
    return _combat_update(state, checked, monsters=tuple(monsters))


@_step.register
def _(action: AddHelper, state: GameState, checked: bool) -> GameState:
    """At most one other player helps; their whole strength counts (§6)."""
    combat = _combat(state)
    helper = _seat(state, action.helper)
    if checked:
        if action.helper == combat.fighter:
            raise RuleError("help_self", "A fighter cannot help themselves")
        if combat.helper is not None:
            raise RuleError("one_helper", "Only one player can help in a combat")
        _alive(helper, "help in combat")
    return _combat_update(state, checked, helper=action.helper)


@_step.register
def _(action: RemoveHelper, state: GameState, checked: bool) -> GameState:
    combat = _combat(state)
    if checked and combat.helper is None:
        raise RuleError("no_helper", "Nobody is helping in this combat")
    return _combat_update(
        state, checked, helper=None, level_only=combat.level_only - {combat.helper}
    )


@_step.register
def _(action: PlayOneShot, state: GameState, checked: bool) -> GameState:
    """One-shots go to either side and are discarded after the combat (§5)."""
    combat = _combat(state)
    shot = OneShot(side=action.side, bonus=action.bonus, name=action.name, card_id=action.card_id)
    return _combat_update(state, checked, one_shots=(*combat.one_shots, shot))


@_step.register
def _(action: ClearOneShots, state: GameState, checked: bool) -> GameState:
    """One-shots entered for a side can be taken back while the fight is still on (§5)."""
    combat = _combat(state)
    kept = tuple(shot for shot in combat.one_shots if shot.side != action.side)
    if checked and len(kept) == len(combat.one_shots):
        raise RuleError("no_one_shots", f"No one-shots have been played for the {action.side}")
    return _combat_update(state, checked, one_shots=kept)


@_step.register
def _(action: FightWithLevelOnly, state: GameState, checked: bool) -> GameState:
    """Some effects make a fighter count only their Level (§6)."""
    combat = _combat(state)
    if checked and action.player not in combat.fighters:
        raise RuleError("not_fighting", f"{_seat(state, action.player).name} is not in this combat")
    only = combat.level_only | {action.player} if action.on else combat.level_only - {action.player}
    return _combat_update(state, checked, level_only=frozenset(only))


@_step.register
def _(action: SetWinsTies, state: GameState, checked: bool) -> GameState:
    """A card may let the players' side win ties (§6)."""
    _combat(state)
    return _combat_update(state, checked, wins_ties=action.on)


@_step.register
def _(action: ResolveCombat, state: GameState, checked: bool) -> GameState:
    """Kill: levels to the fighter only, treasure, win check with shared victory. Defeat
    without a kill: no level (§1, §6)."""
    combat = _combat(state)
    if checked:
        _not_running(combat)
        if action.outcome == "kill" and not combat.fighters_winning and action.override is None:
            p, m = combat.players_strength, combat.monsters_strength
            if p == m:
                raise RuleError(
                    "monsters_win_ties", f"Monsters win ties: {p} against {m} is not a kill"
                )
            raise RuleError(
                "fighters_losing", f"The monsters are stronger: {p} against {m} is not a kill"
            )
    names = tuple(m.spec.name for m in combat.monsters)
    if action.outcome == "defeat":
        result = CombatResult(
            outcome="defeat",
            fighter=combat.fighter,
            helper=combat.helper,
            monsters=names,
            treasure=action.treasure or 0,
        )
        return _end_combat(state, result)
    treasure = combat.treasure if action.treasure is None else action.treasure
    result = CombatResult(
        outcome="kill",
        fighter=combat.fighter,
        helper=combat.helper,
        monsters=names,
        levels=combat.levels,
        treasure=treasure,
        treasure_face_up=combat.helper is not None,
    )
    state = _end_combat(state, result)
    state = _raise_level(
        state,
        combat.fighter,
        combat.levels,
        checked,
        source="A kill",
        override=action.override,
        by_kill=True,
    )
    if state.winners and combat.helper is not None and state.setup.variants.shared_victory:
        state = _win(state, (combat.fighter, combat.helper))
    return state


def _no_need_to_run(combat: CombatState, override: str | None) -> None:
    if combat.fighters_winning and not combat.running and override is None:
        raise RuleError("no_need_to_run", "The players are winning: nobody needs to run away")


def _running_fighter(state: GameState, combat: CombatState, seat: int) -> PlayerState:
    player = _seat(state, seat)
    if seat not in combat.fighters:
        raise RuleError("not_fighting", f"{player.name} is not in this combat")
    if player.dead:
        raise RuleError("dead_stops_rolling", f"{player.name} is dead and stops rolling")
    if seat in combat.escaped:
        raise RuleError("already_escaped", f"{player.name} has already escaped every monster")
    return player


def _levels_word(n: int) -> str:
    return "a level" if n == 1 else f"{n} levels"


def _bad_stuff(state: GameState, seat: int, monster: MonsterInPlay) -> tuple[GameState, str]:
    """Apply what the engine can of a monster's Bad Stuff; say the rest in words (§7)."""
    bad = monster.spec.bad_stuff
    player = state.players[seat]
    said: list[str] = []
    if bad.lose_levels:
        level = max(1, player.level - bad.lose_levels)
        lost = player.level - level
        said.append(f"lost {_levels_word(lost)}" if lost else "kept Level 1 (it cannot go lower)")
        state = _with_player(state, seat, level=level)
    if bad.lose_gear and not bad.death:
        gear = player.gear_bonus - min(bad.lose_gear, max(0, player.gear_bonus))
        said.append(f"lost {player.gear_bonus - gear} gear bonus")
        state = _with_player(state, seat, gear_bonus=gear)
    if bad.death:
        said.append("died")
        state = _kill_player(state, seat)
    if bad.text:
        said.append(bad.text)
    return state, "; ".join(said)


@_step.register
def _(action: RunAway, state: GameState, checked: bool) -> GameState:
    """Each fighter rolls per monster in the order they choose: 5+ with modifiers escapes,
    failing brings the Bad Stuff; a fighter who dies stops rolling (§7)."""
    combat = _combat(state)
    player = _running_fighter(state, combat, action.fighter)
    index = _monster_index(combat, action.monster)
    monster = combat.monsters[index]
    if action.roll is None:
        raise RuleError("roll_missing", "The run-away roll was not recorded")
    if checked:
        _no_need_to_run(combat, action.override)
        if any(r.fighter == action.fighter and r.monster == index for r in combat.rolls):
            raise RuleError(
                "already_rolled", f"{player.name} has already run from {monster.spec.name}"
            )
    modifier = player.total_run_away_bonus + monster.spec.run_away_modifier
    escaped = rules.run_away_escapes(action.roll, modifier)
    said = ""
    if not escaped:
        state, said = _bad_stuff(state, action.fighter, monster)
    record = RunAwayRoll(
        fighter=action.fighter,
        monster=index,
        roll=action.roll,
        modifier=modifier,
        escaped=escaped,
        bad_stuff=said,
    )
    state = state.evolve(
        **{
            "combat": combat.evolve(running=True, rolls=(*combat.rolls, record)),
            "last_roll": DieRoll(value=action.roll, player=action.fighter, purpose="run away"),
        }
    )
    return _maybe_finish_running(state)


@_step.register
def _(action: SacrificeAlly, state: GameState, checked: bool) -> GameState:
    """Sacrificing an Ally escapes every monster; the owner decides for the partner (§4, §7)."""
    combat = _combat(state)
    player = _running_fighter(state, combat, action.player)
    if checked:
        if player.ally is None:
            raise RuleError("no_ally", f"{player.name} has no Ally to sacrifice")
        _no_need_to_run(combat, None)
    escaped = {action.player}
    partners = [s for s in combat.fighters if s != action.player]
    if action.partner_escapes and partners and not state.players[partners[0]].dead:
        escaped.add(partners[0])
    state = _with_player(state, action.player, ally=None)
    state = state.evolve(
        **{"combat": combat.evolve(**{"running": True, "escaped": combat.escaped | escaped})}
    )
    return _maybe_finish_running(state)
