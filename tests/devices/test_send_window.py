"""The app never has more messages in flight than a counter can hold.

A counter on Bluetooth keeps the writes it has not read yet in aioble's queue of ten and
drops the oldest beyond it (a real counter sent fourteen at once answered ten). The
counter here holds its writes the same way while it is busy, and reads them in order
once it is not.
"""

from __future__ import annotations

import asyncio
import collections

import pytest

from companion.devices import session as session_module
from companion.devices import wire
from companion.devices.ble_link import COUNTER_WRITE_QUEUE, BleLink
from companion.devices.link import Link
from companion.devices.session import Session

BUFFER_BYTES = 20  # a characteristic's buffer on the board: longer writes are cut


class BusyCounter(Link):
    """A counter on a link with BLE's window: a 10-deep write queue, read when not busy."""

    transport = "memory"
    send_window = BleLink.send_window

    def __init__(self) -> None:
        super().__init__("busy")
        self.queue: collections.deque[bytes] = collections.deque(maxlen=COUNTER_WRITE_QUEUE)
        self.dropped = 0
        self.busy = True
        self.most_waiting = 0
        self.written = asyncio.Event()

    async def _open(self) -> None:
        return None

    async def _close(self) -> None:
        return None

    async def _send(self, payload: bytes) -> None:
        if len(self.queue) == self.queue.maxlen:
            self.dropped += 1
        self.queue.append(payload[:BUFFER_BYTES])
        self.most_waiting = max(self.most_waiting, len(self.queue))
        self.written.set()
        if not self.busy:
            self.read_all()

    def read_all(self) -> None:
        """The counter's loop runs again: each waiting write read and answered, in order."""
        self.busy = False
        self.read(len(self.queue))

    def read(self, count: int, *, answer_last_only: bool = False) -> None:
        """The counter reads its ``count`` oldest writes, answering each (or the last)."""
        for i in range(count):
            message = wire.decode(self.queue.popleft())
            if answer_last_only and i < count - 1:
                continue  # an answer lost on the way
            reply = wire.Ack(message.seq, message.TYPE, seq=1)
            asyncio.get_running_loop().call_soon(self._deliver, wire.encode(reply))


async def session_on(link: BusyCounter) -> Session:
    await link.open()
    session = Session(link)

    def on_payload(payload: bytes) -> None:
        message = session.receive(payload)
        if message is not None:
            session.take(message)

    link.on_message(on_payload)
    return session


def snapshot(rev: int) -> wire.Snapshot:
    return wire.Snapshot(rev, [rev % 10 + 1], [0])


async def steps(n: int = 50) -> None:
    """Let the loop run everything that is ready, n times over (no time passes)."""
    for _ in range(n):
        await asyncio.sleep(0)


def test_a_ble_link_holds_no_more_in_flight_than_aioble_queues() -> None:
    assert BleLink.send_window == COUNTER_WRITE_QUEUE == 10


async def test_fourteen_changes_at_once_wait_for_a_busy_counter_and_all_are_answered() -> None:
    link = BusyCounter()
    session = await session_on(link)
    sends = [asyncio.create_task(session.send(snapshot(rev))) for rev in range(1, 15)]
    await steps()
    assert len(link.queue) == COUNTER_WRITE_QUEUE  # ten written, four waiting their turn
    assert session.in_flight == COUNTER_WRITE_QUEUE
    assert not any(task.done() for task in sends[COUNTER_WRITE_QUEUE:])
    link.read_all()  # the counter reads its ten and answers them
    async with asyncio.timeout(5):
        seqs = await asyncio.gather(*sends)
    await steps()
    assert seqs == list(range(1, 15))  # in order, none lost
    assert link.dropped == 0 and link.most_waiting == COUNTER_WRITE_QUEUE
    assert session.in_flight == 0


async def test_an_answer_frees_its_message_and_every_one_before_it() -> None:
    link = BusyCounter()
    session = await session_on(link)
    for rev in range(1, 11):
        await session.send(snapshot(rev))
    assert session.in_flight == 10
    link.read(4, answer_last_only=True)  # only the answer to the 4th comes back
    await steps()
    assert session.in_flight == 6  # the counter has read the first four, in order
    late = asyncio.create_task(session.send(snapshot(11)))
    await steps()
    assert late.done() and link.dropped == 0


async def test_messages_never_answered_free_their_place_after_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An ACK of a press gets no answer, and a write may be lost: the window does not
    wait for them for ever."""
    monkeypatch.setattr(session_module, "WINDOW_HOLD_S", 0.05)
    link = BusyCounter()
    session = await session_on(link)
    for rev in range(1, 11):
        await session.send(snapshot(rev))
    link.queue.clear()  # lost on the way, say
    async with asyncio.timeout(5):
        assert await session.send(snapshot(11)) == 11


async def test_a_session_that_ends_releases_a_sender_waiting_for_room() -> None:
    link = BusyCounter()
    session = await session_on(link)
    for rev in range(1, 11):
        await session.send(snapshot(rev))
    waiting = asyncio.create_task(session.send(snapshot(11)))
    await steps()
    session.end(session_module.SessionEndedError("gone"))
    with pytest.raises(session_module.SessionEndedError):
        async with asyncio.timeout(5):
            await waiting
