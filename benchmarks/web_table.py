"""Table link latency: a press on a seat's page until the change is on every other page and
on every counter, beside the same press through a bare WebSocket measured in the same run.

    .venv/bin/python benchmarks/web_table.py [--samples 300]

The table is 8 seat pages and 2 board pages on the link, and 1 level board (serial) + 8
trackers (BLE), virtual counters running the firmware's logic. Each sample is:
  * bare   - the baseline: a press sent over a bare aiohttp WebSocket (no table link)
             whose handler applies it to the same table and wakes a task that sends one
             message back; the game, its save and every counter do the same work as for
             a press from a page, on the same loop at the same time;
  * pages  - a seat page sends a press, until its own page and both board pages hold
             the change (the other seats' pages show their own munchkins: nothing of
             theirs changed, so nothing is sent to them);
  * LEDs   - the same press, until all 9 counters drew the LED frame showing it.
The pages (and the bare socket's client) run on an event loop of their own in another
thread, as phones are other devices; the host, its counters and the bare socket's
handler share the app's loop. After each trip every counter has drawn the change before
the next begins. The two trips take turns sample by sample (the order swaps each time),
so load from other work, and the counters' own, falls on both alike: what the bound
allows beyond the baseline is the table link's own work. Bytes sent per press to each
page are printed too.

Target: pages p99 <= 1.5 x bare p99 + 2 ms, both from this run. The LEDs are printed
beside it: their carriers (a pty, a virtual BLE radio) are not a WebSocket, and
benchmarks/latency.py measures them against their own bare carriers. A miss exits 1;
nothing is measured again.
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
from companion.core.presses import Press
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


async def bare_server(table: Table, game: Game) -> tuple[web.AppRunner, str]:
    """A bare WebSocket in front of the same table: a message "SEAT PRESS" is applied as the
    host's own press, and a task woken by the game's change sends "done" back, as a page's
    sender is woken. Called before the link starts, its wake comes first among the game's
    listeners: the baseline does none of the link's work and waits for none of it."""
    wake = asyncio.Event()
    asked = [False]  # a bare press is being applied: only its change wakes the sender

    def changed(_state: object) -> None:
        if asked[0]:
            asked[0] = False
            wake.set()

    game.subscribe(changed)

    async def bare(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        wake.clear()

        async def send_back() -> None:
            while True:
                await wake.wait()
                wake.clear()
                await ws.send_str("done")

        sender = asyncio.ensure_future(send_back())
        try:
            async for message in ws:
                seat, what = message.data.split()
                asked[0] = True
                outcome = table.press(Press(what), int(seat), "tap")
                assert not outcome.refused, outcome.why
        finally:
            sender.cancel()
        return ws

    app = web.Application()
    app.router.add_get("/bare", bare)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, LOOPBACK, 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://{LOOPBACK}:{port}/bare"


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
    bare_runner, bare_url = await bare_server(table, game)
    link = TableLink(keys=TableKeys(folder / "keys.json"), table=table, host=LOOPBACK, port=0)
    await link.start()
    manager = DeviceManager(tokens=TokenStore(folder / "tokens.json"))
    (folder / "counters").mkdir()
    fleet = VirtualFleet(folder / "counters")
    manager.set_game(game)
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
        phones["bare"] = await phones["http"].ws_connect(bare_url)

    def arrive(index: int, message: dict[str, Any]) -> None:
        if message.get("t") == "patch" and index not in arrived:
            arrived[index] = time.perf_counter()
            if expected <= arrived.keys():
                all_arrived[0].set()

    async def bare_press(seat: int, what: str) -> float:
        bare = phones["bare"]
        started = time.perf_counter()
        await bare.send_str(f"{seat} {what}")
        await bare.receive()
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
        if "bare" in phones:
            await phones["bare"].close()
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

        def level_press(seat: int) -> str:
            return "level_up" if game.state.players[seat].level < 5 else "level_down"

        def expect_frames() -> None:
            drawn.clear()
            all_drawn.clear()
            wanted_rev[0] = (game.sequence + 1) & 0xFFFF

        async def bare_trip(step: int) -> float:
            seat = (step + SEATS // 2) % SEATS
            expect_frames()
            bare_s = await on_phones(bare_press(seat, level_press(seat)))
            # Every counter drew it before the next trip, as after a press from a page.
            async with asyncio.timeout(WAIT_S):
                await all_drawn.wait()
            await manager.wait_synced(WAIT_S)
            return bare_s

        async def press_trip(step: int) -> tuple[float, float]:
            seat = step % SEATS
            what = level_press(seat)
            before = {index: page.bytes for index, page in enumerate(pages)}
            expect_frames()
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
                one_bare = await bare_trip(step)
                pages_s, leds_s = await press_trip(step)
            else:
                pages_s, leds_s = await press_trip(step)
                one_bare = await bare_trip(step)
            if step >= WARMUP:
                bare.append(one_bare)
                page_times.append(pages_s)
                led_times.append(leds_s)
    finally:
        await on_phones(close_pages())
        phones_loop.call_soon_threadsafe(phones_loop.stop)
        phones_thread.join(10)
        await bare_runner.cleanup()
        await manager.stop()
        await fleet.stop()
        await link.stop()

    bare50, bare99 = percentiles(bare)
    pages50, pages99 = percentiles(page_times)
    leds50, leds99 = percentiles(led_times)
    bound = 1.5 * bare99 + 2.0
    presses = WARMUP + samples
    own = sent_bytes["own"] / presses
    per_board = sent_bytes["board"] / presses / BOARDS
    per_other = sent_bytes["other"] / presses / (SEATS - 1)
    print(f"{samples} presses, {SEATS} seat pages + {BOARDS} board pages, 1 board + 8 trackers")
    print(f"press -> bare socket p50 {bare50:6.2f} ms  p99 {bare99:6.2f} ms  (the baseline)")
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
