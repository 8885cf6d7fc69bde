"""`companion serve` hosts a whole game with no window: three phones (real WebSocket
clients) play their own parts and the host types commands, from the first turn to a
winner; the saved log then replays with `companion replay`."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.store import Settings, SettingsStore
from companion.web.client import TableClient

pytestmark = pytest.mark.slow

STEP_S = 20.0  # s: every step answers in milliseconds; a hang must fail the test


class Serve:
    """`companion serve` in a process of its own: commands in, lines out."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._more = asyncio.Event()
        self._reading = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            self.lines.append(line.decode().rstrip("\n"))
            self._more.set()

    async def line(self, pattern: str, after: int = 0) -> str:
        """The first line from `after` on that matches `pattern`, once it is printed."""
        async with asyncio.timeout(STEP_S):
            while True:
                for line in self.lines[after:]:
                    if re.search(pattern, line):
                        return line
                self._more.clear()
                await self._more.wait()

    async def say(self, command: str, answer: str) -> str:
        """Type a command and wait for its answer (a line matching `answer`)."""
        after = len(self.lines)
        assert self.process.stdin is not None
        self.process.stdin.write(command.encode() + b"\n")
        await self.process.stdin.drain()
        return await self.line(answer, after)


async def start_serve(data: Path, *args: str) -> Serve:
    """`companion serve` on `data`, on a free local port, printing no QR codes."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "companion",
        "serve",
        *args,
        "--data-dir",
        str(data),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--no-qr",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    return Serve(process)


async def test_a_whole_game_hosted_by_serve_from_the_first_turn_to_a_winner(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    # A short wait before a kill is final (the app's own setting, read by serve).
    SettingsStore(data).save(Settings(victory_countdown_s=0.3))
    serve = await start_serve(data, "--players", "Anna,Bram,Cleo")
    process = serve.process
    phones: list[TableClient] = []
    try:
        for name in ("Anna", "Bram", "Cleo"):
            url = (await serve.line(rf"^{name}'s phone: ")).split(": ", 1)[1]
            phones.append(TableClient(url, reconnect=False))
        anna, bram, cleo = phones
        for phone in phones:
            await phone.connect()

        # Turns pass from the phone whose turn it is, and only from that one.
        refused = await bram.press("next_turn")
        assert refused["why"] == "It is Anna's turn: only they move it on"
        assert (await anna.press("next_phase"))["ok"]
        assert (await anna.press("next_turn"))["ok"]
        await bram.wait_for(lambda v: v["yours"], STEP_S, "Bram's turn")

        # Bram meets a monster he cannot beat: the table waits for his roll, on his phone.
        assert "the monsters win" in await serve.say("fight 3 Rat", r"^(Fight|Refused)")
        await bram.wait_for(lambda v: v["roll"] is not None, STEP_S, "the run-away roll")
        assert (await bram.roll(6))["ok"]
        await bram.wait_for(lambda v: v["fight"] is None, STEP_S, "away from the Rat")
        assert (await bram.press("next_turn"))["ok"]

        # The host takes Cleo's seat back: her phone is told and can press no more.
        said = await serve.say("back Cleo", r"seat has a new code")
        assert said.startswith("Cleo's seat has a new code")
        assert await cleo.wait_ended(STEP_S) == "taken"
        assert await serve.say("next", r"^Turn ") == "Turn 4: Anna · Kick open the door: you must"

        # Anna climbs to Level 9 from her phone; Level 10 only comes by a kill.
        for _ in range(8):
            assert (await anna.press("level_up"))["ok"]
        refused = await anna.press("level_up")
        assert not refused["ok"]
        assert "the players win" in await serve.say("fight 1 Slime", r"^(Fight|Refused)")
        await anna.wait_for(lambda v: v["can"]["kill"], STEP_S, "Kill! on Anna's phone")
        assert (await anna.press("kill"))["ok"]
        await anna.wait_for(lambda v: v["won"], STEP_S, "Anna's win")
        said = await serve.say("status", r"won!")
        assert said == "Anna has won! · Levels: Anna 10, Bram 1, Cleo 1."

        log = tmp_path / "game.json"
        await serve.say(f"export {log}", r"log is in")
        await serve.say("quit", r"^Stopping")
        async with asyncio.timeout(STEP_S):
            assert await process.wait() == 0
        await serve.line(r"the game is saved")
    finally:
        for phone in phones:
            await phone.close()
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.stderr is not None
    errors = (await process.stderr.read()).decode()
    assert "Traceback" not in errors, errors

    replayed = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(log)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stderr
    assert "Anna" in replayed.stdout and "won" in replayed.stdout.lower()
