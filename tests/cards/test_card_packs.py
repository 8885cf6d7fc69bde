"""The built-in packs and edition files: valid, big enough to play-test, matching the engine."""

from __future__ import annotations

from collections import Counter

from companion.cards import builtin_cards_dir, load_all, load_database, load_editions, read_pack
from companion.core import EDITIONS


def test_built_in_packs_have_no_problems() -> None:
    result = load_all(user=False)
    assert result.problems == ()
    assert {loaded.pack.pack.id for loaded in result.packs} == {
        "generic-doors",
        "generic-treasures",
        "generic-characters",
    }


def test_generic_pack_is_big_enough_for_real_play_testing() -> None:
    kinds = Counter(card.kind for card in load_database(user=False))
    assert kinds["monster"] >= 40
    assert kinds["item"] >= 40  # every treasure of the generic pack is an item
    for kind in ("enhancer", "class", "race", "role", "ally", "style", "curse"):
        assert kinds[kind] >= 1, kind


def test_generic_monsters_use_every_kind_of_modifier() -> None:
    monsters = [card for card in load_database(user=False) if card.kind == "monster"]
    conditions = {m.condition[0] for mon in monsters for m in mon.modifiers if m.condition}
    assert conditions >= {"class", "race", "sex"}
    assert any(m.per_empty_hand for mon in monsters for m in mon.modifiers)
    assert any(mon.run_away_modifier < 0 for mon in monsters)
    assert any(mon.levels_per_kill == 2 for mon in monsters)
    assert {"undead", "demon"} <= {tag for mon in monsters for tag in mon.tags}
    assert any(mon.bad_stuff.death for mon in monsters)
    assert any(mon.bad_stuff.lose_items for mon in monsters)
    assert any(mon.pursues_above_level for mon in monsters)


def test_every_card_says_something_in_its_own_words() -> None:
    for card in load_database(user=False):
        assert card.text.strip(), card.id


def test_edition_files_are_the_engine_editions() -> None:
    assert load_editions() == EDITIONS
    assert set(load_editions()) == {"classic", "fu", "oz", "adventure_time", "disney"}


def test_pack_files_are_named_after_their_pack() -> None:
    for path in sorted((builtin_cards_dir() / "packs").glob("*.toml")):
        assert read_pack(path).pack.pack.id == path.stem
