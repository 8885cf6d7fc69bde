"""Items for some classes, races or a sex only, or not for some (RULES.md §5 and §11):
every limit a card can state reaches the engine, which refuses to put the item on a
character who does not qualify and stops its bonus while its owner no longer does."""

from __future__ import annotations

import pytest

from companion.core import (
    Condition,
    EquipItem,
    GainItem,
    GainTrait,
    Game,
    ItemSpec,
    LoseTrait,
    SetTraitBoost,
    item_limits,
)
from companion.core.errors import RuleError


def _is(kind: str, value: str) -> Condition:
    return Condition(kind=kind, value=value)  # type: ignore[arg-type]


SHIELD = ItemSpec(
    name="Shield of Polite Refusal",
    bonus=2,
    slot="hands",
    hands=1,
    only=(_is("class", "Warrior"), _is("class", "Cleric")),
)
HELMET = ItemSpec(name="Helmet", bonus=3, slot="headgear", not_for=(_is("class", "Wizard"),))
BOOTS = ItemSpec(
    name="Boots", bonus=1, slot="footgear", only=(_is("race", "Elf"), _is("race", "Dwarf"))
)
GOWN = ItemSpec(
    name="Gown",
    bonus=2,
    slot="armor",
    only=(_is("class", "Cleric"), _is("class", "Wizard"), _is("sex", "female")),
)


def refused(game: Game, action: object) -> RuleError:
    with pytest.raises(RuleError) as err:
        game.apply(action)  # type: ignore[arg-type]
    assert err.value.rule == "item_restricted", str(err.value)
    return err.value


def test_an_item_for_two_classes_is_refused_to_a_third(game: Game) -> None:
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainItem(player=0, item=SHIELD))  # carrying it is fine
    err = refused(game, EquipItem(player=0, item_id="i1"))
    assert str(err) == "Ann may not use Shield of Polite Refusal: Warrior or Cleric only"
    refused(game, GainItem(player=0, item=SHIELD, equip=True))
    assert game.state.players[0].strength == 1


def test_each_class_it_names_may_wear_it_and_the_bonus_stops_with_the_class(
    game: Game,
) -> None:
    game.apply(GainTrait(player=0, kind="class", name="Cleric"))
    game.apply(GainItem(player=0, item=SHIELD, equip=True))
    assert game.state.players[0].strength == 3
    game.apply(GainTrait(player=1, kind="class", name="Warrior"))
    game.apply(GainItem(player=1, item=SHIELD, equip=True))
    assert game.state.players[1].strength == 3
    state = game.apply(LoseTrait(player=0, kind="class", name="Cleric"))
    ann = state.players[0]
    assert ann.items[0].equipped and not ann.counts(ann.items[0]) and ann.strength == 1


def test_an_item_not_for_a_class_is_refused_to_it_unless_a_one_class_super_munchkin(
    game: Game,
) -> None:
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainItem(player=0, item=HELMET))
    err = refused(game, EquipItem(player=0, item_id="i1"))
    assert str(err) == "Ann may not use Helmet: not for Wizard"
    # Super Munchkin with one class: none of the class's disadvantages.
    game.apply(SetTraitBoost(player=0, kind="class"))
    state = game.apply(EquipItem(player=0, item_id="i1"))
    assert state.players[0].strength == 4
    # A second class ends that: the helmet is worn but no longer counts.
    state = game.apply(GainTrait(player=0, kind="class", name="Thief"))
    assert state.players[0].strength == 1
    # Anyone else wears it.
    game.apply(GainItem(player=1, item=HELMET, equip=True))
    assert game.state.players[1].strength == 4


def test_several_races_and_a_sex_beside_classes(game: Game) -> None:
    game.apply(GainItem(player=0, item=BOOTS))
    refused(game, EquipItem(player=0, item_id="i1"))  # Ann is Human
    game.apply(GainTrait(player=0, kind="race", name="Dwarf"))
    assert game.apply(EquipItem(player=0, item_id="i1")).players[0].strength == 2
    # Cleric or Wizard, and female too: Bo is a male Cleric, Ann a female Wizard.
    game.apply(GainTrait(player=1, kind="class", name="Cleric"))
    game.apply(GainItem(player=1, item=GOWN))
    err = refused(game, EquipItem(player=1, item_id="i2"))
    assert str(err) == "Bo may not use Gown: Cleric or Wizard only; female only"
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainItem(player=0, item=GOWN, equip=True))
    assert game.state.players[0].strength == 4


def test_the_limits_in_words() -> None:
    assert item_limits(ItemSpec(name="Stick")) is None
    assert item_limits(SHIELD) == "Warrior or Cleric only"
    three = ItemSpec(
        name="Staff",
        only=tuple(_is("class", n) for n in ("Warrior", "Cleric", "Thief")),
        not_for=(_is("race", "Elf"), _is("race", "Dwarf")),
    )
    words = item_limits(three)
    assert words == "Warrior or Cleric or Thief only; not for Elf or Dwarf"
    spoken = words.spoken(lambda t: t.replace("only", "ONLY"), None, lambda k, v: f"<{v}>")  # type: ignore[union-attr]
    assert spoken == "<Warrior> or <Cleric> or <Thief> ONLY; not for <Elf> or <Dwarf>"


def test_a_saved_item_that_asked_for_one_trait_reads_as_only_that_trait() -> None:
    saved = {"name": "Wand", "bonus": 3, "requires": {"kind": "class", "value": "Wizard"}}
    assert ItemSpec.model_validate(saved).only == (_is("class", "Wizard"),)
    assert ItemSpec.model_validate({"name": "Rock", "requires": None}).only == ()
    assert "requires" not in ItemSpec.model_validate(saved).model_dump()
