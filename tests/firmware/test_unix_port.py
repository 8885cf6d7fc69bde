"""The firmware's portable parts on MicroPython's unix port give what they give under CPython.

The shared codec's and the sessions' test vectors, the counter scenarios and the
serial carrier run in one unix-port process with a fixed heap (a few hundred
milliseconds); the carrier also runs for real there, on the process's stdin and
stdout under MicroPython's own asyncio. The WebAssembly VM's tests check the same
modules; docs/firmware.md says where the two MicroPythons differ.
"""

from __future__ import annotations

import json
from pathlib import Path

import counterchecks
import pytest
import unixport
from counter.serial_link import REPL_ESCAPE, SerialProtocol
from mpvm import PINOUTS, ROOT
from test_counter_in_vm import SCENARIOS

from companion.devices import framing, wire

VECTORS = ROOT / "tests" / "vectors"
TRACKER = str(PINOUTS / "tracker-esp32c3.json")

# One JSON line per check, the heap collected between: the results need not fit at once.
CHECKS = f"""
import gc, json, sys
import vmchecks, sealchecks, counterchecks
def say(name, value):
    print(json.dumps([name, value]))
    gc.collect()
say("version", list(sys.implementation.version[:3]))
say("messages", vmchecks.check_vectors({str(VECTORS / "messages.json")!r}))
say("sessions", sealchecks.check_vectors({str(VECTORS / "sessions.json")!r}))
for scenario, pinout in {json.dumps([[s, str(PINOUTS / p)] for s, p in SCENARIOS])}:
    say(scenario + " " + pinout, getattr(counterchecks, scenario)(pinout))
say("debounce", counterchecks.debounce())
say("serial", counterchecks.serial_frames({TRACKER!r}))
"""


@pytest.fixture(scope="module")
def flash(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return unixport.flash(tmp_path_factory.mktemp("unix-flash"))


@pytest.fixture(scope="module")
def unix(flash: Path) -> dict:
    done = unixport.run(flash, CHECKS)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    return dict(json.loads(line) for line in done.stdout.splitlines())


def _cpython(value: object) -> object:
    return json.loads(json.dumps(value))


def test_the_unix_port_is_micropython_1_29(unix: dict) -> None:
    assert unix["version"][:2] >= [1, 29]  # the 1.29 line, as PORTS.md's "H" tree


def test_every_message_and_session_vector_holds_on_the_unix_port(unix: dict) -> None:
    assert unix["messages"] == []
    assert unix["sessions"] == []  # HMAC from hashlib: the port has no hmac module


def test_the_counter_logic_agrees_with_cpython_on_the_unix_port(unix: dict) -> None:
    for scenario, pinout in SCENARIOS:
        expected = getattr(counterchecks, scenario)(str(PINOUTS / pinout))
        assert unix[f"{scenario} {PINOUTS / pinout}"] == _cpython(expected), (scenario, pinout)
    assert unix["debounce"] == _cpython(counterchecks.debounce())


def test_the_serial_carrier_writes_the_same_bytes_on_the_unix_port(unix: dict) -> None:
    frames = unix["serial"]
    assert frames == counterchecks.serial_frames(TRACKER)
    assert frames[0] is None  # a claim prompt before any HELLO is not sent
    assert all(frame.startswith("00") and frame.endswith("00") for frame in frames[1:])


def test_the_serial_carrier_runs_on_stdin_and_stdout_under_micropythons_asyncio(
    flash: Path,
) -> None:
    code = f"""
import asyncio
import counterchecks
from counter import serial_link
from counter.outbox import Outbox
counter, _ = counterchecks.make({TRACKER!r})
try:
    asyncio.run(serial_link.run(counter, Outbox(["serial"])))
except serial_link.ReplRequested:
    pass
"""
    hello = framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1)))
    done = unixport.run(flash, code, stdin=hello + REPL_ESCAPE)
    assert done.returncode == 0, done.stderr.decode() + done.stdout.decode()
    counter, _ = counterchecks.make(TRACKER)
    assert done.stdout == b"".join(SerialProtocol(counter).feed(hello))


def test_what_the_unix_port_refuses_as_a_board_does(flash: Path) -> None:
    code = """
import micropython
try:
    import hmac
    print("hmac")
except ImportError:
    print("no hmac")
try:
    micropython.anything = 1
    print("set")
except AttributeError:
    print("refused")
"""
    done = unixport.run(flash, code)
    assert done.stdout.split() == [b"no", b"hmac", b"refused"]


def test_safe_mode_serves_its_line_under_micropythons_asyncio(flash: Path) -> None:
    code = f"""
from counter import board, safemode
print(safemode.run(board.load({TRACKER!r}), 5, 0x1234))
"""
    hello = framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1)))
    done = unixport.run(flash, code, stdin=hello + REPL_ESCAPE)
    assert done.returncode == 0, done.stderr.decode() + done.stdout.decode()
    *frames, ended = done.stdout.split(b"\x00")
    replies = [wire.decode(p) for p in framing.Deframer().feed(b"\x00".join(frames) + b"\x00")]
    hello_back, status = replies
    assert hello_back.caps & wire.CAP_SAFE_MODE and hello_back.counter_id == 0x1234
    assert status.failed_starts == 5
    assert ended.strip() == b"repl"
