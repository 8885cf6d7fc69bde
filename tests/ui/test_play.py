"""Playing through the real app with taps: set-up, combat won, combat lost and run away, undo."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram", "Cleo", "Dev"]


def tile(ui: Harness, seat: int):
    return ui.screen("table").tiles[seat]


def tap_level(ui: Harness, seat: int, times: int = 1, up: bool = True) -> None:
    for _ in range(times):
        stepper = tile(ui, seat).ids.level
        ui.tap(stepper.ids.plus if up else stepper.ids.minus)


def setup_rows(ui: Harness) -> list:
    return list(reversed(ui.screen("new_game").ids.rows.children))


def test_new_game_with_four_players(ui: Harness) -> None:
    screen = ui.screen("new_game")
    ui.tap(screen.ids.add)
    rows = list(reversed(screen.ids.rows.children))
    assert len(rows) == 4
    for row, name in zip(rows, NAMES, strict=True):
        row.ids.name.text = name
    # Every change redraws the rows: look them up again before each tap.
    ui.tap(setup_rows(ui)[1].ids.sex)  # neither -> male
    ui.tap(setup_rows(ui)[2].ids.colour)  # next free colour
    ui.tap(setup_rows(ui)[3].ids.up)  # Dev moves up one seat
    ui.tap(screen.ids.epic)
    ui.tap(setup_rows(ui)[0].ids.first)
    ui.tap(screen.ids.start)

    state = ui.app.session.state
    assert [p.name for p in state.players] == ["Anna", "Bram", "Dev", "Cleo"]
    assert state.players[1].sex == "male"
    assert len({p.colour for p in state.players}) == 4
    assert state.winning_level == 20
    assert state.current == 0
    assert ui.app.manager.current == "table"
    assert [t.name for t in ui.screen("table").tiles] == ["Anna", "Bram", "Dev", "Cleo"]

    tap_level(ui, 2, times=2)
    assert ui.app.session.state.players[2].level == 3
    assert tile(ui, 2).level == 3
    ui.tap(tile(ui, 1).ids.gear.ids.plus)
    assert ui.app.session.state.players[1].strength == 2

    ui.tap(tile(ui, 2))  # a tap on the tile opens the player's details
    assert ui.app.manager.current == "player"
    assert ui.screen("player").name_text == "Dev"


def test_rule_error_is_shown_and_changes_nothing(ui: Harness) -> None:
    ui.start_game(NAMES[:3])
    tap_level(ui, 0, times=8)
    assert ui.app.session.state.players[0].level == 9
    revision = ui.app.session.state.revision
    tap_level(ui, 0)  # a card alone cannot give the winning level
    assert ui.app.session.state.players[0].level == 9
    assert ui.app.session.state.revision == revision
    assert "10" in ui.banner()


def helper_choice(combat: Any, name: str) -> Any:
    """The button for `name` in the open helper list."""
    for button in combat.helper_menu.container.children:
        if button.text.startswith(name):
            return button
    raise AssertionError(f"{name} is not offered as a helper")


def test_combat_with_helper_and_two_monsters_won(ui: Harness) -> None:
    ui.start_game(NAMES)
    tap_level(ui, 0, times=4)  # Anna: level 5
    tap_level(ui, 1, times=3)  # Bram: level 4
    ui.nav("combat")
    combat = ui.screen("combat")
    for _ in range(2):
        ui.tap(combat.ids.quick_level.ids.plus)  # level 3 monster
    ui.tap(combat.ids.add_monster)
    for _ in range(4):  # adding a monster started the quick entry over at level 1
        ui.tap(combat.ids.quick_level.ids.plus)  # level 5 monster, 2 treasures
    ui.tap(combat.ids.quick_treasure.ids.plus)
    ui.tap(combat.ids.add_monster)
    assert ui.app.session.state.combat is not None
    assert combat.monsters_strength == 8
    assert combat.players_strength == 5
    assert combat.verdict == "Monsters win"
    assert combat.ids.kill.disabled

    ui.tap(combat.ids.helper)  # the list of possible helpers
    ui.tap(helper_choice(combat, "Bram"))  # Bram helps
    assert ui.app.session.state.combat.helper == 1
    assert combat.players_strength == 9
    assert combat.verdict == "Players win"
    assert ui.app.session.state.combat.treasure == 3

    ui.tap(combat.ids.monsters_shots.ids.b2)  # someone makes it harder: 10 vs 9
    assert combat.verdict == "Monsters win"
    combat.ids.search.text = "overcaff"  # an enhancer card on the last monster
    ui.pump()
    ui.tap(combat.ids.results.children[-1])  # the first result (children are last-first)
    assert ui.app.session.state.combat.monsters[1].strength == 10
    assert ui.app.session.state.combat.treasure == 4
    ui.tap(combat.ids.players_shots.ids.b10)  # a one-shot for the fighters: 19 vs 15
    assert (combat.players_strength, combat.monsters_strength) == (19, 15)

    ui.tap(combat.ids.run_away)  # winning fighters have no reason to flee
    assert ui.app.manager.current == "combat"
    assert ui.banner()
    # A wait long enough that the second tap lands in it however slow the machine is.
    ui.app.settings.victory_countdown_s = 3.0
    ui.tap(combat.ids.kill)
    assert combat.countdown > 0  # the kill waits for interference first
    assert ui.app.session.state.combat is not None
    ui.tap(combat.ids.kill)  # "Wait!": someone interferes
    assert combat.countdown == 0
    ui.advance(3.2)  # the app's clock is past the end of the wait: nothing was killed
    assert ui.app.session.state.combat is not None

    ui.app.settings.victory_countdown_s = 0.4
    ui.tap(combat.ids.kill)
    ui.wait_until(lambda: ui.app.session.state.combat is None)
    ui.pump()  # the screen shows the result on its next frame
    state = ui.app.session.state
    assert state.last_combat.outcome == "kill"
    assert state.players[0].level == 7  # two monsters killed
    assert state.players[1].level == 4  # the helper gains no level
    assert "4 treasure" in combat.result_text


def test_combat_lost_then_run_away(ui: Harness) -> None:
    ui.start_game(NAMES[:3])
    tap_level(ui, 0, times=2)  # Anna: level 3
    ui.nav("combat")
    combat = ui.screen("combat")
    combat.ids.search.text = "rubber duck"
    ui.pump()
    results = list(reversed(combat.ids.results.children))
    assert results, "the card search found nothing"
    ui.tap(results[0])
    for _ in range(3):
        ui.tap(combat.ids.quick_level.ids.plus)
    ui.tap(combat.ids.add_monster)  # a level 4 monster joins
    assert combat.verdict == "Monsters win"

    ui.tap(combat.ids.run_away)
    assert ui.app.manager.current == "run_away"
    run = ui.screen("run_away")
    rows = list(reversed(run.ids.rows.children))
    assert len(rows) == 2
    # Anna runs from the level 4 monster first: a physical die shows 6.
    ui.tap(rows[1])
    assert (run.fighter, run.monster) == (0, 1)
    ui.tap(run.ids.physical.children[0])  # the "6" button (children are last-first)
    rolls = ui.app.session.state.combat.rolls
    assert [(r.monster, r.roll, r.escaped) for r in rolls] == [(1, 6, True)]
    # Then the duck: a 2 is caught, and its Bad Stuff costs a level.
    ui.tap(run.ids.physical.children[4])  # "2"
    state = ui.app.session.state
    assert state.combat is None
    assert state.last_combat.outcome == "ran_away"
    assert state.players[0].level == 2
    assert run.finished
    assert "caught" in run.summary
    ui.tap(run.ids.done)
    assert ui.app.manager.current == "table"


def test_undo_and_redo(ui: Harness) -> None:
    ui.start_game(NAMES[:2])
    tap_level(ui, 1, times=2)
    assert ui.app.session.state.players[1].level == 3
    top = ui.app.root.ids
    ui.tap(top.undo)
    assert ui.app.session.state.players[1].level == 2
    assert ui.banner().startswith("Undone: ")  # the table hears what was taken back
    assert tile(ui, 1).level == 2
    ui.nav("history")
    history = ui.screen("history")
    assert history.count == 1
    assert "Bram" in history.entries[0]
    ui.tap(history.ids.undo)
    assert ui.app.session.state.players[1].level == 1
    assert not ui.app.session.can_undo
    ui.tap(history.ids.redo)
    assert ui.app.session.state.players[1].level == 2
    ui.tap(top.redo)
    assert ui.app.session.state.players[1].level == 3
    # A tap on the oldest entry takes it back with everything after it.
    ui.pump()
    ui.tap(history.line_of(0))  # the oldest entry
    assert ui.app.session.state.players[1].level == 1
    assert ui.app.session.can_redo
    assert ui.banner() == "Undone: the last 2 actions"
    ui.tap(history.ids.bring_back)  # both come back in one tap
    assert ui.app.session.state.players[1].level == 3
    assert ui.banner() == "Redone: the last 2 actions"
    ui.pump()
    ui.tap(history.line_of(0))
    assert ui.app.session.state.players[1].level == 1
    # The saved file follows every step.
    saved = ui.app.session.games.load(ui.app.session.game_id)
    assert saved.state.players[1].level == 1


def test_winning_shows_game_over_with_chart(ui: Harness) -> None:
    ui.start_game(NAMES[:2])
    tap_level(ui, 0, times=8)
    ui.nav("combat")
    combat = ui.screen("combat")
    ui.tap(combat.ids.add_monster)  # a level 1 monster against Anna's 9
    ui.tap(combat.ids.kill)
    ui.wait_until(lambda: ui.app.manager.current == "game_over")  # after the wait for interference
    assert ui.app.session.state.winners == (0,)
    assert ui.app.manager.current == "game_over"
    over = ui.screen("game_over")
    assert "Anna" in over.winner_text
    levels = over.series[0][1]
    assert levels[0] == 1 and levels[-1] == 10
    assert len(over.ids.stats.children) == 2


def win_by_a_kill(ui: Harness, names: list[str]) -> Any:
    """A game of `names` where the first player goes to 9 and kills a level 1 monster."""
    ui.start_game(names)
    tap_level(ui, 0, times=8)
    ui.nav("combat")
    combat = ui.screen("combat")
    ui.tap(combat.ids.add_monster)
    ui.tap(combat.ids.kill)
    ui.wait_until(lambda: ui.app.manager.current == "game_over")
    return ui.screen("game_over")


def test_the_game_over_screen_is_ready_before_the_win(ui: Harness) -> None:
    # Built while the table looks on, so the winning tap's frame only fills it in.
    from companion.ui.app import GAME_OVER_AHEAD_S

    ui.start_game(NAMES[:3])
    ui.advance(GAME_OVER_AHEAD_S + 0.1)
    assert ui.app.manager.has_screen("game_over")
    assert ui.app.manager.current == "table"
    assert len(ui.screen("game_over").ids.stats.children) == 3


def test_game_over_lists_the_players_of_the_game_won_last(ui: Harness) -> None:
    # The screen keeps its lines from one showing to the next: a game with more players,
    # then one with fewer, each lists exactly its own players with their own numbers.
    for names in (NAMES[:2], NAMES[:4], NAMES[1:3]):
        over = win_by_a_kill(ui, names)
        lines = list(reversed(over.ids.stats.children))
        assert [line.name for line in lines] == names
        assert lines[0].detail.startswith("Level 10 (best 10) · 1 kill")
        assert all(line.detail.startswith("Level 1 (best 1) · 0 kills") for line in lines[1:])


def test_ally_sacrifice_escapes_every_monster(ui: Harness) -> None:
    ui.start_game(NAMES[:2])
    ui.tap(tile(ui, 0))
    player = ui.screen("player")
    player.ids.ally_name.text = "Gerald"
    ui.tap(player.ids.set_ally)
    ui.nav("combat")
    combat = ui.screen("combat")
    for _ in range(9):
        ui.tap(combat.ids.quick_level.ids.plus)
    ui.tap(combat.ids.add_monster)
    ui.tap(combat.ids.add_monster)
    ui.tap(combat.ids.run_away)
    run = ui.screen("run_away")
    assert "Gerald" in run.ally_text
    ui.tap(run.ids.ally)
    state = ui.app.session.state
    assert state.combat is None
    assert state.players[0].ally is None
    assert state.players[0].level == 1 and not state.players[0].dead
    assert run.finished


def test_a_helpers_ally_sacrifice_frees_the_helper_alone(ui: Harness) -> None:
    """A helper who gives up an Ally escapes; the fighter still has to run (RULES.md §11)."""
    from companion.core import AddHelper, AllySpec, MonsterSpec, SetAlly, StartCombat

    ui.start_game(NAMES[:3])
    session = ui.app.session
    assert session.act(SetAlly(player=1, ally=AllySpec(name="Gerald", bonus=1)))
    troll = MonsterSpec(name="Troll", level=20)
    assert session.act(StartCombat(fighter=0, monsters=(troll,)))
    assert session.act(AddHelper(helper=1))
    ui.nav("combat")
    ui.tap(ui.screen("combat").ids.run_away)
    run = ui.screen("run_away")
    assert "Gerald" in run.ally_text
    ui.tap(run.ids.ally)
    state = session.state
    assert state.combat is not None and state.combat.escaped == frozenset({1})
    assert state.players[1].ally is None and not run.finished


def test_one_shots_can_be_cleared_and_flipped_negative(ui: Harness) -> None:
    ui.start_game(NAMES[:2])
    ui.nav("combat")
    combat = ui.screen("combat")
    ui.tap(combat.ids.add_monster)
    ui.tap(combat.ids.players_shots.ids.b5)
    ui.tap(combat.ids.players_shots.ids.b10)
    assert combat.players_strength == 16
    ui.tap(combat.ids.sign)  # the buttons now take strength away
    ui.tap(combat.ids.monsters_shots.ids.b1)
    assert combat.monsters_strength == 0
    ui.tap(combat.ids.players_shots.ids.wipe)
    assert combat.players_strength == 1
    assert ui.app.session.game.log[-1].type == "clear_one_shots"  # History reads "taken back"
    assert combat.verdict == "Players win"
    ui.tap(combat.ids.defeat)  # a card takes the monster away: no level
    assert ui.app.session.state.last_combat.outcome == "defeat"
    assert ui.app.session.state.players[0].level == 1


def test_charity_at_the_end_of_the_turn(ui: Harness) -> None:
    ui.start_game(NAMES[:3])
    tap_level(ui, 0, times=2)  # Anna 3, Bram and Cleo 1: they share her excess cards
    table = ui.screen("table")
    assert not table.charity_phase
    ui.tap(table.ids.next_phase)
    ui.tap(table.ids.next_phase)
    assert ui.app.session.state.phase == "charity"
    assert table.charity_phase
    # Charity is the last phase: giving cards away shows on a row of its own.
    assert table.ids.give.get_root_window() is not None
    assert table.ids.end_turn.get_root_window() is not None
    ui.tap(table.ids.excess.ids.plus)
    ui.tap(table.ids.excess.ids.plus)  # three cards over the limit
    ui.tap(table.ids.give)
    assert ui.app.session.state.charity is None  # asked first
    ui.tap(table.charity_sheet.buttons["give"])
    charity = ui.app.session.state.charity
    assert charity.shares == {1: 2, 2: 1}
    assert "Bram 2" in table.charity_text
    ui.tap(table.ids.end_turn)
    assert ui.app.session.state.current == 1
    assert not table.charity_phase
