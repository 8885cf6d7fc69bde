"""Seeded, repeatable fault injection for links: corrupted and dropped bytes, cut connections.

A `FaultPlan` decides, from its own seeded random generator, what goes wrong
with each chunk of bytes or each message, so a failing fault test replays
exactly. Each level is a link that wraps a real one, so the production links
know nothing of faults:

* bytes, under the serial framing (`NoisyLine(SerialLink(port), plan)`): the
  deframer must resynchronise and reject what the CRC catches;
* messages, around any link (`ChaosLink(link, plan)`): whole messages vanish
  or arrive damaged, and the link is cut now and then, as on a flaky radio.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from companion.devices import framing
from companion.devices.link import Link, LinkOpenError, LinkState
from companion.devices.serial_link import SerialLink


@dataclass
class FaultPlan:
    """Probabilities of each fault per chunk (or per message), drawn from `seed`.

    `faults` counts what was injected, by kind: "corrupt", "drop", "cut".
    """

    seed: int = 0
    corrupt_rate: float = 0.0
    drop_rate: float = 0.0
    cut_rate: float = 0.0
    faults: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        for name in ("corrupt_rate", "drop_rate", "cut_rate"):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, not {rate}")
        self._rng = random.Random(self.seed)

    def mangle(self, data: bytes) -> tuple[bytes, bool]:
        """Damage a chunk of a byte stream: returns (bytes to pass on, cut the line now)."""
        if self._hit(self.cut_rate):
            self.faults["cut"] += 1
            return b"", True
        out = bytearray(data)
        if out and self._hit(self.drop_rate):
            start = self._rng.randrange(len(out))
            length = self._rng.randint(1, len(out) - start)
            del out[start : start + length]
            self.faults["drop"] += 1
        if out and self._hit(self.corrupt_rate):
            index = self._rng.randrange(len(out))
            out[index] ^= 1 << self._rng.randrange(8)
            self.faults["corrupt"] += 1
        return bytes(out), False

    def mangle_message(self, payload: bytes) -> tuple[bytes | None, bool]:
        """Damage one whole message: returns (message or None if dropped, cut the link now)."""
        if self._hit(self.cut_rate):
            self.faults["cut"] += 1
            return None, True
        if self._hit(self.drop_rate):
            self.faults["drop"] += 1
            return None, False
        if payload and self._hit(self.corrupt_rate):
            out = bytearray(payload)
            index = self._rng.randrange(len(out))
            out[index] ^= 1 << self._rng.randrange(8)
            self.faults["corrupt"] += 1
            return bytes(out), False
        return payload, False

    def _hit(self, rate: float) -> bool:
        # Always draw, so the sequence of decisions does not depend on the rates.
        return self._rng.random() < rate


class _Wrapper(Link):
    """A link over another one: opened, closed and lost with it, under the same transport
    and address (so the app keys the counter as it would the bare link)."""

    def __init__(self, inner: Link, plan: FaultPlan, kind: str) -> None:
        self.transport = inner.transport
        super().__init__(inner.address)
        self.name = f"{kind}({inner.name})"
        self.inner = inner
        self.plan = plan
        inner.on_state_change(self._inner_state)
        inner.on_junk(self._junk)

    async def _open(self) -> None:
        await self.inner.open()
        if not self.inner.is_open:
            raise LinkOpenError(f"cannot open {self.inner.name}")

    def _inner_state(self, state: LinkState) -> None:
        if state is LinkState.LOST:
            reason = self.inner.lost_reason
            self._carrier_lost(str(reason) if reason else "carrier lost")

    async def _close(self) -> None:
        if self.state is LinkState.LOST:
            await self.inner.drop("fault injection cut the link")
        else:
            await self.inner.close()


class ChaosLink(_Wrapper):
    """Wraps any link and lets `plan` drop, damage or cut its messages in both directions."""

    def __init__(self, inner: Link, plan: FaultPlan) -> None:
        super().__init__(inner, plan, "chaos")
        inner.on_message(self._incoming)

    async def _send(self, payload: bytes) -> None:
        mangled, cut = self.plan.mangle_message(payload)
        if cut:
            await self.drop("fault injection cut the link")
            return
        if mangled is not None:
            await self.inner.send(mangled)

    def _incoming(self, payload: bytes) -> None:
        mangled, cut = self.plan.mangle_message(payload)
        if cut:
            self._drop_soon("fault injection cut the link")
            return
        if mangled is not None:
            self._deliver(mangled)


class NoisyLine(_Wrapper):
    """Wraps a serial link and lets `plan` flip bits, delete spans and cut the line, in both
    directions, under the framing: the frames themselves arrive damaged, as on a bad cable."""

    def __init__(self, inner: SerialLink, plan: FaultPlan) -> None:
        super().__init__(inner, plan, "noisy")
        self.serial = inner
        inner.on_bytes(self._incoming)
        inner.on_message(self._deliver)  # what its deframer makes of the damaged bytes

    async def _send(self, payload: bytes) -> None:
        data, cut = self.plan.mangle(framing.frame(payload))
        if cut:
            await self.drop("fault injection cut the line")
            return
        await self.serial.write_bytes(data)

    def _incoming(self, data: bytes) -> None:
        data, cut = self.plan.mangle(data)
        if cut:
            self._drop_soon("fault injection cut the line")
            return
        self.serial.feed_bytes(data)
