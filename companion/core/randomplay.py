"""Random but legal games, for property tests, the replay benchmark and demos.

`random_game` proposes plausible actions for the state at hand and keeps the ones
the rules accept, so every game it returns is a legal log. It never uses a
"card says otherwise" override, so a win can only come from a kill.
"""

from __future__ import annotations

import random
from typing import get_args

from companion import core
from companion.core.models import ConditionKind, TraitKind
from companion.core.state import GameState

_COLOURS = ("#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6")
_NAMES = ("Ada", "Bram", "Cleo", "Dov", "Eno", "Fay", "Gus", "Hal")

_ITEMS = (
    core.ItemSpec(name="Pointy Hat", bonus=1, slot="headgear", gold=300),
    core.ItemSpec(name="Tin Vest", bonus=2, slot="armor", gold=400),
    core.ItemSpec(name="Speedy Socks", slot="footgear", run_away_bonus=1, gold=400),
    core.ItemSpec(name="Soup Ladle", bonus=2, slot="hands", hands=1, gold=500),
    core.ItemSpec(name="Door Plank", bonus=4, slot="hands", hands=2, big=True, gold=700),
    core.ItemSpec(name="Sparkly Wand", bonus=3, slot="hands", hands=1, gold=600),
    core.ItemSpec(name="Lucky Pebble", bonus=1, gold=1000),
)


def random_setup(
    rnd: random.Random, edition: core.Edition = core.CLASSIC, **variants: object
) -> core.GameSetup:
    """A table of 2..8 players with distinct names and colours."""
    count = rnd.randint(2, 8)
    players = tuple(
        core.PlayerSetup(name=_NAMES[i], colour=_COLOURS[i], sex=rnd.choice(list(core.Sex)))
        for i in range(count)
    )
    return core.GameSetup(
        players=players,
        edition=edition,
        variants=core.Variants.model_validate(variants),
        first_player=rnd.randrange(count),
    )


def _monster(rnd: random.Random, edition: core.Edition) -> core.MonsterSpec:
    mods: list[core.MonsterModifier] = []
    if rnd.random() < 0.4 and edition.classes:
        targets: list[tuple[ConditionKind, str]] = [("class", c) for c in edition.classes]
        kind, value = rnd.choice([*targets, ("sex", "female"), ("race", "Human")])
        mods.append(
            core.MonsterModifier(
                bonus=rnd.randint(1, 5), condition=core.Condition(kind=kind, value=value)
            )
        )
    if rnd.random() < 0.15:
        mods.append(core.MonsterModifier(bonus=2, per_empty_hand=True))
    bad = core.BadStuff(
        lose_levels=rnd.choice((0, 0, 1, 2, 3)),
        death=rnd.random() < 0.1,
        lose_gear=rnd.choice((0, 0, 1, 2)),
        lose=tuple(rnd.sample(_LOSSES, rnd.choice((0, 0, 1, 2)))),
        text=rnd.choice(("", "lose your headgear", "discard your hand")),
    )
    level = rnd.randint(1, 20)
    return core.MonsterSpec(
        name=f"Monster {level}",
        level=level,
        treasure=rnd.randint(1, 4),
        levels_per_kill=2 if level >= 16 else 1,
        modifiers=tuple(mods),
        run_away_modifier=rnd.choice((-1, 0, 0, 1)),
        bad_stuff=bad,
    )


# Every loss a Bad Stuff may name, read from its one definition.
_LOSSES: tuple[core.Loss, ...] = get_args(core.Loss)


def _run_away(state: GameState, rnd: random.Random, fighter: int) -> core.RunAway:
    """A run-away roll against a random monster, with the victim's picks made up front."""
    monster = rnd.randrange(len(state.combat.monsters))  # type: ignore[union-attr]
    choices = core.bad_stuff_choices(state, fighter, monster)
    picks = tuple(rnd.choice(options)[0] for _, options in choices)
    return core.RunAway(fighter=fighter, monster=monster, picks=picks)


def random_action(state: GameState, rnd: random.Random, allow_win: bool = True) -> core.BaseAction:
    """A plausible next action for this state (the rules may still refuse it)."""
    n = len(state.players)
    seat = rnd.randrange(n)
    edition = state.setup.edition
    combat = state.combat
    if combat is not None and combat.running:
        fighter = rnd.choice(combat.fighters)
        return _run_away(state, rnd, fighter)
    if combat is not None:
        choice = rnd.random()
        if choice < 0.25:
            level = state.players[combat.fighter].level
            if combat.fighters_winning:
                if not allow_win and level + combat.levels >= state.winning_level:
                    return core.ResolveCombat(outcome="defeat")
                return core.ResolveCombat(outcome="kill")
            if rnd.random() < 0.1:
                return core.SacrificeAlly(player=rnd.choice(combat.fighters), partner_escapes=True)
            return _run_away(state, rnd, combat.fighter)
        if choice < 0.4:
            if combat.helper is not None:
                return core.ChangeHelper(helper=seat if seat != combat.helper else None)
            return core.AddHelper(helper=seat)
        if choice < 0.55:
            if combat.one_shots and rnd.random() < 0.15:
                return core.ClearOneShots(side=rnd.choice(combat.one_shots).side)
            return core.PlayOneShot(
                side=rnd.choice(("players", "monsters")), bonus=rnd.randint(1, 5)
            )
        if choice < 0.65:
            return core.AddEnhancer(
                monster=rnd.randrange(len(combat.monsters)),
                enhancer=core.EnhancerSpec(
                    name="Enhancer", bonus=rnd.choice((-5, 5, 10)), treasure=rnd.choice((-1, 1, 2))
                ),
            )
        if choice < 0.7:
            return core.AddMonster(monster=_monster(rnd, edition))
        if choice < 0.75:
            return core.FightWithLevelOnly(player=rnd.choice(combat.fighters))
        if choice < 0.8:
            return core.SetWinsTies(on=rnd.random() < 0.5)
        if choice < 0.85:
            return core.RemoveHelper()
        if choice < 0.9:
            return core.SetAlly(
                player=seat, ally=core.AllySpec(name="Sidekick", bonus=2, run_away_bonus=1)
            )
        if choice < 0.93:
            return core.Die(player=rnd.choice(combat.fighters))
        if choice < 0.97:
            return core.RollDie(player=seat, purpose="a card")
        treasure = rnd.choice((None, None, 0, 1))
        return core.RemoveMonster(monster=rnd.randrange(len(combat.monsters)), treasure=treasure)
    player = state.players[seat]
    choice = rnd.random()
    if state.revision == 0 and choice < 0.5:
        return core.RollForFirstPlayer()
    if choice < 0.12:
        return core.StartCombat(
            fighter=state.current,
            monsters=tuple(_monster(rnd, edition) for _ in range(rnd.choice((1, 1, 1, 2)))),
        )
    if choice < 0.2:
        return core.AdvancePhase()
    if choice < 0.3:
        return core.EndTurn()
    if choice < 0.37:
        return core.GoUpLevel(player=seat, levels=rnd.choice((1, 1, 2)))
    if choice < 0.42:
        return core.LoseLevel(player=seat, levels=rnd.choice((1, 2)))
    if choice < 0.47:
        return core.SellItems(player=state.current, gold=rnd.choice((900, 1000, 1500, 2000, 2900)))
    if choice < 0.55:
        return core.GainItem(player=seat, item=rnd.choice(_ITEMS), equip=rnd.random() < 0.7)
    if choice < 0.6 and player.items:
        item = rnd.choice(player.items)
        kind = rnd.randrange(4)
        if kind == 0:
            return core.EquipItem(player=seat, item_id=item.id)
        if kind == 1:
            return core.UnequipItem(player=seat, item_id=item.id)
        if kind == 2:
            return core.DiscardItem(player=seat, item_id=item.id)
        return core.TradeItem(giver=seat, receiver=rnd.randrange(n), item_id=item.id)
    if choice < 0.64:
        return core.SetGearBonus(player=seat, bonus=rnd.randint(-2, 8))
    if choice < 0.7:
        trait: TraitKind = rnd.choice(("class", "race", "motivation", "style"))
        names = edition.traits(trait) or ("Nobody",)
        bonus = rnd.choice((0, 0, 1, 2, 3))
        return core.GainTrait(player=seat, kind=trait, name=rnd.choice(names), bonus=bonus)
    if choice < 0.73:
        if player.classes and rnd.random() < 0.3:
            bonus = rnd.choice((0, 1, 2, -1))
            return core.SetTraitBonus(
                player=seat, kind="class", name=player.classes[0], bonus=bonus
            )
        if player.classes:
            return core.LoseTrait(player=seat, kind="class", name=player.classes[0])
        return core.SetTraitBoost(player=seat, kind="class", on=not player.super_munchkin)
    if choice < 0.76:
        return core.SetTraitBoost(player=seat, kind="race", on=not player.half_breed)
    if choice < 0.79:
        return core.ChangeSex(player=seat, sex=rnd.choice(list(core.Sex)))
    if choice < 0.83:
        if player.ally is not None:
            return core.DiscardAlly(player=seat)
        return core.SetAlly(player=seat, ally=core.AllySpec(name="Pal", bonus=rnd.randint(1, 3)))
    if choice < 0.86:
        return core.Die(player=seat, reason="a trap")
    if choice < 0.89:
        return core.LootTheBody(player=seat)
    if choice < 0.95:
        return core.Charity(giver=state.current, cards=rnd.randint(1, 5))
    if choice < 0.97:
        return core.RollDie(player=seat, purpose="a card")
    if choice < 0.985:
        return core.SetLevel(player=seat, level=rnd.randint(1, state.winning_level - 1))
    return core.SetRunAwayBonus(player=seat, bonus=rnd.randint(-1, 2))


def random_game(
    actions: int,
    seed: int | str = 0,
    setup: core.GameSetup | None = None,
    allow_win: bool = True,
    max_attempts: int | None = None,
) -> core.Game:
    """Play up to `actions` legal actions chosen at random (stops early when someone wins)."""
    rnd = random.Random(seed)
    game = core.Game(setup or random_setup(rnd), rng=core.SeededDice(rnd.random()))
    attempts = 0
    limit = max_attempts if max_attempts is not None else actions * 20
    while len(game.log) < actions and not game.state.winners and attempts < limit:
        attempts += 1
        try:
            game.apply(random_action(game.state, rnd, allow_win))
        except core.RuleError:
            continue
    return game
