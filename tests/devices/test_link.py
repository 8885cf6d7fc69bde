"""The Link contract every carrier shares, checked on a minimal in-memory carrier."""

from __future__ import annotations

import asyncio

import pytest

from companion.devices.link import (
    MAX_PAYLOAD,
    Link,
    LinkClosedError,
    LinkLostError,
    LinkOpenError,
    LinkState,
    PayloadTooLongError,
)


class MemoryLink(Link):
    """Sent messages are recorded; the test plays the counter through `deliver` and `lose`."""

    transport = "memory"

    def __init__(self, fail_open: Exception | None = None, lose_while_opening: bool = False):
        super().__init__("slot-1")
        self.sent: list[bytes] = []
        self.fail_open = fail_open
        self.lose_while_opening = lose_while_opening
        self.opened = 0
        self.closed = 0

    async def _open(self) -> None:
        self.opened += 1
        await asyncio.sleep(0)
        if self.fail_open is not None:
            raise self.fail_open
        if self.lose_while_opening:
            self._carrier_lost("counter reset during setup")

    async def _send(self, payload: bytes) -> None:
        self.sent.append(payload)

    async def _close(self) -> None:
        self.closed += 1

    def deliver(self, payload: bytes) -> None:
        self._deliver(payload)

    def lose(self) -> None:
        self._carrier_lost("cable pulled")


async def test_states_are_reported_in_order_through_open_loss_reopen_and_close():
    link = MemoryLink()
    states: list[LinkState] = []
    link.on_state_change(states.append)

    await link.open()
    link.lose()
    await link.open()
    await link.close()

    assert states == [
        LinkState.OPENING,
        LinkState.OPEN,
        LinkState.LOST,
        LinkState.OPENING,
        LinkState.OPEN,
        LinkState.CLOSED,
    ]
    assert link.name == "memory slot-1"


async def test_queued_messages_are_read_before_the_loss_is():
    link = MemoryLink()
    await link.open()
    link.deliver(b"a")
    link.deliver(b"b")
    link.lose()

    assert [payload async for payload in link] == [b"a", b"b"]
    with pytest.raises(LinkLostError, match="cable pulled"):
        await link.recv()
    assert isinstance(link.lost_reason, LinkLostError)


async def test_a_waiting_reader_is_woken_by_close():
    link = MemoryLink()
    await link.open()
    reader = asyncio.create_task(link.recv())
    await asyncio.sleep(0)

    await link.close()

    with pytest.raises(LinkClosedError):
        await reader
    assert not isinstance(link.lost_reason, LinkLostError)


async def test_send_checks_size_and_state():
    link = MemoryLink()
    with pytest.raises(LinkClosedError):
        await link.send(b"x")
    await link.open()

    await link.send(bytes(MAX_PAYLOAD))
    with pytest.raises(PayloadTooLongError):
        await link.send(bytes(MAX_PAYLOAD + 1))

    assert link.sent == [bytes(MAX_PAYLOAD)]


async def test_carrier_errors_on_open_become_link_open_errors():
    link = MemoryLink(fail_open=OSError("permission denied"))

    with pytest.raises(LinkOpenError, match="permission denied"):
        await link.open()
    assert link.state is LinkState.CLOSED


async def test_a_loss_while_opening_fails_the_open():
    link = MemoryLink(lose_while_opening=True)

    with pytest.raises(LinkOpenError, match="reset during setup"):
        await link.open()
    assert link.state is not LinkState.OPEN
    assert link.closed == 1


async def test_concurrent_opens_open_the_carrier_once():
    link = MemoryLink()

    await asyncio.gather(link.open(), link.open())

    assert link.opened == 1


async def test_drop_reports_lost_and_close_after_it_does_nothing():
    link = MemoryLink()
    await link.open()

    await link.drop("no answer to PING")
    await link.close()

    assert link.state is LinkState.LOST
    assert "no answer to PING" in str(link.lost_reason)
    assert link.closed == 1


async def test_callbacks_can_be_unregistered():
    link = MemoryLink()
    seen: list[bytes] = []
    states: list[LinkState] = []
    stop_messages = link.on_message(seen.append)
    stop_states = link.on_state_change(states.append)
    await link.open()
    link.deliver(b"1")
    stop_messages()
    stop_states()
    link.deliver(b"2")
    await link.close()

    assert seen == [b"1"]
    assert states == [LinkState.OPENING, LinkState.OPEN]
    assert await link.recv() == b"2"  # queued once no callback was left
    with pytest.raises(LinkClosedError):
        await link.recv()


async def test_a_failing_listener_does_not_silence_the_others(caplog):
    link = MemoryLink()
    seen: list[bytes] = []
    states: list[LinkState] = []

    def broken(_value: object) -> None:
        raise RuntimeError("listener bug")

    link.on_message(broken)
    link.on_message(seen.append)
    link.on_state_change(broken)
    link.on_state_change(states.append)
    await link.open()
    link.deliver(b"m")

    assert seen == [b"m"]
    assert states == [LinkState.OPENING, LinkState.OPEN]
    assert "listener bug" in caplog.text
