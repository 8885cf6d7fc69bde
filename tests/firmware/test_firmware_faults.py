"""What a real board meets: boot loops, failing tasks, budgets, no app, a stale claim prompt."""

from __future__ import annotations

import asyncio
import sys
import types
from pathlib import Path

import counterchecks
import pytest
from counter import board, buttons, supervisor, timebase
from counter.logic import BUDGET_FLOOR_MA, OFFLINE_AFTER_MS, Counter, budget_limits
from counter.outbox import Outbox
from counter.serial_link import SESSION_IDLE_MS, SerialProtocol
from counter.store import MemoryStore
from mpvm import PINOUTS
from steppedclock import SteppedClock

from companion.devices import framing, seal, wire

BOARD = str(PINOUTS / "levelboard-esp32s3.json")
TRACKER = str(PINOUTS / "tracker-esp32c3.json")


# -- current budget -------------------------------------------------------------------


def test_a_budget_above_the_supply_is_clamped_and_one_below_the_floor_raised() -> None:
    c, _ = counterchecks.claimed(BOARD)
    highest, lowest = budget_limits(c.board)
    # A 3 A supply behind a fuse sized at 85 % of it, less the S3's own 80 mA.
    assert highest == 3000 * 85 // 100 - 80
    # 60 dark LEDs draw 1 mA each; the floor keeps some light above that.
    assert lowest == 60 + BUDGET_FLOOR_MA
    counterchecks.send(c, wire.ConfigBudget(60_000, seq=4))
    assert c.state.budget_ma == highest
    counterchecks.send(c, wire.ConfigBudget(5, seq=5))
    assert c.state.budget_ma == lowest
    counterchecks.send(c, wire.ConfigBudget(0, seq=6))
    assert c.state.budget_ma == c.board.power.budget_ma == 500


def test_the_pin_maps_default_budget_is_clamped_too() -> None:
    data = board.load(TRACKER).to_dict()
    data["power"] = dict(data["power"], budget_ma=9000)
    c = Counter(board.from_dict(data), counter_id=1)
    mcu_ma = data["power"]["mcu_active_ma"]
    assert c.state.budget_ma == budget_limits(c.board)[0] == 500 * 85 // 100 - mcu_ma


def test_a_tracker_on_its_cell_scales_the_apps_brightness_to_last_the_night() -> None:
    c, _ = counterchecks.claimed(str(PINOUTS / "tracker-esp32c3-bar.json"))
    assert c.board.power.brightness_scale == 58
    counterchecks.send(c, wire.ConfigBrightness(96, seq=4))  # the app's default
    assert c.state.brightness == 96 * 58 // 255 == 21
    counterchecks.send(c, wire.ConfigBrightness(32, seq=5))
    assert c.state.brightness == 7  # the app's slider still dims it
    board_counter, _ = counterchecks.claimed(BOARD)  # a level board on mains takes it all
    counterchecks.send(board_counter, wire.ConfigBrightness(255, seq=4))
    assert board_counter.state.brightness == 255


# -- buttons: hold lengths, factory reset ----------------------------------------------


def _hold(b: buttons.Buttons, index: list[int], ms: int) -> list:
    now = 0
    for _ in range(2):  # the raw change, then the debounce settles
        for i in index:
            b.update(i, True, now)
        now += buttons.DEBOUNCE_MS
    while now <= ms:
        for i in index:
            b.update(i, True, now)
        now += 5
    for _ in range(2):
        for i in index:
            b.update(i, False, now)
        now += buttons.DEBOUNCE_MS
    return b.take()


def test_a_ten_second_hold_reports_long_then_reset_once_each() -> None:
    b = buttons.Buttons(["claim"])
    assert _hold(b, [0], 200) == [("claim", buttons.SHORT)]
    assert _hold(b, [0], 3000) == [("claim", buttons.LONG)]
    assert _hold(b, [0], 12_000) == [("claim", buttons.LONG), ("claim", buttons.RESET)]


def test_the_tracker_chord_held_ten_seconds_is_one_factory_reset() -> None:
    b = buttons.Buttons(["plus", "minus"], {("plus", "minus"): "claim"})
    assert _hold(b, [0, 1], 12_000) == [("claim", buttons.LONG), ("claim", buttons.RESET)]


def test_factory_reset_from_the_buttons_forgets_claim_and_settings(board_env) -> None:
    app = board_env.app
    store = MemoryStore()
    c, _ = counterchecks.claimed(BOARD, store)
    counterchecks.send(c, wire.ConfigBrightness(255, seq=4))
    counterchecks.send(c, wire.Snapshot(3, [4, 5], seq=5))
    c.save()
    assert set(store.files) == {"token.bin", "state.bin"}
    outbox = Outbox(["serial"])
    app.handle_presses(c, [("claim", buttons.LONG), ("claim", buttons.RESET)], outbox)
    assert not c.claimed and set(store.files) == set()
    assert c.state.brightness == c.board.power.default_brightness
    assert list(c.state.levels) == [0] * 8
    assert not c.authenticated  # the app that was connected must claim again
    assert counterchecks.send(c, wire.Snapshot(4, [1], seq=6)) == ["Error:5"]
    # The long press before it opened the claim window, as always: one prompt queued.
    assert [wire.decode(p).TYPE for _, p in outbox.queues["serial"]] == [wire.MSG_CLAIM_OPEN]
    # A plus held ten seconds is no reset.
    c2, _ = counterchecks.claimed(BOARD)
    app.handle_presses(c2, [("plus", buttons.RESET)], Outbox(["serial"]))
    assert c2.claimed


# -- offline counting -------------------------------------------------------------------


def test_a_tracker_left_alone_counts_levels_and_the_app_adopts_them_as_intents() -> None:
    c, clock = counterchecks.claimed(TRACKER)
    counterchecks.send(c, wire.Snapshot(1, [4], seq=4))
    assert c.press("plus") != []  # an app is there: a request, nothing counted locally
    c.handle(wire.encode(wire.Ack(c._pending[0][0], wire.MSG_BUTTON, seq=5)))
    c.disconnect()
    clock.now += 1000
    assert c.press("plus") == [] and c.state.levels[0] == 4  # not yet offline: just a blink
    clock.now += OFFLINE_AFTER_MS
    assert c.offline()
    for button in ("plus", "plus", "plus", "minus"):
        assert c.press(button) == []
    c.frame()
    assert c.state.levels[0] == 6 and c.display_text() == " 6"
    assert c.offline_steps == 2
    # The app comes back: HELLO, CHALLENGE, AUTH; its snapshot wins, then the two steps
    # arrive as ordinary level-up requests for the app's rules to apply.
    c = counterchecks.authenticated(c.counter, seq=10)  # HELLO 10, AUTH 11, PROOF checked
    counterchecks.send(c, wire.Snapshot(2, [4], seq=12))
    assert c.state.levels[0] == 4
    intents = [wire.decode(p) for p in c.poll()]
    assert [(m.intent, m.slot) for m in intents] == [(wire.INTENT_LEVEL_UP, 0)] * 2
    assert c.offline_steps == 0 and c.poll() == []


def test_offline_counting_stays_between_one_and_the_winning_level() -> None:
    c, clock = counterchecks.make(TRACKER)
    clock.now += OFFLINE_AFTER_MS
    c.press("minus")
    assert c.state.levels[0] in (0, 1) and c.offline_steps == 0
    for _ in range(12):
        c.press("plus")
    assert c.state.levels[0] == 10 and c.offline_steps == 9


def test_a_level_board_never_counts_on_its_own() -> None:
    c, clock = counterchecks.make(BOARD)
    clock.now += 10 * OFFLINE_AFTER_MS
    assert not c.offline()
    c.press("next")
    assert c.offline_steps == 0


def test_a_slot_map_longer_than_the_positions_is_acked_and_cut_to_them() -> None:
    c, _ = counterchecks.claimed(TRACKER)  # one position
    assert counterchecks.send(c, wire.ConfigSlotMap((3, 1, 2), seq=4)) == ["Ack"]
    assert c.state.slot_count == 1 and c.state.slot_map[0] == 3
    assert list(c.state.slot_map[1:]) == [wire.NO_SLOT] * 7


# -- serial sessions and the claim prompt ----------------------------------------------


def test_a_claim_prompt_queued_with_nobody_on_the_line_is_never_sent() -> None:
    c, _ = counterchecks.make(BOARD)
    proto = SerialProtocol(c)
    (prompt,) = c.press("claim", True)
    assert proto.deliver("all", prompt) is None  # nobody said HELLO
    proto.feed(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
    assert proto.deliver("all", prompt) == b"\x00" + framing.frame(prompt)
    assert proto.deliver("auth", prompt) is None


def test_a_quiet_serial_session_ends_so_the_next_program_must_authenticate() -> None:
    c, clock = counterchecks.make(BOARD)
    proto = SerialProtocol(c)
    proto.feed(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
    c.press("claim", True)
    proto.feed(framing.frame(wire.encode(wire.Claim(counterchecks.TOKEN, seq=2))))
    assert not proto.session.authenticated  # a claim opens no session: HELLO and AUTH do
    frames = proto.feed(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=3))))
    challenge = wire.decode(framing.Deframer().feed(frames[1])[0])
    script = counterchecks.script_of(c, challenge.nonce)
    proof = seal.app_proof(counterchecks.TOKEN, script)
    proto.feed(framing.frame(wire.encode(wire.Auth(counterchecks.APP_NONCE, proof, seq=4))))
    assert proto.session.authenticated
    heard = clock.now
    proto.expire(heard + SESSION_IDLE_MS - 1, heard)
    assert proto.session.authenticated
    proto.expire(heard + SESSION_IDLE_MS, heard)
    assert not proto.session.authenticated and not proto.session.greeted
    (reply,) = proto.feed(framing.frame(wire.encode(wire.Snapshot(9, [9], seq=5))))
    (payload,) = framing.Deframer().feed(reply)
    assert wire.decode(payload).code == wire.ERR_NOT_AUTHENTICATED


# -- supervision and the boot-loop guard --------------------------------------------------


async def test_a_failing_task_is_logged_and_started_again_after_its_backoff() -> None:
    clock = SteppedClock()
    timebase.use(clock.ticks_ms, clock.sleep_ms)
    log = supervisor.FaultLog(MemoryStore())
    runs = []
    forever = asyncio.Event()

    async def flaky() -> None:
        runs.append(clock.now)
        if len(runs) < 3:
            raise OSError(19, "notify on a dropped link")
        await forever.wait()

    task = asyncio.create_task(supervisor.supervise("ble", flaky, log))
    try:
        await clock.advance(499)
        assert runs == [0]
        await clock.advance(1)  # 0.5 s after the first failure
        assert runs == [0, 500]
        await clock.advance(999)
        assert len(runs) == 2
        await clock.advance(1)  # then twice as long: 1 s
        assert runs == [0, 500, 1500]
    finally:
        task.cancel()
        timebase.use()
    failures = [line for line in log.lines() if "ble failed" in line]
    assert len(failures) == 2 and "OSError" in failures[0]
    assert failures[0].startswith("0 ") and failures[1].startswith("500 ")  # logged on its clock


async def test_a_fatal_exception_passes_through_the_supervisor() -> None:
    class Stop(Exception):
        pass

    async def stops() -> None:
        raise Stop

    log = supervisor.FaultLog(MemoryStore())
    with pytest.raises(Stop):
        await supervisor.supervise("serial", stops, log, (Stop,))
    assert log.lines() == []


def test_the_fault_log_keeps_only_its_newest_kilobyte() -> None:
    store = MemoryStore()
    log = supervisor.FaultLog(store, clock=lambda: 7)
    for i in range(200):
        log.add(f"task {i} failed")
    assert len(store.files["log.txt"]) <= 1024
    assert log.lines()[-1] == "7 task 199 failed"


def test_three_short_boots_in_a_row_make_the_next_one_safe(board_env) -> None:
    start = board_env.start
    guard = start.BootGuard(MemoryStore())
    crash = start.machine.WDT_RESET
    assert [guard.starting(crash) for _ in range(start.BOOT_LIMIT)] == ["run", "run", "safe"]
    assert guard.starting(crash) == "run"  # safe mode restarts the count: next boot tries again
    guard.stable()
    assert guard.boots() == 0


def _fake_micropython(calls: list) -> types.ModuleType:
    mp = types.ModuleType("micropython")
    mp.const = lambda x: x
    mp.kbd_intr = lambda n: calls.append(("kbd_intr", n))
    return mp


def test_main_switches_ctrl_c_off_before_it_imports_anything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list = []
    monkeypatch.setitem(sys.modules, "micropython", _fake_micropython(calls))
    import counter

    fake_start = types.ModuleType("counter.start")
    fake_start.boot = lambda path: calls.append(("boot", path))
    monkeypatch.setitem(sys.modules, "counter.start", fake_start)
    monkeypatch.setattr(counter, "start", fake_start, raising=False)
    source = (Path(counterchecks.__file__).parents[3] / "firmware" / "main.py").read_text()
    exec(compile(source, "main.py", "exec"), {"__name__": "__main__"})
    assert calls == [("kbd_intr", -1), ("boot", "board.json"), ("kbd_intr", 3)]


async def test_junk_then_silence_on_the_serial_line_is_told_all_the_same(board_env) -> None:
    import os

    from counter import serial_link

    c, _ = counterchecks.make(BOARD)
    clock = SteppedClock()
    timebase.use(clock.ticks_ms, clock.sleep_ms)
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    os.set_blocking(r_out, False)
    stdin = open(r_in, "rb", buffering=0)  # noqa: SIM115  (closed below)
    stdout = open(w_out, "wb", buffering=0)  # noqa: SIM115
    carrier = asyncio.create_task(serial_link.run(c, Outbox(["serial"]), stdin, stdout))

    def reports() -> list[str]:
        try:
            data = os.read(r_out, 4096)
        except BlockingIOError:
            return []
        messages = [wire.decode(p) for p in framing.Deframer().feed(data)]
        return [m.detail for m in messages if isinstance(m, wire.Error)]

    try:
        os.write(w_in, framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))) + b"junk\x00")
        await clock.advance(100)
        assert reports() == ["dropped 1"]
        os.write(w_in, b"more junk\x00")  # within the second, and then nothing more comes
        await clock.advance(100)
        assert reports() == []
        await clock.advance(1000)
        assert reports() == ["dropped 1"]
    finally:
        carrier.cancel()
        await asyncio.gather(carrier, return_exceptions=True)
        timebase.use()
        for fd in (w_in, r_out):
            os.close(fd)
        stdin.close()
        stdout.close()


def test_junk_on_the_serial_line_is_told_to_the_app_at_most_once_a_second() -> None:
    c, _ = counterchecks.make(BOARD)
    clock = SteppedClock()
    timebase.use(clock.ticks_ms, clock.sleep_ms)
    try:
        proto = SerialProtocol(c)
        assert proto.feed(b"junk\x00") == []  # nobody said HELLO: nobody to tell
        frames = proto.feed(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
        replies = [wire.decode(p) for f in frames for p in framing.Deframer().feed(f)]
        reports = [(r.code, r.ref_seq, r.detail) for r in replies if isinstance(r, wire.Error)]
        assert reports == [(wire.ERR_BAD_FRAME, 0, "dropped 1")]  # told once greeted
        assert proto.feed(b"more\x00junk\x00") == []  # within the second: kept for later
        assert proto.noise(clock.ticks_ms() + 999) is None
        (later,) = framing.Deframer().feed(proto.noise(clock.ticks_ms() + 1000))
        assert wire.decode(later).detail == "dropped 2"
        assert proto.noise(clock.ticks_ms() + 5000) is None  # nothing new was dropped
    finally:
        timebase.use()


# -- safe mode: starts that never reach a working state ---------------------------------


def test_starts_that_fail_after_the_quick_window_lead_to_safe_mode_at_the_fifth() -> None:
    from counter import start

    guard = start.BootGuard(MemoryStore())
    how = []
    for _ in range(start.FAILED_LIMIT):
        how.append(guard.starting())
        guard.lasted()  # past QUICK_MS, then a crash before STABLE_MS
    assert how == ["run"] * (start.FAILED_LIMIT - 1) + ["safe"]
    assert guard.failed == start.FAILED_LIMIT and guard.boots() == 0


def test_a_start_that_reaches_its_working_state_clears_the_count_and_spares_the_flash() -> None:
    from counter import start

    store = MemoryStore()
    guard = start.BootGuard(store)
    for _ in range(start.FAILED_LIMIT - 1):
        guard.starting()
        guard.lasted()
    assert guard.boots() == start.FAILED_LIMIT - 1
    guard.stable()
    assert (guard.boots(), guard.quick()) == (0, 0)
    writes = store.writes
    guard.stable()
    guard.lasted()
    assert store.writes == writes  # nothing changed: nothing written
    assert [guard.starting() for _ in range(start.BOOT_LIMIT - 1)] == ["run", "run"]


def test_a_firmware_that_crashes_at_start_ends_in_safe_mode_and_tells_the_app(
    board_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from counter.serial_link import REPL_ESCAPE

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("a broken install")

    monkeypatch.setattr(board_env.app, "run", broken)
    data = tmp_path / "data"
    data.mkdir()
    for _ in range(board_env.start.BOOT_LIMIT - 1):
        with pytest.raises(RuntimeError):
            board_env.start.boot(TRACKER, str(data))  # the crash resets the board
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    os.write(w_in, framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
    os.write(w_in, framing.frame(wire.encode(wire.Ping(7, seq=2))))
    os.write(w_in, framing.frame(wire.encode(wire.ConfigBrightness(9, seq=3))))
    os.write(w_in, REPL_ESCAPE)  # what deploy sends first
    with open(r_in, "rb", buffering=0) as line_in, open(w_out, "wb", buffering=0) as line_out:
        assert board_env.start.boot(TRACKER, str(data), line_in, line_out) == "safe"
    os.close(w_in)
    with open(r_out, "rb") as written:
        replies = [wire.decode(p) for p in framing.Deframer().feed(written.read())]
    hello, status, pong, refused = replies
    assert hello.caps & wire.CAP_SAFE_MODE and not hello.caps & wire.CAP_CLAIMED
    assert (status.mode, status.failed_starts) == (wire.MODE_SAFE, board_env.start.BOOT_LIMIT)
    assert pong.token == 7
    assert (refused.code, refused.detail) == (wire.ERR_NOT_AUTHENTICATED, "safe mode")
    assert board_env.start.MODE == "maintenance"  # deploy finds the REPL with no watchdog
    assert (data / "boots").read_text() == "0"  # the next reset tries a normal start


def test_safe_mode_reports_the_firmware_version_of_the_logic() -> None:
    from counter import logic, safemode

    assert safemode.FIRMWARE_VERSION == logic.FIRMWARE_VERSION
