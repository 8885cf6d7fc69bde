"""What the Combat screen shows, as plain values (`combat_view`): no window, no Kivy."""

from __future__ import annotations

import subprocess
import sys

from companion.core import (
    CLASSIC,
    DISNEY,
    AddEnhancer,
    BadStuff,
    ChangeHelper,
    Edition,
    EndTurn,
    EnhancerSpec,
    GainTrait,
    Game,
    GameSetup,
    MonsterSpec,
    PlayerSetup,
    ResolveCombat,
    RuleError,
    RunAway,
    SetLevel,
    SetWinsTies,
    Sex,
    StartCombat,
    describe,
)
from companion.ui.abilities import combat_offers
from companion.ui.screens.combat_view import (
    Check,
    combat_buttons,
    combat_view,
    helper_choices,
    last_result,
    run_problem,
)

NAMES = ("Ann", "Bo", "Cy")


def make_game(edition: Edition = CLASSIC) -> Game:
    players = tuple(PlayerSetup(name=name, colour="#ff0000", sex=Sex.FEMALE) for name in NAMES)
    return Game(GameSetup(players=players, edition=edition))


def fight(game: Game, *levels: int, fighter: int = 0) -> None:
    monsters = tuple(MonsterSpec(name=f"Blob {level}", level=level) for level in levels)
    game.apply(StartCombat(fighter=fighter, monsters=monsters))


def test_before_a_fight_only_the_fighter_and_the_levels_are_on_offer() -> None:
    game = make_game()
    game.apply(SetLevel(player=1, level=4))
    view = combat_view(game.state, game.check, fighter=1, helper_share=3, helper_first=True)
    assert not view.active
    assert view.fighter == 1 and view.fighter_enabled
    assert view.fighter_text == "Fighter: Bo"
    assert view.helper_text == "Helper: nobody"
    assert view.players_strength == 4 and view.monsters_strength == 0
    assert view.verdict == "Tap a monster's level to start the fight."
    assert view.verdict_tone == "surface"
    assert (view.has_helper, view.helper_share, view.helper_first) == (False, 0, False)
    assert view.monsters == () and view.abilities == () and not view.has_abilities
    assert view.abilities_caption == "" and not view.add_caption
    assert view.rewards == "" and view.result_text == view.rewards_text == ""
    assert not view.effects_enabled
    assert view.wins_ties_text == "Players win ties (e.g. Warrior): off"
    assert view.level_only_text == "Fighter counts Level only: off"
    buttons = view.buttons
    assert buttons.verdict_text == view.verdict
    assert buttons.kill_text == "Kill!" and not buttons.kill_waits
    assert not (buttons.kill_enabled or buttons.run_enabled or buttons.defeat_enabled)


def test_a_fighter_picked_from_a_bigger_table_stays_on_it() -> None:
    game = make_game()
    view = combat_view(game.state, game.check, fighter=7)
    assert view.fighter == 2 and view.fighter_text == "Fighter: Cy"


def test_a_fight_the_players_win() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=5))
    fight(game, 3)
    game.apply(AddEnhancer(monster=0, enhancer=EnhancerSpec(name="Ancient", bonus=0, treasure=2)))
    view = combat_view(game.state, game.check, fighter=0)
    assert view.active and not view.fighter_enabled
    assert view.fighter_text == "Fighter: Ann (5)"
    assert view.players_strength == 5 and view.monsters_strength == 3
    assert view.winning and view.verdict == "Players win" and view.verdict_tone == "good"
    assert view.rewards == view.rewards_text == "Kill: 1 level, 3 treasures"
    assert [(m.title, m.detail) for m in view.monsters] == [
        ("Blob 3  \u00b7  3", "Level 3  \u00b7  Ancient  \u00b7  3 treasures")
    ]
    assert view.add_caption and view.effects_enabled
    assert not view.can_run  # winning fighters have no reason to flee: dimmed
    buttons = view.buttons
    assert buttons.kill_enabled and buttons.run_enabled and buttons.defeat_enabled
    assert buttons.verdict_text == "Players win"


def test_a_fight_the_monsters_win_refuses_the_kill() -> None:
    game = make_game()
    fight(game, 4, 2)
    assert game.check(ResolveCombat(outcome="kill")) is not None  # the rules refuse it
    view = combat_view(game.state, game.check, fighter=0)
    assert view.players_strength == 1 and view.monsters_strength == 6
    assert not view.winning and view.verdict == "Monsters win" and view.verdict_tone == "bad"
    assert view.rewards == "Run away, or play a card"
    assert [m.title for m in view.monsters] == ["Blob 4  \u00b7  4", "Blob 2  \u00b7  2"]
    assert not view.buttons.kill_enabled
    assert view.buttons.run_enabled and view.buttons.defeat_enabled


def test_a_card_that_wins_ties_shows_on_its_button() -> None:
    game = make_game()
    fight(game, 1)
    game.apply(SetWinsTies(on=True, reason="a card says so"))
    view = combat_view(game.state, game.check, fighter=0)
    assert view.wins_ties and view.wins_ties_text == "Players win ties (e.g. Warrior): on"
    assert view.winning and view.buttons.kill_enabled


def test_a_helper_and_the_share_kept_within_the_treasure() -> None:
    game = make_game()
    game.apply(SetLevel(player=2, level=3))
    fight(game, 2)
    game.apply(ChangeHelper(helper=2))
    view = combat_view(game.state, game.check, fighter=0, helper_share=5, helper_first=True)
    assert view.helper_text == "Helper: Cy (3)"
    assert view.players_strength == 4 and view.winning
    assert view.has_helper and view.helper_share == 1 and view.helper_first
    assert view.share_text == "Cy takes 1 of 1"
    # Nobody helps: no share, nobody picks first.
    game.apply(ChangeHelper(helper=None))
    view = combat_view(game.state, game.check, fighter=0, helper_share=1, helper_first=True)
    assert (view.has_helper, view.helper_share, view.helper_first) == (False, 0, False)
    assert view.share_text == ""


def test_the_helper_list_offers_the_others_alive() -> None:
    game = make_game()
    game.apply(SetLevel(player=1, level=3))
    fight(game, 2)
    game.apply(ChangeHelper(helper=2))
    choices = helper_choices(game.state)
    assert [(c.seat, c.text, c.selected) for c in choices] == [
        (None, "Nobody helps", False),
        (1, "Bo (3)", False),
        (2, "Cy (1)", True),
    ]


def test_the_countdown_turns_kill_into_wait() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=5))
    fight(game, 3)
    view = combat_view(game.state, game.check, fighter=0, countdown=2.5)
    buttons = view.buttons
    assert buttons.verdict_text == "Kill in 2.5 s"
    assert buttons.kill_text == "Wait! Interfere" and buttons.kill_waits and buttons.kill_enabled
    assert not buttons.run_enabled and not buttons.defeat_enabled
    # The countdown over, the same view shows the kill again.
    after = combat_buttons(view, countdown=0)
    assert after.kill_text == "Kill!" and after.verdict_text == "Players win"
    assert after.run_enabled and after.defeat_enabled


def test_the_steppers_and_the_sign() -> None:
    game = make_game()
    view = combat_view(game.state, game.check, fighter=0, quick_level=12, negative=True)
    buttons = view.buttons
    assert buttons.add_text == "Add a level 12 monster"
    assert buttons.shot_sign == "\u2212"
    assert buttons.shots_caption == "One-shot penalties"
    assert buttons.sign_text == "Switch to bonuses"
    plus = combat_buttons(view, quick_level=1, negative=False)
    assert (plus.shot_sign, plus.shots_caption, plus.sign_text) == (
        "+",
        "One-shot bonuses",
        "Switch to penalties",
    )
    assert combat_buttons(None).kill_enabled is False


def test_running_is_dimmed_only_when_the_rules_refuse_it() -> None:
    game = make_game()
    fight(game, 4)

    def refusing(rule: str) -> Check:
        return lambda _action: RuleError(rule, "no")

    assert combat_view(game.state, refusing("not_now"), fighter=0).can_run is False
    assert run_problem(game.state, refusing("not_now")) is not None
    # What a Bad Stuff takes is asked on the Run away screen: no refusal here.
    for asked in ("bad_stuff_choice", "allowance_gone"):
        assert combat_view(game.state, refusing(asked), fighter=0).can_run is True
    assert combat_view(game.state, game.check, fighter=0).can_run is True


def test_the_last_fight_is_told_until_the_next_one() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=5))
    fight(game, 3)
    game.apply(ChangeHelper(helper=1))
    game.apply(ResolveCombat(outcome="kill", helper_treasure=1, helper_first=True))
    text = "Killed Blob 3: +1 level, 1 treasure. Bo takes 1 and picks first."
    assert last_result(game.state) == text
    view = combat_view(game.state, game.check, fighter=0)
    assert view.result_text == view.rewards_text == text
    monster = MonsterSpec(name="Blob 1", level=1)
    game.apply(StartCombat(fighter=0, monsters=(monster,), override="A card says so"))
    view = combat_view(game.state, game.check, fighter=0)
    assert view.result_text == "" and view.rewards_text == view.rewards


def test_abilities_and_magic_quotes() -> None:
    game = make_game(DISNEY)
    fight(game, 1)
    view = combat_view(game.state, game.check, fighter=0, offers=combat_offers(game))
    quotes = [a for a in view.abilities if a.ability == "quote"]
    assert [(a.seat, a.text, a.usable) for a in quotes] == [(0, "Ann: Magic quote", True)]
    assert view.has_abilities and view.abilities_caption == "Abilities and Magic"


def test_an_ability_the_rules_refuse_is_dimmed() -> None:
    game = make_game()
    game.apply(GainTrait(player=0, kind="class", name="Cleric"))  # no Undead to turn
    game.apply(GainTrait(player=1, kind="class", name="Thief"))
    fight(game, 1)
    view = combat_view(game.state, game.check, fighter=0, offers=combat_offers(game))
    assert [(a.seat, a.ability, a.text, a.usable) for a in view.abilities] == [
        (0, "turning", "Ann: turn Undead", False),
        (1, "backstab", "Bo: backstab", True),
    ]
    assert view.has_abilities and view.abilities_caption == "Abilities and Magic"


def test_the_view_loads_no_kivy() -> None:
    code = (
        "import sys; import companion.ui.screens.combat_view; "
        "sys.exit(any(m == 'kivy' or m.startswith('kivy.') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_the_last_fight_is_not_told_in_the_next_players_turn() -> None:
    game = make_game()
    game.apply(SetLevel(player=0, level=5))
    fight(game, 3)
    game.apply(ResolveCombat(outcome="kill"))
    assert last_result(game.state).startswith("Killed Blob 3")
    game.apply(EndTurn())
    view = combat_view(game.state, game.check, fighter=1)
    assert last_result(game.state) == "" and view.rewards_text == view.result_text == ""


def run_from(game: Game, bad_stuff: BadStuff, *rolls: int) -> None:
    """Ann (Level 1) fights Level 10 monsters with this Bad Stuff and rolls `rolls` to
    run from them, one each."""
    monsters = tuple(
        MonsterSpec(name=f"Brute {n}", level=10, bad_stuff=bad_stuff) for n in range(len(rolls))
    )
    game.apply(StartCombat(fighter=0, monsters=monsters))
    for index, roll in enumerate(rolls):
        game.apply(RunAway(fighter=0, monster=index, roll=roll))


def test_a_caught_fighter_did_not_run_away() -> None:
    game = make_game()
    run_from(game, BadStuff(lose_levels=1), 6, 1)
    assert last_result(game.state) == "Caught running away (Brute 1): the Bad Stuff hit."
    game = make_game()
    run_from(game, BadStuff(lose_levels=1), 6)
    assert last_result(game.state) == "Ran away from Brute 0."


def test_a_death_while_running_is_told_as_one() -> None:
    game = make_game()
    run_from(game, BadStuff(death=True), 2)
    assert last_result(game.state) == "Ann died running away (Brute 0)."


def test_the_history_says_a_run_away_roll_killed() -> None:
    game = make_game()
    doom = MonsterSpec(name="Doom", level=10, bad_stuff=BadStuff(death=True))
    game.apply(StartCombat(fighter=0, monsters=(doom,)))
    before = game.state
    game.apply(RunAway(fighter=0, monster=0, roll=2))
    words = describe(game.log[-1], before)
    assert words == "Ann rolls 2 to run from Doom, is caught and dies"
    assert game.state.players[0].dead
    escaped = describe(RunAway(fighter=0, monster=0, roll=6), before)
    assert escaped == "Ann rolls 6 to run from Doom"


def test_a_thief_fighting_alone_is_offered_no_backstab() -> None:
    game = make_game()
    game.apply(GainTrait(player=0, kind="class", name="Thief"))
    fight(game, 1)
    assert [(o.seat, o.ability) for o in combat_offers(game)] == []
    game.apply(ChangeHelper(helper=1))
    offers = [(o.seat, o.ability, o.usable) for o in combat_offers(game)]
    assert offers == [(0, "backstab", True)]  # the helper is someone to backstab
