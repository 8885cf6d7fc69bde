"""An evening on a 360x640 phone, in the order a table plays it: a monster's level and
then its Bad Stuff, a warning on Combat that does not follow to Run away, a die that shows
no earlier roll before the next one, ESCAPED whole in German, and the Russian sentences
of a run from a monster entered by its level."""

from __future__ import annotations

import pytest

from companion.core import BadStuff, EndTurn, MonsterSpec, ResolveCombat, SetLevel, StartCombat
from companion.ui import i18n
from tests.ui.conftest import Harness
from tests.ui.items_driving import press

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram"]


def actions(ui: Harness) -> list[str]:
    game = ui.app.session.game
    return [game.action_at(r).type for r in range(game.revision)]


def test_the_bad_stuff_tapped_after_the_level_is_that_monsters(ui: Harness) -> None:
    ui.start_game(NAMES)
    ui.nav("combat")
    combat = ui.screen("combat")
    press(ui, combat.level_buttons[12])  # the level first: the fight starts
    press(ui, combat.bad_stuff_buttons["death"])  # then its Bad Stuff
    state = ui.app.session.live_state
    assert [m.spec.bad_stuff for m in state.combat.monsters] == [BadStuff(death=True)]
    assert combat.bad_stuff_buttons["death"].selected
    assert actions(ui) == ["start_combat"]  # entered once, with its Bad Stuff
    press(ui, combat.level_buttons[3])
    press(ui, combat.bad_stuff_buttons["level"])
    state = ui.app.session.live_state
    assert [m.spec.bad_stuff for m in state.combat.monsters] == [
        BadStuff(death=True),
        BadStuff(lose_levels=1),
    ]
    assert actions(ui) == ["start_combat", "add_monster"]


def test_a_warning_on_combat_does_not_follow_to_run_away(ui: Harness) -> None:
    ui.start_game(NAMES)
    ui.nav("combat")
    combat = ui.screen("combat")
    press(ui, combat.level_buttons[12])
    ui.app.notify("The monsters are winning: you cannot kill them now.", error=True)
    assert ui.banner()
    press(ui, combat.ids.run_away)
    assert ui.app.manager.current == "run_away"
    assert ui.banner() == ""


def test_the_die_shows_no_earlier_roll_before_the_next_one(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    monster = MonsterSpec(name="Blob", level=12)
    assert session.act(StartCombat(fighter=0, monsters=(monster,)))
    ui.app.show("run_away")
    ui.pump()
    run = ui.screen("run_away")
    press(ui, run.ids.physical.children[1])  # "5": escaped
    ui.advance(1.0)
    assert run.ids.die.value == 5  # the roll just made shows
    assert session.act(EndTurn())
    ui.app.show("table")
    ui.pump()
    assert session.act(StartCombat(fighter=1, monsters=(monster,)))
    ui.app.show("run_away")
    ui.pump()
    run = ui.screen("run_away")
    assert run.ids.die.value == 0  # the next fight's run starts from a blank die
    dice = ui.app.show("dice")
    ui.pump()
    press(ui, dice.ids.roll)
    ui.advance(1.0)
    assert dice.ids.die.value
    ui.app.show("table")
    ui.pump()
    ui.app.show("dice")
    ui.pump()
    assert dice.ids.die.value == 0 and dice.value == 0 and dice.who == ""
    assert dice.recent  # the roll before is still listed


def test_escaped_is_never_broken_in_german(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    blobs = (MonsterSpec(name="Blob", level=12), MonsterSpec(name="Slug", level=12))
    assert session.act(StartCombat(fighter=0, monsters=blobs))
    try:
        i18n.set_language("de")
        ui.app.show("run_away")
        ui.pump()
        run = ui.screen("run_away")
        press(ui, run.ids.physical.children[0])  # "6": escaped
        ui.pump(frames=6)
        assert session.live_state.combat.rolls[0].escaped
        rows = [w for w in run.walk(restrict=True) if type(w).__name__ == "FleeRow"]
        verdict = next(r for r in rows if r.monster == 0).ids.verdict
        assert verdict.text == "ENTKOMMEN"
        assert len(verdict._label._cached_lines) == 1  # one line: the word is whole
        assert verdict.texture_size[0] <= verdict.width
    finally:
        i18n.set_language("en")
        ui.pump()


def test_a_run_from_a_level_monster_reads_in_russian(ui: Harness) -> None:
    ui.start_game(NAMES)
    try:
        i18n.set_language("ru")
        ui.pump()
        ui.nav("combat")
        press(ui, ui.screen("combat").level_buttons[20])
        ui.app.show("run_away")
        ui.pump()
        run = ui.screen("run_away")
        rows = [w for w in run.walk(restrict=True) if type(w).__name__ == "FleeRow"]
        assert rows[0].title == "Anna убегает от монстра 20 уровня"
        assert run.target_text.startswith("Anna убегает от монстра 20 уровня")
        assert "от Монстр" not in run.target_text
    finally:
        i18n.set_language("en")
        ui.pump()


def test_game_over_counts_a_kill_of_two_monsters_as_two(ui: Harness) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    pair = (MonsterSpec(name="Rat", level=1), MonsterSpec(name="Bat", level=1))
    assert session.act(SetLevel(player=0, level=8))
    assert session.act(StartCombat(fighter=0, monsters=pair))
    assert session.act(ResolveCombat(outcome="kill"))  # Level 10: Anna wins
    ui.pump(frames=6)
    over = ui.app.show("game_over")
    ui.pump()
    detail = over.ids.stats.children[-1].detail
    assert "2 kills" in detail
    assert over.winner_text == "Anna has won!"


def test_a_card_says_otherwise_says_what_it_does_in_place(ui: Harness) -> None:
    ui.start_game(NAMES)
    player = ui.app.show("player", seat=0)
    ui.pump()
    button, help_line = player.ids.override, player.ids.override_help
    assert "break a rule" in help_line.text and "History" in help_line.text
    assert help_line.top <= button.y + 1  # right under the switch it explains
    assert help_line.texture_size[1] <= help_line.height  # every line of it shows


def test_whom_a_board_counter_shows_stays_inside_its_button_in_russian(ui: Harness) -> None:
    from kivy.core.window import Window
    from kivy.factory import Factory

    ui.app.show("devices")  # its rows' rules are loaded with the screen
    ui.pump()
    names = "Показывает: Анна, Брам, Клео, Дмитрий, Ева, Фёдор"
    row = Factory.CounterRow(players_text=names, ours=True, size_hint_x=None, width=340)
    Window.add_widget(row)
    try:
        ui.pump(frames=4)
        button = row.ids.player
        assert button.texture_size[1] <= button.height
        assert button.height >= 48
    finally:
        Window.remove_widget(row)
        ui.pump()


def test_a_one_shot_card_is_played_from_the_combat_search_for_either_side(
    ui: Harness,
) -> None:
    ui.start_game(NAMES)
    ui.nav("combat")
    combat = ui.screen("combat")
    press(ui, combat.level_buttons[3])  # a fight
    combat.ids.search.text = "sudden confidence"  # a potion: used once, not carried
    ui.pump()
    (row,) = [child for child in combat.ids.results.children if child.children]
    for_players, _for_monsters = reversed(row.children)
    press(ui, for_players)
    state = ui.app.session.live_state
    assert [(s.side, s.bonus, s.card_id) for s in state.combat.one_shots] == [
        ("players", 3, "gen-potion-of-sudden-confidence")
    ]
    combat.ids.search.text = "sudden confidence"
    ui.pump()
    (row,) = [child for child in combat.ids.results.children if child.children]
    press(ui, list(reversed(row.children))[1])
    state = ui.app.session.live_state
    assert [(s.side, s.bonus) for s in state.combat.one_shots] == [("players", 3), ("monsters", 3)]
