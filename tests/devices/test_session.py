"""The app's side of a session against a scripted counter: HELLO, AUTH, CLAIM, numbering."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from companion.devices import seal, wire
from companion.devices.link import Link, LinkClosedError
from companion.devices.session import (
    SEQ_LAST,
    SEQ_RESTART,
    CounterVersionError,
    ImpostorError,
    NotACounterError,
    Session,
    SessionEndedError,
)

TOKEN = bytes(range(16))
NONCE = bytes(range(100, 116))
COUNTER_ID = 0x12345678
CLAIMED_HELLO = wire.Hello(
    role=wire.ROLE_TRACKER, slots=1, caps=wire.CAP_CLAIMED, counter_id=COUNTER_ID, seq=1
)


class ScriptedCounter(Link):
    """A link whose far end answers each message the app sends with `script(message)`."""

    transport = "memory"

    def __init__(self, script: Callable[[wire.Message], list[bytes]]) -> None:
        super().__init__("scripted")
        self.script = script
        self.sent: list[wire.Message] = []
        self.raw: list[bytes] = []
        self.sealer: seal.Sealer | None = None  # the counter's side, once a session is open

    async def _open(self) -> None:
        return None

    async def _send(self, payload: bytes) -> None:
        self.raw.append(payload)
        if self.sealer is not None and wire.peek_type(payload) in wire.SEALED:
            opened = self.sealer.open(payload)
            assert opened is not None, "the app sealed it wrongly"
            payload = opened
        message = wire.decode(payload)
        self.sent.append(message)
        for reply in self.script(message):
            asyncio.get_running_loop().call_soon(self._deliver, reply)

    async def _close(self) -> None:
        return None


SEEN_AS = bytes.fromhex("f0f1f2f3f4f5")  # the app's address as the scripted counter sees it


def claimed_counter(
    token: bytes = TOKEN,
    *,
    prove_with: bytes | None = None,
    link: list[ScriptedCounter] | None = None,
) -> Callable[[wire.Message], list[bytes]]:
    """A claimed counter holding `token`: HELLO + CHALLENGE, then PROOF or ERROR for the AUTH.

    `prove_with` makes it prove another token (an impostor that passed the AUTH on);
    with `link` ([the ScriptedCounter]) it seals its side of the session from then on.
    """

    def script(message: wire.Message) -> list[bytes]:
        if isinstance(message, wire.Hello):
            return [wire.encode(CLAIMED_HELLO), wire.encode(wire.Challenge(NONCE, seq=2))]
        if isinstance(message, wire.Auth):
            script_ = seal.transcript(NONCE, message.app_nonce, COUNTER_ID, seal.NO_LINK_ID)
            if message.proof != seal.app_proof(token, script_):
                return [wire.encode(wire.Error(wire.ERR_AUTH_FAILED, message.seq, seq=3))]
            if link:
                link[0].sealer = seal.session_sealer(token, script_, seal.TO_APP)
            proof = seal.counter_proof(prove_with or token, script_, SEEN_AS)
            return [wire.encode(wire.Proof(proof, SEEN_AS, seq=3))]
        if isinstance(message, wire.Snapshot) and link and link[0].sealer is not None:
            ack = wire.encode(wire.Ack(message.seq, wire.MSG_SNAPSHOT, seq=4))
            return [link[0].sealer.seal(ack)]
        return []

    return script


async def test_a_claimed_counter_accepts_the_right_token_and_the_auth_follows_the_hello_seq():
    link = ScriptedCounter(claimed_counter())
    session = Session(link)
    async with link:
        with session.listening():
            hello = await session.start(1.0)
            accepted = await session.authenticate(TOKEN, timeout_s=1.0, auth_timeout_s=1.0)

    assert hello.counter_id == COUNTER_ID and session.hello is hello
    assert accepted and session.sealed and session.seen_as == SEEN_AS
    assert [type(m).__name__ for m in link.sent] == ["Hello", "Auth"]
    assert [m.seq for m in link.sent] == [1, 2]  # numbered by the session, not fixed


async def test_after_the_proof_what_the_protocol_seals_goes_sealed_both_ways():
    holder: list[ScriptedCounter] = []
    link = ScriptedCounter(claimed_counter(link=holder))
    holder.append(link)
    session = Session(link)
    acks: list[wire.Message] = []
    async with link:
        with session.listening(acks.append):
            await session.start(1.0)
            assert await session.authenticate(TOKEN, timeout_s=1.0, auth_timeout_s=1.0)
            answer = await session.request(wire.Snapshot(1, [3]), 1.0)
    assert isinstance(answer, wire.Ack) and answer.ref_type == wire.MSG_SNAPSHOT
    assert len(link.raw[-1]) == len(wire.encode(link.sent[-1])) + seal.TAG_SIZE
    # A message of a sealed type without the right tag is dropped, and counted.
    forged = wire.encode(wire.Button(wire.INTENT_LEVEL_UP, 0, seq=9))
    assert session.receive(forged + bytes(3)) is None
    assert session.receive(forged) is None
    assert session.bad_tags == 2
    # Messages the protocol never seals are read as they are.
    assert isinstance(session.receive(wire.encode(wire.Error(wire.ERR_REPLAY, 3))), wire.Error)


async def test_a_counter_that_cannot_prove_the_token_is_an_impostor():
    link = ScriptedCounter(claimed_counter(prove_with=bytes(range(50, 66))))
    session = Session(link)
    async with link:
        with session.listening():
            await session.start(1.0)
            with pytest.raises(ImpostorError, match="could not prove"):
                await session.authenticate(TOKEN, timeout_s=1.0, auth_timeout_s=1.0)
    assert not session.sealed


async def test_a_wrong_token_is_refused_not_raised():
    link = ScriptedCounter(claimed_counter(token=bytes(16)))
    session = Session(link)
    async with link:
        with session.listening():
            await session.start(1.0)
            assert not await session.authenticate(TOKEN, timeout_s=1.0, auth_timeout_s=1.0)


async def test_a_hello_of_another_protocol_major_is_a_version_error():
    other_major = bytearray(wire.encode(CLAIMED_HELLO))
    other_major[3] = wire.PROTOCOL_MAJOR + 1  # the major byte follows type and seq
    link = ScriptedCounter(lambda m: [bytes(other_major)] if isinstance(m, wire.Hello) else [])
    session = Session(link)
    async with link:
        with session.listening(), pytest.raises(CounterVersionError):
            await session.start(1.0)


async def test_silence_is_not_a_counter():
    link = ScriptedCounter(lambda m: [])
    session = Session(link)
    async with link:
        with session.listening(), pytest.raises(NotACounterError, match="no HELLO"):
            await session.start(0.05)


async def test_a_claim_outside_the_window_is_refused():
    def script(message: wire.Message) -> list[bytes]:
        if isinstance(message, wire.Hello):
            return [wire.encode(wire.Hello(role=wire.ROLE_BOARD, slots=6, seq=1))]
        if isinstance(message, wire.Claim):
            return [wire.encode(wire.Error(wire.ERR_NOT_CLAIMING, message.seq, seq=2))]
        return []

    link = ScriptedCounter(script)
    session = Session(link)
    async with link:
        with session.listening():
            await session.start(1.0)
            assert not await session.claim(TOKEN, 1.0)


async def test_a_lost_link_ends_a_request_at_once():
    link = ScriptedCounter(lambda m: [])
    session = Session(link)
    await link.open()
    with session.listening():
        request = asyncio.ensure_future(session.request(wire.Ping(7), timeout_s=5.0))
        await asyncio.sleep(0)
        await link.drop("cable pulled")
        with pytest.raises(LinkClosedError):
            await asyncio.wait_for(request, 1.0)


async def test_sequence_numbers_never_pass_the_u16_range():
    session = Session(ScriptedCounter(lambda m: []))
    for _ in range(SEQ_RESTART - 1):
        session.next_seq()
    assert not session.worn_out
    session.next_seq()
    assert session.worn_out  # time for a fresh session, before the numbers run out
    while session.seq < SEQ_LAST:
        session.next_seq()
    with pytest.raises(SessionEndedError):
        session.next_seq()
