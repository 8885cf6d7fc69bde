"""Classes, races, motivations, styles, Super Munchkin / Half-Breed / Extra Motivated, ally,
sex changes, and gear with slots, hands and Big items (§4, §5)."""

from __future__ import annotations

import pytest

from companion.core import (
    DISNEY,
    FU,
    OZ,
    AllySpec,
    ChangeSex,
    Condition,
    DiscardAlly,
    DiscardItem,
    EquipItem,
    GainItem,
    GainTrait,
    Game,
    ItemSpec,
    LoseTrait,
    ResolveCombat,
    RuleError,
    SetAlly,
    SetTraitBoost,
    Sex,
    StartCombat,
    TradeItem,
    UnequipItem,
)

from .conftest import make_game, monster


class TestClasses:
    def test_one_class_unless_super_munchkin(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="warrior"))
        assert game.state.players[0].classes == ("Warrior",)  # the edition's spelling
        with pytest.raises(RuleError) as err:
            game.apply(GainTrait(player=0, kind="class", name="Thief"))
        assert err.value.rule == "trait_limit"
        assert "unless you are a Super Munchkin" in str(err.value)
        game.apply(SetTraitBoost(player=0, kind="class"))
        game.apply(GainTrait(player=0, kind="class", name="Thief"))
        assert game.state.players[0].classes == ("Warrior", "Thief")

    def test_losing_super_munchkin_with_two_classes_drops_one_in_the_same_step(
        self, game: Game
    ) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        game.apply(SetTraitBoost(player=0, kind="class"))
        game.apply(GainTrait(player=0, kind="class", name="Thief"))
        with pytest.raises(RuleError) as err:
            game.apply(SetTraitBoost(player=0, kind="class", on=False))
        assert err.value.rule == "allowance_gone"
        assert "Warrior or Thief" in str(err.value)
        ann = game.apply(SetTraitBoost(player=0, kind="class", on=False, drop=("Thief",)))
        assert ann.players[0].classes == ("Warrior",) and not ann.players[0].super_munchkin

    def test_an_old_game_asks_for_a_class_discarded_first(self, legacy: Game) -> None:
        legacy.apply(SetTraitBoost(player=0, kind="class"))
        legacy.apply(GainTrait(player=0, kind="class", name="Warrior"))
        legacy.apply(GainTrait(player=0, kind="class", name="Thief"))
        with pytest.raises(RuleError) as err:
            legacy.apply(SetTraitBoost(player=0, kind="class", on=False))
        assert err.value.rule == "boost_in_use"
        legacy.apply(LoseTrait(player=0, kind="class", name="Thief"))
        legacy.apply(SetTraitBoost(player=0, kind="class", on=False))
        assert not legacy.state.players[0].super_munchkin

    def test_a_class_can_be_discarded_even_in_combat(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Wizard"))
        game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
        game.apply(LoseTrait(player=0, kind="class", name="Wizard"))
        assert game.state.players[0].classes == ()

    def test_classes_come_from_the_edition(self) -> None:
        game = make_game(edition=OZ)
        with pytest.raises(RuleError, match="not a class in"):
            game.apply(GainTrait(player=0, kind="class", name="Warrior"))
        game.apply(GainTrait(player=0, kind="class", name="Professor"))
        game.apply(GainTrait(player=1, kind="class", name="Knight", override="promo card"))
        assert game.state.players[1].classes == ("Knight",)

    def test_the_same_class_twice_is_refused(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="class", name="Cleric"))
        game.apply(SetTraitBoost(player=0, kind="class"))
        with pytest.raises(RuleError) as err:
            game.apply(GainTrait(player=0, kind="class", name="Cleric"))
        assert err.value.rule == "has_trait"


class TestRacesMotivationsStyles:
    def test_half_breed_allows_two_races(self, game: Game) -> None:
        game.apply(GainTrait(player=0, kind="race", name="Elf"))
        with pytest.raises(RuleError, match="Half-Breed"):
            game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        game.apply(SetTraitBoost(player=0, kind="race"))
        game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        assert game.state.players[0].races == ("Elf", "Dwarf")

    def test_editions_without_races_have_only_humans(self) -> None:
        game = make_game(edition=DISNEY)
        with pytest.raises(RuleError) as err:
            game.apply(GainTrait(player=0, kind="race", name="Elf"))
        assert err.value.rule == "no_such_trait"

    def test_extra_motivated_allows_two_motivations(self) -> None:
        game = make_game(edition=DISNEY)
        game.apply(GainTrait(player=0, kind="motivation", name="Love"))
        with pytest.raises(RuleError, match="Extra Motivated"):
            game.apply(GainTrait(player=0, kind="motivation", name="Family"))
        game.apply(SetTraitBoost(player=0, kind="motivation"))
        game.apply(GainTrait(player=0, kind="motivation", name="Family"))
        assert game.state.players[0].motivations == ("Love", "Family")

    def test_monks_may_have_two_styles(self) -> None:
        game = make_game(edition=FU)
        game.apply(GainTrait(player=0, kind="style", name="Crane"))
        with pytest.raises(RuleError, match="Monk"):
            game.apply(GainTrait(player=0, kind="style", name="Tiger"))
        game.apply(GainTrait(player=0, kind="class", name="Monk"))
        game.apply(GainTrait(player=0, kind="style", name="Tiger"))
        assert game.state.players[0].styles == ("Crane", "Tiger")


class TestAllyAndSex:
    def test_one_ally_at_a_time_in_an_old_game(self, legacy: Game) -> None:
        legacy.apply(SetAlly(player=0, ally=AllySpec(name="Pony", bonus=1)))
        with pytest.raises(RuleError) as err:
            legacy.apply(SetAlly(player=0, ally=AllySpec(name="Owl", bonus=2)))
        assert err.value.rule == "one_ally"
        legacy.apply(DiscardAlly(player=0))
        legacy.apply(SetAlly(player=0, ally=AllySpec(name="Owl", bonus=2)))
        assert legacy.state.players[0].strength == 3

    def test_a_sex_change_matters_to_monsters(self, game: Game) -> None:
        game.apply(ChangeSex(player=1, sex=Sex.NONE))
        assert game.state.players[1].sex == Sex.NONE
        with pytest.raises(RuleError):
            game.apply(ChangeSex(player=1, sex=Sex.NONE))


class TestGear:
    def test_one_headgear_armor_footgear(self, game: Game) -> None:
        hat = ItemSpec(name="Hat", bonus=1, slot="headgear")
        game.apply(GainItem(player=0, item=hat, equip=True))
        with pytest.raises(RuleError) as err:
            game.apply(GainItem(player=0, item=hat, equip=True))
        assert err.value.rule == "slot_taken"
        game.apply(GainItem(player=0, item=hat))  # carried, not worn
        assert len(game.state.players[0].items) == 2 and game.state.players[0].strength == 2

    def test_two_hands(self, game: Game) -> None:
        one = ItemSpec(name="Club", bonus=2, slot="hands", hands=1)
        two = ItemSpec(name="Pike", bonus=4, slot="hands", hands=2)
        game.apply(GainItem(player=0, item=one, equip=True))
        game.apply(GainItem(player=0, item=one, equip=True))
        with pytest.raises(RuleError) as err:
            game.apply(GainItem(player=0, item=two, equip=True))
        assert err.value.rule == "hands_full"
        first = game.state.players[0].items[0].id
        game.apply(UnequipItem(player=0, item_id=first))
        game.apply(DiscardItem(player=0, item_id=game.state.players[0].items[1].id))
        game.apply(GainItem(player=0, item=two, equip=True))
        assert game.state.players[0].strength == 5

    def test_one_big_item_unless_a_dwarf(self, game: Game) -> None:
        big = ItemSpec(name="Ladder", bonus=3, big=True)
        game.apply(GainItem(player=0, item=big))
        with pytest.raises(RuleError) as err:
            game.apply(GainItem(player=0, item=big))
        assert err.value.rule == "one_big_item"
        game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
        game.apply(GainItem(player=0, item=big))
        assert len(game.state.players[0].items) == 2

    def test_restricted_items(self, game: Game) -> None:
        robe = ItemSpec(name="Robe", bonus=3, requires=Condition(kind="class", value="Wizard"))
        game.apply(GainItem(player=0, item=robe))
        robe_id = game.state.players[0].items[0].id
        with pytest.raises(RuleError) as err:
            game.apply(EquipItem(player=0, item_id=robe_id))
        assert err.value.rule == "item_restricted"
        game.apply(GainTrait(player=0, kind="class", name="Wizard"))
        game.apply(EquipItem(player=0, item_id=robe_id))
        assert game.state.players[0].strength == 4

    def test_no_equipping_in_combat(self, game: Game) -> None:
        game.apply(GainItem(player=0, item=ItemSpec(name="Hat", bonus=1, slot="headgear")))
        game.apply(StartCombat(fighter=0, monsters=(monster(1),)))
        with pytest.raises(RuleError) as err:
            game.apply(EquipItem(player=0, item_id=game.state.players[0].items[0].id))
        assert err.value.rule == "equipment_in_combat"

    def test_trading_moves_an_item_but_never_in_combat(self, game: Game) -> None:
        hat_spec = ItemSpec(name="Hat", bonus=1, slot="headgear")
        game.apply(GainItem(player=0, item=hat_spec, equip=True))
        hat = game.state.players[0].items[0].id
        game.apply(StartCombat(fighter=0, monsters=(monster(0),)))
        with pytest.raises(RuleError) as err:
            game.apply(TradeItem(giver=0, receiver=1, item_id=hat))
        assert err.value.rule == "trade_in_combat"
        game.apply(ResolveCombat(outcome="kill"))
        game.apply(TradeItem(giver=0, receiver=1, item_id=hat))
        assert game.state.players[0].items == ()
        moved = game.state.players[1].items[0]
        assert moved.id == hat and not moved.equipped
