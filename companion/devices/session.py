"""The app's side of one protocol session on an open link: numbering, HELLO, AUTH and CLAIM.

A `Session` numbers what the app sends, matches the counter's ACK or ERROR to
the request it answers, and runs the opening steps of protocol §3: HELLO
(`start`), then AUTH with a stored token (`authenticate`) or CLAIM with a new
one (`claim`). It reads nothing by itself: whoever receives the link's
messages hands each one to `take` (the connection does so for its whole life;
`listening()` does it for a short exchange such as a discovery probe).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator

from companion.devices import wire
from companion.devices.link import Link, LinkClosedError, LinkError, LinkState

HELLO_TIMEOUT_S = 2.0  # s: a running counter answers in ms; a board still booting may need a second
AUTH_TIMEOUT_S = 2.0  # s: one HMAC on a microcontroller takes a few ms
SEQ_LAST = 0xFFFF  # the highest seq a message carries (u16)
SEQ_RESTART = 0xFF00  # a session this far into the seq space is replaced by a fresh one (§3)
# The oldest counter firmware this app works with: an older one is asked to update.
MIN_FIRMWARE = (1, 0, 0)


def firmware_outdated(hello: wire.Hello) -> bool:
    """True when a counter's HELLO reports firmware older than MIN_FIRMWARE."""
    return tuple(hello.firmware) < MIN_FIRMWARE


def update_advice(hello: wire.Hello) -> str:
    """The sentence a person reads about an outdated counter."""
    have = ".".join(str(part) for part in hello.firmware)
    need = ".".join(str(part) for part in MIN_FIRMWARE)
    return f"update this counter: its firmware {have} is older than {need}"


class NotACounterError(LinkError):
    """Something answered on the port or radio, but not with a counter's HELLO."""


class CounterVersionError(NotACounterError):
    """A counter answered, but speaks a protocol version this app cannot."""


class SessionEndedError(LinkClosedError):
    """The session was replaced or its link went down before an answer came."""


Answer = wire.Ack | wire.Error
_Step = wire.Message | wire.WireError | LinkClosedError


class Session:
    """One session of the app with one counter, from its HELLO until the link goes down.

    `hello` is the counter's HELLO once `start()` returned. Sequence numbers start
    at 1 and never pass `SEQ_LAST`; `worn_out` says when the owner should open a
    fresh session (a new HELLO on the same link) before they would.
    """

    def __init__(self, link: Link) -> None:
        self.link = link
        self.hello: wire.Hello | None = None
        self._seq = 0
        self._answers: dict[int, asyncio.Future[Answer]] = {}
        self._steps: asyncio.Queue[_Step] | None = None
        self._ended: LinkClosedError | None = None

    # -- numbering and sending ---------------------------------------------------------

    @property
    def seq(self) -> int:
        """The sequence number of the last message sent in this session (0 before the first)."""
        return self._seq

    @property
    def worn_out(self) -> bool:
        """True once this session has used up its sequence numbers: open a fresh one."""
        return self._seq >= SEQ_RESTART

    @property
    def handshaking(self) -> bool:
        """True from `start()` until `opened()`: the counter's HELLO and CHALLENGE are awaited."""
        return self._steps is not None

    def next_seq(self) -> int:
        """The next sequence number; raises `SessionEndedError` when none is left."""
        if self._seq >= SEQ_LAST:
            raise SessionEndedError(f"{self.link.name}: the session used up its sequence numbers")
        self._seq += 1
        return self._seq

    async def send(self, message: wire.Message) -> int:
        """Number `message`, send it, and return its seq."""
        if self._ended is not None:
            raise self._ended
        message.seq = self.next_seq()
        await self.link.send(wire.encode(message))
        return message.seq

    async def request(self, message: wire.Message, timeout_s: float) -> Answer:
        """Send `message` and return the ACK or ERROR that refers to it."""
        if self._ended is not None:
            raise self._ended
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        seq = self.next_seq()
        message.seq = seq
        self._answers[seq] = future
        try:
            await self.link.send(wire.encode(message))
            async with asyncio.timeout(timeout_s):
                return await future
        except TimeoutError as exc:
            raise LinkError(f"{self.link.name}: no answer within {timeout_s:g} s") from exc
        finally:
            self._answers.pop(seq, None)

    # -- receiving ---------------------------------------------------------------------

    def take(self, item: wire.Message | wire.WireError) -> bool:
        """Offer a received message (or the error decoding it raised); True if the session used it.

        Used: an ACK or ERROR a request waits for, and while the session opens, the
        counter's HELLO and CHALLENGE (or a HELLO of another protocol version).
        """
        if isinstance(item, wire.Ack | wire.Error):
            waiter = self._answers.pop(item.ref_seq, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(item)
                return True
        if self._steps is None:
            return False
        if isinstance(item, wire.WireError | wire.Error):
            if item.code != wire.ERR_VERSION:
                return False
        elif isinstance(item, wire.Hello):
            if item.role == wire.ROLE_APP:
                return False
        elif not isinstance(item, wire.Challenge):
            return False
        self._steps.put_nowait(item)
        return True

    def end(self, reason: LinkClosedError) -> None:
        """The link went down (or a new session replaces this one): fail whatever still waits."""
        if self._ended is None:
            self._ended = reason
        for waiter in self._answers.values():
            if not waiter.done():
                waiter.set_exception(reason)
        self._answers.clear()
        if self._steps is not None:
            self._steps.put_nowait(reason)

    @contextlib.contextmanager
    def listening(self, other: Callable[[wire.Message], None] | None = None) -> Iterator[None]:
        """Feed the session every message of its link for a while; the rest goes to `other`.

        For a short exchange (a probe) whose caller has no receiver of its own; the
        session also ends when the link goes down meanwhile.
        """

        def on_payload(payload: bytes) -> None:
            try:
                message = wire.decode(payload)
            except wire.WireError as exc:
                self.take(exc)
                return
            if not self.take(message) and other is not None:
                other(message)

        def on_state(state: LinkState) -> None:
            if state in (LinkState.CLOSED, LinkState.LOST):
                reason = self.link.lost_reason
                self.end(reason or SessionEndedError(f"{self.link.name} went away"))

        removers = (self.link.on_message(on_payload), self.link.on_state_change(on_state))
        try:
            yield
        finally:
            for remove in removers:
                remove()

    # -- the opening steps (§3) ------------------------------------------------------

    async def start(self, timeout_s: float = HELLO_TIMEOUT_S) -> wire.Hello:
        """Exchange HELLOs; the counter's is returned and kept in `hello`.

        Raises `NotACounterError` if no counter's HELLO comes within `timeout_s` (or
        the link goes away first), `CounterVersionError` if the counter speaks
        another protocol major.
        """
        if self._ended is not None:
            raise NotACounterError(f"{self.link.name} went away before its HELLO: {self._ended}")
        self._steps = asyncio.Queue()  # open until `opened()`: the CHALLENGE follows the HELLO
        try:
            await self.send(wire.Hello(role=wire.ROLE_APP))
            step = await self._step((wire.Hello, wire.Error, wire.WireError), timeout_s)
        except TimeoutError as exc:
            raise NotACounterError(
                f"{self.link.name} gave no HELLO within {timeout_s:g} s"
            ) from exc
        except LinkClosedError as exc:
            raise NotACounterError(f"{self.link.name} went away before its HELLO: {exc}") from exc
        if isinstance(step, wire.WireError):
            raise CounterVersionError(f"{self.link.name}: {step}")
        if isinstance(step, wire.Error):
            raise CounterVersionError(
                f"{self.link.name} does not speak protocol {wire.PROTOCOL_MAJOR}.x"
            )
        assert isinstance(step, wire.Hello)
        self.hello = step
        return step

    async def challenge(self, timeout_s: float = HELLO_TIMEOUT_S) -> wire.Challenge:
        """The CHALLENGE a claimed counter sends after its HELLO; `LinkError` if none comes."""
        try:
            step = await self._step((wire.Challenge,), timeout_s)
        except TimeoutError as exc:
            raise LinkError(f"{self.link.name}: no answer within {timeout_s:g} s") from exc
        assert isinstance(step, wire.Challenge)
        return step

    async def answer(
        self, token: bytes, challenge: wire.Challenge, timeout_s: float = AUTH_TIMEOUT_S
    ) -> bool:
        """Answer `challenge` with the MAC of `token` (AUTH); True if the counter accepted it.

        False means the counter refused the answer (ERROR AUTH_FAILED: a wrong token,
        or a challenge damaged on the way). Raises `LinkError` if no answer comes, or
        the counter refuses for another reason.
        """
        hello = self._started()
        mac = wire.auth_mac(token, challenge.nonce, hello.counter_id)
        answer = await self.request(wire.Auth(mac), timeout_s)
        if isinstance(answer, wire.Error):
            if answer.code != wire.ERR_AUTH_FAILED:
                raise LinkError(f"{self.link.name}: authentication refused ({answer.code})")
            return False
        return True

    async def authenticate(
        self,
        token: bytes,
        *,
        timeout_s: float = HELLO_TIMEOUT_S,
        auth_timeout_s: float = AUTH_TIMEOUT_S,
    ) -> bool:
        """Wait for the CHALLENGE and answer it with `token`: `challenge()`, then `answer()`."""
        return await self.answer(token, await self.challenge(timeout_s), auth_timeout_s)

    async def claim(self, token: bytes, timeout_s: float = AUTH_TIMEOUT_S) -> bool:
        """Claim the counter with `token`; True if it took it (its claim window was open)."""
        self._started()
        answer = await self.request(wire.Claim(token), timeout_s)
        return isinstance(answer, wire.Ack)

    def opened(self) -> None:
        """The opening steps are over: HELLO and CHALLENGE are no longer waited for."""
        self._steps = None

    def _started(self) -> wire.Hello:
        if self.hello is None:
            raise LinkError(f"{self.link.name}: no HELLO exchanged yet")
        return self.hello

    async def _step(
        self, kinds: tuple[type, ...], timeout_s: float
    ) -> wire.Message | wire.WireError:
        """Wait for the counter's next opening step of one of `kinds`; others are skipped."""
        steps = self._steps
        if steps is None:
            raise LinkError(f"{self.link.name}: the session is already open")
        async with asyncio.timeout(timeout_s):
            while True:
                step = await steps.get()
                if isinstance(step, LinkClosedError):
                    raise step
                if isinstance(step, kinds):
                    return step
