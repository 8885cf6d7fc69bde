"""firmware/deploy.py against boards that behave like the real ports, cut short and run again.

The boards are the VM board of boardvm.py: mpremote soft-resets them before its first
command, a soft reset stops every machine.Timer and not the watchdog, a reset keeps the
flash. The swap itself is also checked step by step on a fake flash, a power cut after
every single file operation.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import time
import types
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import deploy
import pytest
from boardvm import BoardVM

ROOT = Path(__file__).resolve().parents[2]
BOOT = ROOT / "firmware" / "boot.py"
PINOUT = "levelboard-picow"  # the rp2 port: its soft timer is what fed the watchdog
INSTALLS = 2  # companion install is cut twenty times (test_install.py); the same board side
SILENCE_S = 10.0  # s: the VM board answers every step well within it


# -- the swap in boot.py, cut after every file operation ------------------------------------


class PowerCut(BaseException):
    """The board lost power here (no ``except OSError`` on the board catches it)."""


class Flash:
    """A little flash file system as MicroPython's ``os`` shows it, which can lose power."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = dict(files)
        self.dirs = {"/"} | {p.rsplit("/", 1)[0] or "/" for p in files}
        self.cut_after: int | None = None
        self.ops = 0
        # Renames that fail with an OSError (a full or failing flash), by their number
        # (0 for the first rename); the file system stays as it was.
        self.rename_fails: Callable[[int], bool] = lambda number: False
        self.renames = 0

    def _op(self) -> None:
        if self.cut_after is not None and self.ops >= self.cut_after:
            raise PowerCut()
        self.ops += 1

    def module(self) -> types.ModuleType:
        fs = self
        os_ = types.ModuleType("os")

        def rename(old: str, new: str) -> None:
            fs._op()
            number, fs.renames = fs.renames, fs.renames + 1
            if fs.rename_fails(number):
                raise OSError(28, "ENOSPC")
            old, new = "/" + old.lstrip("/"), "/" + new.lstrip("/")
            if old not in fs.files:
                raise OSError(2, old)
            fs.files[new] = fs.files.pop(old)

        def remove(path: str) -> None:
            fs._op()
            if path not in fs.files:
                raise OSError(2, path)
            del fs.files[path]

        def mkdir(path: str) -> None:
            fs._op()
            if path in fs.dirs:
                raise OSError(17, path)
            fs.dirs.add(path)

        def rmdir(path: str) -> None:
            fs._op()
            if any(p.startswith(path + "/") for p in fs.files | dict.fromkeys(fs.dirs)):
                raise OSError(39, path)
            fs.dirs.discard(path)

        def ilistdir(path: str):
            if path not in fs.dirs:
                raise OSError(2, path)
            prefix = path.rstrip("/") + "/"
            entries = {}
            for p in fs.files:
                if p.startswith(prefix) and "/" not in p[len(prefix) :]:
                    entries[p[len(prefix) :]] = 0x8000
            for d in fs.dirs:
                if d.startswith(prefix) and d != prefix and "/" not in d[len(prefix) :]:
                    entries[d[len(prefix) :]] = 0x4000
            return [(name, kind, 0) for name, kind in sorted(entries.items())]

        def stat(path: str) -> tuple[int, ...]:
            if path in fs.files:
                return (0x8000, 0, 0, 0, 0, 0, len(fs.files[path]), 0, 0, 0)
            if path.rstrip("/") in fs.dirs or path == "/":
                return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            raise OSError(2, path)

        os_.rename, os_.remove, os_.mkdir, os_.rmdir = rename, remove, mkdir, rmdir
        os_.stat = stat
        os_.ilistdir = ilistdir
        os_.listdir = lambda path: [e[0] for e in ilistdir(path)]
        return os_

    def open(self, path: str, mode: str = "r"):
        if path not in self.files:
            raise OSError(2, path)
        import io

        data = self.files[path]
        return io.StringIO(data.decode()) if "b" not in mode else io.BytesIO(data)


def start_board(flash: Flash) -> None:
    """boot.py as a board runs it at a start, on ``flash``."""
    mp = types.ModuleType("micropython")
    mp.kbd_intr = lambda char: None
    saved = {name: sys.modules.get(name) for name in ("micropython", "os")}
    sys.modules["micropython"] = mp
    sys.modules["os"] = flash.module()
    try:
        exec(compile(BOOT.read_text(), "boot.py", "exec"), {"open": flash.open, "print": print})
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


OLD = {
    "/boot.py": BOOT.read_bytes(),
    "/main.py": b"old main",
    "/wire.py": b"old wire source",
    "/seal.py": b"old seal source",
    "/board.json": b"{}",
    "/counter/app.py": b"old app",
    "/counter/gone.py": b"a module the new firmware no longer has",
    "/data/state.bin": b"the table",
    "/lib/aioble/__init__.py": b"aioble",
}
NEW = {
    "boot.py": BOOT.read_bytes(),
    "main.py": b"new main",
    "wire.mpy": b"new wire",
    "seal.mpy": b"new seal",
    "board.json": b'{"role": "board"}',
    "counter/app.mpy": b"new app",
}
STAGED = {f"{deploy.STAGING}/{name}": data for name, data in NEW.items()}
COMPLETE = {deploy.COMPLETE: " ".join(NEW).encode()}
INSTALLED = {"/" + name: data for name, data in NEW.items()} | {
    "/data/state.bin": b"the table",
    "/lib/aioble/__init__.py": b"aioble",
}


def test_a_staging_not_marked_complete_is_never_installed() -> None:
    flash = Flash(OLD | STAGED)
    start_board(flash)
    assert flash.files == OLD | STAGED  # the old firmware runs as it was


def test_a_power_cut_after_any_file_operation_of_the_swap_and_the_next_start_finishes_it() -> None:
    whole = Flash(OLD | STAGED | COMPLETE)
    start_board(whole)
    assert whole.files == INSTALLED
    assert not [d for d in whole.dirs if d.startswith(deploy.STAGING)]
    for cut in range(whole.ops):
        flash = Flash(OLD | STAGED | COMPLETE)
        flash.cut_after = cut
        with pytest.raises(PowerCut):
            start_board(flash)
        # Cut short: still marked (the next start carries it on), or already all in place.
        done = all(flash.files.get(path) == data for path, data in INSTALLED.items())
        assert deploy.COMPLETE in flash.files or done, f"cut after {cut} operations"
        flash.cut_after = None
        start_board(flash)
        assert flash.files == INSTALLED, f"cut after {cut} operations"


def test_a_rename_that_fails_leaves_the_old_firmware_whole_and_the_next_start_installs() -> None:
    """Whichever rename of the swap fails, the board runs the old firmware or the whole
    new one, never a mix and never neither (a failed rename once left only boot.py,
    main.py and board.json: the old modules put aside, the new ones deleted)."""
    whole = Flash(OLD | STAGED | COMPLETE)
    start_board(whole)
    assert whole.renames > len(NEW)  # each new file in, each old one aside first
    for failing in range(whole.renames):
        flash = Flash(OLD | STAGED | COMPLETE)
        flash.rename_fails = lambda number, failing=failing: number == failing
        start_board(flash)
        assert flash.files in (OLD | STAGED | COMPLETE, INSTALLED), f"rename {failing} failed"
        flash.rename_fails = lambda number: False
        start_board(flash)  # the flash works again: the next start installs
        assert flash.files == INSTALLED, f"rename {failing} failed"


@pytest.mark.parametrize("first", [0, 1, 3, 6])
def test_renames_failing_for_good_keep_the_old_firmware_or_stop_at_a_known_place(
    first: int,
) -> None:
    """From some rename on every rename fails (putting things back too): the mark stays,
    and the start after the flash recovers finishes the install."""
    flash = Flash(OLD | STAGED | COMPLETE)
    flash.rename_fails = lambda number: number >= first
    start_board(flash)
    assert deploy.COMPLETE in flash.files
    if first == 0:
        assert flash.files == OLD | STAGED | COMPLETE  # nothing moved at all
    flash.rename_fails = lambda number: False
    start_board(flash)
    assert flash.files == INSTALLED


def test_boot_py_start_py_and_deploy_agree_on_their_files() -> None:
    source = BOOT.read_text()
    assert f'STAGING = "{deploy.STAGING}"' in source
    assert f'COMPLETE = "{deploy.COMPLETE}"' in source
    start = (ROOT / "firmware" / "counter" / "start.py").read_text()
    assert f'MAINTENANCE_FILE = "{deploy.MAINTENANCE.rsplit("/", 1)[1]}"' in start
    assert f'_BOOTS_FILE = "{deploy.BOOTS.rsplit("/", 1)[1]}"' in start
    assert 'def boot(board_path="board.json", data_dir="/data"' in start


# -- deploy.py against the VM board ------------------------------------------------------------


def expected_tree(tmp_path: Path, mpy: bool) -> dict[str, str]:
    folder = tmp_path / ("staged-mpy" if mpy else "staged-py")
    folder.mkdir(exist_ok=True)
    placed = deploy.stage(PINOUT, mpy, folder)
    return {"/" + name: digest for name, digest in deploy.digests(folder, placed).items()}


async def run_deploy(
    vm: BoardVM, mpy: bool, cut_after_s: float | None = None, cut: str = "kill"
) -> tuple[int | None, str, bool]:
    """deploy.py as a person runs it; optionally cut short ``cut_after_s`` into it.

    Returns its exit code, its output, and whether the cut came before it ended.
    """
    args = [sys.executable, str(ROOT / "firmware" / "deploy.py"), "--port", vm.path]
    args += ["--board", PINOUT, "--no-aioble", "--silence", str(SILENCE_S)]
    args += ["--mpy"] if mpy else []
    proc = await asyncio.create_subprocess_exec(
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,  # mpremote runs in its group: a kill takes both
    )
    cut_short = False
    if cut_after_s is not None:
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), cut_after_s)
        except TimeoutError:
            if cut in ("reset", "both"):
                vm.send(cmd="reset")  # the power goes, or the reset button
                cut_short = True
            if cut in ("kill", "both"):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # the cable, or Ctrl-C
                    cut_short = True
                except ProcessLookupError:
                    pass  # it ended between the timeout and the kill
    out, _ = await proc.communicate()
    return proc.returncode, out.decode(errors="replace"), cut_short


async def installed(vm: BoardVM, expected: dict[str, str]) -> None:
    """The board holds exactly the firmware staged for it, besides its data and aioble."""
    files = await vm.files()
    ours = {
        path: digest
        for path, digest in files.items()
        if digest is not None and not path.startswith(("/data/", "/lib/"))
    }
    assert ours == expected, "\n" + vm.serial_log[-2000:].decode(errors="replace")


@pytest.fixture
async def fresh_board(tmp_path: Path) -> AsyncIterator[BoardVM]:
    """A board straight from a MicroPython install: its REPL, nothing of ours."""
    vm = BoardVM(tmp_path, PINOUT, stage=False, heap_bytes=2 * 1024 * 1024)
    vm.start()
    try:
        await vm.expect("boot")
        yield vm
    finally:
        vm.close()


@pytest.mark.slow
async def test_deploy_installs_on_a_board_fresh_from_micropython(
    fresh_board: BoardVM, tmp_path: Path
) -> None:
    code, out, _ = await run_deploy(fresh_board, mpy=True)
    assert code == 0, out + fresh_board.serial_log[-3000:].decode(errors="replace")
    assert "the counter answers: level board, firmware 1.0.0" in out
    await installed(fresh_board, expected_tree(tmp_path, mpy=True))


@pytest.mark.slow
async def test_a_board_that_stops_answering_mid_step_does_not_hold_deploy(
    fresh_board: BoardVM, tmp_path: Path
) -> None:
    """mpremote waits for ever for a board reset mid-copy whose USB bridge kept the port."""
    silent = ["exec", "import time\nwhile True:\n    time.sleep(1)"]
    step = asyncio.to_thread(deploy.mpremote, fresh_board.path, silent, cwd=tmp_path, silence_s=3.0)
    with pytest.raises(deploy.DeployError, match="said nothing for 3 s"):
        await asyncio.wait_for(step, 60)


# What today's firmware leaves after the REPL escape: the REPL, the watchdog running,
# a machine.Timer feeding it. mpremote's soft reset stops that timer.
FED_BY_A_TIMER = """\
import machine
wdt = machine.WDT(timeout=8000)
feeder = machine.Timer(-1)
feeder.init(period=1000, callback=lambda t: wdt.feed())
print("counter: protocol stopped, REPL is back")
"""


@pytest.mark.slow
async def test_deploy_over_a_board_whose_watchdog_a_timer_feeds(tmp_path: Path) -> None:
    """Copying over a soft reset used to take longer than the 8 s an unfed watchdog allows."""
    vm = BoardVM(tmp_path, PINOUT, mpy=False, heap_bytes=2 * 1024 * 1024)
    (vm.flash / "main.py").write_text(FED_BY_A_TIMER)
    vm.start()
    try:
        await vm.expect("ended", how="repl")
        code, out, _ = await run_deploy(vm, mpy=False)
        assert code == 0, out
        assert "(parked)" in out  # no counter said it was in maintenance: main.py parked
        await installed(vm, expected_tree(tmp_path, mpy=False))
        assert not [e for e in vm.seen if e.get("how") == "reset:watchdog"]
    finally:
        vm.close()


@pytest.mark.slow
async def test_installs_over_a_running_counter_each_cut_short_and_run_again(
    tmp_path: Path, figure: Callable[[str], None]
) -> None:
    seed = int(os.environ.get("DEPLOY_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    trees = {mpy: expected_tree(tmp_path, mpy) for mpy in (True, False)}
    vm = BoardVM(tmp_path, PINOUT, mpy=True, heap_bytes=4 * 1024 * 1024)
    vm.start()
    cuts = []
    try:
        await vm.expect("boot")
        # How long an install takes over the same firmware, and over the other build
        # (every file changes), measured in this run: the cuts fall within them.
        took = {}
        for mpy in (True, False):
            started = time.monotonic()
            code, out, _ = await run_deploy(vm, mpy=mpy)
            assert code == 0, out
            took["other" if not mpy else "first"] = time.monotonic() - started
        started = time.monotonic()
        code, out, _ = await run_deploy(vm, mpy=False)
        assert code == 0, out
        took["same"] = time.monotonic() - started
        mpy = False
        for i in range(INSTALLS):
            switch = i % 2 == 1  # every other install changes build: every file is new
            mpy = not mpy if switch else mpy
            cut = rng.choice(["kill", "reset", "both"])
            limit = took["other" if switch else "same"] * 0.9
            cut_short = False
            while not cut_short:  # an attempt that ended before its cut was no test: again
                at = rng.uniform(0, limit)
                first, out, cut_short = await run_deploy(vm, mpy, cut_after_s=at, cut=cut)
                limit = at
            cuts.append(f"{cut}@{at:.1f}s:{first}")
            code, out, _ = await run_deploy(vm, mpy)
            if code != 0:
                (tmp_path / "serial.log").write_bytes(vm.serial_log)
                events = [e for e in vm.seen if e.get("event") not in ("state", "files")]
                pytest.fail(
                    f"install {i} ({cuts[-1]}, seed {seed}):\n{out}\n{events[-12:]}\n"
                    f"the board's serial line: {tmp_path / 'serial.log'}"
                )
            assert "the counter answers: level board" in out
            await installed(vm, trees[mpy])
        boots = [e for e in vm.seen if e.get("event") == "boot"]
        assert not [e for e in vm.seen if e.get("how") == "reset:watchdog"]
    finally:
        vm.close()
    figure(
        f"[deploy] {INSTALLS} installs, each cut short first (seed {seed}; "
        f"{took['same']:.1f} s over the same build, {took['other']:.1f} s over the "
        f"other): {', '.join(cuts)}; {len(boots)} starts of the board"
    )
