"""Lists stay on screen at any frame rate: flung, and pulled past either end, with frames of
16 ms (a quick phone), 250 ms (a slow one) and 1 s (a long pause), every list stays within
its ends and comes to rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from companion.core.randomplay import random_game
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

FRAME_TIMES_S = {"16 ms": 0.016, "250 ms": 0.25, "1 s": 1.0}
# A finger slides this far across the list in three frames (a third of a phone's height).
SWIPE_PX = 200
# A fling at the fastest speed allowed takes under 3 s to stop; far more means it never will.
REST_WITHIN_S = 20.0


def new_game_list(ui: Harness) -> Any:
    """The New game screen's list, long with eight players (the list that flew away)."""
    from kivy.uix.scrollview import ScrollView

    screen = ui.set_up_game(["Anna", "Bram", "Cleo", "Dev", "Emil", "Fay", "Gus", "Hana"])
    return next(w for w in screen.walk() if isinstance(w, ScrollView))


def history_list(ui: Harness) -> Any:
    """History of a long game: a recycled list, rows built as they scroll into view."""
    ui.app.session.games.save("long-game", random_game(80, seed=5, allow_win=False))
    assert ui.app.session.open("long-game")
    ui.nav("history")
    return ui.screen("history").ids.lines


LISTS: dict[str, Callable[[Harness], Any]] = {"New game": new_game_list, "History": history_list}


def come_to_rest(ui: Harness, scroller: Any) -> None:
    give_up = ui.clock.now + REST_WITHIN_S
    while not ui.at_rest():
        assert ui.clock.now < give_up, f"still moving at scroll_y {scroller.scroll_y}"
        ui.pump(frames=1)
    where = scroller.scroll_y
    ui.pump(frames=3)
    assert scroller.scroll_y == where, "the list moved again after it had stopped"


@pytest.mark.parametrize("frame_s", FRAME_TIMES_S.values(), ids=FRAME_TIMES_S.keys())
@pytest.mark.parametrize("name", LISTS)
def test_a_list_flung_and_pulled_past_its_ends_stays_on_screen_and_comes_to_rest(
    ui: Harness, name: str, frame_s: float
) -> None:
    scroller = LISTS[name](ui)
    scroller.scroll_y = 1
    ui.pump()
    assert scroller.viewport_size[1] > 1.5 * scroller.height, "the list must be long to scroll"
    seen: list[float] = []
    scroller.bind(scroll_y=lambda _list, value: seen.append(value))

    def swipe(what: str, dy: float) -> float:
        seen.clear()
        ui.drag(scroller, dy)
        come_to_rest(ui, scroller)
        assert all(0 <= y <= 1 for y in seen), f"{what}: scroll_y went to {min(seen)}..{max(seen)}"
        return float(scroller.scroll_y)

    with ui.frames_of(frame_s):
        # A finger sliding down at the top pulls the list past its first row.
        assert swipe("pulled past the top", -SWIPE_PX) == 1
        # Sliding up flings it towards its end.
        flung_to = swipe("flung down the list", SWIPE_PX)
        assert flung_to < 1
        scroller.scroll_y = 0
        ui.pump()
        assert swipe("pulled past the end", SWIPE_PX) == 0
        assert swipe("flung back up", -SWIPE_PX) > 0
        # Twice as fast, from the middle, towards either end.
        scroller.scroll_y = 0.5
        ui.pump()
        swipe("flung hard down the list", 2 * SWIPE_PX)
        swipe("flung hard up the list", -2 * SWIPE_PX)


@pytest.mark.parametrize("frame_s", [*FRAME_TIMES_S.values(), 5.0], ids=[*FRAME_TIMES_S, "5 s"])
def test_a_fling_goes_as_far_whatever_the_frame_time(frame_s: float) -> None:
    """The slowing is solved exactly over each frame, so a fling ends where it would at
    60 frames a second, give or take the last few pixels below the stopping speed."""
    from kivy.metrics import dp

    from companion.ui.scrolling import FLING_DECAY_PER_S, STOP_DP_S, SteadyScrollEffect

    def travel(frame_s: float) -> float:
        effect = SteadyScrollEffect(min=0, max=-20_000, value=-10_000)
        effect.velocity = 3_000.0
        frames = 0
        while effect.velocity:
            effect.update_velocity(frame_s)
            frames += 1
            assert frames < 10_000, "the fling never stopped"
        return float(effect.value) + 10_000

    smooth = travel(1 / 60)
    assert smooth == pytest.approx(3_000 / FLING_DECAY_PER_S, abs=dp(STOP_DP_S))
    assert travel(frame_s) == pytest.approx(smooth, abs=dp(STOP_DP_S) / FLING_DECAY_PER_S + 1)
