"""Starting the real app in a fresh process: first start, resuming the last game after a
restart, a damaged settings file, and the command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from tests.ui.conftest import Harness

pytestmark = pytest.mark.slow

PROBE_TIMEOUT_S = 60


# Helpers every probe script has. The game reaches the screens' properties on the frame
# after it is opened, the screens redraw on the one after that, and each frame draws what
# changed before the next begins: once the clock has ticked four more times, the outcome of
# the start is on screen.
WAITS = textwrap.dedent(
    """
    async def frames_passed(frames=4):
        from kivy.clock import Clock

        until = Clock.frames + frames
        while Clock.frames < until:
            await asyncio.sleep(0.005)

    async def started():
        while app.root is None or not app.ready:
            await asyncio.sleep(0.005)
        await frames_passed()
    """
)


def probe_script(
    body: str, report: str = "report", timeout_s: float = 45, **constants: object
) -> str:
    """A script that starts the app as `companion app` does (run_app on one asyncio loop)
    and runs `body`: it makes `app` and an async `probe()` that fills `report` and stops
    the app; the script then prints "REPORT {json}". `constants` are set as globals.

    `await started()` in the probe waits until the app has loaded its game (or failed to)
    and drawn the outcome: nothing is looked at after a guessed time."""
    head = [
        "import faulthandler",
        f"faulthandler.dump_traceback_later({timeout_s:.0f}, exit=True)  # a hang shows where",
        "import asyncio, json, sys, time",
        "from pathlib import Path",
        "from companion.commands.app import prepare_kivy",
        "prepare_kivy((360, 640))",
        "from kivy.core.window import Window",
        "from companion.ui.app import CompanionApp, run_app",
        *(f"{name} = {value!r}" for name, value in constants.items()),
        WAITS,
    ]
    tail = [
        "async def main():",
        "    await asyncio.gather(run_app(app), probe())",
        "",
        "asyncio.run(main())",
        f'print("REPORT " + json.dumps({report}))',
    ]
    return "\n".join(head) + "\n" + textwrap.dedent(body) + "\n" + "\n".join(tail) + "\n"


# Starts the app exactly as `companion app` does (run_app on one asyncio loop), waits
# until its start is drawn, reports what it shows as JSON, then closes the window.
PROBE = probe_script(
    """

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {}

    async def probe():
        await started()
        state = app.session.state
        report.update(
            screen=app.manager.current,
            # The message of the start, even if it has faded since (a slow machine).
            banner=app.root.ids.banner.text,
            players=[p.name for p in state.players] if state else [],
            levels=[p.level for p in state.players] if state else [],
            game_id=app.session.game_id,
        )
        app.stop()
    """
)


def run_probe(script: str, data_dir: Path) -> object:
    """Run a probe script in a fresh process; its last "REPORT {json}" line is the answer."""
    env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1"}
    env.pop("KIVY_NO_CONSOLELOG", None)  # keep Kivy's log on stderr for the failure message
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_memory_cap,  # a file that never ends must not take the machine down
    )
    try:
        out, err = process.communicate(timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"the app did not start and stop in time:\n{err[-4000:]}") from None
    lines = [line for line in out.splitlines() if line.startswith("REPORT ")]
    assert process.returncode == 0 and lines, err[-4000:]
    return json.loads(lines[-1].removeprefix("REPORT "))


# Far more than the app needs, far less than a machine has.
APP_MEMORY_CAP_BYTES = 3 << 30


def _memory_cap() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_DATA, (APP_MEMORY_CAP_BYTES, APP_MEMORY_CAP_BYTES))


def start_app(data_dir: Path) -> dict:
    report = run_probe(PROBE, data_dir)
    assert isinstance(report, dict)
    return report


def test_first_start_opens_new_game(tmp_path: Path) -> None:
    report = start_app(tmp_path)
    assert report["screen"] == "new_game"
    assert report["players"] == []
    assert report["banner"] == ""


def test_damaged_settings_start_with_defaults_and_say_so(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text('{"theme": "dark", "led_brightness": 9000}')
    report = start_app(tmp_path)
    assert report["screen"] == "new_game"
    assert "settings.json" in report["banner"]
    assert "led_brightness" in report["banner"]


def test_restart_resumes_the_last_game(ui: Harness) -> None:
    report = start_app(_played_and_closed(ui, seat=2, levels=3))
    assert report["screen"] == "table"
    assert report["game_id"] == ui.app.session.game_id
    assert report["players"] == ["Anna", "Bram", "Cleo", "Dev"]
    assert report["levels"] == [1, 1, 4, 1]


def test_command_line_options() -> None:
    from companion.cli import build_parser

    args = build_parser().parse_args(
        ["app", "--size", "1280x800", "--data-dir", "/tmp/x", "--no-virtual"]
    )
    assert args.size == (1280, 800)
    assert args.data_dir == Path("/tmp/x")
    assert args.no_virtual is True
    with pytest.raises(SystemExit):
        build_parser().parse_args(["app", "--size", "big"])


SERVICE_PROBE = probe_script(
    """

    events = []

    class Recorder:
        def __init__(self, app, durable=None):
            events.append("created" if durable is not None else "created without saves")

        async def run(self):
            events.append("running")
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                events.append("cancelled")
                raise

        def game_changed(self, game):
            names = ",".join(p.name for p in game.state.players) if game else "none"
            events.append("game:" + names)

        def settings_changed(self, settings):
            events.append("settings")

    app = CompanionApp(data_dir=Path(sys.argv[1]), no_virtual=True, device_service=Recorder)

    async def probe():
        while "running" not in events:
            await asyncio.sleep(0.05)
        events.append("no_virtual=" + str(app.no_virtual))
        app.stop()
    """,
    report="events",
)


def test_background_services_share_the_loop_and_follow_the_game(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram"])
    events = run_probe(SERVICE_PROBE, _closed(ui))
    assert isinstance(events, list)
    assert events[0] == "created"
    assert "game:Anna,Bram" in events
    assert events.index("game:Anna,Bram") < events.index("running")
    assert "no_virtual=True" in events
    assert events[-1] == "cancelled"


def test_damaged_last_game_is_reported_and_a_new_game_offered(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    (games / "20260101-120000-abcd.json").write_text("{ this is not a game")
    (tmp_path / "last-game").write_text("20260101-120000-abcd\n")
    report = start_app(tmp_path)
    assert report["screen"] == "new_game"
    assert "20260101-120000-abcd.json" in report["banner"]


# Reports what the very first frame shows (before the rules engine is loaded), then
# what the screen shows once the game is loaded.
FIRST_FRAME_PROBE = probe_script(
    """

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {}

    def table_shows():
        if app.manager.current != "table":
            return None
        table = app.manager.get_screen("table")
        return {
            "names": [tile.name for tile in table.tiles],
            "levels": [tile.level for tile in table.tiles],
            "turn": table.turn_text,
            "phase": table.phase_text,
        }

    def first_frame(*_args):
        Window.unbind(on_flip=first_frame)
        report["first"] = {
            "screen": app.manager.current,
            "ready": app.ready,
            "game_shown": app.game_shown,
            "engine_loaded": "companion.core" in sys.modules or "pydantic" in sys.modules,
            "table": table_shows(),
        }

    app.bind(on_start=lambda *_a: Window.bind(on_flip=first_frame))

    async def probe():
        await started()
        report["loaded"] = {
            "screen": app.manager.current,
            "table": table_shows(),
            "banner": app.root.ids.banner.text,  # shown, or shown and faded since
        }
        app.stop()
    """
)


def _played_and_closed(ui: Harness, seat: int = 1, levels: int = 2) -> Path:
    """Four players; the one at `seat` goes up `levels` Levels by taps; the window closes.
    Returns the data folder as closing left it (see `_closed`)."""
    ui.start_game(["Anna", "Bram", "Cleo", "Dev"])
    table = ui.screen("table")
    for _ in range(levels):
        ui.tap(table.tiles[seat].ids.level.ids.plus)
    return _closed(ui)


def _closed(ui: Harness) -> Path:
    """The data folder as closing the window leaves it, for the next start: a copy, for the
    test's app still runs and owns its own (a second program on it would play apart)."""
    ui.app.session.save()  # what closing the window saves
    ui.app.session.games.flush()
    folder = Path(tempfile.mkdtemp(prefix="companion-closed-")) / "data"
    shutil.copytree(ui.data_dir, folder, ignore=shutil.ignore_patterns("owner.lock"))
    return folder


def test_the_first_frame_is_the_resumed_game_before_the_engine_loads(ui: Harness) -> None:
    report = run_probe(FIRST_FRAME_PROBE, _played_and_closed(ui))
    assert isinstance(report, dict)
    first, loaded = report["first"], report["loaded"]
    assert first["screen"] == "table" and first["game_shown"]
    assert not first["ready"] and not first["engine_loaded"]
    assert first["table"]["names"] == ["Anna", "Bram", "Cleo", "Dev"]
    assert first["table"]["levels"] == [1, 3, 1, 1]
    # The loaded game draws exactly what its cover showed.
    assert loaded["screen"] == "table" and loaded["banner"] == ""
    assert loaded["table"] == first["table"]


# Taps the cover (Bram's Level +, twice) in the very first frame, before the rules
# engine is loaded, as a real touch; reports what the Table shows once the game is.
COVER_TAP_PROBE = probe_script(
    """
    from benchmarks.kivy_driver import lift, press

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {}

    def first_frame(*_args):
        Window.unbind(on_flip=first_frame)
        table = app.manager.get_screen("table")
        button = table.tiles[1].level_button(1)
        x, y = button.to_window(*button.center)
        report["before"] = {
            "loaded": app.session.game is not None,
            "levels": [tile.level for tile in table.tiles],
        }
        for _ in range(2):
            lift(press(x, y, source="probe"))

    app.bind(on_start=lambda *_a: Window.bind(on_flip=first_frame))

    async def probe():
        await started()
        table = app.manager.get_screen("table")
        report["after"] = {
            "levels": [tile.level for tile in table.tiles],
            "game": [player.level for player in app.session.game.state.players],
            "history": len(app.session.game.log),
        }
        app.stop()
    """
)


def test_a_tap_on_the_cover_waits_for_the_game_and_is_played(ui: Harness) -> None:
    # Bram is at Level 3 on the cover; two taps on his + made before the game is loaded
    # are played once it is, in order: none is lost, and none is played twice.
    folder = _played_and_closed(ui)
    logged = len(ui.app.session.game.log)
    report = run_probe(COVER_TAP_PROBE, folder)
    assert isinstance(report, dict)
    assert report["before"] == {"loaded": False, "levels": [1, 3, 1, 1]}
    assert report["after"]["game"] == [1, 5, 1, 1]
    assert report["after"]["levels"] == [1, 5, 1, 1]
    assert report["after"]["history"] == logged + 2


# Starts the app as `companion app` does, its virtual counters' process first, and notes
# what that process was asked for ahead, and when: the moment the app first asked.
AHEAD_PROBE = probe_script(
    """
    from companion.commands.app import start_counters_early
    from companion.devices.sim import process

    start_counters_early(Path(sys.argv[1]), False)
    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {}

    async def probe():
        while process.asked_ahead("start") is None and not app.ready:
            await asyncio.sleep(0)  # every turn of the loop the app's start takes
        report["asked"] = process.asked_ahead("start")
        report["ready"] = app.ready
        report["device_layer"] = "companion.devices.sync" in sys.modules
        await started()
        app.stop()
    """
)


def test_the_virtual_counters_are_asked_for_from_the_cover_while_the_game_loads(
    ui: Harness,
) -> None:
    # Four players on the cover: the counters' process starts and connects their counters
    # (a board and four trackers) while the app still loads its game and device layer.
    report = run_probe(AHEAD_PROBE, _played_and_closed(ui))
    assert isinstance(report, dict)
    assert report["asked"] == {"players": 4, "setup": {}, "connect_ahead": True}
    assert not report["ready"] and not report["device_layer"]


def _set_cover(data_dir: Path, text: str) -> None:
    import sqlite3

    with sqlite3.connect(data_dir / "games.sqlite3") as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'cover'", (text,))


# Without a cover the Table comes once the game is loaded: taps the first player's Level
# as soon as the Table is the screen on show (polled every turn of the loop), as a quick
# finger would.
NO_COVER_TAP_PROBE = probe_script(
    """
    from benchmarks.kivy_driver import lift, press

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {}

    def table_on_show():
        if not app.ready:
            return False
        manager = app.manager
        return manager.current == "table" and not manager.transition.is_active

    async def probe():
        while not table_on_show():
            await asyncio.sleep(0)
        table = app.manager.get_screen("table")
        players = app.session.game.state.players
        delta = -1 if players[0].level > 1 else 1
        button = table.tiles[0].level_button(delta)
        report.update(before=players[0].level, delta=delta)
        report["current"] = app.session.game.state.current
        lift(press(*button.to_window(*button.center), source="probe"))
        report["after"] = app.session.game.state.players[0].level
        app.stop()
    """
)


def test_the_first_tap_on_a_table_just_shown_plays(tmp_path: Path) -> None:
    # The current player's line opening moved the lines between frames, and a touch
    # handled before they were laid out again landed on that line and was lost. A long
    # game of six (a line each on a phone), a later player's turn (their line opens below
    # the first), with no cover: the Table comes once the game is loaded.
    from benchmarks.startup import saved_game

    assert saved_game(tmp_path, 3000) == 6
    report = run_probe(NO_COVER_TAP_PROBE, tmp_path)
    assert isinstance(report, dict)
    assert report["current"] > 0
    assert report["after"] == report["before"] + report["delta"]


@pytest.mark.parametrize(
    "damage",
    ["not json", "foreign", "wrong type", "other language", "other game"],
)
def test_a_damaged_cover_is_passed_over_and_the_game_still_resumes(
    ui: Harness, damage: str
) -> None:
    import sqlite3

    folder = _played_and_closed(ui)
    with sqlite3.connect(folder / "games.sqlite3") as conn:
        (record,) = conn.execute("SELECT value FROM meta WHERE key = 'cover'").fetchone()
    saved = json.loads(record)
    view = json.loads(saved["cover"])
    if damage == "not json":
        saved["cover"] = saved["cover"][:-7]
    elif damage == "foreign":
        saved["cover"] = json.dumps({"tiles": "everything", "level": 99})
    elif damage == "wrong type":
        view["tiles"][0]["level"] = "99"
        saved["cover"] = json.dumps(view)
    elif damage == "other language":
        view["language"] = "xx"
        saved["cover"] = json.dumps(view)
    else:
        saved["game"] = "20260101-120000-abcd"
    _set_cover(folder, json.dumps(saved))
    report = run_probe(FIRST_FRAME_PROBE, folder)
    assert isinstance(report, dict)
    first, loaded = report["first"], report["loaded"]
    assert first["screen"] == "opening" and not first["game_shown"]
    assert loaded["screen"] == "table" and loaded["banner"] == ""
    assert loaded["table"]["levels"] == [1, 3, 1, 1]


# The first frame's words and when the cards start loading, on a start with no game.
FIRST_START_PROBE = probe_script(
    """
    from kivy.uix.label import Label

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {"first_words": None, "cards_while_building": None}

    def first_flip(*_args):
        Window.unbind(on_flip=first_flip)
        screen = app.manager.current_screen
        report["first_words"] = [w.text for w in screen.walk() if isinstance(w, Label)]

    Window.bind(on_flip=first_flip)
    real_show = app.show

    def show(name, **params):
        # The cards' thread, if started, runs beside the building of the start's screen.
        report["cards_while_building"] = app._cards_loading is not None
        return real_show(name, **params)

    app.show = show
    # When New game was first drawn and when the cards began to load, on the app's clock:
    # the load waits its time after the drawing however slowly this machine draws.
    from kivy.clock import Clock

    moments = {}

    def settled_flip(*_args):
        if app.ready and "drawn" not in moments:
            moments["drawn"] = Clock.get_boottime()
            Window.unbind(on_flip=settled_flip)

    Window.bind(on_flip=settled_flip)
    real_load = app.load_cards_soon

    def load_cards_soon():
        moments.setdefault("cards", Clock.get_boottime())
        return real_load()

    app.load_cards_soon = load_cards_soon

    async def probe():
        await started()
        report["screen"] = app.manager.current
        # Then they load (waited for, up to the probe's own time limit).
        while app._cards_loading is None and app._cards is None:
            await asyncio.sleep(0.05)
        report["cards_after_drawn_s"] = moments["cards"] - moments["drawn"]
        from companion.ui.app import CARDS_AHEAD_S

        report["cards_ahead_s"] = CARDS_AHEAD_S
        app.stop()
    """
)


def test_a_first_start_says_nothing_of_opening_a_game_and_builds_new_game_alone(
    tmp_path: Path,
) -> None:
    """With no game to open, the first frame does not say one is opening; the card
    database loads a while after New game is drawn, not on a thread beside its building
    and its first taps."""
    report = run_probe(FIRST_START_PROBE, tmp_path / "empty")
    assert isinstance(report, dict)
    assert report["screen"] == "new_game"
    assert report["first_words"], "the first frame showed no words"
    assert not any("Opening your game" in words for words in report["first_words"])
    assert report["cards_while_building"] is False
    # Not beside the first taps either: a while after New game is drawn.
    assert report["cards_after_drawn_s"] >= report["cards_ahead_s"] - 0.1
