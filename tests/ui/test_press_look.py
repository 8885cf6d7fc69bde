"""A pressed button: its face shades, its words keep their colour (no second rendering),
and the words still read at AA contrast on the shaded face."""

from __future__ import annotations

from typing import Any

from companion.ui.theme import AA_NORMAL, Theme, contrast_ratio
from tests.ui.conftest import Harness


def test_a_press_shades_the_face_without_drawing_the_words_again(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    ui.nav("table")
    plus = ui.screen("table").tiles[0].ids.level.ids.plus
    ui.wait_until(
        lambda: ui.app.manager.current == "table" and not ui.app.manager.transition.is_active
    )
    ui.pump()
    renders: list[Any] = []
    plus.bind(texture=lambda *_a: renders.append(1))
    pressed_faces: list[tuple[float, ...]] = []
    plus.bind(state=lambda w, state: state == "down" and pressed_faces.append(tuple(w.face)))
    rest = tuple(plus.face)
    ui.tap(plus)
    assert ui.app.session.state.players[0].level == 2
    assert pressed_faces and pressed_faces[0] != rest  # the press showed
    assert tuple(plus.face) == rest
    # The Level changed on the tile, but the + button's words were not drawn again.
    assert renders == []


def test_every_pressed_face_keeps_its_words_readable() -> None:
    for name in ("dark", "light"):
        theme = Theme(name)
        for face in (theme.raised, theme.surface, theme.accent, theme.bg, theme.good, theme.bad):
            pressed = theme.pressed(face)
            assert tuple(pressed) != tuple(face)
            assert (
                theme.on(pressed) == theme.on(face)
                or contrast_ratio(theme.on(face), pressed) >= AA_NORMAL
            )
            assert contrast_ratio(theme.on(face), pressed) >= min(
                AA_NORMAL, contrast_ratio(theme.on(face), face)
            ), (name, face)
