"""A simulated game through faulty links: after every burst of faults the counters come back to
the app's state, no button press the app acknowledged is lost, and every press the app took
is one the counter sent, with its intent, taken once (no phantom or changed press).

Serial counters get byte-level faults under the framing (flipped bits, lost spans, cut
lines); BLE counters get message-level faults (lost and damaged messages, cuts).

Each seed is its own storm (actions, presses, faults and dice all drawn from it). The
suite runs the first few; `COMPANION_CHAOS_SEEDS=200 .venv/bin/python -m pytest
tests/devices/test_sync_chaos.py` runs 200, and every one must converge.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random

import pytest

from companion.core import RuleError, SeededDice
from companion.core.randomplay import random_action
from companion.devices.ble_link import BleLink
from companion.devices.serial_link import SerialLink
from companion.devices.sim.bumble_backend import VirtualRadio
from companion.devices.sim.counters import BleVirtualCounter, SerialVirtualCounter, VirtualCounter
from companion.devices.sim.faults import ChaosLink, FaultPlan, NoisyLine
from companion.devices.status import Role

from .helpers import fast_manager, new_game, shows, until

pytestmark = pytest.mark.slow

ROUNDS = 4
STEPS = 40
SEEDS = range(int(os.environ.get("COMPANION_CHAOS_SEEDS", "4")))
CONVERGE_S = 15.0  # s: a calm line brings every counter back in well under a second
BUTTONS = {Role.TRACKER: ("plus", "minus"), Role.BOARD: ("next",)}


def calm(plans: list[FaultPlan]) -> None:
    for plan in plans:
        plan.corrupt_rate = plan.drop_rate = plan.cut_rate = 0.0


def storm(plans: list[FaultPlan]) -> None:
    for plan in plans:
        plan.corrupt_rate, plan.drop_rate, plan.cut_rate = 0.04, 0.04, 0.01


@pytest.mark.parametrize("seed", SEEDS)
async def test_counters_converge_after_every_fault_and_no_acknowledged_press_is_lost(
    tmp_path, seed
):
    rnd = random.Random(seed)
    game = new_game(4)
    game._dice = SeededDice(1000 + seed)  # replayable rolls for a replayable storm
    radio = VirtualRadio()
    manager = fast_manager(tmp_path, backend=radio.bleak_backend())
    manager.set_game(game)
    counters: list[VirtualCounter] = [
        SerialVirtualCounter(Role.BOARD, link_path=tmp_path / "board", claim_on_hello=True),
        SerialVirtualCounter(Role.TRACKER, link_path=tmp_path / "tracker", claim_on_hello=True),
        BleVirtualCounter(Role.TRACKER, radio=radio, index=1, claim_on_hello=True),
        BleVirtualCounter(Role.BOARD, radio=radio, index=1, claim_on_hello=True),
    ]
    plans = [FaultPlan(seed=100 * seed + i) for i in range(len(counters))]
    try:
        for counter, plan in zip(counters, plans, strict=True):
            await counter.start()
            if isinstance(counter, SerialVirtualCounter):
                manager.add_link(NoisyLine(SerialLink(counter.address), plan))
            else:
                ble = await BleLink.find(counter.address, backend=radio.bleak_backend())
                manager.add_link(ChaosLink(ble, plan))
        await manager.wait_ours(timeout_s=10)

        for _round in range(ROUNDS):
            storm(plans)
            for _step in range(STEPS):
                with contextlib.suppress(RuleError):  # a random action the rules refuse
                    game.apply(random_action(game.state, rnd, allow_win=False))
                counter = rnd.choice(counters)
                counter.press(rnd.choice(BUTTONS[counter.role]))
                await asyncio.sleep(rnd.uniform(0.0, 0.01))
            calm(plans)
            manager.resync()  # the periodic refresh, without waiting for it
            try:
                await until(lambda: all(shows(c, game) for c in counters), CONVERGE_S)
            except TimeoutError:
                report = "\n".join(str(s) for s in manager.statuses())
                pytest.fail(f"seed {seed}: no convergence after round {_round}:\n{report}")

        assert sum(sum(plan.faults.values()) for plan in plans) > 20
        assert sum(plan.faults["cut"] for plan in plans) > 0  # links were cut too
        taken = {(p.who, p.seq) for p in manager.presses}
        assert {c.key for c in counters} == set(manager.connections)
        acknowledged = 0
        for counter in counters:
            key = counter.key
            acknowledged += len(counter.acked_presses)
            missing = [seq for seq in counter.acked_presses if (key, seq) not in taken]
            assert not missing, (
                f"{counter.name}: acknowledged presses {missing} never reached the game"
            )
        assert acknowledged > ROUNDS * STEPS // 8
        # Damage must never make a press: each one taken was sent, with that intent, once.
        for counter in counters:
            key = counter.key
            sent = dict(counter.sent_presses)
            assert len(sent) == len(counter.sent_presses)  # no seq reused within this game
            took = [(p.seq, p.intent) for p in manager.presses if p.who == key]
            phantoms = [seq for seq, _ in took if seq not in sent]
            changed = [(seq, intent) for seq, intent in took if seq in sent and sent[seq] != intent]
            twice = sorted({seq for seq, _ in took if [s for s, _ in took].count(seq) > 1})
            assert (phantoms, changed, twice) == ([], [], []), counter.name
    finally:
        await manager.stop()
        for counter in counters:
            await counter.stop()
        await radio.close()
