"""The wait before a kill is final is the table's: any way in may call it (a phone only
for its own fighter), a card that turns the fight calls it off, "Wait!" stops it, and
when it runs out the fight ends in the kill, with the helper's share as agreed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from companion.core import (
    CLASSIC,
    AddHelper,
    AddMonster,
    GameSetup,
    MonsterSpec,
    PlayerSetup,
    ResolveCombat,
    SetGearBonus,
    Sex,
    Source,
    StartCombat,
    Variants,
)
from companion.table.app import Table


class SteppedTimer:
    """A timer whose time passes only when the test says so."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls: list[list[object]] = []  # [due, callback, cancelled]

    def __call__(self, delay_s: float, callback: Callable[[], None]) -> SteppedTimer.Call:
        entry: list[object] = [self.now + delay_s, callback, False]
        self.calls.append(entry)
        return SteppedTimer.Call(entry)

    def clock(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for entry in list(self.calls):
            due, callback, cancelled = entry
            if not cancelled and due <= self.now:  # type: ignore[operator]
                entry[2] = True
                callback()  # type: ignore[operator]

    class Call:
        def __init__(self, entry: list[object]) -> None:
            self.entry = entry

        def cancel(self) -> None:
            self.entry[2] = True


@pytest.fixture
def table(tmp_path: Path) -> Table:
    timer = SteppedTimer()
    table = Table(tmp_path, timer=timer, clock=timer.clock, kill_seconds=lambda: 2.0)
    players = tuple(
        PlayerSetup(name=name, colour="#3e8ef7", sex=Sex.MALE) for name in ("Anna", "Bram")
    )
    two = Variants(house_player_count=True)  # two at the table: the house rule
    table.start(GameSetup(players=players, edition=CLASSIC, variants=two))
    table.timer = timer  # type: ignore[attr-defined]
    return table


def test_a_losing_fight_cannot_be_killed_and_only_the_fighters_phone_calls_it(
    table: Table,
) -> None:
    game = table.game
    assert game is not None
    assert table.kill().why == "There is no fight to win."
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Rat", level=4),)))
    refused = table.kill("phone", 0)
    assert refused.why == "The monsters are winning: you cannot kill them now."
    game.apply(AddHelper(helper=1))
    assert not table.countdown.running
    assert table.kill("phone", 1).why == "Only the fighter calls the kill"


def test_the_kill_ends_the_fight_when_the_wait_runs_out(table: Table) -> None:
    game = table.game
    assert game is not None
    game.apply(SetGearBonus(player=0, bonus=10))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Rat", level=4, treasure=3),)))
    game.apply(AddHelper(helper=1))
    table.agree_share(2, first=True)
    assert table.kill("phone", 0).applied
    assert table.countdown.running and table.countdown.remaining() == 2.0
    table.timer.advance(1.0)  # type: ignore[attr-defined]
    assert game.state.combat is not None and table.countdown.remaining() == 1.0
    table.timer.advance(1.0)  # type: ignore[attr-defined]
    assert game.state.combat is None and not table.countdown.running
    kill = game.action_at(game.revision - 1)
    assert isinstance(kill, ResolveCombat) and kill.outcome == "kill"
    assert (kill.helper_treasure, kill.helper_first) == (2, True)
    assert kill.source == Source(via="phone", seat=0)


def test_wait_or_a_card_that_turns_the_fight_calls_the_kill_off(table: Table) -> None:
    game = table.game
    assert game is not None
    game.apply(SetGearBonus(player=0, bonus=10))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Rat", level=4),)))
    assert table.kill().applied
    interfered = table.interfere("phone", 1)
    assert interfered.applied and interfered.why == "Wait! Someone interferes."
    assert not table.countdown.running
    assert table.interfere().why == "No kill is being counted down."

    assert table.kill().applied
    game.apply(AddMonster(monster=MonsterSpec(name="Dragon", level=20)))
    assert not table.countdown.running  # the fighters lose now: no kill
    table.timer.advance(5.0)  # type: ignore[attr-defined]
    assert game.state.combat is not None
