"""Table link latency: a press on a seat's page until the change is on every other page and
on every counter, beside a bare WebSocket echo round trip measured in the same run.

    .venv/bin/python benchmarks/web_table.py [--samples 300]

The table is 8 seat pages and 2 board pages on the link, and 1 level board (serial) + 8
trackers (BLE), virtual counters running the firmware's logic. Each sample is:
  * bare   - one message to an aiohttp WebSocket echo server on loopback and back;
  * pages  - a seat page sends a press, until its own page and both board pages hold
             the change (the other seats' pages show their own munchkins: nothing of
             theirs changed, so nothing is sent to them);
  * LEDs   - the same press, until all 9 counters drew the LED frame showing it.
The pages (and the echo's client) run on an event loop of their own in another thread,
as phones are other devices; the host, its counters and the echo server share the app's
loop. The two trips take turns sample by sample (the order swaps each time), so load
from other work falls on both alike. Bytes sent per press to each page are printed too.

Target: pages p99 <= 1.5 x bare p99 + 5 ms. The LEDs are printed beside it: their
carriers (a pty, a virtual BLE radio) are not a WebSocket, and benchmarks/latency.py
measures them against their own bare carriers. A miss exits 1; nothing is measured again.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, Sex
from companion.devices.sim.fleet import VirtualFleet, VirtualSetup
from companion.devices.sync import DeviceManager
from companion.devices.tokens import TokenStore
from companion.table.app import Table
from companion.web.client import TableClient
from companion.web.keys import BOARD, Role, TableKeys
from companion.web.server import TableLink

LOOPBACK = "127.0.0.1"
SEATS = 8
BOARDS = 2
WAIT_S = 20.0
WARMUP = 20


def percentiles(samples_s: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_s)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return p50 * 1000, p99 * 1000


async def echo_server() -> tuple[web.AppRunner, str]:
    async def echo(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for message in ws:
            await ws.send_str(message.data)
        return ws

    app = web.Application()
    app.router.add_get("/echo", echo)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, LOOPBACK, 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://{LOOPBACK}:{port}/echo"


async def main(samples: int) -> int:
    folder = Path(tempfile.mkdtemp(prefix="companion-web-bench-"))
    names = ("Anna", "Bram", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hana")
    game = Game(
        GameSetup(
            players=tuple(PlayerSetup(name=name, colour="#3e8ef7", sex=Sex.NONE) for name in names),
            edition=CLASSIC,
        )
    )
    table = Table(folder / "games")
    table.adopt(game)
    link = TableLink(keys=TableKeys(folder / "keys.json"), table=table, host=LOOPBACK, port=0)
    await link.start()
    manager = DeviceManager(tokens=TokenStore(folder / "tokens.json"))
    (folder / "counters").mkdir()
    fleet = VirtualFleet(folder / "counters")
    manager.set_game(game)
    echo_runner, echo_url = await echo_server()
    # The pages run on a loop of their own in another thread, as phones are other devices:
    # what they do to read a change is not counted as the host's work.
    phones_loop = asyncio.new_event_loop()
    phones_thread = threading.Thread(target=phones_loop.run_forever, daemon=True)
    phones_thread.start()

    def on_phones(coro: Any) -> Any:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, phones_loop))

    seats: list[TableClient] = []
    boards: list[TableClient] = []
    arrived: dict[int, float] = {}
    expected: set[int] = set()
    all_arrived: list[asyncio.Event] = []
    phones: dict[str, Any] = {}

    async def open_pages() -> None:
        all_arrived.append(asyncio.Event())
        seats.extend(TableClient(link.url(Role("seat", s), LOOPBACK)) for s in range(SEATS))
        boards.extend(TableClient(link.url(BOARD, LOOPBACK)) for _ in range(BOARDS))
        for index, page in enumerate(seats + boards):
            page.on_message = lambda message, _at, index=index: arrive(index, message)
            await page.connect()
        phones["http"] = aiohttp.ClientSession()
        phones["echo"] = await phones["http"].ws_connect(echo_url)

    def arrive(index: int, message: dict[str, Any]) -> None:
        if message.get("t") == "patch" and index not in arrived:
            arrived[index] = time.perf_counter()
            if expected <= arrived.keys():
                all_arrived[0].set()

    async def bare_trip() -> float:
        echo = phones["echo"]
        started = time.perf_counter()
        await echo.send_str('{"t":"press","id":1,"press":"level_up"}')
        await echo.receive()
        return time.perf_counter() - started

    async def press(seat: int, what: str, others: list[int]) -> float:
        arrived.clear()
        expected.clear()
        expected.update(others)
        all_arrived[0].clear()
        started = time.perf_counter()
        answer = await seats[seat].press(what)
        assert answer["ok"], answer
        async with asyncio.timeout(WAIT_S):
            await all_arrived[0].wait()
        return started

    async def close_pages() -> None:
        for page in seats + boards:
            await page.close()
        if "echo" in phones:
            await phones["echo"].close()
            await phones["http"].close()

    try:
        await fleet.start(VirtualSetup(boards=1, trackers=SEATS, board_transport="serial"), SEATS)
        await fleet.join(manager)
        await manager.wait_ours(WAIT_S * 3)
        await on_phones(open_pages())
        pages = seats + boards
        counters = list(fleet.counters)
        drawn: dict[int, float] = {}
        all_drawn = asyncio.Event()
        wanted_rev = [0]

        def draw(index: int, frame: Any) -> None:
            if frame.rev == wanted_rev[0] and index not in drawn:
                drawn[index] = time.perf_counter()
                if len(drawn) == len(counters):
                    all_drawn.set()

        for index, counter in enumerate(counters):
            counter.on_frame(lambda frame, index=index: draw(index, frame))

        bare: list[float] = []
        page_times: list[float] = []
        led_times: list[float] = []
        sent_bytes = {"own": 0, "board": 0, "other": 0}

        async def press_trip(step: int) -> tuple[float, float]:
            seat = step % SEATS
            level = game.state.players[seat].level
            what = "level_up" if level < 5 else "level_down"
            before = {index: page.bytes for index, page in enumerate(pages)}
            drawn.clear()
            all_drawn.clear()
            wanted_rev[0] = (game.sequence + 1) & 0xFFFF
            # The presser's own page and the boards show the change; the other seats do not.
            others = [seat, *range(SEATS, SEATS + BOARDS)]
            started = await on_phones(press(seat, what, others))
            pages_s = max(arrived[index] for index in others) - started
            async with asyncio.timeout(WAIT_S):
                await all_drawn.wait()
            leds_s = max(drawn.values()) - started
            await manager.wait_synced(WAIT_S)
            for index, page in enumerate(pages):
                key = "own" if index == seat else ("board" if index >= SEATS else "other")
                sent_bytes[key] += page.bytes - before[index]
            return pages_s, leds_s

        for step in range(WARMUP + samples):
            if step % 2:
                one_bare = await on_phones(bare_trip())
                pages_s, leds_s = await press_trip(step)
            else:
                pages_s, leds_s = await press_trip(step)
                one_bare = await on_phones(bare_trip())
            if step >= WARMUP:
                bare.append(one_bare)
                page_times.append(pages_s)
                led_times.append(leds_s)
    finally:
        await on_phones(close_pages())
        phones_loop.call_soon_threadsafe(phones_loop.stop)
        phones_thread.join(10)
        await echo_runner.cleanup()
        await manager.stop()
        await fleet.stop()
        await link.stop()

    bare50, bare99 = percentiles(bare)
    pages50, pages99 = percentiles(page_times)
    leds50, leds99 = percentiles(led_times)
    bound = 1.5 * bare99 + 5.0
    presses = WARMUP + samples
    own = sent_bytes["own"] / presses
    per_board = sent_bytes["board"] / presses / BOARDS
    per_other = sent_bytes["other"] / presses / (SEATS - 1)
    print(f"{samples} presses, {SEATS} seat pages + {BOARDS} board pages, 1 board + 8 trackers")
    print(f"bare WebSocket echo  p50 {bare50:6.2f} ms  p99 {bare99:6.2f} ms")
    print(f"press -> pages       p50 {pages50:6.2f} ms  p99 {pages99:6.2f} ms  (bound {bound:.2f})")
    print(f"press -> LED frames  p50 {leds50:6.2f} ms  p99 {leds99:6.2f} ms  (printed beside)")
    print(
        f"bytes per press (with its answer): {own:.0f} to the pressing page, {per_board:.0f} to "
        f"each board page, {per_other:.0f} to each other seat page"
    )
    ok = pages99 <= bound
    print("OK" if ok else f"MISS: pages p99 {pages99:.2f} ms > {bound:.2f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300)
    sys.exit(asyncio.run(main(parser.parse_args().samples)))
