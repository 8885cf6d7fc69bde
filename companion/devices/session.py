"""The app's side of one protocol session on an open link: numbering, HELLO, AUTH and CLAIM.

A `Session` numbers what the app sends, matches the counter's ACK or ERROR to
the request it answers, and runs the opening steps of protocol §3: HELLO
(`start`), then AUTH with a stored token and the counter's PROOF
(`authenticate`), or CLAIM with a new token (`claim`). Once the counter has
proved the token, every message that protocol §3 seals is sealed on the way
out and opened on the way in (`receive`). It reads nothing by itself: whoever
receives the link's messages hands each one to `receive` and then `take` (the
connection does so for its whole life; `listening()` does it for a short
exchange such as a discovery probe).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable, Iterator

from companion.devices import seal, wire
from companion.devices.link import Link, LinkClosedError, LinkError, LinkState

HELLO_TIMEOUT_S = 2.0  # s: a running counter answers in ms; a board still booting may need a second
AUTH_TIMEOUT_S = 2.0  # s: one HMAC on a microcontroller takes a few ms
SEQ_LAST = 0xFFFF  # the highest seq a message carries (u16)
SEQ_RESTART = 0xFF00  # a session this far into the seq space is replaced by a fresh one (§3)
ANSWER_WINDOW_S = 2.0  # s: a counter answers in milliseconds; an ERROR about a message of ours
# sent longer ago than this, or already answered, is not about ours (someone else's, on the line)
UNANSWERED_KEPT = 64  # messages of ours remembered as waiting for an answer
# A message of ours unanswered this long no longer counts against the link's send window:
# a running counter takes it in within milliseconds, so it was taken or it was lost.
WINDOW_HOLD_S = ANSWER_WINDOW_S
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


class ImpostorError(LinkError):
    """The counter took the AUTH but could not prove it holds the token: not the one claimed."""


Answer = wire.Ack | wire.Error | wire.Proof
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
        #: Seals and opens messages once the counter proved the token (None before).
        self.sealer: seal.Sealer | None = None
        #: The app's address as the counter reported seeing it (zeros on serial).
        self.seen_as: bytes | None = None
        #: Messages that came with a wrong tag in this session (damage, or a forger).
        self.bad_tags = 0
        #: A CHALLENGE came while the session opened (a claimed counter sends one).
        self.challenged = False
        self._seq = 0
        self._unanswered: dict[int, float] = {}  # seq -> when it was sent (loop time)
        # The send window (`Link.send_window`): (seq, when sent) of the messages the
        # counter may still hold unread, oldest first; an answer to one clears it and
        # every older one, since a counter reads its messages in order.
        self._in_flight: collections.deque[tuple[int, float]] = collections.deque()
        self._room = asyncio.Event()
        self._send_lock = asyncio.Lock()
        self._answers: dict[int, asyncio.Future[Answer]] = {}
        self._steps: asyncio.Queue[_Step] | None = None
        self._ended: LinkClosedError | None = None
        self._auth_seq = -1  # the seq of the AUTH waiting for its PROOF
        #: The claim token and transcript of that AUTH: its PROOF is checked as it arrives.
        self._auth_key: tuple[bytes, bytes] | None = None
        self._proven = False  # that PROOF was right

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
        self._unanswered[self._seq] = asyncio.get_running_loop().time()
        if len(self._unanswered) > UNANSWERED_KEPT:
            del self._unanswered[next(iter(self._unanswered))]
        return self._seq

    def answered(self, seq: int) -> None:
        """The counter answered our message `seq` (an ACK, a PONG): it has read that one
        and every one before it."""
        self._unanswered.pop(seq, None)
        in_flight = self._in_flight
        if any(sent == seq for sent, _ in in_flight):
            while in_flight and in_flight[0][0] != seq:
                in_flight.popleft()
            in_flight.popleft()
            self._room.set()

    @property
    def in_flight(self) -> int:
        """How many of our messages the counter may hold unread (counted on a link with a
        send window only)."""
        return len(self._in_flight)

    async def _wait_for_room(self) -> None:
        """Until the link's send window has room for one more message of ours."""
        window = self.link.send_window
        if window is None:
            return
        loop = asyncio.get_running_loop()
        while True:
            if self._ended is not None:
                raise self._ended
            now = loop.time()
            while self._in_flight and now - self._in_flight[0][1] >= WINDOW_HOLD_S:
                self._in_flight.popleft()  # taken in or lost long ago
            if len(self._in_flight) < window:
                return
            self._room.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._in_flight[0][1] + WINDOW_HOLD_S - now):
                    await self._room.wait()

    async def _send_payload(
        self, message: wire.Message, answer: asyncio.Future[Answer] | None = None
    ) -> int:
        """Number `message` and send it once the send window has room; its seq. `answer`
        waits for the ACK or ERROR about it."""
        async with self._send_lock:  # in seq order, each one counted before the next
            await self._wait_for_room()
            seq = self.next_seq()
            message.seq = seq
            if answer is not None:
                self._answers[seq] = answer
            if self.link.send_window is not None:
                self._in_flight.append((seq, asyncio.get_running_loop().time()))
            await self.link.send(self.payload(message))
            return seq

    def awaits(self, seq: int) -> bool:
        """True if `seq` is a message of ours in this session, sent moments ago and not yet
        answered: what a counter's ERROR about it may refer to."""
        sent = self._unanswered.get(seq)
        return sent is not None and asyncio.get_running_loop().time() - sent <= ANSWER_WINDOW_S

    @property
    def sealed(self) -> bool:
        """True once the counter proved the token: what §3 seals is sealed both ways."""
        return self.sealer is not None

    def payload(self, message: wire.Message) -> bytes:
        """The bytes that carry `message` in this session (sealed when §3 says so)."""
        data = wire.encode(message)
        if self.sealer is not None and message.TYPE in wire.SEALED:
            data = self.sealer.seal(data)
        return data

    async def send(self, message: wire.Message) -> int:
        """Number `message`, send it (sealed if the session is), and return its seq."""
        if self._ended is not None:
            raise self._ended
        return await self._send_payload(message)

    async def request(self, message: wire.Message, timeout_s: float) -> Answer:
        """Send `message` and return the ACK or ERROR that refers to it."""
        if self._ended is not None:
            raise self._ended
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        seq = -1
        try:
            seq = await self._send_payload(message, future)
            async with asyncio.timeout(timeout_s):
                return await future
        except TimeoutError as exc:
            raise LinkError(f"{self.link.name}: no answer within {timeout_s:g} s") from exc
        finally:
            self._answers.pop(seq, None)
            self.answered(seq)

    # -- receiving ---------------------------------------------------------------------

    def receive(self, payload: bytes) -> wire.Message | wire.WireError | None:
        """The message in `payload` (or the error decoding it raised); None for a wrong tag.

        On a sealed session every message of a sealed type must carry a right tag,
        whatever it looks like; the others are read as they are.
        """
        if self.sealer is not None and wire.peek_type(payload) in wire.SEALED:
            opened = self.sealer.open(payload)
            if opened is None:
                self.bad_tags += 1
                return None
            payload = opened
        try:
            return wire.decode(payload)
        except wire.WireError as exc:
            return exc

    def take(self, item: wire.Message | wire.WireError) -> bool:
        """Offer a received message (or the error decoding it raised); True if the session used it.

        Used: an ACK or ERROR a request waits for, and while the session opens, the
        counter's HELLO and CHALLENGE (or a HELLO of another protocol version).
        """
        if isinstance(item, wire.Ack | wire.Error):
            if isinstance(item, wire.Ack) or item.ref_seq in self._answers:
                self.answered(item.ref_seq)
            waiter = self._answers.pop(item.ref_seq, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(item)
                return True
        if isinstance(item, wire.Proof):
            # The answer to the one AUTH in flight (a PROOF names no seq of ours).
            waiter = self._answers.pop(self._auth_seq, None)
            self.answered(self._auth_seq)
            if waiter is not None and not waiter.done():
                self._seal_on(item)
                waiter.set_result(item)
                return True
            return False
        if self._steps is None:
            return False
        if isinstance(item, wire.WireError | wire.Error):
            if item.code != wire.ERR_VERSION:
                return False
        elif isinstance(item, wire.Hello):
            if item.role == wire.ROLE_APP:
                return False
        elif isinstance(item, wire.Challenge):
            self.challenged = True
        else:
            return False
        self._steps.put_nowait(item)
        return True

    def _seal_on(self, proof: wire.Proof) -> None:
        # The counter seals what follows its PROOF, perhaps in the same chunk of bytes: a
        # right PROOF turns sealing on at once, before the next message is read.
        if self._auth_key is None:
            return
        token, script = self._auth_key
        if seal.equal(proof.proof, seal.counter_proof(token, script, proof.app_link_id)):
            self.sealer = seal.session_sealer(token, script, seal.TO_COUNTER)
            self.seen_as = proof.app_link_id
            self._proven = True

    def end(self, reason: LinkClosedError) -> None:
        """The link went down (or a new session replaces this one): fail whatever still waits."""
        if self._ended is None:
            self._ended = reason
        self._room.set()  # a sender waiting for room learns the session ended
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
            message = self.receive(payload)
            if message is None or isinstance(message, wire.WireError):
                if message is not None:
                    self.take(message)
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
            seq = await self.send(wire.Hello(role=wire.ROLE_APP))
            step = await self._step((wire.Hello, wire.Error, wire.WireError), timeout_s)
            self.answered(seq)
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
        """Answer `challenge` with AUTH and check the counter's PROOF; True if both hold.

        The proofs bind the session to this link: both nonces, the counter's id and
        the counter's address as this app sees it (protocol §3). On success the
        session is sealed from here on. False means the counter refused the answer
        (ERROR AUTH_FAILED: a wrong token, a challenge damaged on the way, or a
        relay in between). Raises `ImpostorError` if the counter took the AUTH but
        its PROOF is wrong, `LinkError` if no answer comes or the counter refuses
        for another reason.
        """
        hello = self._started()
        app_nonce = wire.random_bytes(seal.APP_NONCE_SIZE)
        script = seal.transcript(
            challenge.nonce, app_nonce, hello.counter_id, seal.link_id(self.link.address)
        )
        auth = wire.Auth(app_nonce, seal.app_proof(token, script))
        self._auth_seq = self._seq + 1
        self._auth_key = (token, script)
        self._proven = False
        try:
            answer = await self.request(auth, timeout_s)
        finally:
            self._auth_seq = -1
            self._auth_key = None
        if isinstance(answer, wire.Error):
            if answer.code != wire.ERR_AUTH_FAILED:
                raise LinkError(f"{self.link.name}: authentication refused ({answer.code})")
            return False
        if not isinstance(answer, wire.Proof) or not self._proven:
            # A right PROOF turned sealing on as it arrived (`take`); a wrong one did not.
            raise ImpostorError(
                f"{self.link.name}: the counter could not prove it is the one claimed here"
            )
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
