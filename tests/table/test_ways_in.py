"""One way in per intent: a press means the same from a counter's button, a phone, a
command typed at `companion serve` and a tap (tests/ui/test_ways_in.py): the same
outcome, the same refusal words in every language, and the log records the source."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from companion.commands.serve import Host
from companion.core import CLASSIC, GameSetup, PlayerSetup, SetLevel, Sex, Source, Variants
from companion.core.presses import Press
from companion.devices import wire
from companion.devices.sync import DeviceManager
from companion.plumbing.places import LOCALE_DIR
from companion.table.app import Table
from companion.web.client import TableClient
from companion.web.keys import Role, TableKeys
from companion.web.server import TableLink
from companion.web.speech import Voices

LOOPBACK = "127.0.0.1"


class StubConnection:
    """What the device manager needs of a claimed counter's connection, to take a press."""

    key = "serial:/dev/ttyACM0"

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.refreshed = 0

    def note_problem(self, text: str) -> None:
        self.problems.append(text)

    def refresh(self) -> None:
        self.refreshed += 1


def setup() -> GameSetup:
    players = tuple(
        PlayerSetup(name=name, colour=colour, sex=Sex.FEMALE)
        for name, colour in (("Anna", "#e5484d"), ("Bram", "#3e8ef7"))
    )
    # Two at the table: by the house rule chosen openly for it (RULES.md §11).
    return GameSetup(players=players, edition=CLASSIC, variants=Variants(house_player_count=True))


@pytest.fixture
async def ways(tmp_path: Path) -> Any:
    table = Table(tmp_path / "games")
    table.start(setup())
    link = TableLink(
        keys=TableKeys(tmp_path / "keys.json"),
        table=table,
        voices=Voices(LOCALE_DIR),
        host=LOOPBACK,
        port=0,
    )
    await link.start()
    manager = DeviceManager()
    manager.set_game(table.game)  # type: ignore[arg-type]
    manager.assignments[StubConnection.key] = (0,)
    args = argparse.Namespace(host=LOOPBACK, no_qr=True)
    yield table, link, manager, Host(table, link, args)
    await link.stop()
    table.shutdown()


async def test_a_level_down_at_level_1_is_refused_alike_everywhere_in_every_language(
    ways: Any,
) -> None:
    table, link, manager, host = ways
    game = table.game
    english = TableClient(link.url(Role("seat", 0), LOOPBACK), langs=("en",))
    german = TableClient(link.url(Role("seat", 0), LOOPBACK), langs=("de",))
    await english.connect()
    await german.connect()
    try:
        said_en = (await english.press("level_down"))["why"]
        said_de = (await german.press("level_down"))["why"]
        connection = StubConnection()
        press = wire.Button(wire.INTENT_LEVEL_DOWN, wire.NO_SLOT, seq=7)
        assert manager.counter_pressed(connection, press) is None  # refused: no save to wait for
        typed = host.command("down Anna")
        tapped = table.press(Press.LEVEL_DOWN, 0, "tap")
    finally:
        await english.close()
        await german.close()

    # Nothing happened, and every way in heard the same rule in the same words.
    assert game.revision == 0
    refusals = [record.refused for record in [*table.presses, *manager.presses]]
    assert refusals == ["A Level is never below 1"] * 5
    assert tapped.rule == "level_floor"
    assert typed == "Refused: A Level is never below 1"
    assert said_en == "A Level is never below 1"
    assert said_de == Voices(LOCALE_DIR).speech("de").say(tapped.why) != said_en
    assert connection.problems == ["press refused: A Level is never below 1"]
    assert connection.refreshed == 1  # the counter is sent the true state again


async def test_a_level_up_is_the_same_action_from_everywhere_with_its_source(ways: Any) -> None:
    table, link, manager, host = ways
    game = table.game
    phone = TableClient(link.url(Role("seat", 1), LOOPBACK))
    await phone.connect()
    try:
        assert (await phone.press("level_up"))["ok"]
    finally:
        await phone.close()
    connection = StubConnection()
    durable = manager.counter_pressed(connection, wire.Button(wire.INTENT_LEVEL_UP, seq=3))
    assert durable is None  # no persist given to this manager: acknowledged at once
    assert host.command("up Bram") == "Bram is at Level 3."  # the phone took Bram to 2
    assert table.press(Press.LEVEL_UP, 0, "tap").applied

    actions = [game.action_at(i) for i in range(game.revision)]
    assert [a.type for a in actions] == ["go_up_level"] * 4
    assert [(a.player, a.source) for a in actions] == [
        (1, Source(via="phone", seat=1)),
        (0, Source(via="counter", seat=0)),
        (1, Source(via="command", seat=1)),
        (0, None),
    ]
    assert [p.level for p in game.state.players] == [3, 3]


async def test_the_turn_moves_on_from_the_players_own_phone_only(ways: Any) -> None:
    table, link, _manager, host = ways
    game = table.game
    anna = TableClient(link.url(Role("seat", 0), LOOPBACK))
    bram = TableClient(link.url(Role("seat", 1), LOOPBACK))
    await anna.connect()
    await bram.connect()
    try:
        refused = await bram.press("next_turn")
        assert not refused["ok"] and refused["why"] == "It is Anna's turn: only they move it on"
        assert (await anna.press("next_phase"))["ok"]
        assert (await anna.press("next_turn"))["ok"]
        await anna.wait_for(lambda view: "Bram" in str(view), what="Bram's turn")
    finally:
        await anna.close()
        await bram.close()
    assert game.state.current == 1
    # The host moves it on whoever's turn it is, and says so in words.
    assert host.command("next") == "Turn 3: Anna · Kick open the door: you must"
    assert game.state.current == 0
    game.apply(SetLevel(player=0, level=9))
    assert host.command("status").endswith(" · Levels: Anna 9, Bram 1.")
