"""Playing on a 360x640 phone with one thumb: taps counted, sizes measured, nothing lost."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core import EndTurn, SetLevel
from companion.ui.screens import SCREENS, split_nav
from tests.ui.conftest import PHONE, Harness
from tests.ui.looking import clipped, on_screen, visible_labels

pytestmark = pytest.mark.slow

FOUR = ["Anna", "Bram", "Cleo", "Dev"]
EIGHT = ["Anna", "Bram", "Cleo", "Dev", "Emil", "Fay", "Gus", "Hana"]


def fully_on_screen(widget: Any) -> bool:
    """The whole widget is inside the window and inside its scroll view's visible part."""
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView

    x, y = widget.to_window(widget.x, widget.y)
    right, top = x + widget.width, y + widget.height
    if x < -1 or y < -1 or right > Window.width + 1 or top > Window.height + 1:
        return False
    parent = widget.parent
    while parent is not None and parent is not parent.parent:
        if isinstance(parent, ScrollView):
            px, py = parent.to_window(parent.x, parent.y)
            inside_x = x >= px - 1 and right <= px + parent.width + 1
            if not inside_x or y < py - 1 or top > py + parent.height + 1:
                return False
        parent = parent.parent
    return True


def set_level(ui: Harness, seat: int, level: int) -> None:
    ui.app.session.act(SetLevel, player=seat, level=level, override="A card says otherwise")
    ui.pump()


def fight(ui: Harness, monster: int, fighter: int | None = None) -> Any:
    """Four players; the first, at Level `fighter` when given, meets a Level `monster`
    monster picked on the Combat screen's grid. The Combat screen."""
    ui.start_game(FOUR)
    if fighter is not None:
        set_level(ui, 0, fighter)
    ui.nav("combat")
    combat = ui.screen("combat")
    ui.tap(combat.level_buttons[monster])
    return combat


# -- navigation ---------------------------------------------------------------------------
def test_phone_bar_has_at_most_five_entries_and_never_scrolls(ui: Harness) -> None:
    from kivy.uix.scrollview import ScrollView

    bar = ui.app.root.ids.nav
    assert len(bar.children) <= 5
    assert ui.nav_button("more") is not None
    parent = bar.parent
    while parent is not None and parent is not parent.parent:
        assert not isinstance(parent, ScrollView), "the navigation bar scrolls"
        parent = parent.parent
    for button in bar.children:
        assert not clipped(button), button.text
        assert button.height >= 48


def test_the_bar_fits_the_phone_in_every_language(ui: Harness) -> None:
    from companion.ui import i18n

    try:
        for language in i18n.LANGUAGES:
            i18n.set_language(language)
            ui.pump()
            for button in ui.app.root.ids.nav.children:
                assert fully_on_screen(button), f"{language}: {button.text!r} leaves the window"
                assert not clipped(button), f"{language}: {button.text!r}"
    finally:
        i18n.set_language("en")
        ui.pump()


def test_every_screen_is_two_taps_from_any_other(ui: Harness) -> None:
    ui.start_game(FOUR)
    in_bar, rest = split_nav(wide=False)
    destinations = [e.name for e in in_bar + rest]
    for start in destinations:
        for goal in destinations:
            if goal == start:
                continue
            ui.app.show(start, **({"fresh": True} if start == "new_game" else {}))
            ui.pump()
            taps = ui.nav(goal)
            assert taps <= 2, (start, goal)
            assert ui.app.manager.current == goal, (start, goal)


# -- the table ----------------------------------------------------------------------------
def test_a_short_list_stays_at_the_top_when_pushed(ui: Harness) -> None:
    ui.nav("more")
    entry = ui.screen("more").buttons["settings"]
    where = entry.to_window(*entry.center)
    scroller = ui.screen("more").ids.entries.parent
    scroller.scroll_y = 0  # what a flick or a mouse wheel asks of it
    ui.advance(0.3)
    assert entry.to_window(*entry.center) == where


def level_of(tile: Any) -> Any:
    """The label showing a player's Level, on a tile or on a line."""
    return tile.ids.level.ids.value if "value" in tile.ids.level.ids else tile.ids.level


@pytest.mark.parametrize(("names", "smallest"), [(FOUR, 48), (EIGHT, 32)])
def test_level_is_the_biggest_thing_on_a_tile(ui: Harness, names: list[str], smallest: int):
    from kivy.metrics import sp

    ui.start_game(names)
    set_level(ui, 0, 10)  # two digits must fit too
    table = ui.screen("table")
    ui.pump(frames=6)
    for tile in table.tiles:
        level = level_of(tile)
        assert level.font_size >= sp(smallest), (len(names), level.font_size)
        if "gear" in tile.ids:  # a line shows its Gear only while opened
            assert level.font_size > tile.ids.gear.ids.value.font_size
        assert level.font_size > tile.ids.strength.font_size
        assert not clipped(level)


LONG_NAMES = ["Anna", "Maximiliane Hohenberg", "Cleo", "Konstantinos", "Emil", "Fay", "Gus"]


@pytest.mark.parametrize("count", range(2, 9))
@pytest.mark.parametrize("language", ["en", "de"])
def test_every_level_is_on_screen_without_scrolling(ui: Harness, count: int, language: str):
    """From 2 to 8 players on a 360x640 phone, every player's Level (at least 32 sp) and
    its − and + are on screen at once, whoever's turn it is; with 5 or more players each
    player is a line of its own (with 5 to 8 only two tiles fitted before)."""
    from kivy.metrics import dp, sp

    from companion.ui import i18n

    names = [*LONG_NAMES[: count - 1], "Josephine-Charlotte"]
    try:
        i18n.set_language(language)
        ui.start_game(names)
        table = ui.screen("table")
        for turn in range(count + 1):
            ui.pump(frames=4)
            assert table.ids.tiles.height <= table.ids.scroll.height + 1, "the table scrolls"
            for tile in table.tiles:
                level = level_of(tile)
                assert fully_on_screen(level), f"{tile.name}'s Level is off screen ({turn=})"
                assert level.font_size >= sp(32)
                assert not clipped(level)
                steps = (
                    (tile.ids.minus, tile.ids.plus)
                    if table.lines
                    else (
                        tile.ids.level.ids.minus,
                        tile.ids.level.ids.plus,
                    )
                )
                for button in steps:
                    assert fully_on_screen(button) and button.height >= dp(48) - 1
            assert table.lines == (count >= 5)
            assert ui.app.session.act(EndTurn)
    finally:
        i18n.set_language("en")
        ui.pump()


def test_a_line_opens_for_gear_and_the_player_screen_is_one_more_tap(ui: Harness) -> None:
    ui.start_game(EIGHT[:6])
    table = ui.screen("table")
    ui.pump(frames=4)
    current = table.tiles[0]
    assert current.opened  # the current player's line, with room for Gear
    assert [t.opened for t in table.tiles[1:]] == [False] * 5
    ui.tap(current.ids.gear.ids.plus)
    assert ui.app.session.state.players[0].gear_bonus == 1
    assert "gear" not in table.tiles[3].ids  # a line that never opened has no Gear built
    from companion.core import GainTrait, SetGearBonus

    assert ui.app.session.act(SetGearBonus, player=3, bonus=4)
    assert ui.app.session.act(GainTrait, player=3, kind="class", name="Thief")
    ui.pump(frames=2)
    ui.tap(table.tiles[3].ids.name)  # a tap on another line opens that one instead
    ui.wait_until(lambda: table.tiles[3].opened)  # a scroll view hands a tap on after 0.2 s
    assert not current.opened
    ui.pump(frames=2)
    # Built as it opens, it shows what the player has now.
    assert table.tiles[3].ids.gear.value == "4"
    assert "Thief" in table.tiles[3].ids.traits.text
    assert fully_on_screen(table.tiles[3].ids.details)
    ui.tap(table.tiles[3].ids.details)
    assert ui.app.manager.current == "player"
    assert ui.screen("player").seat == 3


def test_with_eight_players_the_current_tile_is_always_on_screen(ui: Harness) -> None:
    ui.start_game(EIGHT)
    table = ui.screen("table")
    for seat in range(len(EIGHT)):
        ui.pump(frames=4)
        assert ui.app.session.state.current == seat
        assert fully_on_screen(table.tiles[seat]), f"{EIGHT[seat]}'s tile is off screen"
        assert ui.app.session.act(EndTurn)


def test_traits_are_never_cut_inside_a_word(ui: Harness) -> None:
    from companion.core import GainTrait, SetTraitBoost

    ui.start_game(FOUR)
    session = ui.app.session
    session.act(SetTraitBoost, player=2, kind="class")
    session.act(GainTrait, player=2, kind="class", name="Cleric")
    session.act(GainTrait, player=2, kind="class", name="Warrior")
    session.act(GainTrait, player=2, kind="race", name="Dwarf")
    ui.pump(frames=4)
    traits = ui.screen("table").tiles[2].ids.traits
    traits.texture_update()
    assert traits.texture_size[0] <= traits.width + 1
    rendered = [word.text for line in traits._label._cached_lines for word in line.words]
    whole = set(traits.text.split())
    shown = " ".join(rendered).split()
    assert shown, "no traits shown"
    for word in shown:
        assert word in whole, f"{word!r} is part of a word"


def test_phase_line_follows_the_fight_and_charity_only_when_it_applies(ui: Harness) -> None:
    from companion.core import AdvancePhase, Die, MonsterSpec, StartCombat

    ui.start_game(FOUR)
    table = ui.screen("table")
    ui.app.session.act(StartCombat, fighter=0, monsters=(MonsterSpec(name="Ogre", level=4),))
    ui.app.show("table")
    ui.pump()
    assert table.phase_text == "Combat: monsters win 4 to 1"
    assert table.ids.charity.height == 0
    ui.app.session.undo()
    ui.pump()
    assert table.phase_text == "Kick open the door: you must"
    assert ui.app.session.act(AdvancePhase) and ui.app.session.act(AdvancePhase)
    ui.pump()
    assert ui.app.session.state.phase == "charity"
    assert table.charity_phase and fully_on_screen(table.ids.give)
    assert fully_on_screen(table.ids.end_turn) and fully_on_screen(table.ids.next_phase)
    ui.app.session.act(Die, player=0)  # a dead player gives no charity
    ui.pump()
    assert not table.charity_phase and table.ids.charity.height == 0
    assert fully_on_screen(table.ids.next_phase)


# -- combat -------------------------------------------------------------------------------
@pytest.mark.parametrize("level", [1, 8, 20])
def test_door_to_verdict_in_three_taps(ui: Harness, level: int) -> None:
    ui.start_game(FOUR)
    ui.app.show("table")
    ui.pump()
    taps = ui.nav("combat")
    combat = ui.screen("combat")
    button = combat.level_buttons[level]
    assert combat.ids.scroll.scroll_y == pytest.approx(1.0)
    assert fully_on_screen(button), f"the level {level} button is below the fold"
    ui.tap(button)
    taps += 1
    state = ui.app.session.state
    assert state.combat is not None and state.combat.monsters[0].spec.level == level
    assert combat.verdict == "Monsters win"  # Anna at Level 1 cannot beat even a Level 1
    ui.tap(combat.ids.run_away)
    taps += 1
    assert ui.app.manager.current == "run_away"
    assert taps <= 3


def test_quick_monsters_get_distinct_names_and_the_entry_starts_over(ui: Harness) -> None:
    ui.start_game(FOUR)
    ui.nav("combat")
    combat = ui.screen("combat")
    ui.tap(combat.ids.quick_level.ids.plus)
    ui.tap(combat.ids.quick_treasure.ids.plus)
    ui.tap(combat.level_buttons[8])
    assert (combat.quick_level, combat.quick_treasure) == (1, 1)
    ui.tap(combat.level_buttons[8])
    names = [m.spec.name for m in ui.app.session.state.combat.monsters]
    assert names == ["Level 8 monster", "Level 8 monster #2"]
    assert ui.app.session.state.combat.monsters[0].treasure == 2


def test_a_helper_is_one_tap_and_one_logged_action(ui: Harness) -> None:
    combat = fight(ui, 3)
    before = len(ui.app.session.game.log)
    ui.tap(combat.ids.helper)
    offered = [b.text for b in combat.helper_menu.container.children]
    assert any(t.startswith("Cleo") for t in offered)
    assert not any(t.startswith("Anna") for t in offered)  # not the fighter
    cleo = next(b for b in combat.helper_menu.container.children if b.text.startswith("Cleo"))
    ui.tap(cleo)
    assert ui.app.session.state.combat.helper == 2
    assert len(ui.app.session.game.log) == before + 1
    # Another pick while Cleo helps is one more logged action, and so is "nobody".
    ui.tap(combat.ids.helper)
    dev = next(b for b in combat.helper_menu.container.children if b.text.startswith("Dev"))
    ui.tap(dev)
    assert ui.app.session.state.combat.helper == 3
    assert len(ui.app.session.game.log) == before + 2


def test_a_card_can_make_the_fighter_count_only_their_level(ui: Harness) -> None:
    combat = fight(ui, 3, fighter=5)
    ui.tap(combat.ids.level_only)
    assert ui.app.session.state.combat.level_only == {0}
    assert "on" in combat.ids.level_only.text
    ui.tap(combat.ids.level_only)
    assert ui.app.session.state.combat.level_only == frozenset()


def test_a_warrior_wins_a_tie_and_kills(ui: Harness) -> None:
    combat = fight(ui, 6, fighter=6)
    assert combat.verdict == "Monsters win"
    assert "Kill" not in combat.rewards
    assert combat.ids.kill.disabled
    ui.tap(combat.ids.wins_ties)
    assert combat.verdict == "Players win"
    assert combat.rewards.startswith("Kill")
    ui.tap(combat.ids.kill)
    ui.wait_until(lambda: ui.app.session.state.combat is None)  # after the wait for interference
    result = ui.app.session.state.last_combat
    assert result is not None and result.outcome == "kill"
    assert ui.app.session.state.players[0].level == 7


def test_leaving_during_the_countdown_keeps_the_kill(ui: Harness) -> None:
    combat = fight(ui, 2, fighter=5)
    ui.app.settings.victory_countdown_s = 4.0  # long enough to leave on a slow machine
    ui.tap(combat.ids.kill)
    assert ui.app.countdown.remaining > 0
    ui.nav("table")  # someone taps Table in the middle of the wait
    strip = ui.app.root.ids.countdown_strip
    assert ui.app.countdown.remaining > 0
    assert strip.height > 0 and strip.opacity == 1 and "Kill in" in strip.text
    ui.wait_until(lambda: ui.app.session.state.last_combat is not None)
    ui.pump()  # the strip folds away on the next frame
    result = ui.app.session.state.last_combat
    assert result is not None and result.outcome == "kill"
    assert ui.app.session.state.players[0].level == 6
    assert strip.height == 0


def test_a_typed_monster_is_remembered_for_the_next_search(ui: Harness) -> None:
    ui.start_game(FOUR)
    ui.nav("combat")
    combat = ui.screen("combat")
    combat.ids.search.text = "Tax Collector"
    ui.pump()
    ui.tap(combat.level_buttons[7])
    assert ui.app.session.state.combat.monsters[0].spec.name == "Tax Collector"
    assert combat.ids.search.text == ""
    assert (ui.data_dir / "packs" / "table-monsters.toml").exists()
    found = ui.app.cards.search("tax coll", kind="monster")
    assert [(c.name, c.level) for c in found][:1] == [("Tax Collector", 7)]


def test_verdict_box_words_fit(ui: Harness) -> None:
    ui.start_game(FOUR)
    ui.nav("combat")
    combat = ui.screen("combat")
    for tap in (combat.level_buttons[1], combat.ids.defeat):
        ui.tap(tap)
        for label in (combat.ids.verdict, combat.ids.rewards):
            label.texture_update()
            assert label.texture_size[1] <= label.height + 1, label.text
            assert not clipped(label), label.text


# -- every screen -------------------------------------------------------------------------
@pytest.mark.parametrize("names", [FOUR, EIGHT])
def test_no_words_are_wider_than_their_box_on_any_screen(ui: Harness, names: list[str]):
    from kivy.core.window import Window

    assert tuple(Window.size) == PHONE
    ui.start_game(names)
    problems = []
    for entry in SCREENS:
        if entry.name == "game_over":
            continue
        ui.app.show(entry.name, **({"seat": 1} if entry.name == "player" else {}))
        ui.pump(frames=4)
        for label in visible_labels(ui.app.root):
            if on_screen(label) and clipped(label):
                problems.append(f"{entry.name}: {label.text!r}")
    assert not problems, problems
