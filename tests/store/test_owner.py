"""Two programs on one data folder: the first owns it, the second says so and never
writes a game the first writes; once the first has gone, the second takes the folder
over and keeps what it played beside the first's game. Real processes, real locks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.core import CLASSIC, Game, GameSetup, GoUpLevel, PlayerSetup, Sex
from companion.store import GameStore
from companion.store import games as games_module
from companion.store.owner import OWNER_FILE, claim

ROOT = Path(__file__).resolve().parents[2]
GAME = "20261129-030000-abcd"
STEP_S = 60  # a hang must fail the test, not stall the suite

# The owner: a program that plays the saved game on while the test runs another.
OWNER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from companion.core import GoUpLevel
    from companion.table.app import Table

    table = Table(Path(sys.argv[1]), later=lambda delay, callback: None)
    print("problems:", table.resume(), flush=True)
    seat = 0
    def play(count):
        global seat
        for _ in range(count):
            outcome = table.act(GoUpLevel, player=seat % 3)
            assert outcome.applied, outcome
            seat += 1
    play(int(sys.argv[2]))
    table.save()
    print("ready", table.game.revision, flush=True)
    sys.stdin.readline()
    play(int(sys.argv[3]))
    table.shutdown()
    print("closed", flush=True)
    """
)


def _setup() -> GameSetup:
    return GameSetup(
        players=tuple(
            PlayerSetup(name=name, colour=colour, sex=Sex.NONE)
            for name, colour in (("Anna", "#e53935"), ("Bram", "#1e88e5"), ("Cleo", "#43a047"))
        ),
        edition=CLASSIC,
    )


def _saved_game(folder: Path, actions: int) -> None:
    store = GameStore(folder)
    game = Game(_setup())
    for seat in range(actions):
        game.apply(GoUpLevel(player=seat % 3))
    store.save(GAME, game)
    store.close()


class Owner:
    def __init__(self, folder: Path, first: int, then: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", OWNER, str(folder), str(first), str(then)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        self.said = [self.process.stdout.readline()]
        self.said.append(self.process.stdout.readline())
        assert self.said[-1].startswith("ready"), self.said

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("close\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().startswith("closed")
        assert self.process.wait(STEP_S) == 0
        self.stop()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(STEP_S)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


def _play(game: Game, count: int) -> None:
    for step in range(count):
        game.apply(GoUpLevel(player=step % 3))


@pytest.fixture
def reopen_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second program tries the folder again with every change, not every 15 s."""
    monkeypatch.setattr(games_module, "REOPEN_EVERY_S", 0.0)


def test_a_second_program_says_who_owns_the_folder_and_never_writes_its_game(
    tmp_path: Path, reopen_at_once: None
) -> None:
    _saved_game(tmp_path, 4)
    owner = Owner(tmp_path, first=6, then=5)  # the owner resumes the game: 4 + 6 actions
    try:
        second = GameStore(tmp_path)
        assert second.held_by is not None
        assert second.held_by.pid == owner.process.pid
        assert second.problem is not None
        assert "has had the saved games in" in second.problem
        assert f"process {owner.process.pid}" in second.problem
        assert "since " in second.problem
        assert not second.saves_home
        moved: list[tuple[str, str, str]] = []
        second.moved.add(lambda old, new, said: moved.append((old, new, said)))
        # The second resumes the same game, as it stood when the owner saved it last, and
        # plays its own actions: they go to a temporary database, never the owner's.
        loaded = second.load_last()
        assert loaded is not None
        game_id, game = loaded
        assert (game_id, game.revision) == (GAME, 10)
        recorder = second.recorder()
        recorder.follow(GAME, game)
        game.apply(GoUpLevel(player=2))
        game.apply(GoUpLevel(player=2))
        second.flush()
        assert not second.saves_home
        owner.close()  # the owner played 5 more and closed: 15 actions are its
        # The next change finds the folder free: the second takes it over, and keeps what
        # it played beside the owner's game, which went another way.
        game.apply(GoUpLevel(player=2))
        second.flush()
        assert second.saves_home
        assert len(moved) == 1 and moved[0][0] == GAME
        kept_as = moved[0][1]
        assert recorder.game_id == kept_as
        assert "both are kept" in moved[0][2]
        game.apply(GoUpLevel(player=2))
        second.close()
    finally:
        owner.stop()
    again = GameStore(tmp_path)
    assert again.load(GAME).revision == 15  # every action the owner was told was saved
    assert again.load(kept_as).revision == 14  # 10 it found, 4 of its own
    assert {saved.id for saved in again.list()} == {GAME, kept_as}
    again.close()


def test_the_folder_is_free_again_once_its_owner_has_gone(tmp_path: Path) -> None:
    first = GameStore(tmp_path)
    # A store in the same program shares the folder: one program, one owner.
    same_program = GameStore(tmp_path)
    assert same_program.held_by is None and same_program.saves_home
    same_program.close()
    first.close()
    owner = claim(tmp_path)
    assert owner is not None and not isinstance(owner, type(None))
    held = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from companion.store.owner import claim; "
            "print(type(claim(Path(sys.argv[1]))).__name__)",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=STEP_S,
    )
    assert held.stdout.strip() == "Holder"
    owner.release()  # type: ignore[union-attr]


def test_a_damaged_owner_record_still_names_another_program(tmp_path: Path) -> None:
    _saved_game(tmp_path, 1)
    owner = Owner(tmp_path, first=0, then=0)
    try:
        (tmp_path / OWNER_FILE).write_bytes(b"\x00\xff{not json" * 1000)
        second = GameStore(tmp_path)
        assert second.held_by is not None
        assert second.problem is not None and "another companion program" in second.problem
        assert not second.saves_home
        second.close()
        owner.close()
    finally:
        owner.stop()


async def test_the_app_beside_serve_names_it_and_keeps_its_own_play_beside(
    tmp_path: Path, reopen_at_once: None
) -> None:
    import asyncio

    from tests.commands.test_serve_game import start_serve

    serve = await start_serve(tmp_path, "--players", "Anna,Bram,Cleo")
    process = serve.process
    try:
        await serve.line("Type help")
        await serve.say("up Anna", "Anna")
        app = GameStore(tmp_path)  # the app, started while serve hosts the game
        assert app.held_by is not None and app.held_by.program == "companion serve"
        assert app.problem is not None
        assert f"companion serve (process {process.pid}) has had the saved games in" in app.problem
        loaded = app.load_last()
        assert loaded is not None
        game_id, game = loaded
        start = game.revision
        recorder = app.recorder()
        recorder.follow(game_id, game)
        _play(game, 2)  # the app plays too: never into serve's game
        app.flush()
        await serve.say("up Bram", "Bram")
        await serve.say("quit", "the game is saved")
        assert await asyncio.wait_for(process.wait(), STEP_S) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    _play(game, 1)  # serve has gone: the app takes the folder over
    app.flush()
    assert app.saves_home and recorder.game_id != game_id
    kept_as = recorder.game_id
    app.close()
    again = GameStore(tmp_path)
    assert again.load(game_id).revision == start + 1  # serve's up Bram is there
    assert again.load(kept_as).revision == start + 3  # and the app's three beside it
    again.close()


def test_a_store_collected_while_another_folder_is_claimed_does_not_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store dropped without closing lets its folder go when the garbage collector
    takes it; when that happens in the middle of a claim on the same thread (a claim
    writes its record, and writing makes objects), the claim went on waiting for itself
    for ever. The folder it let go is free once the claim is done."""
    import gc
    import json as json_module
    import threading

    from companion.store import owner as owner_module

    gone = GameStore(tmp_path / "gone")
    gone.cycle = gone  # type: ignore[attr-defined]  # only the collector can take it now
    del gone
    writes = json_module.dumps

    def dumps_after_a_collection(*args: object, **kwargs: object) -> str:
        gc.collect()  # as an allocation in the middle of the claim may run it
        return writes(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(owner_module.json, "dumps", dumps_after_a_collection)
    claimed: list[object] = []
    (tmp_path / "taken").mkdir()
    worker = threading.Thread(target=lambda: claimed.append(claim(tmp_path / "taken")), daemon=True)
    gc.disable()  # no collection before the claim's own
    try:
        worker.start()
        worker.join(10)
    finally:
        gc.enable()
    assert not worker.is_alive(), "the claim is waiting for itself"
    assert isinstance(claimed[0], owner_module.Owner)
    monkeypatch.setattr(owner_module.json, "dumps", writes)
    assert isinstance(claim(tmp_path / "gone"), owner_module.Owner)  # let go: free again
