"""The second reading of the rules (RULES.md §11): games played by the rulebooks, written as
game logs (docs/game-log.md), each ending where a careful table caught the engine.

A test is a log: a setup and its actions, as a saved game holds them. `play` replays it with
every rule checked; `refused` says which rule stops the action after it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core import Game, check_player_count
from companion.core.errors import RuleError
from companion.core.in_words import describe
from companion.core.log_versions import LOG_FORMAT, LOG_VERSION, read_actions

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = (
    ("Ann", "female"),
    ("Bo", "male"),
    ("Cy", "none"),
    ("Di", "female"),
    ("Ed", "male"),
    ("Flo", "female"),
    ("Gus", "male"),
    ("Hal", "none"),
)


def log(actions: list[dict], edition: str = "classic", players: int = 3, **setup: object) -> dict:
    """A game log of `players` seats in `edition`, as a file holds it."""
    seats = [
        {"name": name, "colour": f"#{n + 1:02x}0000", "sex": sex}
        for n, (name, sex) in enumerate(PEOPLE[:players])
    ]
    return {
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "setup": {"players": seats, "edition": edition, **setup},
        "actions": actions,
    }


def play(actions: list[dict], **setup: object) -> Game:
    """The game the log plays, every rule checked (a broken rule fails the test)."""
    return Game.from_dict(log(actions, **setup))


def refused(game: Game, action: dict) -> RuleError:
    """The rule that stops `action` next in `game`."""
    (parsed,) = read_actions(LOG_VERSION, [action])
    with pytest.raises(RuleError) as err:
        game.apply(parsed)
    return err.value


def said(game: Game) -> str:
    """The History's sentence for the last action."""
    return describe(game.log[-1], game.state_at(game.revision - 1))


def allowed(game: Game, action: dict) -> Game:
    (parsed,) = read_actions(LOG_VERSION, [action])
    game.apply(parsed)
    return game


# --- 13. the same game is the same text in every process -----------------------------------

MANY_TAGS = {
    "name": "Ghoul of Many Names",
    "level": 8,
    "tags": ["undead", "demon", "plant", "dragon", "lawyer", "wet", "noisy", "flying"],
}
_EXPORT = """
import sys
from companion.core import Game
game = Game.from_json(sys.stdin.read())
print(game.to_json(indent=None))
print(game.state.model_dump_json())
"""


def _exported(text: str, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", _EXPORT],
        input=text.encode(),
        capture_output=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    return done.stdout


def test_one_game_exports_the_same_bytes_whatever_the_string_hashing() -> None:
    # A monster with many tags, two fighters with their Level only: sets in the log and in
    # the state it folds to.
    text = json.dumps(
        log(
            [
                {"type": "start_combat", "fighter": 0, "monsters": [MANY_TAGS]},
                {"type": "add_helper", "helper": 1},
                {"type": "fight_with_level_only", "player": 1, "on": True},
                {"type": "fight_with_level_only", "player": 0, "on": True},
            ]
        )
    )
    exports = {_exported(text, seed) for seed in ("1", "2", "3", "4")}
    assert len(exports) == 1
    (export,) = exports
    game_log = json.loads(export.decode().splitlines()[0])
    assert game_log["actions"][0]["monsters"][0]["tags"] == sorted(MANY_TAGS["tags"])


# --- 3. when the turn has passed -----------------------------------------------------------

GOLDEN_POT = {"name": "Golden Pot", "gold": 1000}
SWORD = {"name": "Sword", "bonus": 2, "slot": "hands", "hands": 1}
AFTER_CHARITY = [
    {"type": "gain_item", "player": 0, "item": GOLDEN_POT},
    {"type": "gain_item", "player": 0, "item": SWORD},
    {"type": "advance_phase"},
    {"type": "advance_phase"},
    {"type": "charity", "giver": 0, "cards": 2},
]


def test_once_charity_is_given_the_giver_neither_sells_fights_nor_gives_again() -> None:
    game = play(AFTER_CHARITY)
    for action in (
        {"type": "sell_items", "player": 0, "item_ids": ["i1"]},
        {"type": "start_combat", "fighter": 0, "monsters": [{"name": "Newt", "level": 1}]},
        {"type": "charity", "giver": 0, "cards": 1},
    ):
        err = refused(game, action)
        assert err.rule == "turn_over", action
        assert str(err) == "Charity ends the turn: the next player's turn begins"


def test_after_charity_gear_changes_as_anyone_may_out_of_combat_and_play_passes_on() -> None:
    # Changing what one wears is open to every player out of combat, not only on their turn.
    game = play([*AFTER_CHARITY, {"type": "equip_item", "player": 0, "item_id": "i2"}])
    assert game.state.players[0].strength == 3
    allowed(game, {"type": "end_turn"})
    allowed(game, {"type": "gain_item", "player": 1, "item": GOLDEN_POT})
    assert allowed(game, {"type": "sell_items", "player": 1, "item_ids": ["i3"]})
    assert game.state.players[1].level == 2


def test_before_charity_is_done_the_player_may_still_sell_in_the_charity_phase() -> None:
    game = play([*AFTER_CHARITY[:-1], {"type": "sell_items", "player": 0, "item_ids": ["i1"]}])
    assert game.state.players[0].level == 2


def test_a_game_saved_under_rules_3_that_sold_after_charity_replays_as_played() -> None:
    sold_late = [*AFTER_CHARITY, {"type": "sell_items", "player": 0, "item_ids": ["i1"]}]
    game = play(sold_late, rules=3)
    assert game.state.players[0].level == 2


# --- 5. bribes are not trades ---------------------------------------------------------------

HELMET = {"name": "Helmet of Courage", "bonus": 1, "slot": "headgear"}
BRIBING = [
    {"type": "gain_item", "player": 0, "item": HELMET, "equip": True},
    {"type": "gain_item", "player": 0, "item": GOLDEN_POT},
    {"type": "start_combat", "fighter": 0, "monsters": [{"name": "Big Newt", "level": 6}]},
]


def test_inside_a_fight_the_fighter_may_bribe_a_helper_with_an_item_but_not_trade_it() -> None:
    game = play(BRIBING)
    assert refused(game, {"type": "trade_item", "giver": 0, "receiver": 1, "item_id": "i2"}).rule
    game = play(
        [
            *BRIBING,
            {"type": "bribe", "helper": 1, "item_id": "i2"},
            {"type": "add_helper", "helper": 1},
            {"type": "bribe", "helper": 1, "item_id": "i1"},
        ]
    )
    ann, bo = game.state.players[:2]
    assert [i.spec.name for i in bo.items] == ["Golden Pot", "Helmet of Courage"]
    assert not ann.items and not any(i.equipped for i in bo.items)
    assert game.state.combat is not None and game.state.combat.players_strength == 1 + 1
    assert said(game) == "Ann gives Helmet of Courage to Bo for their help"


def test_a_bribe_is_the_fighters_to_give_and_only_while_the_fight_can_change() -> None:
    game = play(BRIBING)
    assert refused(game, {"type": "bribe", "helper": 0, "item_id": "i2"}).rule == "help_self"
    assert refused(game, {"type": "bribe", "helper": 1, "item_id": "i9"}).rule == "no_such_item"
    out_of_combat = play(BRIBING[:2])
    assert refused(out_of_combat, {"type": "bribe", "helper": 1, "item_id": "i2"}).rule == (
        "no_combat"
    )


# --- 11. shared victory shares the fighter's win ---------------------------------------------

SHARED = {"variants": {"shared_victory": True}}


def _helped_kill(fighter_level: int, helper_level: int) -> list[dict]:
    return [
        {"type": "gain_trait", "player": 1, "kind": "race", "name": "Elf"},
        {"type": "set_level", "player": 0, "level": fighter_level},
        {"type": "set_level", "player": 1, "level": helper_level},
        {"type": "start_combat", "fighter": 0, "monsters": [{"name": "Newt", "level": 1}]},
        {"type": "add_helper", "helper": 1},
        {"type": "resolve_combat", "outcome": "kill"},
    ]


def test_a_helper_who_reaches_level_10_by_their_own_reward_wins_alone() -> None:
    game = play(_helped_kill(fighter_level=3, helper_level=9), **SHARED)
    assert game.state.winners == (1,)
    assert [p.level for p in game.state.players[:2]] == [4, 10]


def test_a_helped_kill_that_wins_for_the_fighter_wins_for_the_helper_too() -> None:
    game = play(_helped_kill(fighter_level=9, helper_level=9), **SHARED)
    assert sorted(game.state.winners) == [0, 1]
    game = play(_helped_kill(fighter_level=9, helper_level=3), **SHARED)
    assert sorted(game.state.winners) == [0, 1]


def test_a_game_saved_under_rules_3_keeps_the_win_it_shared() -> None:
    game = play(_helped_kill(fighter_level=3, helper_level=9), rules=3, **SHARED)
    assert sorted(game.state.winners) == [0, 1]


# --- 6. Steeds (classic) ----------------------------------------------------------------------

MULE = {"name": "Grumpy Mule", "big": True, "steed": True, "run_away_bonus": -1, "bonus": 1}
PONY = {"name": "Quick Pony", "steed": True, "run_away_bonus": 2}
LADDER = {"name": "Long Ladder", "big": True, "bonus": 2}
RIDING = [
    {"type": "gain_trait", "player": 0, "kind": "race", "name": "Elf"},
    {"type": "gain_item", "player": 0, "item": LADDER, "equip": True},
    {"type": "gain_item", "player": 0, "item": MULE, "equip": True},
]


def test_a_big_steed_carries_itself_but_only_one_steed_is_in_play() -> None:
    game = play(RIDING)
    assert [i.spec.name for i in game.state.players[0].items] == ["Long Ladder", "Grumpy Mule"]
    err = refused(game, {"type": "gain_item", "player": 0, "item": PONY})
    assert (err.rule, str(err)) == ("one_steed", "Ann can have only one Steed in play")
    # A second Big item that is no Steed is still one too many.
    assert refused(game, {"type": "gain_item", "player": 0, "item": LADDER}).rule == (
        "one_big_item"
    )
    # Nor can a Steed be handed to someone who has one.
    game = play([*RIDING, {"type": "gain_item", "player": 1, "item": PONY}])
    err = refused(game, {"type": "trade_item", "giver": 0, "receiver": 1, "item_id": "i2"})
    assert err.rule == "one_steed"


def test_the_steeds_run_away_number_replaces_the_riders_penalty_included() -> None:
    # The Elf's +1 goes while the mule is ridden; the mule's -1 counts in its place.
    game = play(RIDING)
    assert game.state.players[0].total_run_away_bonus == -1
    run = [
        {"type": "start_combat", "fighter": 0, "monsters": [{"name": "Troll", "level": 20}]},
        {"type": "run_away", "fighter": 0, "monster": 0, "roll": 5},
    ]
    game = play([*RIDING, *run])
    (roll,) = game.state.last_combat.rolls
    assert not roll.escaped
    # A Steed with no number of its own still takes the rider's place: the Elf rolls bare.
    plain = {"name": "Old Cart Horse", "steed": True}
    game = play([*RIDING[:1], {"type": "gain_item", "player": 0, "item": plain, "equip": True}])
    assert game.state.players[0].total_run_away_bonus == 0


def test_a_game_saved_under_rules_3_keeps_its_steeds_as_they_were() -> None:
    # Then a Steed's penalty was lost and the rider kept their own bonus.
    game = play([RIDING[0], RIDING[2]], rules=3)
    assert game.state.players[0].total_run_away_bonus == 1


# --- 9. powers that belong to the monster ------------------------------------------------------

STERN = {"name": "Stern Examiner", "level": 7, "level_only": True}
ARMED = [
    {"type": "set_level", "player": 0, "level": 4},
    {"type": "set_level", "player": 1, "level": 3},
    {"type": "gain_item", "player": 0, "item": SWORD, "equip": True},
    {"type": "gain_item", "player": 1, "item": SWORD, "equip": True},
]


def test_a_monster_that_counts_level_only_binds_a_helper_who_joins_later() -> None:
    game = play([*ARMED, {"type": "start_combat", "fighter": 0, "monsters": [STERN]}])
    assert game.state.combat.players_strength == 4
    allowed(game, {"type": "add_helper", "helper": 1})
    combat = game.state.combat
    assert (combat.fighter_strength, combat.helper_strength) == (4, 3)
    assert not combat.fighters_winning  # 7 against 7: the monster wins ties


def test_the_power_comes_with_a_monster_that_joins_and_goes_with_it() -> None:
    newt = {"name": "Newt", "level": 1}
    game = play(
        [
            *ARMED,
            {"type": "start_combat", "fighter": 0, "monsters": [newt]},
            {"type": "add_helper", "helper": 1},
            {"type": "add_monster", "monster": STERN},
        ]
    )
    assert game.state.combat.players_strength == 4 + 3
    allowed(game, {"type": "remove_monster", "monster": 1})
    assert game.state.combat.players_strength == 6 + 5


def test_a_card_on_one_fighter_still_binds_that_fighter_alone() -> None:
    game = play(
        [
            *ARMED,
            {"type": "start_combat", "fighter": 0, "monsters": [{"name": "Newt", "level": 1}]},
            {"type": "fight_with_level_only", "player": 0},
            {"type": "add_helper", "helper": 1},
        ]
    )
    assert (game.state.combat.fighter_strength, game.state.combat.helper_strength) == (4, 5)


# --- 12. player counts per edition -------------------------------------------------------------


@pytest.mark.parametrize("edition", ["classic", "fu", "oz", "adventure_time", "disney"])
@pytest.mark.parametrize("players", [2, 7, 8])
def test_two_or_seven_to_eight_players_need_the_house_rule_chosen_at_new_game(
    edition: str, players: int
) -> None:
    game = play([], edition=edition, players=players)
    with pytest.raises(RuleError) as err:
        check_player_count(game.setup)
    assert err.value.rule == "player_count"
    assert str(err.value) == (
        f"The box is for 3 to 6 players: {players} play only by the house rule"
    )
    house = play([], edition=edition, players=players, variants={"house_player_count": True})
    check_player_count(house.setup)
    assert house.to_dict()["setup"]["variants"]["house_player_count"] is True


@pytest.mark.parametrize("players", [3, 6])
def test_three_to_six_play_by_the_box(players: int) -> None:
    check_player_count(play([], edition="oz", players=players).setup)


def test_a_game_saved_before_rules_4_is_never_asked_for_the_house_rule() -> None:
    check_player_count(play([], players=2, rules=3).setup)


# --- 1. Munchkin Fu's Styles are cards of the deck ------------------------------------------

NOODLE = {"type": "gain_trait", "player": 0, "kind": "style", "name": "Flailing Noodle Style"}
TORTOISE = {
    "type": "gain_trait",
    "player": 0,
    "kind": "style",
    "name": "Snoring Tortoise Style",
    "bonus": 3,
    "run_away": -1,
}


def test_any_style_card_of_the_deck_is_a_style_of_the_martial_arts_edition() -> None:
    game = play(
        [
            {"type": "gain_trait", "player": 0, "kind": "class", "name": "Monk"},
            {**NOODLE, "bonus": 2},
            TORTOISE,  # a Monk keeps two Styles
            {
                "type": "start_combat",
                "fighter": 0,
                "monsters": [{"name": "Paper Tiger", "level": 5}],
            },
        ],
        edition="fu",
    )
    ann = game.state.players[0]
    assert ann.styles == ("Flailing Noodle Style", "Snoring Tortoise Style")
    assert game.state.combat.players_strength == 1 + 2 + 3
    assert ann.total_run_away_bonus == -1
    # A Style goes any time, even in combat, and its advantages with it.
    allowed(game, {"type": "lose_trait", "player": 0, "kind": "style", "name": TORTOISE["name"]})
    assert game.state.combat.players_strength == 1 + 2
    assert game.state.players[0].total_run_away_bonus == 0
    third = {**NOODLE, "name": "Polite Bow Style"}
    allowed(game, third)
    assert refused(game, {**third, "name": "Angry Teapot Style"}).rule == "trait_limit"


def test_one_style_at_a_time_for_anyone_but_a_monk() -> None:
    game = play([NOODLE], edition="fu")
    assert refused(game, TORTOISE).rule == "trait_limit"


def test_styles_stay_a_closed_list_where_an_edition_has_none_or_an_old_save_named_them() -> None:
    assert refused(play([]), NOODLE).rule == "no_such_trait"  # classic has no Style cards
    fu = play([], edition="fu").setup.edition.model_dump(mode="json")
    del fu["open_traits"]  # a martial-arts game saved before: its edition as it was written
    old = Game.from_dict(log([], edition=fu, rules=3), saved=True)
    assert refused(old, NOODLE).rule == "no_such_trait"


# --- the example log of the second reading -----------------------------------------------------

EXAMPLE = ROOT / "docs" / "examples" / "second-reading.json"


def test_the_second_reading_example_replays_as_its_notes_say() -> None:
    """docs/examples/second-reading.json: a bribe inside a fight, a Big Steed beside a Big
    item whose penalty catches its rider, a monster whose Level-only power binds the helper
    who joined, and an Elf helper who wins alone under shared victory."""
    game = Game.from_json(EXAMPLE.read_text(encoding="utf-8"))
    fled = game.state_at(9).last_combat
    assert fled is not None and [(r.fighter, r.escaped) for r in fled.rolls] == [
        (0, False),
        (1, True),
    ]
    assert game.state_at(7).combat.players_strength == 2  # both count their Level only
    state = game.state
    assert [i.spec.name for i in state.players[1].items] == ["Golden Pot"]
    assert [p.level for p in state.players] == [1, 10, 2] and state.winners == (1,)


# --- 8. Allies: whose sacrifice frees whom ------------------------------------------------------

TROLL_FIGHT = [
    {"type": "set_ally", "player": 0, "ally": {"name": "Loyal Squire", "bonus": 1}},
    {"type": "set_ally", "player": 1, "ally": {"name": "Old Pal", "bonus": 1}},
    {"type": "start_combat", "fighter": 0, "monsters": [{"name": "Troll", "level": 20}]},
    {"type": "add_helper", "helper": 1},
]


def test_a_helpers_sacrifice_frees_the_helper_alone() -> None:
    game = play(TROLL_FIGHT)
    pal = {"type": "sacrifice_ally", "player": 1, "partner_escapes": True}
    assert refused(game, pal).rule == "helper_sacrifice"
    allowed(game, {**pal, "partner_escapes": False})
    assert game.state.combat is not None and game.state.combat.escaped == frozenset({1})


def test_the_fighters_sacrifice_frees_the_helper_if_the_fighter_says_so() -> None:
    game = play([*TROLL_FIGHT, {"type": "sacrifice_ally", "player": 0, "partner_escapes": True}])
    assert game.state.combat is None and game.state.last_combat.outcome == "ran_away"


def test_a_game_saved_under_rules_3_keeps_a_helpers_sacrifice_that_freed_both() -> None:
    freed = {"type": "sacrifice_ally", "player": 1, "partner_escapes": True}
    game = play([*TROLL_FIGHT, freed], rules=3)
    assert game.state.combat is None


# --- 10. compelled and voluntary help -------------------------------------------------------

NEWT = {"name": "Newt", "level": 1}
GIANT = {"name": "Giant Newt", "level": 1, "levels_per_kill": 7}


def _fight(level: int) -> list[dict]:
    return [
        {"type": "set_level", "player": 0, "level": level},
        {"type": "start_combat", "fighter": 0, "monsters": [NEWT]},
    ]


@pytest.mark.parametrize("edition", ["classic", "disney"])
def test_nobody_is_made_to_help_in_a_fight_for_the_win(edition: str) -> None:
    game = play(_fight(9), edition=edition)
    compelled = {"type": "add_helper", "helper": 1, "compelled": True}
    assert refused(game, compelled).rule == "compelled_for_win"
    allowed(game, {"type": "add_helper", "helper": 1})  # a volunteer may
    game = play([*_fight(3), compelled], edition=edition)
    assert game.state.combat.compelled
    assert said(game) == "A card makes Bo help"


def test_a_compelled_helper_may_back_out_once_the_fight_is_for_the_win_a_volunteer_never() -> None:
    made = play(
        [*_fight(3), {"type": "add_helper", "helper": 1, "compelled": True}], edition="disney"
    )
    err = refused(made, {"type": "remove_helper"})
    assert err.rule == "helper_stays" and "made to help" in str(err)
    allowed(made, {"type": "add_monster", "monster": GIANT})  # now a win: 3 + 8 levels
    allowed(made, {"type": "remove_helper"})
    volunteer = play(
        [
            *_fight(3),
            {"type": "add_helper", "helper": 1},
            {"type": "add_monster", "monster": GIANT},
        ],
        edition="disney",
    )
    assert refused(volunteer, {"type": "remove_helper"}).rule == "helper_stays"


# --- 2. class abilities by edition -------------------------------------------------------------


def test_the_emerald_lands_wizard_charms_a_monster_away_even_while_helping() -> None:
    """The Charm Spell: the whole hand, three cards at least, takes one monster out of the
    fight; no level for it, and its treasure is won, as the card says. A helper's class
    works in the fight they help."""
    game = play(
        [
            {"type": "gain_trait", "player": 1, "kind": "class", "name": "Wizard"},
            {
                "type": "start_combat",
                "fighter": 0,
                "monsters": [
                    {"name": "Flying Monkey", "level": 1, "treasure": 1},
                    {"name": "Winkie Guard", "level": 12, "treasure": 3},
                ],
            },
            {"type": "add_helper", "helper": 1},
        ],
        edition="oz",
    )
    assert refused(game, {"type": "charm", "player": 1, "monster": 1, "cards": 2}).rule == (
        "charm_cards"
    )
    allowed(game, {"type": "charm", "player": 1, "monster": 1, "cards": 3})
    allowed(game, {"type": "resolve_combat", "outcome": "kill"})
    result = game.state.last_combat
    assert (result.levels, result.treasure) == (1, 1 + 3)
    assert game.state.players[0].level == 2


def test_a_professor_of_the_emerald_land_has_no_charm() -> None:
    game = play(
        [
            {"type": "gain_trait", "player": 0, "kind": "class", "name": "Professor"},
            {"type": "start_combat", "fighter": 0, "monsters": [NEWT]},
        ],
        edition="oz",
    )
    assert refused(game, {"type": "charm", "player": 0, "monster": 0, "cards": 4}).rule


# --- 7. a lost allowance: extra Big items are sold, given, then discarded -------------------------

PLANK = {"name": "Door Plank", "bonus": 2, "big": True, "gold": 400}
ANVIL = {"name": "Golden Anvil", "bonus": 1, "big": True, "gold": 1200}
DWARF = [
    {"type": "gain_trait", "player": 2, "kind": "race", "name": "Dwarf"},
    {"type": "gain_item", "player": 2, "item": PLANK},
    {"type": "gain_item", "player": 2, "item": ANVIL},
]
NO_DWARF = {"type": "lose_trait", "player": 2, "kind": "race", "name": "Dwarf", "drop": ["i2"]}


def test_on_their_turn_out_of_a_fight_the_former_dwarf_sells_the_extra_big_item() -> None:
    game = play([*DWARF, {"type": "end_turn"}, {"type": "end_turn"}, NO_DWARF])
    cy = game.state.players[2]
    assert [i.spec.name for i in cy.items] == ["Door Plank"] and cy.level == 2


def test_otherwise_it_goes_to_the_lowest_level_player_who_can_carry_it() -> None:
    # Bo is lowest but carries a Big item already; Ann can take it.
    game = play(
        [
            *DWARF,
            {"type": "set_level", "player": 0, "level": 3},
            {"type": "gain_item", "player": 1, "item": PLANK},
            NO_DWARF,
        ]
    )
    ann, bo, cy = game.state.players[:3]
    assert [i.spec.name for i in ann.items] == ["Golden Anvil"]
    assert len(bo.items) == 1 and [i.spec.name for i in cy.items] == ["Door Plank"]
    assert cy.level == 1


def test_only_what_nobody_can_carry_is_discarded() -> None:
    game = play(
        [
            *DWARF,
            {"type": "gain_item", "player": 0, "item": PLANK},
            {"type": "gain_item", "player": 1, "item": PLANK},
            NO_DWARF,
        ]
    )
    assert [len(p.items) for p in game.state.players] == [1, 1, 1]


def test_a_game_saved_under_rules_3_discarded_the_extra_big_item() -> None:
    game = play([*DWARF, NO_DWARF], rules=3)
    assert [len(p.items) for p in game.state.players] == [0, 0, 1]


# --- 7. what goes with a lost allowance goes too (rules 5) ------------------------------------

SUPER_MONK = [
    {"type": "gain_trait", "player": 0, "kind": "class", "name": "Monk"},
    {"type": "set_trait_boost", "player": 0, "kind": "class"},
    {"type": "gain_trait", "player": 0, "kind": "class", "name": "Samurai"},
    {"type": "gain_trait", "player": 0, "kind": "style", "name": "Crane"},
    {"type": "gain_trait", "player": 0, "kind": "style", "name": "Tiger"},
]


def no_super_munchkin(*drop: str) -> dict:
    return {"type": "set_trait_boost", "player": 0, "kind": "class", "on": False, "drop": drop}


def test_losing_super_munchkin_and_the_monk_class_takes_the_second_style_too() -> None:
    game = play(SUPER_MONK, edition="fu")
    err = refused(game, no_super_munchkin("Monk"))
    assert err.rule == "allowance_gone"
    assert str(err) == "Ann may have only one style now: choose what to give up (Crane or Tiger)"
    allowed(game, no_super_munchkin("Monk", "Tiger"))
    ann = game.state.players[0]
    assert (ann.classes, ann.styles, ann.super_munchkin) == (("Samurai",), ("Crane",), False)


def test_keeping_the_monk_keeps_both_styles() -> None:
    game = allowed(play(SUPER_MONK, edition="fu"), no_super_munchkin("Samurai"))
    ann = game.state.players[0]
    assert (ann.classes, ann.styles) == (("Monk",), ("Crane", "Tiger"))


def test_the_app_is_asked_the_second_style_once_the_class_is_picked() -> None:
    from companion.core import allowance_questions

    state = play(SUPER_MONK, edition="fu").state
    [first] = allowance_questions(state, 0, boost_off="class")
    assert (first.what, first.count) == ("class", 1)
    [then] = allowance_questions(state, 0, boost_off="class", picks=("Monk",))
    assert (then.what, then.options, then.count) == (
        "style",
        (("Crane", "Crane"), ("Tiger", "Tiger")),
        1,
    )
    assert allowance_questions(state, 0, boost_off="class", picks=("Monk", "Crane")) == ()
    assert allowance_questions(state, 0, boost_off="class", picks=("Samurai",)) == ()


def test_a_game_of_rules_4_kept_the_second_style_as_it_was_played() -> None:
    game = allowed(play(SUPER_MONK, edition="fu", rules=4), no_super_munchkin("Monk"))
    assert game.state.players[0].styles == ("Crane", "Tiger")


NO_DWARF_PLANK = {**NO_DWARF, "drop": ["i1"]}  # the 400-gold Door Plank goes, not the Anvil


def test_a_big_item_worth_under_1000_gold_is_given_not_sold_for_nothing() -> None:
    # Cy's own turn, no fight: a sale of 400 gold buys no level, so the Plank goes to the
    # lowest-Level player who can carry it, first to Cy's left (Ann and Bo are tied).
    game = play([*DWARF, {"type": "end_turn"}, {"type": "end_turn"}, NO_DWARF_PLANK])
    ann, bo, cy = game.state.players
    assert [i.spec.name for i in ann.items] == ["Door Plank"] and bo.items == ()
    assert [i.spec.name for i in cy.items] == ["Golden Anvil"] and cy.level == 1


def test_under_rules_4_the_plank_was_sold_for_nothing() -> None:
    game = play([*DWARF, {"type": "end_turn"}, {"type": "end_turn"}, NO_DWARF_PLANK], rules=4)
    assert [len(p.items) for p in game.state.players] == [0, 0, 1]


def test_tied_lowest_players_get_one_big_item_each_from_the_owners_left() -> None:
    # Bo's turn: Cy gives up both Big items (a card took the Dwarf and Cy's boost, say,
    # with an override carrying none): Ann, first to Cy's left, takes the first; Bo, with
    # no room left at Ann's, the second.
    game = play(
        [
            *DWARF,
            {"type": "end_turn"},
            {"type": "gain_item", "player": 2, "item": PLANK},
            {**NO_DWARF, "drop": ["i1", "i3"]},
        ]
    )
    ann, bo, cy = game.state.players
    assert [i.id for i in ann.items] == ["i1"] and [i.id for i in bo.items] == ["i3"]
    assert [i.spec.name for i in cy.items] == ["Golden Anvil"]


def test_giving_up_the_dwarf_with_half_breed_gives_up_the_extra_big_item_too() -> None:
    half_dwarf = [
        *DWARF,
        {"type": "set_trait_boost", "player": 2, "kind": "race"},
        {"type": "gain_trait", "player": 2, "kind": "race", "name": "Elf"},
    ]
    no_half_breed = {"type": "set_trait_boost", "player": 2, "kind": "race", "on": False}
    game = play(half_dwarf)
    err = refused(game, {**no_half_breed, "drop": ["Dwarf"]})
    assert err.rule == "allowance_gone" and "only one Big item" in str(err)
    allowed(game, {**no_half_breed, "drop": ["Dwarf", "i2"]})  # not Cy's turn: Ann takes it
    ann, _bo, cy = game.state.players
    assert cy.races == ("Elf",) and [i.spec.name for i in cy.items] == ["Door Plank"]
    assert [i.spec.name for i in ann.items] == ["Golden Anvil"]
