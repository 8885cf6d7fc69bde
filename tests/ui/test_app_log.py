"""The app's log over a game with nine virtual counters: no line per packet.

Kivy hands the root logger its own handlers (the log file in the app's log folder), so
every library's DEBUG records would land in that file unless the app says otherwise.
The test counts what reaches the root logger's handlers while a player makes level
changes that every counter shows, and extrapolates to an hour of play.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

WAIT_S = 30.0
PLAYERS = ["Anna", "Bram", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal"]  # a board + 8 trackers
ACTIONS = 24
# An hour of brisk play: a tap a second, far more than a real table makes.
ACTIONS_PER_HOUR = 3600
HOUR_BUDGET = 1_000_000
# "Far slower" than the budget: a tenth of it.
MARGIN = 10


class ByteCounter(logging.Handler):
    """Counts the bytes a plain log file would get: one formatted line per record."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes = 0
        self.lines = 0
        self.names: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.bytes += len(self.format(record).encode()) + 1
        self.lines += 1
        self.names[record.name] = self.names.get(record.name, 0) + 1


def lit_bar(frame: object) -> int:
    return sum(1 for pixel in frame.pixels[: frame.spaces] if any(pixel))  # type: ignore[attr-defined]


async def test_an_hour_of_play_with_nine_counters_logs_far_less_than_a_megabyte(
    ui: Harness, figure: Callable[[str], None]
) -> None:
    ui.start_game(PLAYERS)
    service = ui.app.devices
    assert service is not None
    counter = ByteCounter()
    # Beside Kivy's own handlers on the root logger: it sees exactly what the log file sees.
    logging.root.addHandler(counter)
    running = asyncio.ensure_future(service.run())
    try:
        await ui.until(
            lambda: len(service.statuses) == 9 and all(s.ours for s in service.statuses),
            "a level board and eight trackers are connected and claimed",
        )
        await service.manager.wait_synced(timeout_s=WAIT_S)
        trackers = {s.players[0]: s.key for s in service.statuses if s.role.value == "tracker"}
        ui.nav("table")
        table = ui.screen("table")
        start_bytes, start_lines, started = counter.bytes, counter.lines, time.monotonic()
        for action in range(ACTIONS):
            seat = action % len(PLAYERS)
            level = ui.app.session.state.players[seat].level
            tile = table.tiles[seat]  # a line per player from five players on, else a tile
            ui.tap(tile.level_button(1))
            key = trackers[seat]
            await ui.until(
                lambda key=key, level=level: lit_bar(service.frames[key]) == level + 1,
                f"seat {seat}'s tracker shows Level {level + 1}",
            )
        played_s = time.monotonic() - started
        grown = counter.bytes - start_bytes
        lines = counter.lines - start_lines
    finally:
        logging.root.removeHandler(counter)
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    per_action = grown / ACTIONS
    # Two honest upper bounds: at this test's own pace (idle traffic included), and at
    # a tap a second for the hour.
    per_hour_at_pace = grown / played_s * 3600
    per_hour_by_actions = per_action * ACTIONS_PER_HOUR
    told = (
        f"{grown} bytes in {lines} lines over {ACTIONS} actions in {played_s:.1f} s "
        f"({per_action:.0f} B/action; {per_hour_at_pace / 1e6:.2f} MB/h at this pace, "
        f"{per_hour_by_actions / 1e6:.2f} MB/h at a tap a second); loggers: {counter.names}"
    )
    figure(f"[app log, 1 board + 8 trackers] {told}")
    assert per_hour_at_pace < HOUR_BUDGET / MARGIN, told
    assert per_hour_by_actions < HOUR_BUDGET / MARGIN, told
