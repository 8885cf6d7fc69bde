"""Asking for help and a monster's power on the Combat screen of a 360x640 phone (RULES.md
§11): an item given for help inside the fight (a bribe, no trade), help a card compels
(recorded apart from a volunteer's), and a monster whose fighters count their Level only,
binding a helper who joins later; each tap reaches the engine and the log, and reads
whole in German and Russian."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.core import GainItem, GoUpLevel, ItemSpec, MonsterSpec, StartCombat
from companion.core.in_words import describe
from companion.ui import i18n
from tests.ui.conftest import Harness
from tests.ui.items_driving import press
from tests.ui.test_abilities import closed, option, sheet_on_show

pytestmark = pytest.mark.slow

NAMES = ["Anna", "Bram", "Cleo"]


@pytest.fixture
def english(ui: Harness) -> Iterator[Harness]:
    yield ui
    i18n.set_language("en")
    ui.app.settings.language = "en"


def fight(ui: Harness, level: int = 8) -> Any:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainItem(player=0, item=ItemSpec(name="Rusty Ladle", bonus=1)))
    assert session.act(GainItem(player=0, item=ItemSpec(name="Anvil", bonus=3, big=True)))
    assert session.act(StartCombat(fighter=0, monsters=(MonsterSpec(name="Gnasher", level=level),)))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    return combat


def last_said(ui: Harness) -> str:
    game = ui.app.session.game
    return describe(game.log[-1], game.state_at(game.revision - 1))


def test_an_item_given_for_help_goes_to_the_helper_inside_the_fight(ui: Harness) -> None:
    combat = fight(ui)
    session = ui.app.session
    for button in (combat.ids.offer_item, combat.ids.make_help):
        assert button.height >= 48 and button.width >= 48
    press(ui, combat.ids.offer_item)
    sheet = sheet_on_show(ui)
    assert sorted(b.text for b in sheet.buttons.values()) == [
        "Anvil · +3 · Big",
        "Rusty Ladle · +1",
    ]
    press(ui, option(sheet, "Anvil · +3 · Big"))
    assert closed(ui, sheet)
    sheet = sheet_on_show(ui)
    assert sheet.question == "Who takes Anvil for their help?"
    assert sorted(b.text for b in sheet.buttons.values()) == ["Bram", "Cleo"]
    press(ui, option(sheet, "Cleo"))
    assert closed(ui, sheet)
    ui.pump(frames=4)
    state = session.live_state
    assert [i.spec.name for i in state.players[2].items] == ["Anvil"]
    assert state.combat.helper == 2 and not state.combat.compelled
    bribe, helps = session.game.log[-2:]
    assert (bribe.type, bribe.helper) == ("bribe", 2)
    assert (helps.type, helps.helper) == ("change_helper", 2)
    history = describe(bribe, session.game.state_at(session.game.revision - 2))
    assert history == "Anna gives Anvil to Cleo for their help"
    assert combat.helper_text.startswith("Helper: Cleo")
    # Cleo now carries a Big item: the Ladle may still go to her, a second Big one not.
    press(ui, combat.ids.offer_item)
    sheet = sheet_on_show(ui)
    assert [b.text for b in sheet.buttons.values()] == ["Rusty Ladle · +1"]


def test_with_nothing_on_the_table_the_tap_says_so(ui: Harness) -> None:
    ui.start_game(NAMES)
    assert ui.app.session.act(StartCombat(fighter=0, monsters=(MonsterSpec(name="Ox", level=2),)))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    press(ui, combat.ids.offer_item)
    assert ui.banner() == "Anna has no item on the table to give"


def test_a_card_makes_someone_help_and_the_log_says_they_did_not_volunteer(ui: Harness) -> None:
    combat = fight(ui)
    session = ui.app.session
    press(ui, combat.ids.make_help)
    sheet = sheet_on_show(ui)
    assert sorted(b.text for b in sheet.buttons.values()) == ["Bram", "Cleo"]
    press(ui, option(sheet, "Bram"))
    assert closed(ui, sheet)
    ui.pump(frames=4)
    [helps] = [a for a in session.game.log if a.type == "add_helper"]
    assert helps.helper == 1 and helps.compelled
    assert last_said(ui) == "A card makes Bram help"
    assert session.live_state.combat.compelled
    assert combat.helper_text.startswith("Made to help: Bram")


def test_nobody_is_made_to_help_in_a_fight_for_the_win(ui: Harness) -> None:
    combat = fight(ui, level=2)
    session = ui.app.session
    assert session.act(GoUpLevel(player=0, levels=8))  # Anna at Level 9: a kill wins
    ui.pump(frames=4)
    before = session.game.revision
    press(ui, combat.ids.make_help)
    assert ui.banner() == "Nobody can be made to help in a fight for the win"
    assert session.game.revision == before


def test_a_monster_whose_fighters_count_level_only_binds_a_helper_who_joins_later(
    ui: Harness,
) -> None:
    ui.start_game(NAMES)
    session = ui.app.session
    assert session.act(GainItem(player=0, item=ItemSpec(name="Anvil", bonus=3), equip=True))
    assert session.act(GainItem(player=1, item=ItemSpec(name="Lance", bonus=4), equip=True))
    combat = ui.app.show("combat")
    ui.pump(frames=4)
    assert combat.ids.quick_level_only.height >= 48
    press(ui, combat.ids.level_grid.children[-8])  # the level 8 button: the fight starts
    press(ui, combat.ids.quick_level_only)  # the monster just entered has the power
    ui.pump(frames=4)
    state = session.live_state
    [monster] = state.combat.monsters
    assert monster.spec.level_only and monster.spec.level == 8
    assert [a.type for a in session.game.log[-1:]] == ["start_combat"]  # entered again, once
    assert combat.players_strength == 1  # Anna's Level, not her Anvil
    [row] = combat.ids.monsters.children
    assert row.power == "Its power: fighters count Level only"
    assert (
        combat.level_only and combat.level_only_text == "Fighters count Level only: Level 8 monster"
    )
    press(ui, combat.ids.level_only)
    assert ui.banner() == (
        "Level 8 monster's power: the fighter and any helper count their Level only"
    )
    press(ui, combat.ids.helper)
    [bram] = [b for b in combat.helper_menu.container.children if b.seat == 1]
    press(ui, bram)
    ui.pump(frames=4)
    assert session.live_state.combat.helper == 1
    assert combat.players_strength == 2  # two Levels of 1: Bram's Lance does not count
    assert combat.helper_text == "Helper: Bram (1)"


@pytest.mark.parametrize("language", ["de", "ru"])
def test_the_new_buttons_read_whole_in_long_languages_both_themes(
    english: Harness, language: str, tmp_path: Path
) -> None:
    """At 360x640 in German and Russian, dark and light: the help buttons, a monster's
    power, its quick switch and the card effects are whole, and read (AA contrast)."""
    from kivy.core.window import Window

    from companion.core import AddHelper, AddMonster
    from tests.ui.test_contrast import poor_contrast
    from tests.ui.test_i18n_live import clipped_labels

    ui = english
    fight(ui)
    session = ui.app.session
    assert session.act(
        AddMonster(monster=MonsterSpec(name="Stern Examiner", level=7, level_only=True))
    )
    assert session.act(AddHelper(helper=1, compelled=True))
    i18n.set_language(language)
    ui.app.settings.language = language
    try:
        for theme in ("dark", "light"):
            ui.app.theme.apply(theme)
            combat = ui.app.show("combat")
            combat.quick_level_only = True
            ui.pump(frames=6)
            problems = {
                name: clipped_labels(combat.ids[name])
                for name in ("help_row", "monsters", "block_effects", "block_add", "fighter")
            }
            assert not any(problems.values()), (language, theme, problems)
            for name in ("offer_item", "make_help", "quick_level_only", "level_only"):
                assert combat.ids[name].height >= 48 and combat.ids[name].width >= 48
            assert not list(poor_contrast(ui)), (language, theme)
            Window.screenshot(name=str(tmp_path / f"combat-help-{language}-{theme}.png"))
            combat.ids.scroll.scroll_to(combat.ids.monsters, animate=False)
            ui.pump(frames=4)
            Window.screenshot(name=str(tmp_path / f"combat-monsters-{language}-{theme}.png"))
            combat.ids.scroll.scroll_to(combat.ids.quick_level_only, animate=False)
            ui.pump(frames=4)
            Window.screenshot(name=str(tmp_path / f"combat-power-{language}-{theme}.png"))
            combat.ids.scroll.scroll_y = 1
    finally:
        ui.app.theme.apply("dark")
        ui.pump()
