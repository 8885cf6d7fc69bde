"""`companion serve` (the table link with no window) and `companion sim --phones N`."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

from companion.store import GameStore
from companion.web.client import TableClient

pytestmark = pytest.mark.slow

URL = re.compile(r"(http://127\.0\.0\.1:\d+/#k=[A-Za-z0-9_-]{32})")


async def _lines_until(
    stream: asyncio.StreamReader, count: int, timeout_s: float = 60
) -> list[str]:
    lines: list[str] = []
    async with asyncio.timeout(timeout_s):
        while sum(1 for line in lines if URL.search(line)) < count:
            line = (await stream.readline()).decode()
            assert line, f"the command ended early: {lines}"
            lines.append(line)
    return lines


async def test_serve_lets_a_phone_press_and_saves_the_game(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "companion",
        "serve",
        "--data-dir",
        str(tmp_path),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--players",
        "Ann,Bo",
        "--house-players",  # two at the table: the house rule for it
        "--no-qr",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "LANGUAGE": "en"},
    )
    assert process.stdout is not None
    try:
        try:
            lines = await _lines_until(process.stdout, 3)
        except AssertionError:
            assert process.stderr is not None
            raise AssertionError((await process.stderr.read()).decode()) from None
        urls = [URL.search(line).group(1) for line in lines if URL.search(line)]  # type: ignore[union-attr]
        board_url, ann_url, _bo_url = urls
        assert any("Board" in line for line in lines) and any(
            "Ann's phone" in line for line in lines
        )
        ann = TableClient(ann_url)
        board = TableClient(board_url)
        try:
            await ann.connect()
            await board.connect()
            assert (await ann.press("level_up"))["ok"]  # answered once saved
            await board.wait_for(lambda v: v["players"][0]["level"] == 2)
        finally:
            await ann.close()
            await board.close()
    finally:
        process.terminate()
        _out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    store = GameStore(tmp_path)
    try:
        loaded = store.load_last()
        assert loaded is not None
        _game_id, game = loaded
        assert game.state.players[0].level == 2
        assert game.log[-1].source is not None and game.log[-1].source.via == "phone"
    finally:
        store.close()


async def test_sim_phones_press_on_a_table_of_their_own() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "companion",
        "sim",
        "--boards",
        "0",
        "--phones",
        "2",
        "--duration",
        "3",
        "--plain",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 90)
    text = out.decode()
    assert process.returncode == 0, err.decode()
    assert "watch: http://127.0.0.1:" in text
    assert re.search(r"phone 2 \(.+, connected\): [1-9]\d* presses", text), text
