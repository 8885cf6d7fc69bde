"""Converting cards into the rules engine's inputs keeps every number the card gives."""

from __future__ import annotations

import pytest

from companion.cards import Item, Monster, Race, Role, load_database, load_edition
from companion.core import CardRules, Condition, MonsterModifier, TagBonus


def test_monster_spec_carries_every_number() -> None:
    monster = Monster.model_validate(
        {
            "id": "x-yeti",
            "name": "Sulky Yeti",
            "level": 7,
            "treasure": 2,
            "levels_per_kill": 2,
            "run_away_modifier": -2,
            "tags": ["Undead"],
            "modifiers": [{"bonus": 3, "class": "Wizard"}, {"bonus": 1, "per_empty_hand": True}],
            "bad_stuff": {"lose_levels": 2, "lose_gear": 1, "text": "Brr."},
        }
    )
    spec = monster.to_spec()
    assert (spec.level, spec.treasure, spec.levels_per_kill, spec.run_away_modifier) == (
        7,
        2,
        2,
        -2,
    )
    assert spec.modifiers == (
        MonsterModifier(bonus=3, condition=Condition(kind="class", value="Wizard")),
        MonsterModifier(bonus=1, per_empty_hand=True),
    )
    assert spec.tags == frozenset({"undead"})
    assert (spec.bad_stuff.lose_levels, spec.bad_stuff.lose_gear, spec.bad_stuff.text) == (
        2,
        1,
        "Brr.",
    )
    assert spec.card_id == "x-yeti"


def test_item_spec_slots_hands_and_requirement() -> None:
    cards = load_database(user=False)
    wand = cards.item("gen-wand-of-mild-sparkles").to_spec()
    assert (wand.slot, wand.hands, wand.only) == (
        "hands",
        1,
        (Condition(kind="class", value="Wizard"),),
    )
    sword = cards.item("gen-greatsword-of-overcompensation").to_spec()
    assert (sword.slot, sword.hands, sword.big, sword.gold) == ("hands", 2, True, 600)
    robe = cards.item("gen-robe-of-many-pockets").to_spec()
    assert robe.only == (  # either class may use it
        Condition(kind="class", value="Wizard"),
        Condition(kind="class", value="Cleric"),
    )
    crown = cards.item("gen-tin-crown").to_spec()
    assert crown.bonus == 2  # the +1 for Royalty depends on the owner, so it is not added


def test_one_shot_items_are_played_not_carried() -> None:
    item = Item(id="x-bomb", name="Glitter Bomb", one_shot=True, bonus=4)
    with pytest.raises(ValueError, match="used once"):
        item.to_spec()
    shot = item.one_shot_action("monsters")
    assert (shot.side, shot.bonus, shot.card_id) == ("monsters", 4, "x-bomb")


def test_class_cards_give_their_abilities() -> None:
    cards = load_database(user=False)
    warrior = cards.get("gen-class-warrior")
    assert warrior.wins_ties
    assert warrior.combat_bonus == 1
    assert cards.get("gen-race-dwarf").combat_bonus == 1  # the Undead bonus is conditional
    assert cards.get("gen-class-thief").run_away_bonus == 1
    assert cards.get("gen-race-elf").run_away_bonus == 2
    action = warrior.gain_action(2)
    assert (action.player, action.kind, action.name) == (2, "class", "Warrior")
    assert action.bonus == 1  # the war cry's +1 stays with the character


def test_unknown_edition_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="classic"):
        load_edition("epic")


def test_asking_for_the_wrong_kind_says_what_the_card_is() -> None:
    from companion.cards import UnknownCardError

    cards = load_database(user=False)
    with pytest.raises(UnknownCardError, match="is an item, not a monster"):
        cards.monster("gen-tin-crown")
    with pytest.raises(ValueError, match="no card has the id 'nope'"):
        cards.get("nope")


def test_bad_stuff_names_what_it_takes() -> None:
    cards = load_database(user=False)
    bad = cards.monster("gen-sock-gremlin").to_spec().bad_stuff
    assert bad.lose == ("footgear",) and bad.lose_gear == 1


def test_a_monster_that_spares_low_levels_and_takes_items_of_the_victims_choice() -> None:
    monster = Monster.model_validate(
        {
            "id": "x-slug",
            "name": "Lazy Slug",
            "level": 3,
            "pursues_above_level": 2,
            "bad_stuff": {"lose_items": 2},
        }
    )
    spec = monster.to_spec()
    assert spec.pursues_above_level == 2 and spec.bad_stuff.lose_items == 2


def test_what_a_trait_card_gives_goes_into_the_engine() -> None:
    race = Race.model_validate(
        {
            "id": "x-stout",
            "name": "Stout",
            "grants": [
                {"bonus": 1},
                {"run_away": 2},
                {"bonus": 3, "against": "Undead"},
                {"ability": "big_items"},
                {"wins_ties": True},
                {"bonus": 5, "class": "Wizard", "text": "only for wizards: the table adds it"},
            ],
        }
    )
    action = race.gain_action(2)
    assert (action.player, action.kind, action.name) == (2, "race", "Stout")
    assert (action.bonus, action.run_away) == (1, 2)
    assert action.against == (TagBonus(tag="undead", bonus=3),)
    assert set(action.abilities or ()) == {"wins_ties", "big_items"}


def test_an_item_card_brings_its_steed_and_its_bonus_against_a_tag() -> None:
    item = Item.model_validate(
        {
            "id": "x-mule",
            "name": "Stubborn Mule",
            "big": True,
            "steed": True,
            "run_away": 2,
            "grants": [{"bonus": 2, "against": "demon"}],
        }
    )
    spec = item.to_spec()
    assert spec.steed and spec.run_away_bonus == 2
    assert spec.against == (TagBonus(tag="demon", bonus=2),)


def test_a_role_card_is_a_set_up_card_for_the_engine() -> None:
    role = Role.model_validate(
        {"id": "x-hero", "name": "Plucky Hero", "grants": [{"bonus": 1}, {"run_away": 1}]}
    )
    assert role.to_rules() == CardRules(kind="role", name="Plucky Hero", bonus=1, run_away=1)


def test_an_ability_must_be_one_the_engine_knows() -> None:
    with pytest.raises(ValueError, match="ability"):
        Race.model_validate({"id": "x-odd", "name": "Odd", "grants": [{"ability": "flying"}]})


def test_every_limit_a_card_states_reaches_the_item_in_play() -> None:
    """Several classes, several races, a sex, and "not for": the engine gets them all, so a
    Wizard cannot wear the Warriors' and Clerics' shield (nor count it) any more."""
    from companion.core import (
        CLASSIC,
        EquipItem,
        GainItem,
        GainTrait,
        Game,
        GameSetup,
        PlayerSetup,
        Sex,
    )
    from companion.core.errors import RuleError

    shield = load_database(user=False).item("gen-shield-of-polite-refusal").to_spec()
    assert shield.only == (
        Condition(kind="class", value="Warrior"),
        Condition(kind="class", value="Cleric"),
    )
    stated = Item(
        id="x-odd-hat",
        name="Odd Hat",
        slot="headgear",
        bonus=1,
        only_race=["Elf", "Dwarf"],
        only_sex="female",
        not_class=["Wizard"],
        not_race=["Halfling"],
    ).to_spec()
    assert set(stated.only) == {
        Condition(kind="race", value="Elf"),
        Condition(kind="race", value="Dwarf"),
        Condition(kind="sex", value="female"),
    }
    assert set(stated.not_for) == {
        Condition(kind="class", value="Wizard"),
        Condition(kind="race", value="Halfling"),
    }
    seats = (
        PlayerSetup(name="Ann", colour="#ff0000", sex=Sex.MALE),
        PlayerSetup(name="Bo", colour="#00ff00", sex=Sex.FEMALE),
    )
    game = Game(GameSetup(players=seats, edition=CLASSIC))
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainItem(player=0, item=shield))
    with pytest.raises(RuleError) as refused:
        game.apply(EquipItem(player=0, item_id="i1"))
    assert refused.value.rule == "item_restricted"
    assert game.state.players[0].strength == 1
