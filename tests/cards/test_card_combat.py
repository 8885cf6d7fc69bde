"""Cards in the rules engine: a monster's modifiers, rewards, run-away and Bad Stuff count."""

from __future__ import annotations

import pytest

from companion.cards import CardDatabase, load_database, load_edition
from companion.core import (
    AddEnhancer,
    AddHelper,
    GainItem,
    GainTrait,
    Game,
    GameSetup,
    PlayerSetup,
    ResolveCombat,
    RunAway,
    SetGearBonus,
    SetLevel,
    Sex,
    StartCombat,
)


@pytest.fixture(scope="module")
def cards() -> CardDatabase:
    return load_database(user=False)


def new_game() -> Game:
    players = (
        PlayerSetup(name="Ana", colour="#ff0000", sex=Sex.FEMALE),
        PlayerSetup(name="Bo", colour="#00ff00", sex=Sex.MALE),
        PlayerSetup(name="Cy", colour="#0000ff", sex=Sex.NONE),
    )
    return Game(GameSetup(players=players, edition=load_edition("classic")))


def fight(game: Game, cards: CardDatabase, monster_id: str, helper: int | None = None) -> None:
    game.apply(StartCombat(fighter=0, monsters=(cards.monster(monster_id).to_spec(),)))
    if helper is not None:
        game.apply(AddHelper(helper=helper))


# Overdue Library Book: Level 3, +3 against Wizards.
@pytest.mark.parametrize(
    ("fighter_class", "helper_class", "expected"),
    [
        (None, None, 3),
        ("Wizard", None, 6),
        (None, "Wizard", 6),  # the helper's class counts too
        ("Wizard", "Wizard", 6),  # but only once
        ("Thief", "Cleric", 3),
    ],
)
def test_class_modifier_counts_for_fighter_or_helper_once(
    cards: CardDatabase, fighter_class: str | None, helper_class: str | None, expected: int
) -> None:
    game = new_game()
    for seat, name in ((0, fighter_class), (1, helper_class)):
        if name is not None:
            game.apply(cards.get(f"gen-class-{name.lower()}").gain_action(seat))
    fight(game, cards, "gen-overdue-library-book", helper=1)
    combat = game.state.combat
    assert combat is not None
    assert combat.monsters_strength == expected


def test_race_and_sex_modifiers(cards: CardDatabase) -> None:
    game = new_game()
    game.apply(GainTrait(player=0, kind="race", name="Elf"))
    fight(game, cards, "gen-moth-of-the-wardrobe")  # Level 3, +2 against Elves
    assert game.state.combat is not None and game.state.combat.monsters_strength == 5

    game = new_game()  # Ana is female: the Mimic Mailbox (Level 4) gets +2
    fight(game, cards, "gen-mimic-mailbox")
    assert game.state.combat is not None and game.state.combat.monsters_strength == 6


def test_per_empty_hand_modifier(cards: CardDatabase) -> None:
    game = new_game()
    fight(game, cards, "gen-lint-golem")  # Level 2, +1 for each empty hand; Ana has two
    assert game.state.combat is not None and game.state.combat.monsters_strength == 4

    game = new_game()  # a one-hand item from a card leaves one hand empty
    pan = cards.item("gen-frying-pan-of-justice").to_spec()
    game.apply(GainItem(player=0, item=pan, equip=True))
    fight(game, cards, "gen-lint-golem")
    assert game.state.combat is not None and game.state.combat.monsters_strength == 3


def test_treasure_and_levels_per_kill_with_an_enhancer(cards: CardDatabase) -> None:
    game = new_game()
    game.apply(SetLevel(player=0, level=3))
    game.apply(SetGearBonus(player=0, bonus=40))
    fight(game, cards, "gen-tentacled-tax-inspector")  # Level 16, 4 treasures, 2 levels
    game.apply(AddEnhancer(monster=0, enhancer=cards.enhancer("gen-overcaffeinated").to_spec()))
    combat = game.state.combat
    assert combat is not None
    assert (combat.monsters_strength, combat.treasure, combat.levels) == (21, 5, 2)
    state = game.apply(ResolveCombat(outcome="kill"))
    assert state.players[0].level == 5
    assert state.last_combat is not None and state.last_combat.treasure == 5


def test_run_away_modifier_and_bad_stuff(cards: CardDatabase) -> None:
    game = new_game()
    game.apply(SetLevel(player=0, level=5))
    fight(game, cards, "gen-carnivorous-sofa")  # -1 to run away; Bad Stuff: lose 2 levels
    state = game.apply(RunAway(fighter=0, monster=0, roll=5))
    assert state.players[0].level == 3
    assert state.last_combat is not None
    (roll,) = state.last_combat.rolls
    assert (roll.modifier, roll.escaped) == (-1, False)

    game = new_game()
    game.apply(SetLevel(player=0, level=5))
    fight(game, cards, "gen-carnivorous-sofa")
    state = game.apply(RunAway(fighter=0, monster=0, roll=6))
    assert state.players[0].level == 5


def test_deadly_bad_stuff_kills(cards: CardDatabase) -> None:
    game = new_game()
    fight(game, cards, "gen-wizard-eating-cabbage")
    state = game.apply(RunAway(fighter=0, monster=0, roll=1))
    assert state.players[0].dead
    assert "chalk" in state.last_combat.rolls[0].bad_stuff


def test_items_and_allies_from_cards_add_to_strength(cards: CardDatabase) -> None:
    game = new_game()
    game.apply(GainItem(player=0, item=cards.item("gen-chainmail-onesie").to_spec(), equip=True))
    game.apply(cards.get("gen-ally-talking-horse").set_ally_action(0))
    player = game.state.players[0]
    assert player.strength == 1 + 3 + 1
    assert player.total_run_away_bonus == 2
