"""What a screen or sheet hands to longer-lived objects does not keep it alive after it is
dropped (a language change rebuilds every screen; a sheet closes): callbacks bound to its
buttons, the kill countdown it starts, and the game's cached answers to its questions."""

from __future__ import annotations

import gc
import weakref
from typing import Any, ClassVar

import pytest

from companion.core import (
    MonsterSpec,
    ResolveCombat,
    StartCombat,
)
from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow


def owner_with_a_button(bind: Any) -> weakref.ref[Any]:
    """A box whose button calls back into it, bound by `bind`; the box is then dropped."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.button import Button

    class Owner(BoxLayout):
        taps: ClassVar[list[str]] = []

        def tapped(self, what: str) -> None:
            self.taps.append(what)

    owner = Owner()
    button = Button()
    bind(owner, button)
    owner.add_widget(button)
    button.dispatch("on_release")
    assert Owner.taps == ["tap"]
    Owner.taps.clear()
    return weakref.ref(owner)


def test_a_button_bound_weakly_lets_its_screen_go(ui: Harness) -> None:
    from companion.ui.weak import weakly

    def weak(owner: Any, button: Any) -> None:
        button.bind(on_release=weakly(owner.tapped, "tap"))

    gone = owner_with_a_button(weak)
    gc.collect()
    assert gone() is None


def test_the_kill_countdown_lets_go_of_what_started_it_once_over(ui: Harness) -> None:
    class Starter:
        finished = 0

        def finish(self) -> None:
            Starter.finished += 1

    starter = Starter()
    countdown = ui.app.session.table.countdown
    countdown.start(0.3, starter.finish)
    gone = weakref.ref(starter)
    del starter
    gc.collect()
    assert gone() is not None  # held while it counts: the kill must still happen
    assert ui.app.countdown.remaining > 0  # the app shows the table's countdown
    ui.wait_until(lambda: not countdown.running)
    assert Starter.finished == 1
    assert ui.app.countdown.remaining == 0
    gc.collect()
    assert gone() is None


def test_a_refusal_the_game_remembers_keeps_no_caller_alive() -> None:
    from tests.web.conftest import new_game

    game = new_game(2)
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Rat", level=5),)))

    class Asker:
        def ask(self) -> Any:
            return game.check(ResolveCombat(outcome="kill"))

    asker = Asker()
    refusal = asker.ask()
    assert refusal is not None and refusal.rule == "fighters_losing"
    assert refusal.__traceback__ is None
    gone = weakref.ref(asker)
    del asker
    gc.collect()
    assert gone() is None
    assert game.check(ResolveCombat(outcome="kill")) is refusal  # still remembered
