"""The saved games under every fault at once, end to end: a game is played with the app's
recorder in a child process while the world hurts it (kill -9 during saves, the disk
filling up, the write-ahead log removed, random pages damaged, a hostile data folder, a
second program playing the same game on the same folder, an old save of the game put
back in the games folder, one action's row damaged or deleted, a disk whose every sync is slow);
then the real app starts on what is left (offscreen, as `companion app` does).

Every run must end with every action the child was told was saved present (damaged
pages excepted: there the app must find the damage, say so, and recover what SQLite
still reads), and the app on a usable screen that says what happened. Prints the counts;
exits 1 if any run broke a promise.

    .venv/bin/python tests/store/fault_run.py [--rounds 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import random
import resource
import select
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.store.fault_tools import (
    CannotHurt,
    child_reports,
    damage_pages,
    fill,
    small_filesystem,
)
from tests.ui.test_startup import probe_script, run_probe

if TYPE_CHECKING:
    from companion.core import Game

KINDS = (
    "kill",
    "disk-full",
    "log-removed",
    "pages-damaged",
    "hostile-folder",
    "two-programs",
    "old-save-back",
    "action-damaged",
    "slow-disk",
)
# On the slow disk, every sync takes this long (a commit one, a checkpoint two).
SLOW_SYNC_S = 0.3
GAME_ID = "20260101-120000-fade"
ACTIONS = 1500
USABLE = {"table", "new_game", "games"}
# A child plays this long at the most before it is killed (s).
PLAY_S = 1.5

PROBE = probe_script(
    """

    app = CompanionApp(data_dir=Path(sys.argv[1]), no_virtual=True)
    report = {}

    async def probe():
        await started()
        game = app.session.game
        report.update(
            screen=app.manager.current,
            # The message of the start, even if it has faded since (a slow machine).
            banner=app.root.ids.banner.text,
            game_id=app.session.game_id,
            recorded=game.recorded if game is not None else 0,
            recoverable=[path.name for path in app.session.games.recoverable],
        )
        if report["recoverable"]:
            report["recovered"] = app.session.games.recover().brought_back
            try:
                report["recorded"] = app.session.games.load(GAME_ID).recorded
            except ValueError:
                report["recorded"] = 0
        app.stop()
    """,
    GAME_ID=GAME_ID,
)


@dataclass
class Outcome:
    kind: str
    reported: int = 0
    found: int = 0
    screen: str = ""
    said: bool = False
    broken: list[str] = field(default_factory=list)


@functools.cache
def intended_game() -> Game:
    """The game every child plays (made once, before the first child starts)."""
    from companion.core.randomplay import random_game

    return random_game(ACTIONS, seed=5, allow_win=False)


def play(folder: Path, report: int, file_limit: int | None, slow: bool = False) -> None:
    """The child: play a long game with the recorder, telling the parent each durable count
    (`slow`: on a disk whose every sync takes `SLOW_SYNC_S`)."""
    from companion.core import Game
    from companion.store import GameStore

    if slow:
        from companion.store import writer
        from tests.store.slow_disk import SlowDisk, _SlowConnection

        disk = SlowDisk(lambda _what: time.sleep(SLOW_SYNC_S))
        real_connect = writer.connect
        writer.connect = lambda path: _SlowConnection(real_connect(path), disk)  # type: ignore[assignment]

    logging.disable(logging.WARNING)  # the failed saves are counted, not printed
    if file_limit is not None:  # the disk fills up: writes past this size fail
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))
    intended = intended_game()
    store = GameStore(folder)
    saved: dict[int, int] = {}

    def durable(_game_id: str, sequence: int) -> None:
        if sequence in saved:
            os.write(report, f"{saved[sequence]}\n".encode())

    store.durability.durable_listeners.add(durable)
    game = Game(intended.setup)
    store.recorder().follow(GAME_ID, game)
    game.subscribe(lambda _state: saved.__setitem__(game.sequence, game.recorded))
    store.last_id = GAME_ID
    for action in intended.log:
        game.apply(action)
        time.sleep(0.0005)
    store.flush()
    time.sleep(60)  # wait to be killed


def second_program(folder: Path) -> Callable[[], None]:
    """A hurt: a second program starts on the same folder and plays the same game."""

    def start() -> None:
        from tests.store.fault_tools import fork

        read_end, write_end = os.pipe()
        SECONDS.append((fork(lambda: play(folder, write_end, None), close=read_end), read_end))
        os.close(write_end)

    return start


# (pid, the end its reports come from) of the second programs still running.
SECONDS: list[tuple[int, int]] = []


def stop_seconds() -> int:
    """Kill the second programs; returns the most actions any was told were saved."""
    told = 0
    while SECONDS:
        pid, read_end = SECONDS.pop()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        data = b""
        while select.select([read_end], [], [], 0)[0]:
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            data += chunk
        os.close(read_end)
        told = max([told, *(int(line) for line in data.decode().split())])
    return told


def put_old_save_back(folder: Path, rnd: random.Random) -> None:
    """An older state of the game as a JSON save in the games folder, freshly touched (a
    restore, a sync tool)."""
    from companion.core import Game

    intended = intended_game()
    older = Game.from_actions(intended.setup, intended.log[: rnd.randrange(1, 50)])
    games = folder / "games"
    games.mkdir(exist_ok=True)
    (games / f"{GAME_ID}.json").write_text(older.to_json(), encoding="utf-8")


def damage_one_action(database: Path, rnd: random.Random, upto: int) -> int:
    """A bad byte in one action's text, or its row deleted; returns its number."""
    import sqlite3

    number = rnd.randrange(1, upto + 1)
    with contextlib.closing(sqlite3.connect(database)) as conn, conn:
        if rnd.random() < 0.5:
            conn.execute("DELETE FROM actions WHERE game_id = ? AND number = ?", (GAME_ID, number))
        else:
            conn.execute(
                "UPDATE actions SET body = CAST(CAST(body AS BLOB) || X'FF' AS TEXT) "
                "WHERE game_id = ? AND number = ?",
                (GAME_ID, number),
            )
    return number


def run_child(
    folder: Path,
    rnd: random.Random,
    hurt: Callable[[], None] | None,
    file_limit: int | None,
    slow: bool = False,
) -> int:
    """Play in a child; `hurt` strikes at a random moment; the child is killed with
    SIGKILL at another. Returns the most actions the child was told were saved."""
    intended_game()
    import companion.store.games  # noqa: F401 - loaded once, before the children fork

    return child_reports(
        lambda report: play(folder, report, file_limit, slow),
        kill_at_s=rnd.uniform(PLAY_S * 0.75, PLAY_S),
        hurt=hurt,
        hurt_at_s=rnd.uniform(0.2, PLAY_S * 0.7),
    )


def start_app(folder: Path) -> dict[str, object]:
    report = run_probe(PROBE, folder)
    assert isinstance(report, dict)
    return report


def check(outcome: Outcome, report: dict[str, object], expect_said: bool, keep: bool) -> None:
    outcome.screen = str(report["screen"])
    outcome.said = bool(report["banner"])
    outcome.found = int(str(report["recorded"]))
    if outcome.screen not in USABLE:
        outcome.broken.append(f"the app ended on {outcome.screen!r}")
    if expect_said and not outcome.said:
        outcome.broken.append("the app did not say what happened")
    if keep and outcome.found < outcome.reported:
        outcome.broken.append(f"{outcome.reported} actions reported saved, {outcome.found} found")


@contextlib.contextmanager
def data_folder(kind: str, work: Path) -> Iterator[tuple[Path, Path | None]]:
    """A fresh data folder; on a small file system of its own for `disk-full` when this
    machine allows it (else the file-size limit stands in for a full disk)."""
    if kind == "disk-full":
        try:
            with small_filesystem(4096) as where:
                yield where / "data", where
                return
        except CannotHurt:
            pass
    folder = Path(tempfile.mkdtemp(dir=work, prefix=f"{kind}-"))
    yield folder, None


def one_round(kind: str, work: Path, rnd: random.Random, how: Counter[str]) -> Outcome:
    outcome = Outcome(kind)
    with data_folder(kind, work) as (folder, small_fs):
        folder.mkdir(parents=True, exist_ok=True)
        database = folder / "games.sqlite3"
        hurt: Callable[[], None] | None = None
        file_limit = None
        if kind == "log-removed":
            hurt = lambda: Path(f"{database}-wal").unlink(missing_ok=True)  # noqa: E731
        elif kind == "two-programs":
            hurt = second_program(folder)
        elif kind == "disk-full" and small_fs is not None:
            hurt = lambda: fill(small_fs)  # noqa: E731
            how["disk-full: a small tmpfs filled up"] += 1
        elif kind == "disk-full":
            file_limit = rnd.randrange(100_000, 400_000)
            how["disk-full: the file-size limit (not root)"] += 1
        outcome.reported = run_child(folder, rnd, hurt, file_limit, slow=kind == "slow-disk")
        if kind == "two-programs" and stop_seconds() > 0:
            outcome.broken.append("the second program was told its play was saved")
        if kind == "old-save-back":
            put_old_save_back(folder, rnd)
        damaged_at = 0
        if kind == "action-damaged" and outcome.reported > 0:
            damaged_at = damage_one_action(database, rnd, outcome.reported)
        if kind == "pages-damaged":
            damage_pages(database, rnd, pages=rnd.choice((1, 2, 4, 8)))
        if kind == "hostile-folder":
            os.mkfifo(folder / "settings.json")
            (folder / "counters.json").symlink_to("/dev/zero")
            (folder / "packs").mkdir(exist_ok=True)
            os.mkfifo(folder / "packs" / "table-monsters.toml")
            os.mkfifo(folder / "last-game")
        report = start_app(folder)
        # Damaged pages may take reported actions with them: the app must find the
        # damage and say so; what can still be read is recovered (counted apart).
        damaged = kind == "pages-damaged" and bool(report["recoverable"] or report["banner"])
        check(
            outcome,
            report,
            expect_said=kind in ("disk-full", "hostile-folder", "old-save-back")
            or damaged
            or damaged_at > 0,
            keep=not damaged and damaged_at == 0,
        )
        if damaged_at and outcome.found < damaged_at - 1:
            # Every action before the damaged one is there; those after it that still
            # follow the rules come back with the recovery.
            outcome.broken.append(
                f"action {damaged_at} damaged: only {outcome.found} found after recovery"
            )
        if damaged_at and not report["recoverable"]:
            outcome.broken.append("the damaged game was not set aside to recover from")
        if kind == "disk-full" and small_fs is not None:
            (small_fs / "filler").unlink(missing_ok=True)  # room again: it is written as ever
            again = start_app(folder)
            if again["banner"] or int(str(again["recorded"])) < outcome.reported:
                outcome.broken.append(f"after room was made: {again}")
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="runs in all (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    rnd = random.Random(args.seed)
    how: Counter[str] = Counter()
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="companion-faults-") as work:
        for number in range(args.rounds):
            kind = KINDS[number % len(KINDS)]
            outcome = one_round(kind, Path(work), rnd, how)
            outcomes.append(outcome)
            mark = "ok" if not outcome.broken else "BROKEN: " + "; ".join(outcome.broken)
            print(
                f"{number + 1:3d} {kind:15s} reported saved {outcome.reported:5d}, "
                f"found {outcome.found:5d}, screen {outcome.screen:9s} "
                f"{'said' if outcome.said else 'quiet'}  {mark}",
                flush=True,
            )
    print()
    for kind in KINDS:
        mine = [o for o in outcomes if o.kind == kind]
        if not mine:
            continue
        reported, found = sum(o.reported for o in mine), sum(o.found for o in mine)
        usable, said = sum(o.screen in USABLE for o in mine), sum(o.said for o in mine)
        print(
            f"{kind:15s} runs {len(mine):3d}  actions reported saved {reported:6d}"
            f"  found {found:6d}  usable screen {usable}  said {said}"
            f"  broken {sum(bool(o.broken) for o in mine)}"
        )
    for what, count in sorted(how.items()):
        print(f"({what}: {count} runs)")
    broken = sum(bool(o.broken) for o in outcomes)
    print(f"{len(outcomes)} runs, {broken} broke a promise")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
