"""The Settings screen, driven by taps: every choice is saved at once and takes effect at once."""

from __future__ import annotations

import pytest

from companion.store import Settings, SettingsStore
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


def saved(ui: Harness) -> Settings:
    return SettingsStore(ui.data_dir).load()


def test_theme_switches_live_and_is_saved(ui: Harness) -> None:
    ui.nav("settings")
    screen = ui.screen("settings")
    dark_bg = list(ui.app.theme.bg)
    try:
        ui.tap(screen.ids.theme)
        assert ui.app.theme.name == "light"
        assert list(ui.app.theme.bg) != dark_bg  # every kv rule bound to the theme redraws
        assert "light" in screen.ids.theme.text
        assert saved(ui).theme == "light"
    finally:
        if ui.app.theme.name != "dark":
            ui.tap(screen.ids.theme)
    assert ui.app.theme.name == "dark"
    assert list(ui.app.theme.bg) == dark_bg
    assert saved(ui).theme == "dark"


def test_keep_awake_drives_the_window_screensaver(ui: Harness) -> None:
    from kivy.core.window import Window

    ui.nav("settings")
    screen = ui.screen("settings")
    assert ui.app.settings.keep_awake
    ui.tap(screen.ids.keep_awake)
    assert Window.allow_screensaver is True
    assert saved(ui).keep_awake is False
    ui.tap(screen.ids.keep_awake)
    assert Window.allow_screensaver is False
    assert saved(ui).keep_awake is True


def test_rules_defaults_reach_the_new_game_screen(ui: Harness) -> None:
    ui.nav("settings")
    screen = ui.screen("settings")
    ui.tap(screen.ids.edition)  # classic -> the next edition
    ui.tap(screen.ids.epic)
    ui.tap(screen.ids.shared)
    ui.tap(screen.ids.faster)
    for _ in range(3):
        ui.tap(screen.ids.countdown.ids.plus)
    stored = saved(ui)
    assert stored.edition != "classic"
    assert stored.winning_level == 20
    assert stored.shared_victory and stored.faster_play
    assert stored.victory_countdown_s == pytest.approx(0.4 + 1.5)
    assert screen.countdown_text == "1.9 s"

    ui.app.show("new_game", fresh=True)
    ui.pump()
    new_game = ui.screen("new_game")
    assert new_game.epic and new_game.shared_victory and new_game.faster_play
    assert new_game.edition_id == stored.edition


def test_countdown_and_brightness_stay_in_range(ui: Harness) -> None:
    ui.nav("settings")
    screen = ui.screen("settings")
    for _ in range(3):
        ui.tap(screen.ids.countdown.ids.minus)
    assert ui.app.settings.victory_countdown_s == 0.0
    for _ in range(20):
        ui.tap(screen.ids.brightness.ids.plus)
    assert ui.app.settings.led_brightness == 255
    assert screen.brightness_text == "100 %"
    for _ in range(20):
        ui.tap(screen.ids.brightness.ids.minus)
    assert ui.app.settings.led_brightness == 1
    assert saved(ui).led_brightness == 1
    ui.tap(screen.ids.virtual)
    assert saved(ui).virtual_counters is False
    ui.tap(screen.ids.virtual)
    assert saved(ui).virtual_counters is True
