"""Plays the table makes that the log now says as they happen: lasting trait bonuses, Bad
Stuff that names what is lost, selling over the cap, treasure after a defeat without a
kill, the no-limit variant, editions by id, and errors that count as the file does."""

from __future__ import annotations

import json

import pytest

from companion.core import (
    ADVENTURE_TIME,
    CLASSIC,
    DISNEY,
    FU,
    LEGACY_RULES,
    OZ,
    AddEnhancer,
    AddHelper,
    BadStuff,
    Die,
    Edition,
    EndTurn,
    EnhancerSpec,
    GainItem,
    GainTrait,
    Game,
    GameLogError,
    GameSetup,
    GoUpLevel,
    ItemSpec,
    LoseTrait,
    MonsterSpec,
    RemoveMonster,
    ResolveCombat,
    RuleError,
    RunAway,
    SellItems,
    SetGearBonus,
    SetLevel,
    SetTraitBonus,
    SetTraitBoost,
    StartCombat,
    Variants,
    bad_stuff_choices,
    describe,
)

from .conftest import make_game, make_setup, monster

HAT = ItemSpec(name="Pointy Hat", bonus=1, slot="headgear")
SPARE_HAT = ItemSpec(name="Spare Hat", bonus=2, slot="headgear")
BOOTS = ItemSpec(name="Boots", bonus=2, slot="footgear")
CLUB = ItemSpec(name="Club", bonus=3, slot="hands", hands=1)
SWORD = ItemSpec(name="Sword", bonus=3, slot="hands", hands=1)
LADDER = ItemSpec(name="Ladder", bonus=1, big=True)


def bully(*lose: str, **bad: object) -> MonsterSpec:
    return MonsterSpec(name="Bully", level=15, bad_stuff=BadStuff(lose=lose, **bad))  # type: ignore[arg-type]


class TestTraitBonuses:
    def test_a_trait_bonus_counts_in_every_combat_exactly_once(self) -> None:
        game = make_game(edition=FU)
        game.apply(GainTrait(player=0, kind="style", name="Tiger", bonus=3))
        assert game.state.players[0].strength == 4
        state = game.apply(StartCombat(fighter=0, monsters=(monster(3),)))
        assert state.combat is not None and state.combat.players_strength == 4
        assert state.combat.fighters_winning
        state = game.apply(ResolveCombat(outcome="kill"))
        assert state.players[0].strength == 5  # Level 2 + 3, still once

    def test_a_helper_brings_their_own_trait_bonus(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=1, kind="class", name="Warrior", bonus=1))
        game.apply(StartCombat(fighter=0, monsters=(monster(3),)))
        state = game.apply(AddHelper(helper=1))
        assert state.combat is not None and state.combat.players_strength == 1 + 2

    def test_death_and_lost_gear_keep_the_trait_bonus(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="class", name="Warrior", bonus=1))
        game.apply(SetGearBonus(player=0, bonus=4))
        game.apply(GainItem(player=0, item=HAT, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully(lose_gear=10),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        assert state.players[0].gear_bonus == 0 and state.players[0].strength == 1 + 1 + 1
        state = game.apply(Die(player=0))
        player = state.players[0]
        assert player.dead and player.classes == ("Warrior",)
        assert player.trait_bonus == 1 and player.strength == 2 and player.items == ()

    def test_the_bonus_goes_only_with_the_trait(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="class", name="Warrior", bonus=1))
        state = game.apply(LoseTrait(player=0, kind="class", name="warrior"))
        assert state.players[0].trait_bonuses == () and state.players[0].strength == 1

    def test_a_trait_entered_by_name_gets_a_number(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="class", name="Wizard"))
        before = game.state
        action = SetTraitBonus(player=0, kind="class", name="wizard", bonus=2)
        state = game.apply(action)
        assert state.players[0].strength == 3
        assert describe(action, before) == "Ann's wizard now gives +2 in every combat"
        with pytest.raises(RuleError) as err:
            game.apply(action)
        assert err.value.rule == "bonus_unchanged"
        state = game.apply(SetTraitBonus(player=0, kind="class", name="Wizard", bonus=0))
        assert state.players[0].trait_bonus == 0 and state.players[0].strength == 1

    def test_a_bonus_needs_the_trait(self, game: Game) -> None:
        with pytest.raises(RuleError) as err:
            game.apply(SetTraitBonus(player=0, kind="class", name="Wizard", bonus=2))
        assert err.value.rule == "no_such_trait"

    def test_the_history_says_the_bonus(self, game: Game) -> None:
        action = GainTrait(player=0, kind="class", name="Warrior", bonus=1)
        assert describe(action, game.state) == "Ann becomes a Warrior (class), +1 in every combat"

    def test_two_classes_with_bonuses_both_count_once(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="class", name="Warrior", bonus=1))
        game.apply(SetTraitBoost(player=0, kind="class"))
        game.apply(GainTrait(player=0, kind="class", name="Wizard", bonus=2))
        assert game.state.players[0].strength == 1 + 1 + 2


class TestNamedBadStuff:
    def test_lose_your_headgear_takes_the_worn_one(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=HAT, equip=True))
        game.apply(GainItem(player=0, item=SPARE_HAT))  # carried, not worn
        game.apply(StartCombat(fighter=0, monsters=(bully("headgear"),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        assert [i.spec.name for i in state.players[0].items] == ["Spare Hat"]
        roll = state.last_combat.rolls[0]  # type: ignore[union-attr]
        assert roll.items_lost == ("Pointy Hat",) and roll.bad_stuff == "lost Pointy Hat"

    def test_nothing_to_lose_is_said_and_no_gear_points_are_invented(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=BOOTS, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully("headgear", lose_gear=2),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        roll = state.last_combat.rolls[0]  # type: ignore[union-attr]
        assert roll.bad_stuff == "had no headgear to lose; had no hand-kept gear bonus to lose"
        assert roll.gear_lost == 0 and roll.items_lost == ()
        assert [i.spec.name for i in state.players[0].items] == ["Boots"]

    def test_an_escape_loses_nothing(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=HAT, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully("headgear"),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=6))
        assert len(state.players[0].items) == 1

    def test_the_biggest_item_when_there_is_one(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=HAT, equip=True))
        game.apply(GainItem(player=0, item=CLUB, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully("biggest_item"),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        assert [i.spec.name for i in state.players[0].items] == ["Pointy Hat"]

    def test_the_victim_chooses_between_equal_items(self) -> None:
        game = make_game(dice=[1])
        game.apply(GainItem(player=0, item=CLUB, equip=True))
        game.apply(GainItem(player=0, item=SWORD, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully("biggest_item"),)))
        assert bad_stuff_choices(game.state, 0, 0) == (
            ("biggest_item", (("i1", "Club"), ("i2", "Sword"))),
        )
        with pytest.raises(RuleError) as err:
            game.apply(RunAway(fighter=0, monster=0, roll=2))
        assert err.value.rule == "bad_stuff_choice"
        assert (
            str(err.value) == "Ann must choose which item with a bonus Bully takes: Club or Sword"
        )
        state = game.apply(RunAway(fighter=0, monster=0, picks=("i2",)))
        assert [i.spec.name for i in state.players[0].items] == ["Club"]

    def test_a_pick_for_an_escape_is_ignored(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=CLUB, equip=True))
        game.apply(GainItem(player=0, item=SWORD, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully("biggest_item"),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=6))
        assert len(state.players[0].items) == 2

    def test_a_big_item(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=LADDER))
        game.apply(GainItem(player=0, item=HAT, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully("big_item"),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        assert [i.spec.name for i in state.players[0].items] == ["Pointy Hat"]

    def test_lose_your_class_takes_it_and_its_bonus(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="class", name="Warrior", bonus=1))
        game.apply(StartCombat(fighter=0, monsters=(bully("class", lose_levels=1),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        player = state.players[0]
        assert player.classes == () and player.trait_bonuses == () and player.level == 1
        roll = state.last_combat.rolls[0]  # type: ignore[union-attr]
        assert roll.traits_lost == ("Warrior",)
        assert roll.bad_stuff == "kept Level 1 (it cannot go lower); lost Warrior"

    def test_a_super_munchkin_chooses_which_class(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        game.apply(SetTraitBoost(player=0, kind="class"))
        game.apply(GainTrait(player=0, kind="class", name="Wizard", bonus=2))
        game.apply(StartCombat(fighter=0, monsters=(bully("class"),)))
        with pytest.raises(RuleError, match="must choose which class Bully takes"):
            game.apply(RunAway(fighter=0, monster=0, roll=1))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1, picks=("wizard",)))
        assert state.players[0].classes == ("Warrior",) and state.players[0].trait_bonus == 0

    def test_death_takes_everything_anyway(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=CLUB, equip=True))
        game.apply(GainItem(player=0, item=SWORD, equip=True))
        game.apply(StartCombat(fighter=0, monsters=(bully("biggest_item", death=True),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))  # no pick needed
        assert state.players[0].dead and state.players[0].items == ()
        assert bad_stuff_choices(game.state_at(3), 0, 0) == ()


class TestSellingOverTheCap:
    def test_2900_gold_at_level_8_goes_to_9_and_the_rest_is_lost(self) -> None:
        game = make_game()
        game.apply(SetLevel(player=0, level=8))
        state = game.apply(SellItems(player=0, gold=2900))
        assert state.players[0].level == 9 and not state.winners

    def test_in_epic_the_cap_is_19(self) -> None:
        game = make_game(variants=Variants(winning_level=20))
        game.apply(SetLevel(player=0, level=17))
        assert game.apply(SellItems(player=0, gold=5000)).players[0].level == 19

    def test_under_1000_is_still_refused(self) -> None:
        game = make_game()
        with pytest.raises(RuleError) as err:
            game.apply(SellItems(player=0, gold=999))
        assert err.value.rule == "sell_minimum"


class TestTreasureAfterADefeat:
    """A monster removed without a kill gives no treasure unless the card says so (classic,
    Oz, the land of candy, the fairy-tale kingdom); the martial-arts rulesheet gives its
    treasure (the edition decides; docs/rules-choices.md)."""

    def test_in_the_martial_arts_edition_a_defeat_gives_the_treasure_shown(self) -> None:
        game = make_game(edition=FU)
        game.apply(StartCombat(fighter=0, monsters=(monster(8, treasure=2),)))
        game.apply(AddEnhancer(monster=0, enhancer=EnhancerSpec(name="Old", bonus=5, treasure=1)))
        shown = game.state.combat.treasure  # type: ignore[union-attr]
        state = game.apply(ResolveCombat(outcome="defeat"))
        assert shown == 3 and state.last_combat.treasure == 3  # type: ignore[union-attr]
        assert state.players[0].level == 1

    @pytest.mark.parametrize("edition", [CLASSIC, OZ, ADVENTURE_TIME, DISNEY], ids=lambda e: e.id)
    def test_elsewhere_a_defeat_gives_none_unless_the_card_says(self, edition: Edition) -> None:
        game = make_game(edition=edition)
        game.apply(StartCombat(fighter=0, monsters=(monster(8, treasure=2),)))
        state = game.apply(ResolveCombat(outcome="defeat"))
        assert state.last_combat.treasure == 0  # type: ignore[union-attr]
        game.undo()
        state = game.apply(ResolveCombat(outcome="defeat", treasure="shown"))
        assert state.last_combat.treasure == 2  # type: ignore[union-attr]

    def test_the_treasure_can_be_edited(self) -> None:
        game = make_game(edition=FU)
        game.apply(StartCombat(fighter=0, monsters=(monster(8, treasure=2),)))
        state = game.apply(ResolveCombat(outcome="defeat", treasure=0))
        assert state.last_combat.treasure == 0  # type: ignore[union-attr]

    @pytest.mark.parametrize("edition", [FU, CLASSIC], ids=lambda e: e.id)
    def test_removing_the_last_monster_agrees_with_a_defeat(self, edition: Edition) -> None:
        def played(last: object) -> int:
            game = make_game(edition=edition)
            game.apply(StartCombat(fighter=0, monsters=(monster(8, treasure=2),)))
            enhancer = EnhancerSpec(name="Old", bonus=5, treasure=1)
            game.apply(AddEnhancer(monster=0, enhancer=enhancer))
            state = game.apply(last)  # type: ignore[arg-type]
            assert state.last_combat is not None and state.last_combat.outcome == "defeat"
            return state.last_combat.treasure

        default = 3 if edition.treasure_without_kill else 0
        assert played(RemoveMonster(monster=0)) == played(ResolveCombat(outcome="defeat"))
        assert played(RemoveMonster(monster=0)) == default
        assert played(RemoveMonster(monster=0, treasure=1)) == 1
        assert played(RemoveMonster(monster=0, treasure="shown")) == 3

    def test_a_removed_monster_s_treasure_counts_with_a_kill_but_not_a_flight(self) -> None:
        game = make_game(dice=[1], edition=FU)
        game.apply(
            StartCombat(fighter=0, monsters=(monster(9, treasure=2), monster(0, treasure=1)))
        )
        before = game.state
        action = RemoveMonster(monster=0)
        state = game.apply(action)
        assert state.combat is not None and state.combat.treasure == 3
        assert describe(action, before) == "Blob 9 leaves the combat (its treasure still counts: 2)"
        assert game.apply(ResolveCombat(outcome="kill")).last_combat.treasure == 3  # type: ignore[union-attr]
        game.undo()
        game.apply(SetGearBonus(player=0, bonus=-5, override="a curse"))
        state = game.apply(RunAway(fighter=0, monster=0))
        assert state.last_combat.outcome == "ran_away" and state.last_combat.treasure == 0  # type: ignore[union-attr]

    def test_one_killed_and_one_removed_counts_only_the_killed_one(self) -> None:
        game = make_game()
        game.apply(
            StartCombat(fighter=0, monsters=(monster(9, treasure=2), monster(0, treasure=1)))
        )
        before = game.state
        action = RemoveMonster(monster=0)
        assert describe(action, before) == "Blob 9 leaves the combat (no treasure for it)"
        game.apply(action)
        assert game.apply(ResolveCombat(outcome="kill")).last_combat.treasure == 1  # type: ignore[union-attr]

    def test_an_old_game_keeps_the_treasure_the_combat_showed(self) -> None:
        game = make_game(rules=LEGACY_RULES)
        game.apply(StartCombat(fighter=0, monsters=(monster(8, treasure=2),)))
        state = game.apply(ResolveCombat(outcome="defeat"))
        assert state.last_combat.treasure == 2  # type: ignore[union-attr]


class TestNoLimit:
    def test_nobody_wins_by_level_and_levels_go_on(self) -> None:
        game = make_game(variants=Variants(no_limit=True))
        game.apply(SetLevel(player=0, level=9))
        game.apply(GoUpLevel(player=0, levels=3))  # no "winning level by a kill" rule
        state = game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
        state = game.apply(ResolveCombat(outcome="kill"))
        assert state.players[0].level == 13 and not state.winners
        assert state.winning_level == 14  # the level track always has room
        state = game.apply(SetLevel(player=1, level=99))
        assert state.winning_level == 100 and not state.winners
        assert game.apply(GoUpLevel(player=1)).players[1].level == 99

    def test_selling_has_no_cap_either(self) -> None:
        game = make_game(variants=Variants(no_limit=True))
        game.apply(SetLevel(player=0, level=9))
        assert game.apply(SellItems(player=0, gold=3000)).players[0].level == 12

    def test_the_variant_is_in_the_log(self) -> None:
        game = make_game(variants=Variants(no_limit=True))
        game.apply(EndTurn())
        data = json.loads(game.to_json())
        assert data["setup"]["variants"]["no_limit"] is True
        assert Game.from_json(game.to_json()).state == game.state


def log_with(setup: dict[str, object], actions: list[dict[str, object]]) -> dict[str, object]:
    return {"format": "munchkin-companion-game", "version": 2, "setup": setup, "actions": actions}


def setup_json(**changes: object) -> dict[str, object]:
    return {**make_setup().model_dump(mode="json"), **changes}


class TestEditionsById:
    def test_a_built_in_edition_by_id(self) -> None:
        game = Game.from_dict(log_with(setup_json(edition="fu"), []))
        assert game.setup.edition == FU

    def test_the_reader_may_bring_its_own_editions(self) -> None:
        custom = FU.model_copy(update={"id": "fu", "name": "House Fu"})
        game = Game.from_dict(log_with(setup_json(edition="fu"), []), editions={"fu": custom})
        assert game.setup.edition.name == "House Fu"

    def test_an_unknown_id_names_the_known_ones(self) -> None:
        with pytest.raises(GameLogError) as err:
            Game.from_dict(log_with(setup_json(edition="fuu"), []))
        assert str(err.value) == (
            "bad setup: edition: no edition is called 'fuu'; "
            "known: adventure_time, classic, disney, fu, oz"
        )

    def test_a_custom_edition_is_still_a_whole_object(self) -> None:
        mine = {"id": "mine", "name": "Mine", "classes": ["Baker"]}
        game = Game.from_dict(log_with(setup_json(edition=mine), []))
        assert game.setup.edition.classes == ("Baker",)
        assert GameSetup.model_validate(setup_json(edition="oz")).edition.id == "oz"


class TestErrorsCountAsTheFileDoes:
    def test_monster_numbers(self) -> None:
        actions = [
            {"type": "start_combat", "fighter": 0, "monsters": [{"name": "Rat", "level": 1}]},
            {"type": "remove_monster", "monster": 1},
        ]
        with pytest.raises(GameLogError) as err:
            Game.from_dict(log_with(setup_json(), actions))
        assert str(err.value) == (
            "action 2 (remove_monster) breaks a rule: "
            "There is no monster 1 in this combat (monsters count from 0)"
        )

    def test_seat_numbers(self) -> None:
        with pytest.raises(GameLogError, match=r"There is no player in seat 4 \(seats count"):
            Game.from_dict(log_with(setup_json(), [{"type": "go_up_level", "player": 4}]))

    def test_a_misspelt_field_is_named_first(self) -> None:
        actions = [{"type": "set_level", "player": 0, "levle": 3}]
        with pytest.raises(GameLogError) as err:
            Game.from_dict(log_with(setup_json(), actions))
        assert (
            str(err.value) == "action 1 is malformed: set_level: unknown field 'levle' (and 1 more)"
        )

    def test_a_misspelt_setup_field_too(self) -> None:
        data = log_with(setup_json(variants={"winning_levle": 20}), [])
        with pytest.raises(GameLogError) as err:
            Game.from_dict(data)
        assert str(err.value) == "bad setup: variants: unknown field 'winning_levle'"


class TestNamedLossBesideAGearFigure:
    """A card that says "lose your footgear" gives both the thing and a gear figure, for
    tables that track items and for tables that count gear by hand."""

    def test_a_tracked_item_is_taken_and_the_hand_kept_bonus_is_spared(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=BOOTS, equip=True))
        game.apply(SetGearBonus(player=0, bonus=2))
        game.apply(StartCombat(fighter=0, monsters=(bully("footgear", lose_gear=1),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        assert state.players[0].items == () and state.players[0].gear_bonus == 2

    def test_without_a_tracked_item_the_hand_kept_bonus_pays(self) -> None:
        game = make_game()
        game.apply(SetGearBonus(player=0, bonus=2))
        game.apply(StartCombat(fighter=0, monsters=(bully("footgear", lose_gear=1),)))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        assert state.players[0].gear_bonus == 1
        roll = state.last_combat.rolls[0]  # type: ignore[union-attr]
        assert roll.bad_stuff == "had no footgear to lose; lost 1 gear bonus"
