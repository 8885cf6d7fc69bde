"""Someone on the same Wi-Fi who did not scan, or who scanned the board: nothing they send
writes to the game, and the table keeps playing for everyone else meanwhile."""

from __future__ import annotations

import asyncio
import json
import secrets

import aiohttp

from companion.web import server
from companion.web.keys import SECRET_BYTES, Role
from tests.web.conftest import Table


async def _hello(http: aiohttp.ClientSession, base: str, key: object) -> object:
    """One try with a key: the host's first answer, or the HTTP status that refused it."""
    try:
        async with http.ws_connect(base + "/ws") as ws:
            await ws.send_str(json.dumps({"t": "hello", "key": key, "page": "guess"}))
            message = await ws.receive(timeout=10)
            return json.loads(message.data) if message.type == aiohttp.WSMsgType.TEXT else None
    except aiohttp.WSServerHandshakeError as refused:
        return refused.status


async def test_a_thousand_guessed_secrets_write_nothing_while_the_table_plays(
    table: Table,
) -> None:
    anna = await table.seat(0)
    base = table.board_url().split("#")[0].rstrip("/")
    answers: dict[str, int] = {}
    async with aiohttp.ClientSession() as http:
        for number in range(1000):
            answer = await _hello(http, base, secrets.token_urlsafe(SECRET_BYTES))
            answers[json.dumps(answer)] = answers.get(json.dumps(answer), 0) + 1
            if number % 100 == 0:  # the real player keeps playing through the attack
                assert (await anna.press("gear_up" if number % 200 else "gear_down"))["ok"]
        # Past a few wrong codes the address is refused before its hello is even read.
        assert answers.get('{"t": "ask"}', 0) <= server.BAD_HELLOS + 2
        assert answers.get("429", 0) >= 1000 - server.BAD_HELLOS - 2
    # Only Anna's own presses were written.
    assert all(a.source is not None and a.source.seat == 0 for a in table.game.log)
    assert len(table.game.log) == 10
    # Anna's phone, already in, is not refused for what another device did.
    assert (await anna.press("level_up"))["ok"]


async def test_no_secret_wrong_secret_and_the_boards_secret_cannot_press(table: Table) -> None:
    board_key = table.link.keys.board
    base = table.board_url().split("#")[0].rstrip("/")
    async with aiohttp.ClientSession() as http:
        for key in (None, "", "x" * 32, secrets.token_urlsafe(SECRET_BYTES), board_key[:-1] + "A"):
            assert await _hello(http, base, key) == {"t": "ask"}
        async with http.ws_connect(base + "/ws") as ws:
            await ws.send_str(json.dumps({"t": "hello", "key": board_key, "page": "tv"}))
            welcome = await ws.receive_json(timeout=10)
            assert welcome["role"] == "board" and welcome["seat"] is None
            for seat_field in (0, 1):
                await ws.send_str(
                    json.dumps({"t": "press", "id": seat_field + 1, "press": "level_up", "seat": 0})
                )
                answer = await ws.receive_json(timeout=10)
                assert answer["ok"] is False
    assert table.game.revision == 0


async def test_a_socket_from_another_site_is_refused(table: Table) -> None:
    base = table.board_url().split("#")[0].rstrip("/")
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(base + "/ws", origin="http://evil.example"):
                raise AssertionError("a page of another site opened a socket")
        except aiohttp.WSServerHandshakeError as refused:
            assert refused.status == 403


async def test_a_flood_from_one_page_is_cut_off_and_writes_nothing(table: Table) -> None:
    anna = await table.seat(0)
    flooder = await table.board(reconnect=False)
    sent = 0
    try:
        for number in range(1, 5001):
            await flooder.send_raw(json.dumps({"t": "press", "id": number, "press": "level_up"}))
            sent += 1
    except (ConnectionError, RuntimeError, aiohttp.ClientError):
        pass  # the host closed it
    async with asyncio.timeout(20):
        while flooder.connected:
            await asyncio.sleep(0.01)
    assert sent >= server.FLOOD_CLOSE
    assert table.game.revision == 0
    assert (await anna.press("level_up"))["ok"]
    assert table.game.revision == 1


async def test_a_replayed_press_from_a_recorded_session_applies_nothing_again(
    table: Table,
) -> None:
    anna = await table.seat(0)
    for _ in range(3):
        assert (await anna.press("level_up"))["ok"]
    # Someone who recorded the traffic sends the same page's presses again, on a new socket.
    base = table.seat_url(0).split("#")[0].rstrip("/")
    async with aiohttp.ClientSession() as http, http.ws_connect(base + "/ws") as ws:
        await ws.send_str(json.dumps({"t": "hello", "key": anna.key, "page": anna.page_id}))
        await ws.receive_json(timeout=10)
        for number in (1, 2, 3):
            await ws.send_str(json.dumps({"t": "press", "id": number, "press": "level_up"}))
            answer = await ws.receive_json(timeout=10)
            assert answer["t"] == "ack" and answer.get("again") is True
    assert table.game.state.players[0].level == 4


async def test_presses_over_the_rate_are_answered_not_left_waiting(table: Table) -> None:
    anna = await table.seat(0)
    answers = await asyncio.wait_for(
        asyncio.gather(*(anna.send_press("gear_up") for _ in range(server.BURST + 20))), 20
    )
    refused = [a for a in answers if not a["ok"]]
    assert refused and all(a["why"] == "Too many messages: slow down" for a in refused)
    applied = len(answers) - len(refused)
    assert table.game.state.players[0].gear_bonus == applied  # each applied once, none lost


async def test_boards_from_two_addresses_leave_every_seat_joinable(table: Table) -> None:
    """64 board pages, 32 from each of two addresses, take no seat's place."""
    base = table.board_url().split("#")[0].rstrip("/")
    hello = json.dumps({"t": "hello", "key": table.link.keys.board, "page": "tv"})
    sessions = [
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))
        for address in ("127.0.0.1", "127.0.0.2")
    ]
    boards: list[aiohttp.ClientWebSocketResponse] = []
    answers: list[str] = []
    try:
        for http in sessions:
            for _ in range(32):
                ws = await http.ws_connect(base + "/ws")
                boards.append(ws)
                await ws.send_str(hello)
                answers.append((await ws.receive_json(timeout=10))["t"])
        assert answers.count("welcome") == server.MAX_BOARDS
        # A board over the cap is told why in its language, and closed to try again later.
        assert answers.count("error") == 64 - server.MAX_BOARDS
        for seat in range(len(table.game.state.players)):
            phone = await table.seat(seat)
            assert phone.role == "seat" and phone.seat == seat
            assert (await phone.press("gear_up"))["ok"]
        # A seat's second page (the same player's tablet) still joins too.
        assert (await table.seat(0)).role == "seat"
    finally:
        for ws in boards:
            await ws.close()
        for http in sessions:
            await http.close()


async def test_one_seats_pages_never_take_another_seats_place(table: Table) -> None:
    anna = [await table.seat(0, reconnect=False) for _ in range(server.MAX_PAGES_PER_SEAT)]
    base = table.board_url().split("#")[0].rstrip("/")
    async with aiohttp.ClientSession() as http, http.ws_connect(base + "/ws") as ws:
        key = table.link.keys.secret_of(Role("seat", 0))
        await ws.send_str(json.dumps({"t": "hello", "key": key, "page": "one-too-many"}))
        assert (await ws.receive_json(timeout=10))["t"] == "error"
        assert (await ws.receive(timeout=10)).type == aiohttp.WSMsgType.CLOSE
    bram = await table.seat(1)
    assert (await bram.press("level_up"))["ok"]
    assert all(page.connected for page in anna)
