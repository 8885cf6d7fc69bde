"""A frame starts once the work queued on the loop has run, never later than its budget."""

from __future__ import annotations

import asyncio
import contextlib

from companion.ui.frames import frames_after_ready_work


class FakeClock:
    """Kivy's clock as far as the frames see it: an awaitable tick per frame."""

    def __init__(self) -> None:
        self.ticks = 0

    async def async_tick(self) -> None:
        self.ticks += 1


def chain(steps: list[int], length: int | None) -> None:
    """A round trip of many short steps, each making the next one ready (None: endless)."""
    loop = asyncio.get_running_loop()

    def step() -> None:
        steps.append(len(steps))
        if length is None or len(steps) < length:
            loop.call_soon(step)

    loop.call_soon(step)


async def test_a_frame_lets_a_queued_round_trip_finish_first() -> None:
    clock = FakeClock()
    steps: list[int] = []
    with frames_after_ready_work(clock, budget_s=5.0):
        chain(steps, 200)
        await clock.async_tick()
        assert clock.ticks == 1
        assert len(steps) == 200  # all of it ran before the frame went on


async def test_a_loop_that_never_goes_quiet_delays_a_frame_by_the_budget_at_most() -> None:
    clock = FakeClock()
    steps: list[int] = []
    loop = asyncio.get_running_loop()
    with frames_after_ready_work(clock, budget_s=0.02):
        chain(steps, None)
        started = loop.time()
        async with asyncio.timeout(10):  # a frame that waited for ever would end the test here
            await clock.async_tick()
        waited = loop.time() - started
        ran = len(steps)
    assert clock.ticks == 1
    assert ran > 1  # it did let the work run
    # The check happens between steps: one step past the budget at most.
    assert waited < 5.0
    await asyncio.sleep(0)
    assert len(steps) > ran  # and the work goes on after the frame


async def test_the_clock_ticks_as_before_outside_the_block() -> None:
    clock = FakeClock()
    before = clock.async_tick
    with frames_after_ready_work(clock):
        assert clock.async_tick != before
    assert clock.async_tick == before
    steps: list[int] = []
    chain(steps, 50)
    await clock.async_tick()
    assert len(steps) < 50  # no longer waited for


class FakeEvents:
    """Kivy's event loop as far as the frames see it: touches handled on demand."""

    def __init__(self, steps: list[int]) -> None:
        self.quit = False
        self.steps = steps
        self.dispatched = 0

    def dispatch_input(self) -> None:
        # A tap applied: its messages to the counters start a round trip on the loop.
        self.dispatched += 1
        chain(self.steps, 100)


async def test_a_tap_round_trip_runs_before_the_frame_that_shows_it() -> None:
    clock = FakeClock()
    steps: list[int] = []
    events = FakeEvents(steps)
    with frames_after_ready_work(clock, events, budget_s=5.0):
        await clock.async_tick()
    assert events.dispatched == 1
    assert len(steps) == 100  # the round trip ended before the frame is drawn


async def test_no_touch_is_handled_once_the_app_quits() -> None:
    clock = FakeClock()
    events = FakeEvents([])
    events.quit = True
    with frames_after_ready_work(clock, events):
        await clock.async_tick()
    assert events.dispatched == 0


class Answers:
    """The counters' acknowledgements as the frames see them: due some time after a send,
    arriving from outside the loop (another process), each setting off work of its own."""

    def __init__(self, steps: list[int], due_in_s: float) -> None:
        self.steps = steps
        self.out = 0
        self.due_in_s = due_in_s
        self.holds = 0
        self.arrived = asyncio.Event()

    def send(self) -> None:
        self.out += 1
        asyncio.get_running_loop().call_later(self.due_in_s, self._arrive)

    def _arrive(self) -> None:
        self.out -= 1
        chain(self.steps, 20)  # the answer is read, checked, noted
        self.arrived.set()

    async def hold(self, budget_s: float) -> bool:
        self.holds += 1
        if not self.out or self.due_in_s > budget_s:
            return False  # nothing out, or not due within the frame's wait
        self.arrived.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(budget_s):
                await self.arrived.wait()
        return True


async def test_a_frame_holds_for_an_answer_due_within_its_budget() -> None:
    clock = FakeClock()
    steps: list[int] = []
    answers = Answers(steps, due_in_s=0.005)
    with frames_after_ready_work(clock, budget_s=1.0, hold=answers.hold):
        answers.send()
        await clock.async_tick()
    assert answers.out == 0  # the answer came before the frame went on
    assert len(steps) == 20  # and what it set going ran too


async def test_a_frame_does_not_wait_for_an_answer_due_after_its_budget() -> None:
    clock = FakeClock()
    answers = Answers([], due_in_s=5.0)  # slower than the frame may wait
    loop = asyncio.get_running_loop()
    with frames_after_ready_work(clock, budget_s=1.0, hold=answers.hold):
        answers.send()
        started = loop.time()
        await clock.async_tick()
        waited = loop.time() - started
    assert answers.out == 1 and answers.holds == 1
    assert waited < 0.5  # not held for it, nor for the budget


async def test_with_nothing_due_a_frame_is_not_held() -> None:
    clock = FakeClock()
    answers = Answers([], due_in_s=0.005)
    with frames_after_ready_work(clock, budget_s=1.0, hold=answers.hold):
        await clock.async_tick()
    assert answers.holds == 1 and answers.out == 0
