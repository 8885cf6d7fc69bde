"""The firmware logic in the real MicroPython VM gives exactly what it gives under CPython."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import counterchecks
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpvm import PINOUTS, MicroPythonVM

from companion.devices import wire

pytestmark = pytest.mark.slow

BOARD = "levelboard-esp32s3.json"
SCENARIOS = [
    ("security", BOARD),
    ("board_frames", BOARD),
    ("board_frames", "levelboard-esp32s3-epic.json"),
    ("board_frames", "levelboard-picow.json"),
    ("limiter_check", BOARD),
    ("tracker_frames", "tracker-esp32c3.json"),
    ("tracker_frames", "tracker-esp32c3-bar.json"),
    ("persistence", BOARD),
]


@pytest.fixture(scope="module")
def vm() -> Iterator[MicroPythonVM]:
    machine = MicroPythonVM()
    machine.run("import counterchecks")
    yield machine
    machine.close()


@pytest.mark.parametrize(("scenario", "pinout"), SCENARIOS)
def test_micropython_and_cpython_agree(vm: MicroPythonVM, scenario: str, pinout: str) -> None:
    in_vm = vm.call(f"counterchecks.{scenario}('/pinouts/{pinout}')")
    in_cpython = json.loads(json.dumps(getattr(counterchecks, scenario)(str(PINOUTS / pinout))))
    assert in_vm == in_cpython


def test_debounce_agrees(vm: MicroPythonVM) -> None:
    assert vm.call("counterchecks.debounce()") == counterchecks.debounce()


def test_unauthenticated_writes_change_nothing_in_micropython(vm: MicroPythonVM) -> None:
    result = vm.call(f"counterchecks.security('/pinouts/{BOARD}')")
    assert result["snapshot_unauthenticated"] == ["Error:5"]
    assert result["levels_after_refusal"] == [0] * 8
    assert result["replayed_snapshot"] == ["Error:7"]
    assert result["old_mac_replayed"] == ["Error:6"]
    # The claim: weak tokens refused, the window visible while open, claims end sessions.
    assert result["weak_claims"] == [["Error:11"]] * 3
    assert result["window_open_after_weak_claims"] is True
    assert result["blue_before_claim_press"] == 0 and result["blue_after_claim"] == 0
    assert result["blue_in_claim_window"] >= 5
    assert result["snapshot_after_claim_without_session"] == ["Error:5"]
    assert result["session_after_forget"] is False
    assert result["sessions_after_reclaim"] == [False, False]
    assert result["second_link_had_a_session"] is True
    assert result["old_token_after_reclaim"] == ["Error:6"]
    # Another program on the link: unsealed writes dropped, its HELLO ends nothing.
    assert result["unsealed_snapshot"] == [] and result["unsealed_ping"] == []
    assert result["intruder_hello"] == ["Hello", "Challenge"]
    assert result["session_after_intruder"] == ["Ack"]
    assert result["levels_after_intruder"] == [5, 5]
    for key in ("wrong_token", "auth_seq_not_after_hello", "bound_to_another_address"):
        assert result[key] == ["Error:6"], key
    assert result["session_after_failed_auths"] == ["Ack"]
    # The session ends when its app goes quiet, or at the 16th wrong tag.
    assert result["session_9999_ms_after_ping"] is True
    assert result["session_10_s_after_ping"] is False
    assert result["session_after_15_bad_tags"] is True
    assert result["16th_bad_tag"] == ["Error:5"]
    assert result["session_after_16_bad_tags"] is False
    assert result["levels_after_bad_tags"] == [6, 6] == result["levels_at_the_end"]


@pytest.mark.parametrize(
    "pinout",
    [BOARD, "levelboard-esp32s3-epic.json", "tracker-esp32c3.json", "tracker-esp32c3-bar.json"],
)
def test_heap_after_start_up_and_per_frame(
    vm: MicroPythonVM, pinout: str, figure: Callable[[str], None]
) -> None:
    figures = vm.call(f"counterchecks.heap('/pinouts/{pinout}')")
    per_frame = {k: v / figures["frames"] for k, v in figures["growth_bytes"].items()}
    figure(
        f"[heap, MicroPython VM] {pinout}: a Counter with its buffers takes "
        f"{figures['counter_bytes']} bytes, opening a session "
        f"{figures['session_bytes']} more (temporaries the VM's conservative collector "
        f"keeps included); growth per rendered frame {per_frame}"
    )
    assert figures["counter_bytes"] < 16 * 1024
    assert figures["session_bytes"] < 24 * 1024
    assert figures["growth_bytes"] == {k: 0 for k in figures["growth_bytes"]}


@pytest.mark.parametrize("pinout", [BOARD, "tracker-esp32c3.json"])
def test_heap_of_a_fresh_start(pinout: str, figure: Callable[[str], None]) -> None:
    fresh = MicroPythonVM()
    try:
        fresh.run("import gc\ngc.collect()\nBASE = gc.mem_alloc()")
        fresh.run(
            "import wire\n"
            "from counter import board, logic\n"
            f"COUNTER = logic.Counter(board.load('/pinouts/{pinout}'))\n"
            "COUNTER.frame()\n"
            "gc.collect()"
        )
        used = fresh.call("gc.mem_alloc() - BASE")
    finally:
        fresh.close()
    figure(
        f"[heap, MicroPython VM] {pinout}: {used} bytes in use after start-up "
        "(codec + firmware logic compiled from source, counter built, one frame drawn)"
    )
    assert used < 96 * 1024


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=24),
            st.tuples(st.sampled_from(sorted(wire.MESSAGE_TYPES)), st.binary(max_size=17)).map(
                lambda t: bytes([t[0], 0xF0, 0xFF]) + t[1]
            ),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_fuzzed_messages_never_crash_the_counter_in_either_vm(vm: MicroPythonVM, inputs) -> None:
    hexes = json.dumps([d.hex() for d in inputs])
    in_vm = vm.call(f"counterchecks.fuzz_handle('/pinouts/{BOARD}', {hexes})")
    assert not [r for r in in_vm if isinstance(r, str)], in_vm
    in_cpython = counterchecks.fuzz_handle(str(PINOUTS / BOARD), [d.hex() for d in inputs])
    assert in_vm == in_cpython
