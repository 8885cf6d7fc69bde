"""The rules of every edition, each as a short game through the engine, told in our own
words after the rulebooks (docs/rules-choices.md names the section for each)."""

from __future__ import annotations

import pytest

from companion.core import (
    ADVENTURE_TIME,
    CLASSIC,
    DISNEY,
    FU,
    OZ,
    AddHelper,
    AddMonster,
    AdvancePhase,
    AllySpec,
    CardRules,
    ChangeHelper,
    ChangeSex,
    Charity,
    Charm,
    Condition,
    Die,
    DiscardItem,
    EndTurn,
    EquipItem,
    GainItem,
    GainTrait,
    Game,
    GameSetup,
    ItemSpec,
    LoseTrait,
    MonsterModifier,
    PlayerSetup,
    RemoveHelper,
    RemoveMonster,
    ResolveCombat,
    RuleError,
    RunAway,
    SacrificeAlly,
    SayQuote,
    SellItems,
    SetAlly,
    SetGearBonus,
    SetLevel,
    SetTraitBoost,
    Sex,
    StartCombat,
    Steal,
    TagBonus,
    TradeItem,
    UnequipItem,
    UseAbility,
    allowance_questions,
    bad_stuff_questions,
    describe,
    quick_bad_stuff,
)

from .conftest import make_game, make_setup, monster, nasty

SWORD = ItemSpec(name="Sword", bonus=3, slot="hands", hands=1)
GOWN = ItemSpec(name="Gown", bonus=2, slot="armor", requires=Condition(kind="sex", value="female"))
STAFF = ItemSpec(
    name="Staff", bonus=3, slot="hands", hands=2, requires=Condition(kind="class", value="Wizard")
)
PLANK = ItemSpec(name="Plank", bonus=2, big=True)
LADDER = ItemSpec(name="Ladder", bonus=1, big=True)
PONY = ItemSpec(name="Pony", bonus=1, steed=True, run_away_bonus=2, big=True)


def undead(level: int, **kwargs: object) -> object:
    return monster(level, name=f"Ghoul {level}", tags=frozenset({"undead"}), **kwargs)


def fight(game: Game, *monsters: object, fighter: int = 0) -> None:
    game.apply(StartCombat(fighter=fighter, monsters=monsters))  # type: ignore[arg-type]


def refused(game: Game, action: object, rule: str) -> RuleError:
    with pytest.raises(RuleError) as err:
        game.apply(action)  # type: ignore[arg-type]
    assert err.value.rule == rule, str(err.value)
    return err.value


class TestBystandersDuringSomeoneElsesFight:
    """Trading and re-equipping are forbidden only to those in the combat (rulebooks:
    Trading; When You May Take Actions)."""

    def test_a_bystander_re_equips_and_trades_while_others_fight(self, game: Game) -> None:
        game.apply(GainItem(player=2, item=SWORD))
        game.apply(GainItem(player=3, item=ItemSpec(name="Cap", bonus=1, slot="headgear")))
        fight(game, monster(5))
        game.apply(EquipItem(player=2, item_id="i1"))
        game.apply(UnequipItem(player=2, item_id="i1"))
        game.apply(SetGearBonus(player=2, bonus=2))
        state = game.apply(TradeItem(giver=3, receiver=2, item_id="i2"))
        assert [i.spec.name for i in state.players[2].items] == ["Sword", "Cap"]

    def test_those_in_the_fight_cannot(self, game: Game) -> None:
        game.apply(GainItem(player=0, item=SWORD))
        game.apply(GainItem(player=1, item=ItemSpec(name="Cap", slot="headgear"), equip=True))
        fight(game, monster(5))
        game.apply(AddHelper(helper=1))
        refused(game, EquipItem(player=0, item_id="i1"), "equipment_in_combat")
        refused(game, UnequipItem(player=1, item_id="i2"), "equipment_in_combat")
        refused(game, TradeItem(giver=2, receiver=0, item_id="i1"), "no_such_item")
        refused(game, TradeItem(giver=1, receiver=3, item_id="i2"), "trade_in_combat")
        game.apply(GainItem(player=2, item=SWORD))
        # a trade with someone in the fight is refused to the bystander too
        refused(game, TradeItem(giver=2, receiver=0, item_id="i3"), "trade_in_combat")


class TestTreasureWithoutAKill:
    @pytest.mark.parametrize(
        ("edition", "removed", "treasure"),
        [
            (OZ, None, 2),  # only the killed one's treasure counts
            (DISNEY, 1, 3),  # the table enters what the card says
            (FU, None, 5),  # the martial-arts rulesheet gives the eliminated one's treasure
        ],
        ids=["oz", "disney-card-says", "fu"],
    )
    def test_one_killed_and_one_removed(
        self, edition: object, removed: object, treasure: int
    ) -> None:
        game = make_game(edition=edition)
        fight(game, monster(0, treasure=2), monster(0, treasure=3))
        game.apply(RemoveMonster(monster=1, treasure=removed))  # type: ignore[arg-type]
        state = game.apply(ResolveCombat(outcome="kill"))
        assert state.last_combat is not None and state.last_combat.treasure == treasure


class TestRestrictedItems:
    """A restricted item gives its bonus only while its owner qualifies."""

    def test_a_female_only_item_stops_after_a_sex_change_and_comes_back(self, game: Game) -> None:
        game.apply(GainItem(player=0, item=GOWN, equip=True))  # Ann is female
        assert game.state.players[0].strength == 3
        assert game.apply(ChangeSex(player=0, sex=Sex.MALE)).players[0].strength == 1
        assert game.state.players[0].items[0].equipped  # still worn, just no bonus
        assert game.apply(ChangeSex(player=0, sex=Sex.FEMALE)).players[0].strength == 3

    def test_a_wizard_only_item_stops_when_the_class_goes(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Wizard"))
        game.apply(GainItem(player=0, item=STAFF, equip=True))
        fight(game, monster(3))
        assert game.state.combat is not None and game.state.combat.fighters_winning
        state = game.apply(LoseTrait(player=0, kind="class", name="Wizard"))
        assert state.combat is not None and state.combat.players_strength == 1
        assert not state.combat.fighters_winning

    def test_an_old_game_kept_the_bonus(self) -> None:
        game = make_game(rules=2)
        game.apply(GainItem(player=0, item=GOWN, equip=True))
        assert game.apply(ChangeSex(player=0, sex=Sex.MALE)).players[0].strength == 3

    def test_equipping_it_says_whom_it_is_for(self, game: Game) -> None:
        game.apply(GainItem(player=1, item=GOWN))  # Bo is male
        err = refused(game, EquipItem(player=1, item_id="i1"), "item_restricted")
        assert str(err) == "Bo may not use Gown: female only"


class TestBonusesGoWithTheirCard:
    def test_the_elf_s_run_away_bonus_goes_with_the_race(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="race", name="Elf"))  # classic Elf: +1 to run away
        assert game.state.players[0].total_run_away_bonus == 1
        state = game.apply(LoseTrait(player=0, kind="race", name="Elf"))
        assert state.players[0].total_run_away_bonus == 0

    def test_a_steed_s_bonus_replaces_the_rider_s_own_and_death_takes_it(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="race", name="Elf"))
        game.apply(GainItem(player=0, item=PONY, equip=True))
        assert game.state.players[0].total_run_away_bonus == 2  # the Pony's, not 1 + 2
        state = game.apply(Die(player=0))
        assert state.players[0].total_run_away_bonus == 1  # the Elf's again

    def test_one_steed_at_a_time(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        game.apply(GainItem(player=0, item=PONY, equip=True))
        # One Steed in play (rules 4): the second is refused before it is ridden.
        refused(game, GainItem(player=0, item=PONY), "one_steed")
        old = make_game(rules=3)
        old.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        old.apply(GainItem(player=0, item=PONY, equip=True))
        old.apply(GainItem(player=0, item=PONY))
        refused(old, EquipItem(player=0, item_id="i2"), "one_steed")


class TestCharityEndsTheTurn:
    def test_no_fight_after_charity(self, game: Game) -> None:
        game.apply(AdvancePhase())
        game.apply(SetLevel(player=0, level=3))
        game.apply(Charity(giver=0, cards=2))
        err = refused(game, StartCombat(fighter=0, monsters=(monster(1),)), "turn_over")
        assert "next player's turn" in str(err)
        game.apply(EndTurn())
        game.apply(StartCombat(fighter=1, monsters=(monster(1),)))

    def test_an_old_game_allowed_it(self) -> None:
        game = make_game(rules=2)
        game.apply(Charity(giver=0, cards=2))
        game.apply(StartCombat(fighter=0, monsters=(monster(1),)))


class TestOneTraitBoosts:
    """Super Munchkin with one class (Extra Motivated with one motivation, Half-Breed with
    one race): every advantage of it and none of its disadvantages."""

    def hates_warriors(self) -> object:
        return monster(5, modifiers=(MonsterModifier(bonus=4, condition=_is("class", "Warrior")),))

    def test_a_monster_s_bonus_against_the_class_does_not_count(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        fight(game, self.hates_warriors())
        assert game.state.combat is not None and game.state.combat.monsters_strength == 9
        game.undo()
        game.apply(SetTraitBoost(player=0, kind="class"))
        fight(game, self.hates_warriors())
        assert game.state.combat is not None and game.state.combat.monsters_strength == 5

    def test_its_penalty_still_counts(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Cleric"))
        game.apply(SetTraitBoost(player=0, kind="class"))
        soft = monster(5, modifiers=(MonsterModifier(bonus=-3, condition=_is("class", "Cleric")),))
        fight(game, soft)
        assert game.state.combat is not None and game.state.combat.monsters_strength == 2

    def test_two_classes_take_the_disadvantages_again(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        game.apply(SetTraitBoost(player=0, kind="class"))
        game.apply(GainTrait(player=0, kind="class", name="Thief"))
        fight(game, self.hates_warriors())
        assert game.state.combat is not None and game.state.combat.monsters_strength == 9

    def test_the_boost_needs_a_class_and_goes_with_the_last_one(self, game: Game) -> None:
        err = refused(game, SetTraitBoost(player=0, kind="class"), "boost_alone")
        assert str(err) == "Super Munchkin is played on a class: Ann has none"
        game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        game.apply(SetTraitBoost(player=0, kind="class"))
        state = game.apply(LoseTrait(player=0, kind="class", name="Warrior"))
        assert not state.players[0].super_munchkin
        game.apply(GainTrait(player=0, kind="class", name="Thief"))
        refused(game, GainTrait(player=0, kind="class", name="Wizard"), "trait_limit")

    def test_a_one_race_half_breed_is_half_human(self, game: Game) -> None:
        human_only = ItemSpec(
            name="Plain Hat", bonus=1, slot="headgear", requires=_is("race", "Human")
        )
        game.apply(GainTrait(player=0, kind="race", name="Elf"))
        game.apply(GainItem(player=0, item=human_only))
        refused(game, EquipItem(player=0, item_id="i1"), "item_restricted")
        game.apply(SetTraitBoost(player=0, kind="race"))
        game.apply(EquipItem(player=0, item_id="i1"))
        hates = monster(3, modifiers=(MonsterModifier(bonus=5, condition=_is("race", "Elf")),))
        fight(game, hates)
        assert game.state.combat is not None and game.state.combat.monsters_strength == 3


def _is(kind: str, value: str) -> Condition:
    return Condition(kind=kind, value=value)  # type: ignore[arg-type]


class TestAllowancesThatGo:
    def test_a_dwarf_who_loses_the_race_keeps_one_big_item_of_their_choice(
        self, game: Game
    ) -> None:
        game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        game.apply(GainItem(player=0, item=PLANK))
        game.apply(GainItem(player=0, item=LADDER))  # a Dwarf carries any number
        [question] = allowance_questions(game.state, 0, lose=("race", "Dwarf"))
        assert question.what == "big_item" and question.count == 1
        assert question.options == (("i1", "Plank"), ("i2", "Ladder"))
        err = refused(game, LoseTrait(player=0, kind="race", name="Dwarf"), "allowance_gone")
        assert str(err) == (
            "Ann may carry only one Big item now: choose what to give up (Plank or Ladder)"
        )
        action = LoseTrait(player=0, kind="race", name="Dwarf", drop=("i1",))
        state = game.apply(action)
        assert [i.spec.name for i in state.players[0].items] == ["Ladder"]
        assert game.log[-1].drop == ("i1",)  # type: ignore[attr-defined]

    def test_a_monk_who_quits_keeps_one_style(self) -> None:
        game = make_game(edition=FU)
        game.apply(GainTrait(player=0, kind="class", name="Monk"))
        game.apply(GainTrait(player=0, kind="style", name="Crane", bonus=2))
        game.apply(GainTrait(player=0, kind="style", name="Tiger", bonus=3))
        refused(game, LoseTrait(player=0, kind="class", name="Monk"), "allowance_gone")
        state = game.apply(LoseTrait(player=0, kind="class", name="Monk", drop=("Tiger",)))
        assert state.players[0].styles == ("Crane",) and state.players[0].strength == 3

    def test_a_dead_player_receives_no_card_classes_included(self, game: Game) -> None:
        game.apply(Die(player=1))
        err = refused(game, GainTrait(player=1, kind="class", name="Thief"), "dead_player")
        assert "receive cards" in str(err)


class TestItemsInCombat:
    def test_only_one_shots_come_from_the_hand_in_a_fight(self, game: Game) -> None:
        fight(game, monster(3))
        refused(game, GainItem(player=0, item=SWORD), "items_in_combat")
        game.apply(GainItem(player=2, item=SWORD))  # a bystander may


class TestAllies:
    def test_a_new_ally_replaces_the_old_in_one_step(self) -> None:
        game = make_game(edition=OZ)
        game.apply(SetAlly(player=0, ally=AllySpec(name="Scarecrowish", bonus=1)))
        state = game.apply(SetAlly(player=0, ally=AllySpec(name="Tin Friend", bonus=3)))
        assert [a.name for a in state.players[0].allies] == ["Tin Friend"]
        assert state.players[0].strength == 4

    def test_a_role_that_keeps_two_allies(self) -> None:
        sidekick = DISNEY.card("role", "Sidekick")
        game = Game(role_setup(DISNEY, sidekick))
        game.apply(SetAlly(player=0, ally=AllySpec(name="Owl", bonus=1)))
        game.apply(SetAlly(player=0, ally=AllySpec(name="Cat", bonus=2)))
        assert game.state.players[0].strength == 4
        refused(game, SetAlly(player=0, ally=AllySpec(name="Fox", bonus=3)), "which_ally")
        state = game.apply(SetAlly(player=0, ally=AllySpec(name="Fox", bonus=3), replaces="owl"))
        assert [a.name for a in state.players[0].allies] == ["Cat", "Fox"]
        fight(game, monster(20))
        state = game.apply(SacrificeAlly(player=0, ally="Fox"))
        assert [a.name for a in state.players[0].allies] == ["Cat"]


def role_setup(edition: object, role: CardRules | None) -> GameSetup:
    data = make_setup(edition=edition).model_dump()  # type: ignore[arg-type]
    data["players"][0]["role"] = role
    return GameSetup.model_validate(data)


class TestHelping:
    def test_treasure_is_face_up_whenever_someone_helped_eliminations_included(self) -> None:
        game = make_game(edition=FU)
        fight(game, monster(9, treasure=2))
        game.apply(AddHelper(helper=1))
        game.apply(ChangeHelper(helper=None))
        state = game.apply(ResolveCombat(outcome="defeat"))
        assert state.last_combat is not None and state.last_combat.treasure_face_up
        fight_again = make_game(edition=FU)
        fight(fight_again, monster(9, treasure=2))
        state = fight_again.apply(ResolveCombat(outcome="defeat"))
        assert state.last_combat is not None and not state.last_combat.treasure_face_up

    def test_a_volunteer_cannot_back_out_in_the_fairy_tale_kingdom(self) -> None:
        game = make_game(edition=DISNEY)
        fight(game, monster(9))
        game.apply(AddHelper(helper=1))
        err = refused(game, RemoveHelper(), "helper_stays")
        assert str(err) == "Bo offered to help and cannot back out"
        refused(game, ChangeHelper(helper=2), "helper_stays")
        game.apply(RemoveHelper(override="a card sends the helper away"))

    def test_elsewhere_the_helper_may_leave(self) -> None:
        game = make_game(edition=OZ)
        fight(game, monster(9))
        game.apply(AddHelper(helper=1))
        game.apply(RemoveHelper())

    def test_the_helper_s_share_is_recorded(self, game: Game) -> None:
        fight(game, monster(1, treasure=3))
        game.apply(AddHelper(helper=1))
        refused(game, ResolveCombat(outcome="kill", helper_treasure=4), "helper_share")
        state = game.apply(ResolveCombat(outcome="kill", helper_treasure=2, helper_first=True))
        result = state.last_combat
        assert result is not None and result.treasure == 3 and result.treasure_face_up
        assert result.helper_treasure == 2 and result.helper_picks_first

    def test_a_share_needs_a_helper(self, game: Game) -> None:
        fight(game, monster(1))
        refused(game, ResolveCombat(outcome="kill", helper_treasure=1), "no_helper")
        refused(game, RemoveMonster(monster=0, helper_treasure=1), "no_helper")

    def test_a_card_taking_the_last_monster_gives_the_helper_the_agreed_share(self) -> None:
        game = make_game(edition=FU)  # a monster a card removes still gives its treasure
        fight(game, monster(9, treasure=2), monster(9, treasure=3))
        game.apply(AddHelper(helper=1))
        # While a monster stays, the share waits for the combat's end.
        refused(game, RemoveMonster(monster=0, helper_treasure=1), "helper_share_later")
        game.apply(RemoveMonster(monster=0))
        refused(game, RemoveMonster(monster=0, helper_treasure=6), "helper_share")
        state = game.apply(RemoveMonster(monster=0, helper_treasure=5, helper_first=True))
        result = state.last_combat
        assert state.combat is None and result is not None and result.outcome == "defeat"
        assert result.treasure == 5 and result.helper == 1
        assert result.helper_treasure == 5 and result.helper_picks_first

    def test_the_wizard_charming_the_last_monster_shares_as_agreed(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="class", name="Wizard"))
        fight(game, monster(12, treasure=3))
        game.apply(AddHelper(helper=1))
        refused(game, Charm(player=0, monster=0, cards=3, helper_treasure=4), "helper_share")
        state = game.apply(Charm(player=0, monster=0, cards=3, helper_treasure=2))
        result = state.last_combat
        assert result is not None and result.outcome == "defeat" and result.treasure == 3
        assert result.helper_treasure == 2 and not result.helper_picks_first
        # Without a word about a share the helper takes none, as before.
        alone = make_game()
        alone.apply(GainTrait(player=0, kind="class", name="Wizard"))
        fight(alone, monster(12, treasure=3))
        alone.apply(AddHelper(helper=1))
        result = alone.apply(Charm(player=0, monster=0, cards=3)).last_combat
        assert result is not None and result.helper_treasure == 0


class TestClassicClassesAndRaces:
    def test_the_warrior_wins_ties_by_class_fighting_or_helping(self, game: Game) -> None:
        game.apply(SetLevel(player=0, level=4))
        fight(game, monster(4))
        assert game.state.combat is not None and not game.state.combat.fighters_winning
        game.undo()
        game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        fight(game, monster(4))
        combat = game.state.combat
        assert combat is not None and combat.fighters_winning and combat.ties_won_by_ability
        game.apply(ResolveCombat(outcome="kill"))
        game.apply(EndTurn())
        game.apply(SetLevel(player=1, level=2))
        fight(game, monster(7), fighter=1)
        game.apply(AddHelper(helper=0))  # 2 + 5
        assert game.state.combat is not None and game.state.combat.fighters_winning

    def test_in_another_edition_the_same_name_wins_nothing(self) -> None:
        game = make_game(edition=OZ)
        game.apply(GainTrait(player=0, kind="class", name="Wizard"))
        fight(game, monster(1))
        assert game.state.combat is not None and not game.state.combat.fighters_winning

    def test_the_warrior_goes_berserk_for_up_to_three_cards(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        fight(game, monster(6))
        game.apply(UseAbility(player=0, ability="berserking", cards=2))
        state = game.apply(UseAbility(player=0, ability="berserking", cards=1))
        assert state.combat is not None and state.combat.fighter_strength == 4
        refused(game, UseAbility(player=0, ability="berserking"), "ability_cards")
        refused(game, UseAbility(player=1, ability="berserking"), "no_ability")

    def test_the_cleric_turns_undead_only(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Cleric"))
        fight(game, monster(5))
        refused(game, UseAbility(player=0, ability="turning"), "no_undead")
        game.undo()
        fight(game, undead(5))
        state = game.apply(UseAbility(player=0, ability="turning", cards=2))
        assert state.combat is not None and state.combat.players_strength == 1 + 6

    def test_bonuses_against_undead(self, game: Game) -> None:
        garlic = ItemSpec(
            name="Garlic", slot="headgear", against=(TagBonus(tag="Undead", bonus=2),)
        )
        game.apply(GainItem(player=0, item=garlic, equip=True))
        fight(game, monster(2))
        assert game.state.combat is not None and game.state.combat.players_strength == 1
        game.undo()
        fight(game, undead(2))
        assert game.state.combat is not None and game.state.combat.players_strength == 3
        assert game.state.players[0].strength == 1  # outside a fight against one, nothing

    def test_the_thief_backstabs_once_per_victim(self, game: Game) -> None:
        game.apply(GainTrait(player=2, kind="class", name="Thief"))
        game.apply(SetLevel(player=0, level=5))
        fight(game, monster(4))
        state = game.apply(UseAbility(player=2, ability="backstab", target=0))
        assert state.combat is not None and state.combat.fighter_strength == 3
        assert not state.combat.fighters_winning
        refused(game, UseAbility(player=2, ability="backstab", target=0), "backstab_twice")
        refused(game, UseAbility(player=2, ability="backstab", target=3), "not_fighting")

    def test_the_thief_steals_a_small_item_or_is_caught(self) -> None:
        game = make_game(dice=[4])
        game.apply(GainTrait(player=2, kind="class", name="Thief"))
        game.apply(SetLevel(player=2, level=3))
        game.apply(GainItem(player=1, item=SWORD, equip=True))
        game.apply(GainItem(player=1, item=PLANK))
        refused(game, Steal(thief=2, victim=1, item_id="i2", roll=6), "steal_big")
        state = game.apply(Steal(thief=2, victim=1, item_id="i1"))  # rolls 4
        assert [i.spec.name for i in state.players[2].items] == ["Sword"]
        assert not state.players[2].items[0].equipped
        assert state.players[2].level == 3

    def test_a_caught_thief_loses_a_level(self) -> None:
        game = make_game(dice=[3])
        game.apply(GainTrait(player=2, kind="class", name="Thief"))
        game.apply(SetLevel(player=2, level=3))
        game.apply(GainItem(player=1, item=SWORD))
        before = game.state
        action = Steal(thief=2, victim=1, item_id="i1", roll=3)
        assert describe(action, before) == (
            "Cy rolls 3, is caught stealing from Bo and loses a level"
        )
        state = game.apply(action)
        assert state.players[2].level == 2 and state.players[1].items != ()
        fight(game, monster(1))
        refused(game, Steal(thief=2, victim=0, item_id="i1", roll=6), "no_such_item")

    def test_the_wizard_flies_and_charms(self) -> None:
        game = make_game(dice=[3])
        game.apply(GainTrait(player=0, kind="class", name="Wizard"))
        fight(game, monster(9, treasure=2), monster(9, treasure=1))
        refused(game, Charm(player=0, monster=0, cards=2), "charm_cards")
        state = game.apply(Charm(player=0, monster=0, cards=4))
        assert state.combat is not None and state.combat.removed_treasure == 2  # its treasure
        state = game.apply(RunAway(fighter=0, monster=0, roll=3, discards=2))
        assert state.last_combat is not None and state.last_combat.rolls[0].escaped
        refused_flight = make_game()
        fight(refused_flight, monster(9))
        refused(refused_flight, RunAway(fighter=0, monster=0, roll=3, discards=1), "no_flight")

    def test_the_elf_goes_up_for_each_monster_killed_with_its_help(self, game: Game) -> None:
        game.apply(GainTrait(player=1, kind="race", name="Elf"))
        game.apply(SetLevel(player=0, level=9))
        fight(game, monster(2), monster(2))
        game.apply(AddHelper(helper=1))
        state = game.apply(ResolveCombat(outcome="kill"))
        assert state.players[1].level == 3 and state.last_combat is not None
        assert state.last_combat.helper_levels == 2

    def test_the_elf_s_level_for_helping_can_win(self, game: Game) -> None:
        game.apply(GainTrait(player=1, kind="race", name="Elf"))
        game.apply(SetLevel(player=1, level=9))
        game.apply(SetLevel(player=0, level=5))
        fight(game, monster(2))
        game.apply(AddHelper(helper=1))
        state = game.apply(ResolveCombat(outcome="kill"))
        assert state.winners == (1,) and state.players[0].level == 6

    def test_the_dwarf_carries_any_number_of_big_items(self, game: Game) -> None:
        game.apply(GainItem(player=0, item=PLANK))
        refused(game, GainItem(player=0, item=LADDER), "one_big_item")
        game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        game.apply(GainItem(player=0, item=LADDER))
        assert len(game.state.players[0].items) == 2

    def test_the_halfling_sells_one_item_a_turn_for_double(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="race", name="Halfling"))
        game.apply(GainItem(player=0, item=ItemSpec(name="Ring", gold=600)))
        refused(game, SellItems(player=0, gold=500, double=600), "double_sale_item")
        state = game.apply(SellItems(player=0, item_ids=("i1",), double=600))
        assert state.players[0].level == 2  # 1200 gold
        err = refused(game, SellItems(player=0, gold=700, double=700), "double_sale_used")
        assert str(err) == "Only one item a turn sells for double its value"
        game.apply(EndTurn())
        for _ in range(3):
            game.apply(EndTurn())
        assert game.apply(SellItems(player=0, gold=500, double=500)).players[0].level == 3
        refused(make_game(), SellItems(player=0, gold=500, double=500), "no_double_sale")


class TestMonsters:
    def test_an_undead_joins_an_undead_fight_without_a_card(self, game: Game) -> None:
        fight(game, monster(3))
        refused(game, AddMonster(monster=undead(2), joins=True), "cannot_join")
        game.undo()
        fight(game, undead(3))
        state = game.apply(AddMonster(monster=undead(2), joins=True))
        assert state.combat is not None and len(state.combat.monsters) == 2

    def test_which_tags_join_is_the_edition_s(self) -> None:
        demon = monster(2, tags=frozenset({"demon"}))
        for edition, joins in ((ADVENTURE_TIME, True), (CLASSIC, False), (OZ, False)):
            game = make_game(edition=edition)
            fight(game, monster(3, tags=frozenset({"demon"})))
            if joins:
                game.apply(AddMonster(monster=demon, joins=True))
            else:
                refused(game, AddMonster(monster=demon, joins=True), "cannot_join")

    def test_it_will_not_pursue_the_low_levels(self) -> None:
        game = make_game(dice=[1])
        lazy = nasty(12, lose_levels=2).evolve(pursues_above_level=3)
        game.apply(SetLevel(player=0, level=3))
        fight(game, lazy, monster(10, name="Keen"))
        assert bad_stuff_questions(game.state, 0, 0) == ()
        state = game.apply(RunAway(fighter=0, monster=0))  # no die is rolled for it
        roll = state.combat.rolls[0]  # type: ignore[union-attr]
        assert roll.escaped and not roll.pursued and state.players[0].level == 3
        assert describe(game.log[-1], game.state_at(game.revision - 1)) == (
            "Nasty 12 does not pursue Ann"
        )
        state = game.apply(RunAway(fighter=0, monster=1))  # rolls the 1: caught
        assert state.last_combat is not None and state.last_combat.outcome == "ran_away"


class TestBadStuffChoices:
    def test_lose_two_items_of_the_victim_s_choice(self) -> None:
        game = make_game()
        for item in (SWORD, PLANK, GOWN):
            game.apply(GainItem(player=0, item=item))
        fight(game, monster(20, bad_stuff=quick_bad_stuff("lose_items", 2)))
        [question] = bad_stuff_questions(game.state, 0, 0)
        assert question.what == "items" and question.count == 2 and len(question.options) == 3
        err = refused(game, RunAway(fighter=0, monster=0, roll=1), "bad_stuff_choice")
        assert "must choose the 2 items" in str(err)
        state = game.apply(RunAway(fighter=0, monster=0, roll=1, picks=("i1", "i3")))
        assert [i.spec.name for i in state.players[0].items] == ["Plank"]
        roll = state.last_combat.rolls[0]  # type: ignore[union-attr]
        assert roll.items_lost == ("Sword", "Gown")

    def test_quick_bad_stuff_for_a_monster_entered_by_its_level(self) -> None:
        game = make_game()
        game.apply(GainItem(player=0, item=ItemSpec(name="Boots", slot="footgear"), equip=True))
        fight(game, monster(20, bad_stuff=quick_bad_stuff("footgear")))
        state = game.apply(RunAway(fighter=0, monster=0, roll=1))
        assert state.players[0].items == ()

    def test_losing_the_dwarf_race_to_bad_stuff_asks_which_big_item_goes(self) -> None:
        game = make_game()
        game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        game.apply(GainItem(player=0, item=PLANK))
        game.apply(GainItem(player=0, item=LADDER))
        fight(game, monster(20, bad_stuff=quick_bad_stuff("none").evolve(lose=("race",))))
        [question] = bad_stuff_questions(game.state, 0, 0)
        assert question.what == "big_item"
        refused(game, RunAway(fighter=0, monster=0, roll=1), "allowance_gone")
        state = game.apply(RunAway(fighter=0, monster=0, roll=1, picks=("i2",)))
        assert state.players[0].races == () and [i.id for i in state.players[0].items] == ["i1"]


class TestRolesAndCharacters:
    def test_a_role_is_chosen_at_set_up_and_counts(self) -> None:
        card = CardRules(kind="role", name="Brave One", bonus=1, run_away=1)
        game = Game(role_setup(ADVENTURE_TIME, card))
        player = game.state.players[0]
        assert player.role == card and player.strength == 2 and player.total_run_away_bonus == 1

    def test_an_edition_without_role_cards_refuses_one(self) -> None:
        with pytest.raises(ValueError, match="deals no role"):
            role_setup(CLASSIC, CardRules(kind="role", name="Brave One"))


class TestMagicQuotes:
    def test_a_quote_may_not_be_repeated_in_a_game(self) -> None:
        game = make_game(edition=DISNEY)
        game.apply(SayQuote(player=0, quote="Onwards, little kettle!", card="Wish"))
        err = refused(game, SayQuote(player=1, quote="onwards,   LITTLE kettle"), "quote_repeated")
        assert str(err) == "That quote was already used in this game: find another"
        game.apply(SayQuote(player=1, quote="Every door sings"))
        assert game.state.quotes == ("onwards, little kettle", "every door sings")

    def test_only_where_the_edition_has_that_magic(self, game: Game) -> None:
        refused(game, SayQuote(player=0, quote="Every door sings"), "no_magic_quotes")


def test_a_player_setup_names_its_role_kind() -> None:
    with pytest.raises(ValueError, match="not a role"):
        GameSetup(
            players=(
                PlayerSetup(
                    name="Ann",
                    colour="#ff0000",
                    sex=Sex.FEMALE,
                    role=CardRules(kind="class", name="X"),
                ),
                PlayerSetup(name="Bo", colour="#00ff00", sex=Sex.MALE),
            ),
            edition=DISNEY,
        )


def test_discarding_keeps_working(game: Game) -> None:
    game.apply(GainItem(player=0, item=SWORD))
    assert game.apply(DiscardItem(player=0, item_id="i1")).players[0].items == ()
