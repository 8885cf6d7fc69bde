"""The table link over real WebSockets: what a seat's phone and a board page see and may do."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp

from companion.core import (
    AddMonster,
    GoUpLevel,
    MonsterSpec,
    RunAway,
    SetGearBonus,
    Source,
    StartCombat,
    describe,
)
from companion.web.client import Refused, TableClient
from companion.web.keys import TableKeys
from tests.web.conftest import Table


async def test_a_seat_presses_and_every_page_follows(table: Table) -> None:
    anna = await table.seat(0)
    bram = await table.seat(1)
    board = await table.board()
    assert anna.role == "seat" and anna.view["name"] == "Anna" and anna.view["level"] == 1

    answer = await anna.press("level_up")
    assert answer["ok"] is True
    assert table.game.state.players[0].level == 2
    await board.wait_for(lambda v: v["players"][0]["level"] == 2, what="Anna at Level 2")
    await bram.wait_for(lambda v: v["turn"].startswith("Turn 1"), what="the turn line")
    await anna.wait_for(lambda v: v["level"] == 2 and v["strength"] == 2)

    # The log says the change came from Anna's phone.
    action = table.game.log[-1]
    assert isinstance(action, GoUpLevel) and action.source is not None
    assert (action.source.via, action.source.seat) == ("phone", 0)
    assert describe(action, table.game.state_at(0)) == "Anna goes up a level (from Anna's phone)"

    assert (await anna.press("gear_up"))["ok"]
    await anna.wait_for(lambda v: v["gear"] == 1 and v["strength"] == 3)


async def test_a_refused_press_says_why_in_the_phones_language_and_changes_nothing(
    table: Table,
) -> None:
    anna = await table.seat(0, langs=("de-DE", "de"))
    before = table.game.revision
    answer = await anna.press("level_down")
    assert answer == {"t": "ack", "id": 1, "ok": False, "why": "Eine Stufe ist nie kleiner als 1"}
    assert table.game.revision == before
    assert anna.view["can"]["level_down"] is False  # the button is dimmed beforehand too
    assert anna.view["phase"] == "Tür eintreten: Pflicht"  # as the app says it


async def test_level_10_comes_only_by_a_kill(table: Table) -> None:
    anna = await table.seat(0)
    table.game.apply(GoUpLevel(player=0, levels=8))
    await anna.wait_for(lambda v: v["level"] == 9)
    answer = await anna.press("level_up")
    assert answer["ok"] is False and "Level 10" in answer["why"], answer
    assert anna.view["can"]["level_up"] is False  # the button was dimmed beforehand
    assert table.game.state.players[0].level == 9


async def test_the_board_only_watches(table: Table) -> None:
    board = await table.board()
    before = table.game.revision
    answer = await board.press("level_up")
    assert answer["ok"] is False and answer["why"] == "This page can only watch the game"
    assert table.game.revision == before


async def test_a_press_sent_again_after_a_reconnect_is_applied_once(table: Table) -> None:
    anna = await table.seat(0)
    answer = await anna.press("level_up")
    assert answer["ok"]
    # The same press, with the same number, as a page sends it again after losing Wi-Fi.
    await anna.send_raw(json.dumps({"t": "press", "id": 1, "press": "level_up"}))
    again = await anna.press("gear_up")  # a later message shows the first was answered
    assert again["ok"]
    assert table.game.state.players[0].level == 2
    assert [type(a).__name__ for a in table.game.log] == ["GoUpLevel", "SetGearBonus"]


async def test_a_page_that_reloads_gets_the_current_state(table: Table) -> None:
    anna = await table.seat(0)
    await anna.press("level_up")
    await anna.drop()
    table.game.apply(GoUpLevel(player=0))
    await anna.wait_for(lambda v: v["level"] == 3, what="Level 3 after the reconnect")
    assert anna.welcomes == 2


async def test_a_taken_back_seat_can_no_longer_press(table: Table) -> None:
    anna = await table.seat(0, reconnect=False)
    old_url = table.seat_url(0)
    table.link.take_back(0)
    assert await anna.wait_ended() == "taken"
    stranger = TableClient(old_url, reconnect=False)
    try:
        try:
            await stranger.connect()
        except Refused as refused:
            assert str(refused) == "ask"
        else:
            raise AssertionError("the old code still opened the seat")
    finally:
        await stranger.close()
    fresh = await table.seat(0)
    assert (await fresh.press("level_up"))["ok"]


async def test_a_new_game_sends_phones_to_scan_again_and_keeps_the_board(table: Table) -> None:
    from tests.web.conftest import new_game

    anna = await table.seat(0, reconnect=False)
    board = await table.board()
    game = new_game(3)
    table.link.table.adopt(game)
    await board.wait_for(lambda v: len(v["players"]) == 3, what="the new game")
    assert await anna.wait_ended() == "new_game"


async def test_the_fighter_rolls_to_run_away_on_the_phone(table: Table) -> None:
    """The table waits for a losing fighter's roll whatever the host's screen shows: the
    phone is offered it, rolls, and the offer ends with the roll."""
    game = table.game
    game.apply(SetGearBonus(player=0, bonus=20))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Slime", level=12),)))
    anna = await table.seat(0)
    assert anna.view["fight"]["role"] == "You are fighting"
    assert anna.view["fight"]["winning"]
    # Winning, nobody runs: the table waits for no roll.
    assert (await anna.roll(4))["why"] == "The host is not waiting for your roll"
    # A second monster turns the fight: now the table waits for Anna's roll.
    game.apply(AddMonster(monster=MonsterSpec(name="Orc", level=15)))
    await anna.wait_for(lambda v: v["roll"] is not None, what="the roll offered")
    assert "Slime" in anna.view["roll"]["text"]
    assert (await anna.roll(6))["ok"]
    # Away from the Slime: the table waits for her roll against the Orc next.
    await anna.wait_for(lambda v: v["roll"] and "Orc" in v["roll"]["text"], what="the next one")
    assert (await anna.roll(5))["ok"]
    await anna.wait_for(lambda v: v["roll"] is None, what="the offer ended with the rolls")
    rolls = game.log[-2:]
    assert [(r.monster, r.roll) for r in rolls] == [(0, 6), (1, 5)]  # type: ignore[attr-defined]
    assert all(isinstance(r, RunAway) and r.source == Source(via="phone", seat=0) for r in rolls)


async def test_strangers_and_bad_input_change_nothing(table: Table) -> None:
    base = table.board_url().split("#")[0].rstrip("/")
    anna = await table.seat(0)
    before = table.game.revision
    async with aiohttp.ClientSession() as http:
        page = await http.get(base + "/")
        html = await page.text()
        assert page.status == 200 and "Ask the host for your code" in html
        assert "Anna" not in html  # no game data without a code
        for hello in ("", "{}", json.dumps({"t": "hello"}), json.dumps({"t": "hello", "key": 7})):
            async with http.ws_connect(base + "/ws") as ws:
                await ws.send_str(hello)
                reply = await ws.receive_json(timeout=10)
                assert reply == {"t": "ask"}
    for bad in ("not json", "[]", json.dumps({"t": "dance"}), json.dumps({"t": "press"})):
        await anna.send_raw(bad)
    await anna.send_raw(json.dumps({"t": "press", "id": anna.take_id(), "press": "level_10"}))
    await anna.send_raw(json.dumps({"t": "roll", "id": anna.take_id(), "face": 9}))
    assert (await anna.press("gear_up"))["ok"]  # a later answer: everything before was read
    assert len(anna.errors) == 4
    assert "not JSON" in anna.errors[0] and "dance" in anna.errors[2]
    assert table.game.revision == before + 1


async def test_an_oversized_message_closes_only_that_page(table: Table) -> None:
    anna = await table.seat(0, reconnect=False)
    bram = await table.seat(1)
    await anna.send_raw(json.dumps({"t": "press", "id": 1, "press": "x" * 5000}))
    async with asyncio.timeout(10):
        while anna.connected:
            await asyncio.sleep(0.01)
    assert table.game.revision == 0
    assert (await bram.press("level_up"))["ok"]


async def test_keys_survive_a_restart_and_a_damaged_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "table-link.json"
    keys = TableKeys(path)
    keys.for_game("g1")
    keys.set_enabled(True, port=8771)
    again = TableKeys(path)
    assert (again.seats, again.board, again.enabled, again.port) == (
        keys.seats,
        keys.board,
        True,
        8771,
    )
    assert again.who(keys.seats[2]) is not None and again.who(keys.seats[2]).seat == 2
    assert again.who(keys.board).kind == "board"
    assert again.who("x" * 32) is None and again.who(None) is None
    path.write_text('{"format": 1, "board": "short"}')
    damaged = TableKeys(path)
    assert damaged.problem is not None and "kept as" in damaged.problem
    assert damaged.board != keys.board
    assert any(p.name.startswith("table-link.json.damaged-") for p in tmp_path.iterdir())


async def test_the_fighter_calls_the_kill_every_page_counts_and_anyone_may_interfere(
    table: Table,
) -> None:
    """The kill's wait is the table's: called from the fighter's phone, counted on every
    page, stopped by another player's Wait!, and ending the fight when it runs out."""
    game = table.game
    game.apply(SetGearBonus(player=0, bonus=10))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Rat", level=4),)))
    anna = await table.seat(0)
    bram = await table.seat(1)
    board = await table.board()
    assert anna.view["can"]["kill"] and not bram.view["can"]["kill"]
    refused = await bram.press("kill")
    assert not refused["ok"] and refused["why"] == "Only the fighter calls the kill"

    assert (await anna.press("kill"))["ok"]
    for page in (anna, bram, board):
        await page.wait_for(lambda v: v["kill"] is not None, what="the countdown")
        assert 0 < page.view["kill"]["left"] <= 0.5
    assert (await bram.press("wait"))["ok"]
    for page in (anna, bram, board):
        await page.wait_for(lambda v: v["kill"] is None, what="the countdown stopped")
    assert game.state.combat is not None  # Wait!: no kill

    assert (await anna.press("kill"))["ok"]
    await board.wait_for(lambda v: v["fight"] is None, what="the fight ended in the kill")
    assert game.state.combat is None
    kill = game.log[-1]
    assert kill.type == "resolve_combat" and kill.source == Source(via="phone", seat=0)
    assert game.state.players[0].level == 2
