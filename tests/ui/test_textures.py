"""A Level that changes is drawn on a new texture: the one the last frame showed is never
written into (the graphics driver would finish drawing that frame first)."""

from __future__ import annotations

from kivy.uix.label import Label

from tests.ui.conftest import Harness


def test_a_changed_level_is_drawn_on_a_new_texture_of_the_same_size(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    ui.nav("table")
    ui.wait_until(lambda: ui.app.manager.current == "table")
    ui.pump()
    level = ui.screen("table").tiles[0].ids.level
    value = level.ids.value
    shown = value.texture
    assert value.text == "1" and shown is not None
    ui.tap(level.ids.plus)
    ui.wait_until(lambda: value.text == "2")
    ui.pump()
    # Digits are as wide as each other: Kivy alone would have written "2" into the
    # texture that showed "1".
    assert tuple(value.texture.size) == tuple(shown.size)
    assert value.texture is not shown


def test_any_label_given_new_words_of_the_same_size_gets_a_new_texture(ui: Harness) -> None:
    label = Label(text="ab")
    label.texture_update()
    shown = label.texture
    label.text = "ba"
    label.texture_update()
    assert shown is not None and label.texture is not None
    assert tuple(label.texture.size) == tuple(shown.size)
    assert label.texture is not shown
