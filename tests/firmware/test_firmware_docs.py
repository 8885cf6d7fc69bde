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
    # After it, a sealed state change is ERROR 5 and a sealed PING ERROR 1.
    stale = seal.session_sealer(counterchecks.TOKEN, b"\x00" * 34, seal.TO_COUNTER)
    (late,) = app.counter.handle(stale.seal(wire.encode(wire.Snapshot(1, [1], seq=20))))
    assert wire.decode(late).code == wire.ERR_NOT_AUTHENTICATED
    (ping,) = app.counter.handle(stale.seal(wire.encode(wire.Ping(1, seq=21))))
    assert wire.decode(ping).code == wire.ERR_MALFORMED
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
