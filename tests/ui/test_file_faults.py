"""Damaged or unwritable files never stop the app: it starts, uses what it can, and says so.

Each case starts the real app in a fresh process (headless), as `companion app` does.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.plumbing.files import PARTIAL_WRITE_AGE_S
from tests.ui.conftest import Harness
from tests.ui.test_startup import probe_script, run_probe, start_app

pytestmark = pytest.mark.slow

CLAIM_WAIT_S = 60.0  # virtual counters start, connect and claim on a busy shared machine
START_WAIT_S = 60.0  # the app starts in a second or two; this only stops a hang


@pytest.mark.parametrize(
    ("content", "reported"),
    [
        (b'{"theme": "light", "language": "e\xffn"}', "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"theme": ' * 30_000, "nested too deeply"),
    ],
    ids=["invalid-utf8-byte", "deeply-nested-array", "deeply-nested-unfinished"],
)
def test_damaged_settings_are_set_aside_and_the_app_starts(
    tmp_path: Path, content: bytes, reported: str
) -> None:
    (tmp_path / "settings.json").write_bytes(content)

    report = start_app(tmp_path)

    assert report["screen"] == "new_game"
    assert "settings.json" in report["banner"] and reported in report["banner"]
    assert "defaults are in use" in report["banner"]
    (kept,) = tmp_path.glob("settings.json.damaged-*")
    assert kept.read_bytes() == content
    assert kept.name in report["banner"]


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make `folder` refuse new names and renames, even for root (who ignores modes)."""
    from tests.store import fault_tools

    try:
        with fault_tools.read_only(folder):
            yield
    except fault_tools.CannotHurt as exc:
        pytest.skip(str(exc))


def test_damaged_settings_in_a_read_only_folder_start_with_defaults(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_bytes(b'{"theme": "light", "winning_level": 12}')
    (tmp_path / "games").mkdir()  # a folder the app has used before

    with read_only(tmp_path):
        report = start_app(tmp_path)

    assert report["screen"] == "new_game"
    banner = report["banner"]
    assert "settings.json" in banner and "winning_level" in banner
    assert "could not be set aside" in banner and "defaults are in use" in banner
    assert settings.read_bytes() == b'{"theme": "light", "winning_level": 12}'


def test_a_read_only_folder_the_app_never_used_still_starts(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_bytes(b"\xff")

    with read_only(tmp_path):
        report = start_app(tmp_path)

    assert report["screen"] == "new_game"
    assert "not UTF-8 text" in report["banner"] and "could not be set aside" in report["banner"]


def test_companion_app_keeps_running_on_deeply_nested_settings(tmp_path: Path) -> None:
    """The command itself, not a probe: it used to exit 1 without a word."""
    (tmp_path / "settings.json").write_bytes(b"[" * 100_000)
    env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1"}
    # The command as a user starts it; beside it, a watcher that says when the app has
    # started and drawn its message: the moment a failed start would have stopped it.
    script = textwrap.dedent(
        """
        import sys
        from kivy.app import App
        from kivy.clock import Clock
        from companion.cli import main

        def watch(_dt):
            app = App.get_running_app()
            if app is None or not app.ready or not app.root.ids.banner.text:
                return True
            Clock.schedule_once(lambda _dt: print("STARTED", flush=True), 0)
            return False

        Clock.schedule_interval(watch, 0)
        sys.exit(main())
        """
    )
    command = [sys.executable, "-c", script, "app", "--data-dir", str(tmp_path), "--no-virtual"]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        # Only a hang waits this long: the line comes as soon as the start is drawn.
        ready, _, _ = select.select([process.stdout], [], [], START_WAIT_S)
        assert ready, f"companion app did not finish starting within {START_WAIT_S} s"
        said = process.stdout.readline()  # "STARTED", or nothing once it stopped
        assert said == "STARTED\n", f"companion app stopped: {process.stderr.read()}"
        assert process.poll() is None, f"companion app stopped: {process.stderr.read()}"
        assert list(tmp_path.glob("settings.json.damaged-*")), "the settings were set aside"
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_partial_writes_from_a_crash_are_removed_at_start(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    left = [
        tmp_path / ".settings.json.a1b2c3d4.tmp",
        games / ".20260101-000000-abcd.json.x_y_z_12.tmp",
    ]
    then = time.time() - PARTIAL_WRITE_AGE_S - 10
    for path in left:
        path.write_text('{"half a fi')
        os.utime(path, (then, then))

    report = start_app(tmp_path)

    assert report["screen"] == "new_game" and report["banner"] == ""
    assert not any(path.exists() for path in left)


def test_a_player_name_with_a_direction_override_is_refused_on_screen(ui: Harness) -> None:
    ui.start_game(["Anna\u202eevil", "Bram"])
    assert ui.app.session.state is None
    assert "control or text-direction characters (U+202E)" in ui.banner()


# Starts the app (with its virtual counters) on a saved game, waits until the board and
# every tracker are claimed, opens the Devices screen and reports what it says.
CLAIM_PROBE = probe_script(
    """

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {}

    async def probe():
        end = time.monotonic() + CLAIM_WAIT_S
        while time.monotonic() < end:
            service = app.devices
            statuses = service.statuses if service is not None else []
            if len(statuses) == 3 and all(s.access == "ours" for s in statuses):
                break
            await asyncio.sleep(0.1)
        report["claimed"] = [s.access for s in app.devices.statuses]
        app.show("devices")
        await frames_passed()
        report["activity"] = app.manager.get_screen("devices").activity
        app.stop()
    """,
    timeout_s=CLAIM_WAIT_S + 30,
    CLAIM_WAIT_S=CLAIM_WAIT_S,
)


def test_damaged_claim_tokens_are_set_aside_and_said_on_the_devices_screen(
    tmp_path: Path,
) -> None:
    from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, Sex
    from companion.store import GameStore

    store = GameStore(tmp_path)
    game_id = store.new_id()
    seats = (
        PlayerSetup(name="Anna", colour="#e53935", sex=Sex.FEMALE),
        PlayerSetup(name="Bram", colour="#1e88e5", sex=Sex.MALE),
    )
    store.save(game_id, Game(GameSetup(players=seats, edition=CLASSIC)))
    store.last_id = game_id
    store.close()
    tokens = tmp_path / "counters.json"
    whole = json.dumps({"format": 1, "tokens": {f"{i:08x}": "ab" * 16 for i in range(4)}})
    truncated = whole[: len(whole) // 2].encode()
    tokens.write_bytes(truncated)

    report = run_probe(CLAIM_PROBE, tmp_path)

    assert isinstance(report, dict)
    assert report["claimed"] == ["ours"] * 3, "the board and both trackers are claimed again"
    activity = report["activity"]
    assert "counters.json" in activity and "damaged" in activity
    assert "kept as counters.json.damaged-" in activity
    (kept,) = tmp_path.glob("counters.json.damaged-*")
    assert kept.read_bytes() == truncated, "the unreadable file is kept as it was"
    # The virtual counters' claims end with the app (their flash is memory): none is
    # written (a real counter's claim is, beside the kept file: test_token_faults.py).
    assert not tokens.exists()


# -- the saved-games database under faults ----------------------------------------------------
def _saved_with_last(folder: Path, count: int = 3) -> list[str]:
    """`count` four-player games saved in `folder`; the last one is the game to resume."""
    from companion.core.randomplay import random_game
    from companion.store import GameStore

    store = GameStore(folder)
    ids = [f"2026010{number}-120000-abcd" for number in range(count)]
    for number, game_id in enumerate(ids):
        store.save(game_id, random_game(80 + number, seed=number, allow_win=False))
    store.last_id = ids[-1]
    store.close()
    return ids


# Reports the first screen, then asks Saved games to recover and reports what it lists.
RECOVER_PROBE = probe_script(
    """

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {}

    async def probe():
        await started()
        report["screen"] = app.manager.current
        # The message of the start, even if it has faded since (a slow machine).
        report["banner"] = app.root.ids.banner.text
        games = app.screen("games")
        report["offered"] = games.recoverable
        games.recover()  # done when it returns; the frames after it draw what it said
        await frames_passed()
        report["after"] = app.root.ids.banner.text
        report["listed"] = sorted(saved.id for saved in app.session.games.list())
        app.stop()
    """
)


def test_a_start_on_damaged_pages_reaches_a_screen_that_offers_recovery(tmp_path: Path) -> None:
    import random
    import sqlite3

    from tests.store.fault_tools import damage_pages

    ids = _saved_with_last(tmp_path)
    database = tmp_path / "games.sqlite3"
    pristine = database.read_bytes()
    rnd = random.Random(4)
    while True:  # damage SQLite itself reports (not every hit page is one it checks)
        database.write_bytes(pristine)
        damage_pages(database, rnd, pages=2)
        with sqlite3.connect(database) as conn:
            try:
                found = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
            except sqlite3.DatabaseError:
                found = "damaged"
        if found != "ok":
            break

    report = run_probe(RECOVER_PROBE, tmp_path)

    assert isinstance(report, dict)
    assert report["screen"] == "games", "the screen that offers recovery comes first"
    assert "games.sqlite3" in report["banner"] and "recover" in report["banner"]
    assert "damaged" in report["offered"]
    assert report["after"].startswith("Recovered:")
    assert report["listed"] and set(report["listed"]) <= set(ids)


@pytest.fixture
def small_fs() -> Iterator[Path]:
    from tests.store.fault_tools import small_fs_or_skip

    yield from small_fs_or_skip()


def test_a_full_disk_at_start_resumes_the_game_and_says_so(small_fs: Path) -> None:
    from tests.store.fault_tools import fill

    folder = small_fs / "data"
    ids = _saved_with_last(folder)
    fill(small_fs)

    report = start_app(folder)

    assert report["screen"] == "table" and report["game_id"] == ids[-1]
    assert "full" in report["banner"]
    assert not list(folder.glob("games.sqlite3.damaged-*")), "a healthy database stays"


def test_a_newer_database_is_said_on_the_first_screen(tmp_path: Path) -> None:
    import sqlite3

    ids = _saved_with_last(tmp_path)
    with sqlite3.connect(tmp_path / "games.sqlite3") as conn:
        conn.execute("PRAGMA user_version = 99")

    report = start_app(tmp_path)

    assert "newer version" in report["banner"]
    assert report["screen"] == "table" and report["game_id"] == ids[-1]


def test_a_read_only_folder_resumes_the_game_and_says_so(tmp_path: Path) -> None:
    ids = _saved_with_last(tmp_path)

    with read_only(tmp_path):
        report = start_app(tmp_path)

    assert report["screen"] == "table" and report["game_id"] == ids[-1]
    assert "games.sqlite3" in report["banner"]


def test_a_hostile_data_folder_starts_and_says_what_was_set_aside(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "packs").mkdir()
    os.mkfifo(tmp_path / "settings.json")
    (tmp_path / "counters.json").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "packs" / "table-monsters.toml")
    os.mkfifo(tmp_path / "games.sqlite3")
    (tmp_path / "last-game").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "games" / "20260101-120000-abcd.json")

    report = start_app(tmp_path)

    assert report["screen"] == "new_game"
    banner = report["banner"]
    assert "settings.json" in banner and "a named pipe" in banner
    assert "games.sqlite3" in banner
    assert list(tmp_path.glob("settings.json.damaged-*"))
    assert list(tmp_path.glob("games.sqlite3.damaged-*"))
