"""Actions in words, for the History screen: `describe(action, state_before)`."""

from __future__ import annotations

from functools import singledispatch

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
from companion.core.state import GameState, Phase


def describe(action: BaseAction, state_before: GameState) -> str:
    """One line saying what the action did, with player names, and any card override.

    >>> from companion.core import CLASSIC, GameSetup, GameState, GoUpLevel, PlayerSetup, Sex
    >>> setup = GameSetup(
    ...     players=(PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.FEMALE),
    ...              PlayerSetup(name="Bo", colour="#0000ff", sex=Sex.MALE)),
    ...     edition=CLASSIC)
    >>> describe(GoUpLevel(player=1, levels=2), GameState.initial(setup))
    'Bo goes up 2 levels'
    """
    text = _words(action, state_before)
    override = getattr(action, "override", None)
    return f"{text} (a card says otherwise: {override})" if override else text


def _name(state: GameState, seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(state.players):
        return "someone"
    return state.players[seat].name


def _levels(n: int) -> str:
    return "a level" if n == 1 else f"{n} levels"


def _item(state: GameState, seat: int, item_id: str) -> str:
    if 0 <= seat < len(state.players):
        for item in state.players[seat].items:
            if item.id == item_id:
                return item.spec.name
    return item_id


def _monster(state: GameState, index: int) -> str:
    if state.combat is not None and 0 <= index < len(state.combat.monsters):
        return state.combat.monsters[index].spec.name
    return f"monster {index + 1}"


@singledispatch
def _words(action: BaseAction, s: GameState) -> str:
    return action.type.replace("_", " ")


@_words.register
def _(a: GoUpLevel, s: GameState) -> str:
    return f"{_name(s, a.player)} goes up {_levels(a.levels)}"


@_words.register
def _(a: LoseLevel, s: GameState) -> str:
    return f"{_name(s, a.player)} loses {_levels(a.levels)}"


@_words.register
def _(a: SetLevel, s: GameState) -> str:
    return f"{_name(s, a.player)} is set to Level {a.level}"


@_words.register
def _(a: SellItems, s: GameState) -> str:
    names = [_item(s, a.player, i) for i in a.item_ids]
    what = ", ".join(names) if names else "items"
    extra = f" and {a.gold} gold more" if names and a.gold else ""
    worth = f" worth {a.gold} gold" if not names else extra
    return f"{_name(s, a.player)} sells {what}{worth}"


@_words.register
def _(a: SetGearBonus, s: GameState) -> str:
    return f"{_name(s, a.player)}'s gear bonus becomes {a.bonus:+d}"


@_words.register
def _(a: SetRunAwayBonus, s: GameState) -> str:
    return f"{_name(s, a.player)}'s run-away bonus becomes {a.bonus:+d}"


@_words.register
def _(a: GainItem, s: GameState) -> str:
    how = "equips" if a.equip else "takes"
    return f"{_name(s, a.player)} {how} {a.item.name} ({a.item.bonus:+d})"


@_words.register
def _(a: EquipItem, s: GameState) -> str:
    return f"{_name(s, a.player)} equips {_item(s, a.player, a.item_id)}"


@_words.register
def _(a: UnequipItem, s: GameState) -> str:
    return f"{_name(s, a.player)} takes off {_item(s, a.player, a.item_id)}"


@_words.register
def _(a: DiscardItem, s: GameState) -> str:
    return f"{_name(s, a.player)} discards {_item(s, a.player, a.item_id)}"


@_words.register
def _(a: TradeItem, s: GameState) -> str:
    item = _item(s, a.giver, a.item_id)
    return f"{_name(s, a.giver)} gives {item} to {_name(s, a.receiver)}"


@_words.register
def _(a: GainTrait, s: GameState) -> str:
    return f"{_name(s, a.player)} becomes a {a.name} ({a.kind})"


@_words.register
def _(a: LoseTrait, s: GameState) -> str:
    return f"{_name(s, a.player)} is no longer a {a.name}"


@_words.register
def _(a: SetTraitBoost, s: GameState) -> str:
    card = {"class": "Super Munchkin", "race": "Half-Breed", "motivation": "Extra Motivated"}
    verb = "plays" if a.on else "loses"
    return f"{_name(s, a.player)} {verb} {card[a.kind]}"


@_words.register
def _(a: ChangeSex, s: GameState) -> str:
    return f"{_name(s, a.player)}'s sex becomes {a.sex.value}"


@_words.register
def _(a: SetAlly, s: GameState) -> str:
    return f"{_name(s, a.player)} gains the Ally {a.ally.name}"


@_words.register
def _(a: DiscardAlly, s: GameState) -> str:
    return f"{_name(s, a.player)} loses their Ally"


@_words.register
def _(a: Die, s: GameState) -> str:
    why = f" ({a.reason})" if a.reason else ""
    return f"{_name(s, a.player)} dies{why}"


@_words.register
def _(a: LootTheBody, s: GameState) -> str:
    rolls = f", tie rolls {', '.join(map(str, a.rolls))}" if a.rolls else ""
    return f"The others loot {_name(s, a.player)}'s body{rolls}"


@_words.register
def _(a: RollForFirstPlayer, s: GameState) -> str:
    rolls = ", ".join(map(str, a.rolls or ()))
    return f"Everyone rolls for the first player ({rolls})"


@_words.register
def _(a: AdvancePhase, s: GameState) -> str:
    following = {
        Phase.LISTEN_AT_THE_DOOR: "kicks open the door",
        Phase.KICK_OPEN_THE_DOOR: "looks for trouble or loots the room",
        Phase.LOOT_OR_TROUBLE: "moves on to Charity",
    }
    return f"{_name(s, s.current)} {following.get(s.phase, 'moves on')}"


@_words.register
def _(a: EndTurn, s: GameState) -> str:
    after = _name(s, (s.current + 1) % len(s.players))
    return f"{_name(s, s.current)} ends the turn; {after} is next"


@_words.register
def _(a: Charity, s: GameState) -> str:
    return f"{_name(s, a.giver)} gives away {a.cards} card(s) as Charity"


@_words.register
def _(a: RollDie, s: GameState) -> str:
    why = f" for {a.purpose}" if a.purpose else ""
    return f"{_name(s, a.player)} rolls {a.roll}{why}"


@_words.register
def _(a: StartCombat, s: GameState) -> str:
    names = " and ".join(f"{m.name} (Level {m.level})" for m in a.monsters)
    return f"{_name(s, a.fighter)} fights {names}"


@_words.register
def _(a: AddMonster, s: GameState) -> str:
    return f"{a.monster.name} (Level {a.monster.level}) joins the combat"


@_words.register
def _(a: RemoveMonster, s: GameState) -> str:
    return f"{_monster(s, a.monster)} leaves the combat"


@_words.register
def _(a: AddEnhancer, s: GameState) -> str:
    return f"{a.enhancer.name} ({a.enhancer.bonus:+d}) is played on {_monster(s, a.monster)}"


@_words.register
def _(a: AddHelper, s: GameState) -> str:
    return f"{_name(s, a.helper)} helps"


@_words.register
def _(a: RemoveHelper, s: GameState) -> str:
    helper = s.combat.helper if s.combat else None
    return f"{_name(s, helper)} stops helping"


@_words.register
def _(a: PlayOneShot, s: GameState) -> str:
    what = a.name or "a one-shot"
    return f"{what} ({a.bonus:+d}) for the {a.side}"


@_words.register
def _(a: ClearOneShots, s: GameState) -> str:
    return f"One-shots for the {a.side} taken back"


@_words.register
def _(a: FightWithLevelOnly, s: GameState) -> str:
    how = "fights with Level only" if a.on else "fights with full strength again"
    return f"{_name(s, a.player)} {how}"


@_words.register
def _(a: SetWinsTies, s: GameState) -> str:
    why = f" ({a.reason})" if a.reason else ""
    return ("The players win ties" if a.on else "Monsters win ties again") + why


@_words.register
def _(a: ResolveCombat, s: GameState) -> str:
    fighter = _name(s, s.combat.fighter if s.combat else None)
    if a.outcome == "kill":
        return f"{fighter} kills the monsters"
    return f"{fighter} defeats the monsters without killing them"


@_words.register
def _(a: RunAway, s: GameState) -> str:
    return f"{_name(s, a.fighter)} rolls {a.roll} to run from {_monster(s, a.monster)}"


@_words.register
def _(a: SacrificeAlly, s: GameState) -> str:
    partner = " (the partner too)" if a.partner_escapes else ""
    return f"{_name(s, a.player)} sacrifices their Ally and escapes{partner}"
