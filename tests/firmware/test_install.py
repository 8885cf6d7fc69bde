"""`companion install` over a counter's USB line, cut short at random moments.

The counter is the VM board of boardvm.py on a pty, running the firmware's own code
the way the rp2 port runs it. Each install goes from the firmware on the board to the
other of two builds that differ in every file (sources of "0.9.0", `.mpy` files of the
shipped version), so any cut lands among files that all change. The cut is the cable
coming out: the pty goes away and the board, powered by USB, resets.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import os
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from boardvm import BoardVM, board_on_older_firmware

from companion import cli
from companion.devices import install

PINOUT = "levelboard-picow"
CUTS = 20
OLD_VERSION = "0.9.0"
RUN_WAIT_S = 60.0  # s: one install over the VM board takes about five


def firmware_pair() -> tuple[install.Firmware, install.Firmware]:
    """An older build from sources and the shipped build as .mpy: every file differs."""
    old = install.Firmware.shipped(PINOUT, mpy=False)
    logic = old.files["counter/logic.py"]
    marker = b"FIRMWARE_VERSION = ("
    start = logic.index(marker)
    end = logic.index(b")", start) + 1
    old.files["counter/logic.py"] = logic[:start] + b"FIRMWARE_VERSION = (0, 9, 0)" + logic[end:]
    old.version = OLD_VERSION
    new = install.Firmware.shipped(PINOUT, mpy=True)
    assert new.version != OLD_VERSION
    return old, new


def tree(firmware: install.Firmware) -> dict[str, str]:
    return {"/" + n: hashlib.sha256(data).hexdigest() for n, data in firmware.files.items()}


async def on_board(vm: BoardVM) -> dict[str, str]:
    """The firmware files on the board (data, libraries and a staging left aside).

    A main.py that an install parked (a board that was not in maintenance) counts as
    the main.py it is: the next install puts it back.
    """
    files = await vm.files()
    ours = {}
    for path, digest in files.items():
        if digest is None or path.startswith(("/data/", "/lib/", install._deploy().STAGING)):
            continue
        ours["/main.py" if path == "/main.py.off" else path] = digest
    return ours


class Command:
    """`companion install PORT --yes` run in a thread, as a person runs it; its output."""

    def __init__(self, port: str) -> None:
        self.port = port
        self.out = io.StringIO()
        self.code: int | None = None

    def _run(self) -> int:
        with contextlib.redirect_stdout(self.out), contextlib.redirect_stderr(self.out):
            return cli.main(["install", self.port, "--yes"])

    async def run(self, cut_after_s: float | None = None, cut: Callable[[], None] | None = None):
        """The command's exit code; `cut()` is called `cut_after_s` into it if it still runs.

        Returns whether the cut came before the command ended.
        """
        task = asyncio.ensure_future(asyncio.to_thread(self._run))
        cut_short = False
        if cut_after_s is not None and cut is not None:
            try:
                self.code = await asyncio.wait_for(asyncio.shield(task), cut_after_s)
            except TimeoutError:
                cut()
                cut_short = True
        self.code = await asyncio.wait_for(task, RUN_WAIT_S)
        return cut_short

    @property
    def text(self) -> str:
        return self.out.getvalue()


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch):
    """The two builds, and a switch for which one the app ships."""
    old, new = firmware_pair()
    shipping = {"now": new}
    monkeypatch.setattr(install, "shipped_version", lambda: shipping["now"].version)
    monkeypatch.setattr(
        install.Firmware, "shipped", classmethod(lambda cls, pinout, mpy=False: shipping["now"])
    )
    # The board's reset after the escape takes well under a second here; a cable that is
    # out is said sooner than a real board's USB coming back would allow.
    monkeypatch.setattr(install, "RESET_WAIT_S", 4.0)

    def ship(firmware: install.Firmware) -> None:
        shipping["now"] = firmware

    return old, new, ship


@pytest.fixture
async def board(tmp_path: Path):
    async with board_on_older_firmware(tmp_path, PINOUT) as vm:
        yield vm


async def test_an_install_then_the_counter_already_runs_it(board: BoardVM, builds) -> None:
    old, new, _ship = builds
    assert await on_board(board) == tree(old)
    command = Command(board.path)
    await command.run()
    assert command.code == 0, command.text
    assert "Counter on" in command.text and f"firmware {OLD_VERSION}" in command.text
    assert f"To install: firmware {new.version}" in command.text
    # A line per file copied, the last one with every file that differs (boot.py, main.py
    # and the pin map are the same in both builds: nothing to copy).
    copied = re.findall(r"Copying files: (\d+) of (\d+)", command.text)
    assert [int(done) for done, _ in copied] == list(range(len(copied)))
    differ = [name for name, data in new.files.items() if old.files.get(name) != data]
    assert copied[-1][0] == copied[-1][1] == str(len(differ))
    assert f"Done: the counter runs firmware {new.version} (it ran {OLD_VERSION})" in command.text
    assert await on_board(board) == tree(new)

    again = Command(board.path)
    await again.run()
    assert again.code == 0, again.text
    assert f"It already runs firmware {new.version}" in again.text
    assert "Copying" not in again.text


@pytest.mark.slow
async def test_twenty_installs_each_cut_by_the_cable_end_in_the_old_or_the_new_firmware(
    board: BoardVM, builds, figure: Callable[[str], None]
) -> None:
    """Each cut leaves one whole firmware; the next install starts from there."""
    old, new, ship = builds
    seed = int(os.environ.get("INSTALL_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    started = time.monotonic()
    # How long a whole install takes here (every file changes): the cuts fall within it.
    ship(new)
    first = Command(board.path)
    await first.run()
    assert first.code == 0, first.text
    took = time.monotonic() - started
    here, other = new, old
    cuts: list[str] = []

    def cable_out() -> None:
        board.port.unplug()
        board.send(cmd="reset")  # USB was its power

    for i in range(CUTS):
        ship(other)
        command = Command(board.path)
        at = rng.uniform(0.2, took)
        began = time.monotonic()
        cut_short = await command.run(at, cable_out)
        if not cut_short:  # it ended first (most files were staged by an earlier cut)
            assert command.code == 0, command.text
            cuts.append(f"whole@{time.monotonic() - began:.1f}s")
        else:
            cuts.append(f"{at:.1f}s:{command.code}")
            text = command.text
            assert "Traceback" not in text
            assert command.code == (0 if "Done:" in text else 1), text
            if "Stopping" in text and "Starting the counter" not in text:
                assert "plug it back in and run companion install again" in text.lower(), text
            await board.expect("boot")
            board.port.plug()
        on = await on_board(board)
        assert on in (tree(here), tree(other)), f"cut {i} ({cuts[-1]}, seed {seed}): a mix"
        if on == tree(other):
            here, other = other, here
        if i % 5 == 4:  # and run again, as the message says: it finishes
            ship(other)
            again = Command(board.path)
            await again.run()
            assert again.code == 0, f"seed {seed}: {again.text}"
            assert await on_board(board) == tree(other)
            here, other = other, here
    assert not [e for e in board.seen if e.get("how") == "reset:watchdog"]
    figure(
        f"[install] {CUTS} installs through companion install cut by the cable (seed {seed}), "
        f"{time.monotonic() - started:.0f} s: {', '.join(cuts)}"
    )


def test_a_line_whose_far_end_went_away_mid_flush_is_the_cable_coming_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pulling the cable can make the system's wait for the bytes to leave fail (a
    terminal call's own error, not an OSError): the install says the cable came out, as
    for any other way the line went away, instead of ending in a traceback."""
    import pty
    import termios

    master, slave = pty.openpty()
    try:
        repl = install.RawRepl(os.ttyname(slave))

        def gone() -> None:
            raise termios.error(5, "Input/output error")

        monkeypatch.setattr(repl.port, "flush", gone)
        with pytest.raises(install._Gone):
            repl._write(b"\x03")
        repl.close()
    finally:
        os.close(master)
        os.close(slave)
