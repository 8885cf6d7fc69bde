"""Random but legal games, for property tests, the replay benchmark and demos.

`random_game` proposes plausible actions for the state at hand and keeps the ones
the rules accept, so every game it returns is a legal log. It never uses a
"card says otherwise" override, so a win can only come from a kill.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import get_args

from companion import core
from companion.core.chapters.allowance import Excess
from companion.core.chapters.run_away import Question
from companion.core.models import ConditionKind, TraitKind
from companion.core.state import GameState, PlayerState

_COLOURS = ("#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6")
_NAMES = ("Ada", "Bram", "Cleo", "Dov", "Eno", "Fay", "Gus", "Hal")
_UNDEAD = (core.TagBonus(tag="undead", bonus=2),)

_ITEMS = (
    core.ItemSpec(name="Pointy Hat", bonus=1, slot="headgear", gold=300),
    core.ItemSpec(name="Tin Vest", bonus=2, slot="armor", gold=400),
    core.ItemSpec(name="Speedy Socks", slot="footgear", run_away_bonus=1, gold=400),
    core.ItemSpec(name="Soup Ladle", bonus=2, slot="hands", hands=1, gold=500),
    core.ItemSpec(name="Door Plank", bonus=4, slot="hands", hands=2, big=True, gold=700),
    core.ItemSpec(name="Sparkly Wand", bonus=3, slot="hands", hands=1, gold=600),
    core.ItemSpec(name="Lucky Pebble", bonus=1, gold=1000),
    core.ItemSpec(name="Grumpy Pony", bonus=1, big=True, steed=True, run_away_bonus=2, gold=600),
    core.ItemSpec(
        name="Ballroom Gown",
        bonus=3,
        slot="armor",
        gold=500,
        only=(core.Condition(kind="sex", value="female"),),
    ),
    core.ItemSpec(name="Garlic Wreath", slot="headgear", against=_UNDEAD, gold=200),
)
_ROLES = (core.CardRules(kind="role", name="Lucky One", bonus=1, run_away=1),)
# Made-up lines for the editions whose magic asks for a quote (some repeat on purpose).
_QUOTES = (
    "Onwards, little kettle",
    "Every door sings",
    "Not today, dragon",
    "Onwards, little kettle",
)


def random_setup(
    rnd: random.Random, edition: core.Edition = core.CLASSIC, **variants: object
) -> core.GameSetup:
    """A table of 2..8 players with distinct names and colours, each with a role card in the
    editions that deal them."""
    count = rnd.randint(2, 8)
    roles = [c for c in edition.cards if c.kind == "role"] + list(_ROLES)
    players = tuple(
        core.PlayerSetup(
            name=_NAMES[i],
            colour=_COLOURS[i],
            sex=rnd.choice(list(core.Sex)),
            role=rnd.choice(roles) if edition.role_cards else None,
        )
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
        targets += [("race", r) for r in edition.races]
        kind, value = rnd.choice([*targets, ("sex", "female"), ("race", "Human")])
        mods.append(
            core.MonsterModifier(
                bonus=rnd.choice((-2, 1, 3, 5)), condition=core.Condition(kind=kind, value=value)
            )
        )
    if rnd.random() < 0.15:
        mods.append(core.MonsterModifier(bonus=2, per_empty_hand=True))
    bad = core.BadStuff(
        lose_levels=rnd.choice((0, 0, 1, 2, 3)),
        death=rnd.random() < 0.1,
        lose_gear=rnd.choice((0, 0, 1, 2)),
        lose=tuple(rnd.sample(_LOSSES, rnd.choice((0, 0, 1, 2)))),
        lose_items=rnd.choice((0, 0, 0, 1, 2)),
        text=rnd.choice(("", "lose your headgear", "discard your hand")),
    )
    level = rnd.randint(1, 20)
    tags = rnd.choice(((), (), ("undead",), ("demon",), ("undead", "demon")))
    return core.MonsterSpec(
        name=f"Monster {level}",
        level=level,
        treasure=rnd.randint(1, 4),
        levels_per_kill=2 if level >= 16 else 1,
        modifiers=tuple(mods),
        run_away_modifier=rnd.choice((-1, 0, 0, 1)),
        bad_stuff=bad,
        tags=frozenset(tags),
        pursues_above_level=rnd.choice((0, 0, 0, 0, 3, 5)),
    )


# Every loss a Bad Stuff may name, read from its one definition.
_LOSSES: tuple[core.Loss, ...] = get_args(core.Loss)


def _answers(
    rnd: random.Random, ask: Callable[[tuple[str, ...]], tuple[Question | Excess, ...]]
) -> tuple[str, ...]:
    """Picks for every question `ask` leaves open, made one question at a time at random."""
    picks: tuple[str, ...] = ()
    for _ in range(10):
        questions = ask(picks)
        if not questions:
            break
        first = questions[0]
        chosen = rnd.sample(first.options, first.count)
        picks += tuple(key for key, _name in chosen)
    return picks


def _run_away(state: GameState, rnd: random.Random, fighter: int) -> core.RunAway:
    """A run-away roll against a random monster, with the victim's picks made up front."""
    monster = rnd.randrange(len(state.combat.monsters))  # type: ignore[union-attr]
    picks = _answers(rnd, lambda p: core.bad_stuff_questions(state, fighter, monster, p))
    flight = "flight" in state.players[fighter].abilities and rnd.random() < 0.5
    discards = rnd.randint(1, 3) if flight else 0
    return core.RunAway(fighter=fighter, monster=monster, picks=picks, discards=discards)


def _with(player: PlayerState, ability: str) -> bool:
    return ability in player.abilities


def _combat_action(
    state: GameState, rnd: random.Random, allow_win: bool, seat: int
) -> core.BaseAction:
    combat = state.combat
    assert combat is not None
    edition = state.setup.edition
    if combat.running:
        return _run_away(state, rnd, rnd.choice(combat.fighters))
    usable = [
        (s, ability)
        for s in combat.fighters
        for ability in ("berserking", "turning", "charm")
        if _with(state.players[s], ability)
    ]
    usable += [
        (s, "backstab") for s in range(len(state.players)) if _with(state.players[s], "backstab")
    ]
    if usable and rnd.random() < 0.15:
        user, ability = rnd.choice(usable)
        if ability == "charm":
            return core.Charm(
                player=user, monster=rnd.randrange(len(combat.monsters)), cards=rnd.randint(2, 6)
            )
        return core.UseAbility(
            player=user,
            ability=ability,
            cards=1 if ability == "backstab" else rnd.randint(1, 3),
            target=rnd.choice(combat.fighters) if ability == "backstab" else None,
        )
    choice = rnd.random()
    if choice < 0.25:
        if combat.fighters_winning:
            fighter = state.players[combat.fighter]
            helper = state.players[combat.helper] if combat.helper is not None else None
            elf = helper is not None and _with(helper, "helper_level")
            wins = fighter.level + combat.levels >= state.winning_level or (
                elf
                and helper is not None
                and helper.level + len(combat.monsters) >= state.winning_level
            )
            if not allow_win and wins and not state.no_limit:
                return core.ResolveCombat(outcome="defeat")
            share = rnd.randint(0, max(0, combat.treasure)) if combat.helper is not None else 0
            return core.ResolveCombat(
                outcome="kill", helper_treasure=share, helper_first=share > 0 and rnd.random() < 0.5
            )
        if rnd.random() < 0.1:
            return core.SacrificeAlly(player=rnd.choice(combat.fighters), partner_escapes=True)
        return _run_away(state, rnd, combat.fighter)
    if choice < 0.37:
        if combat.helper is not None:
            return core.ChangeHelper(helper=seat if seat != combat.helper else None)
        return core.AddHelper(helper=seat)
    if choice < 0.5:
        if combat.one_shots and rnd.random() < 0.3:
            return core.ClearOneShots(side=rnd.choice(combat.one_shots).side)
        return core.PlayOneShot(side=rnd.choice(("players", "monsters")), bonus=rnd.randint(1, 5))
    if choice < 0.58:
        return core.AddEnhancer(
            monster=rnd.randrange(len(combat.monsters)),
            enhancer=core.EnhancerSpec(
                name="Enhancer", bonus=rnd.choice((-5, 5, 10)), treasure=rnd.choice((-1, 1, 2))
            ),
        )
    if choice < 0.63:
        return core.AddMonster(monster=_monster(rnd, edition), joins=rnd.random() < 0.5)
    if choice < 0.67:
        return core.FightWithLevelOnly(player=rnd.choice(combat.fighters))
    if choice < 0.7:
        return core.SetWinsTies(on=rnd.random() < 0.5)
    if choice < 0.74:
        return core.RemoveHelper()
    if choice < 0.77:
        return core.SetAlly(
            player=seat, ally=core.AllySpec(name="Sidekick", bonus=2, run_away_bonus=1)
        )
    if choice < 0.79:
        return core.Die(player=rnd.choice(combat.fighters))
    if choice < 0.82:
        return core.RollDie(player=seat, purpose="a card")
    items = state.players[combat.fighter].items
    if choice < 0.84 and items:
        return core.Bribe(helper=seat, item_id=rnd.choice(items).id)
    treasure = rnd.choice((None, None, 0, 1, "shown"))
    return core.RemoveMonster(monster=rnd.randrange(len(combat.monsters)), treasure=treasure)


def _trait_action(state: GameState, rnd: random.Random, seat: int) -> core.BaseAction:
    edition = state.setup.edition
    player = state.players[seat]
    choice = rnd.random()
    if choice < 0.5:
        trait: TraitKind = rnd.choice(("class", "race", "motivation", "style"))
        names = edition.traits(trait) or ("Nobody",)
        if rnd.random() < 0.7:  # as the edition's card says
            return core.GainTrait(player=seat, kind=trait, name=rnd.choice(names))
        return core.GainTrait(
            player=seat,
            kind=trait,
            name=rnd.choice(names),
            bonus=rnd.choice((0, 0, 1, 2, 3)),
            run_away=rnd.choice((0, 0, 1)),
            against=rnd.choice(((), _UNDEAD)),
        )
    if choice < 0.65 and player.classes:
        if rnd.random() < 0.4:
            return core.SetTraitBonus(
                player=seat,
                kind="class",
                name=player.classes[0],
                bonus=rnd.choice((0, 1, 2, -1)),
                run_away=rnd.choice((None, 0, 1)),
            )
        name = player.classes[0]
        drop = _answers(rnd, lambda _p: core.allowance_questions(state, seat, lose=("class", name)))
        return core.LoseTrait(player=seat, kind="class", name=name, drop=drop)
    if choice < 0.72 and player.races:
        name = rnd.choice(player.races)
        drop = _answers(rnd, lambda _p: core.allowance_questions(state, seat, lose=("race", name)))
        return core.LoseTrait(player=seat, kind="race", name=name, drop=drop)
    boost: TraitKind = rnd.choice(("class", "race"))
    on = not (player.super_munchkin if boost == "class" else player.half_breed)
    drop = (
        ()
        if on
        else _answers(rnd, lambda _p: core.allowance_questions(state, seat, boost_off=boost))
    )
    return core.SetTraitBoost(player=seat, kind=boost, on=on, drop=drop)


def random_action(state: GameState, rnd: random.Random, allow_win: bool = True) -> core.BaseAction:
    """A plausible next action for this state (the rules may still refuse it)."""
    n = len(state.players)
    seat = rnd.randrange(n)
    if state.combat is not None:
        return _combat_action(state, rnd, allow_win, seat)
    player = state.players[seat]
    choice = rnd.random()
    if state.revision == 0 and choice < 0.5:
        return core.RollForFirstPlayer()
    if choice < 0.12:
        return core.StartCombat(
            fighter=state.current,
            monsters=tuple(
                _monster(rnd, state.setup.edition) for _ in range(rnd.choice((1, 1, 1, 2)))
            ),
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
        gold = rnd.choice((900, 1000, 1500, 2000, 2900))
        seller = state.players[state.current]
        double = rnd.choice((0, 500, 1000)) if _with(seller, "double_sale") else 0
        return core.SellItems(player=state.current, gold=gold, double=min(double, gold))
    if choice < 0.55:
        return core.GainItem(player=seat, item=rnd.choice(_ITEMS), equip=rnd.random() < 0.7)
    if choice < 0.6 and player.items:
        item = rnd.choice(player.items)
        kind = rnd.randrange(5)
        if kind == 0:
            return core.EquipItem(player=seat, item_id=item.id)
        if kind == 1:
            return core.UnequipItem(player=seat, item_id=item.id)
        if kind == 2:
            return core.DiscardItem(player=seat, item_id=item.id)
        if kind == 3:
            thieves = [s for s in range(n) if s != seat and _with(state.players[s], "theft")]
            if thieves:
                return core.Steal(thief=rnd.choice(thieves), victim=seat, item_id=item.id)
        return core.TradeItem(giver=seat, receiver=rnd.randrange(n), item_id=item.id)
    if choice < 0.64:
        return core.SetGearBonus(player=seat, bonus=rnd.randint(-2, 8))
    if choice < 0.76:
        return _trait_action(state, rnd, seat)
    if choice < 0.79:
        return core.ChangeSex(player=seat, sex=rnd.choice(list(core.Sex)))
    if choice < 0.83:
        if player.allies and rnd.random() < 0.5:
            return core.DiscardAlly(player=seat, name=rnd.choice(player.allies).name)
        ally = core.AllySpec(name=rnd.choice(("Pal", "Buddy")), bonus=rnd.randint(1, 3))
        replaces = rnd.choice(player.allies).name if player.allies else None
        return core.SetAlly(player=seat, ally=ally, replaces=replaces)
    if choice < 0.86:
        return core.Die(player=seat, reason="a trap")
    if choice < 0.89:
        return core.LootTheBody(player=seat)
    if choice < 0.92:
        return core.Charity(giver=state.current, cards=rnd.randint(1, 5))
    if choice < 0.955:
        return core.RollDie(player=seat, purpose="a card")
    if choice < 0.965:
        thieves = [s for s in range(n) if _with(state.players[s], "theft")]
        victims = [(s, i) for s in range(n) for i in state.players[s].items if not i.spec.big]
        if thieves and victims:
            victim, item = rnd.choice(victims)
            return core.Steal(thief=rnd.choice(thieves), victim=victim, item_id=item.id)
    if choice < 0.975:
        return core.SayQuote(player=seat, quote=rnd.choice(_QUOTES))
    if choice < 0.988:
        return core.SetLevel(player=seat, level=rnd.randint(1, state.winning_level - 1))
    return core.SetRunAwayBonus(player=seat, bonus=rnd.randint(-1, 2))


def random_game(
    actions: int,
    seed: int | str = 0,
    setup: core.GameSetup | None = None,
    allow_win: bool = True,
    max_attempts: int | None = None,
) -> core.Game:
    """Play up to `actions` legal actions chosen at random (stops early when someone wins).

    Without a setup, the table plays an edition chosen at random."""
    rnd = random.Random(seed)
    if setup is None:
        setup = random_setup(rnd, rnd.choice(list(core.EDITIONS.values())))
    game = core.Game(setup, rng=core.SeededDice(rnd.random()))
    attempts = 0
    limit = max_attempts if max_attempts is not None else actions * 20
    while len(game.log) < actions and not game.state.winners and attempts < limit:
        attempts += 1
        try:
            game.apply(random_action(game.state, rnd, allow_win))
        except core.RuleError:
            continue
    return game
