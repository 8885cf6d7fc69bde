"""The example in docs/firmware.md runs as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_running_the_firmware_logic_on_a_computer_example_works() -> None:
    text = (ROOT / "docs" / "firmware.md").read_text()
    section = text.split("## Running the firmware logic on a computer", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(code.group(1), "docs/firmware.md", "exec"), {})
    finally:
        os.chdir(here)


# -- docs/protocol.md: what a client written from it alone relies on --------------------------

PROTOCOL = (ROOT / "docs" / "protocol.md").read_text()
TRACKER = str(ROOT / "hardware" / "pinouts" / "tracker-esp32c3.json")


def test_the_hello_example_is_a_major_2_hello_and_the_vector_bytes() -> None:
    import json

    from companion.devices import wire

    vectors = json.loads((ROOT / "tests" / "vectors" / "messages.json").read_text())
    (vector,) = [v for v in vectors["messages"] if v["name"] == "hello from a level board"]
    example = re.search(r'"hello from a level board".*?`([0-9a-f ]+)`', PROTOCOL, re.S)
    assert example is not None
    data = bytes.fromhex(example.group(1).replace(" ", ""))
    assert data.hex() == vector["hex"]
    assert wire.decode(data).major == 2
    assert "protocol major version, 2." in PROTOCOL


def test_the_app_nonce_is_8_bytes_and_weak_tokens_include_wrong_lengths() -> None:
    import json

    from companion.devices import seal, wire

    assert "the app's nonce\n(AUTH) is **8** bytes" in PROTOCOL
    assert wire.APP_NONCE_SIZE == 8 and wire.NONCE_SIZE == 16
    sessions = json.loads((ROOT / "tests" / "vectors" / "sessions.json").read_text())
    lengths = {len(bytes.fromhex(t)) for t in sessions["weak_tokens"]}
    assert {15, 17} <= lengths  # the page says so, and the vectors hold such tokens
    assert all(not seal.token_is_strong(bytes.fromhex(t)) for t in sessions["weak_tokens"])
    for case in sessions["link_ids"]:
        assert seal.link_id(case["address"]).hex() == case["id"]
    assert "`c0-98-e5-49-00-01`" in PROTOCOL


def test_what_the_page_says_about_ending_sessions_is_what_a_counter_does() -> None:
    import counterchecks

    from companion.devices import seal, wire

    # A re-claim inside a session: the ACK comes back unsealed.
    app, _ = counterchecks.claimed(TRACKER)
    app.counter.press("claim", True)
    (ack,) = app.counter.handle(
        wire.encode(wire.Claim(bytes.fromhex("9a03f1c4580e27bd6c91e04a3d7fb258"), seq=5))
    )
    assert wire.decode(ack).TYPE == wire.MSG_ACK  # readable as it is: no tag on it
    # The 16th wrong tag ends the session and is answered: ERROR 5, unsealed, "ended".
    app, _ = counterchecks.claimed(TRACKER)
    forged = wire.encode(wire.Snapshot(9, [9], seq=10)) + b"\x00\x00\x00"
    replies = [app.counter.handle(forged) for _ in range(16)]
    assert replies[:15] == [[]] * 15
    (ended,) = replies[15]
    err = wire.decode(ended)
    assert (err.code, err.detail, err.ref_seq) == (wire.ERR_NOT_AUTHENTICATED, "ended", 10)
    # After it, a sealed state change, PING or ACK is ERROR 5: the app's keep-alive PING
    # learns of the end within its 2 s.
    stale = seal.session_sealer(counterchecks.TOKEN, b"\x00" * 34, seal.TO_COUNTER)
    for late_message in (
        wire.Snapshot(1, [1], seq=20),
        wire.Ping(1, seq=21),
        wire.Ack(5, wire.MSG_BUTTON, seq=22),
    ):
        (late,) = app.counter.handle(stale.seal(wire.encode(late_message)))
        assert wire.decode(late).code == wire.ERR_NOT_AUTHENTICATED, late_message
    assert "announces" in PROTOCOL and "A counter never announces it" not in PROTOCOL
    # Only MALFORMED turns into NOT_AUTHENTICATED without a session.
    (unknown,) = app.counter.handle(bytes([wire.MSG_CONFIG, 30, 0, 99, 1]))
    assert wire.decode(unknown).code == wire.ERR_UNKNOWN_TYPE


def test_an_auth_must_come_after_its_hello() -> None:
    import counterchecks

    from companion.devices import seal, wire

    app, _ = counterchecks.claimed(TRACKER)
    counter = app.counter
    _, challenge = counter.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=7)))
    script = counterchecks.script_of(counter, wire.decode(challenge).nonce)
    proof = seal.app_proof(counterchecks.TOKEN, script)
    (refused,) = counter.handle(wire.encode(wire.Auth(counterchecks.APP_NONCE, proof, seq=7)))
    assert wire.decode(refused).code == wire.ERR_AUTH_FAILED
    assert "higher than the `seq` of the HELLO" in PROTOCOL


def test_section_1_points_to_where_the_sequence_rules_are() -> None:
    assert "(see §4)" not in PROTOCOL
    assert "rules in §3" in PROTOCOL


def test_a_state_change_without_its_key_is_not_authenticated_without_a_session() -> None:
    import counterchecks

    from companion.devices import wire

    counter, _ = counterchecks.make(TRACKER)
    for kind in (wire.MSG_CONFIG, wire.MSG_SHOW):
        (reply,) = counter.handle(bytes([kind, 4, 0]))
        assert wire.decode(reply).code == wire.ERR_NOT_AUTHENTICATED
    app, _ = counterchecks.claimed(TRACKER)  # on a session the same bytes are malformed
    (reply,) = app.handle(bytes([wire.MSG_CONFIG, 9, 0]))
    assert wire.decode(reply).code == wire.ERR_MALFORMED
    assert "One exception to (4)\nand (6)" in PROTOCOL


def test_an_auth_refused_for_its_seq_uses_the_challenge_up() -> None:
    import counterchecks

    from companion.devices import seal, wire

    app, _ = counterchecks.claimed(TRACKER)
    counter = app.counter
    _, challenge = counter.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=7)))
    script = counterchecks.script_of(counter, wire.decode(challenge).nonce)
    proof = seal.app_proof(counterchecks.TOKEN, script)
    (early,) = counter.handle(wire.encode(wire.Auth(counterchecks.APP_NONCE, proof, seq=7)))
    (again,) = counter.handle(wire.encode(wire.Auth(counterchecks.APP_NONCE, proof, seq=8)))
    assert wire.decode(early).code == wire.ERR_AUTH_FAILED
    assert (wire.decode(again).code, wire.decode(again).detail) == (
        wire.ERR_AUTH_FAILED,
        "no challenge",
    )
    assert "every AUTH, right or refused for any reason, uses up the challenge" in PROTOCOL


def test_a_refused_claim_inside_a_session_ends_nothing() -> None:
    import counterchecks

    from companion.devices import wire

    app, _ = counterchecks.claimed(TRACKER)
    stranger = bytes.fromhex("9a03f1c4580e27bd6c91e04a3d7fb258")
    (outside,) = app.counter.handle(wire.encode(wire.Claim(stranger, seq=5)))
    assert wire.decode(outside).code == wire.ERR_NOT_CLAIMING
    app.counter.press("claim", True)
    (weak,) = app.counter.handle(wire.encode(wire.Claim(bytes(16), seq=6)))
    assert wire.decode(weak).code == wire.ERR_WEAK_TOKEN
    assert app.counter.authenticated
    (ack,) = app.handle(wire.encode(wire.Snapshot(2, [6], seq=7)))
    assert wire.decode(ack).TYPE == wire.MSG_ACK and app.counter.state.levels[0] == 6
    assert "A **refused** CLAIM" in PROTOCOL


def test_a_serial_line_goes_quiet_after_10_s_without_a_message_whatever_bytes_came() -> None:
    import counterchecks
    from counter import timebase
    from counter.serial_link import SerialProtocol
    from steppedclock import SteppedClock

    from companion.devices import framing, wire

    clock = SteppedClock()
    timebase.use(clock.ticks_ms, clock.sleep_ms)
    try:
        counter, _ = counterchecks.make(TRACKER)
        proto = SerialProtocol(counter)
        proto.feed(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
        # An app waiting for a long press pings (unsealed) every 2 s: its line stays greeted.
        for seq in range(2, 12):
            clock.now += 2000
            proto.tick(clock.now)
            proto.feed(framing.frame(wire.encode(wire.Ping(seq, seq=seq))))
        (prompt,) = counter.press("claim", True)
        assert proto.deliver("all", prompt) is not None
        # Junk alone does not keep it: 10 s of it and the line is quiet.
        for _ in range(10):
            clock.now += 1000
            proto.feed(b"noise\x00")
            proto.tick(clock.now)
        assert not proto.session.greeted
        (prompt,) = counter.press("claim", True)
        assert proto.deliver("all", prompt) is None
    finally:
        timebase.use()
    assert "10 s with no\nmessage received on it" in PROTOCOL


def test_link_ids_with_mixed_separators_bind_and_signs_do_not() -> None:
    import json

    from companion.devices import seal

    sessions = json.loads((ROOT / "tests" / "vectors" / "sessions.json").read_text())
    addresses = {case["address"]: case["id"] for case in sessions["link_ids"]}
    assert addresses["C0:98-E5:49-00:01"] == "c098e5490001"
    assert addresses["C0:98:E5:49:00:+1"] == "000000000000"
    assert seal.link_id("C0:98:E5:49:00: 1") == seal.NO_LINK_ID
    assert "`C0:98-E5:49-00:01`" in PROTOCOL
