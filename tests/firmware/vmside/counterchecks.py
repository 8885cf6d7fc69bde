# Runs inside MicroPython and CPython alike: firmware scenarios whose results must agree.
import seal
import wire
from counter import board as boardmod
from counter import buttons
from counter.logic import Counter
from counter.store import MemoryStore

TOKEN = bytes.fromhex("6c4e74921325222e31a1cd13be12ed42")  # a strong token, drawn once
APP_NONCE = bytes(range(8))  # fixed, so that both VMs compute the same session


class Clock:
    def __init__(self):
        self.now = 1000

    def __call__(self):
        return self.now


def _rand():
    state = [7]

    def rand(n):
        out = bytearray(n)
        for i in range(n):
            state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
            out[i] = state[0] >> 16 & 0xFF
        return bytes(out)

    return rand


def make(path, store=None):
    clock = Clock()
    c = Counter(
        boardmod.load(path),
        store=store or MemoryStore(),
        clock=clock,
        random_bytes=_rand(),
        counter_id=0x12345678,
    )
    return c, clock


def names(replies):
    out = []
    for r in replies:
        m = wire.decode(r)
        text = type(m).__name__
        if isinstance(m, wire.Error):
            text += f":{m.code}"
        out.append(text)
    return out


def send(c, msg):
    return names(c.handle(wire.encode(msg)))


class App:
    """A counter as the app that opened a session drives it: ``handle`` seals what it is
    given for the session and opens the replies; everything else is the counter's."""

    def __init__(self, counter, sealer):
        self.counter = counter
        self.sealer = sealer

    def __getattr__(self, name):
        return getattr(self.counter, name)

    def handle(self, payload, session=None):
        payload = bytes(payload)
        if wire.peek_type(payload) in wire.SEALED and len(payload) + seal.TAG_SIZE <= 20:
            payload = self.sealer.seal(payload)
        out = []
        for reply in self.counter.handle(payload, session):
            opened = None
            if wire.peek_type(reply) in wire.SEALED:
                opened = self.sealer.open(reply)
            out.append(reply if opened is None else opened)
        return out


def script_of(c, nonce, link_id=seal.NO_LINK_ID):
    return seal.transcript(nonce, APP_NONCE, c.counter_id, link_id)


def authenticated(c, token=TOKEN, seq=1, session=None):
    """Opens a session as the app does (HELLO ``seq``, AUTH ``seq + 1``): the App driving it."""
    replies = c.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=seq)), session)
    script = script_of(c, wire.decode(replies[1]).nonce)
    auth = wire.Auth(APP_NONCE, seal.app_proof(token, script), seq=seq + 1)
    (proof,) = c.handle(wire.encode(auth), session)
    if wire.decode(proof).proof != seal.counter_proof(token, script, seal.NO_LINK_ID):
        raise AssertionError("the counter's proof is wrong")
    return App(c, seal.session_sealer(token, script, seal.TO_COUNTER))


def claimed(path, store=None):
    """A counter claimed by the app, in a session it opened (seq 1..2 used)."""
    c, clock = make(path, store)
    c.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=1)))
    c.press("claim", True)
    c.handle(wire.encode(wire.Claim(TOKEN, seq=2)))
    return authenticated(c), clock


def blue_blinks(c, start, ms=1000):
    """How many of the frames over ``ms`` show blue above red and green somewhere."""
    count = 0
    for t in range(start, start + ms, 50):
        frame = c.frame(t)
        for i in range(len(frame) // 3):
            if frame[3 * i + 2] > frame[3 * i] and frame[3 * i + 2] > frame[3 * i + 1]:
                count += 1
                break
    return count


def lit(frame):
    """{led index: [r, g, b]} of the lit LEDs."""
    out = {}
    for i in range(len(frame) // 3):
        if frame[3 * i] or frame[3 * i + 1] or frame[3 * i + 2]:
            out[str(i)] = [frame[3 * i], frame[3 * i + 1], frame[3 * i + 2]]
    return out


def security(path):
    r = {}
    c, clock = make(path)
    r["hello_unclaimed"] = send(c, wire.Hello(wire.ROLE_APP, seq=1))
    r["snapshot_unauthenticated"] = send(c, wire.Snapshot(1, [5], seq=2))
    r["levels_after_refusal"] = list(c.state.levels)
    r["claim_outside_window"] = send(c, wire.Claim(TOKEN, seq=3))
    r["blue_before_claim_press"] = blue_blinks(c, clock.now)
    r["claim_press"] = names(c.press("claim", True))
    r["blue_in_claim_window"] = blue_blinks(c, clock.now)
    # A stranger's weak tokens are refused, and the window stays open for the table.
    r["weak_claims"] = [
        send(c, wire.Claim(bytes(16), seq=4)),
        send(c, wire.Claim(bytes([1, 2]) * 8, seq=5)),
        send(c, wire.Claim(bytes(range(7)) + bytes(9), seq=6)),
    ]
    r["window_open_after_weak_claims"] = c.state.claim_open(clock.now)
    clock.now += 31000
    r["claim_after_window"] = send(c, wire.Claim(TOKEN, seq=7))
    c.press("claim", True)
    r["claim_in_window"] = send(c, wire.Claim(TOKEN, seq=8))
    r["token_in_flash"] = list(c.store.read("token.bin"))
    r["blue_after_claim"] = blue_blinks(c, clock.now)
    r["snapshot_after_claim_without_session"] = send(c, wire.Snapshot(2, [4, 6], seq=9))
    app = authenticated(c, seq=10)
    r["snapshot"] = names(app.handle(wire.encode(wire.Snapshot(2, [4, 6], seq=12))))
    r["replayed_snapshot"] = names(app.handle(wire.encode(wire.Snapshot(3, [9, 9], seq=12))))
    r["levels"] = list(c.state.levels[:2])
    # Another program on the same link: unsealed writes are dropped, its HELLO ends nothing.
    r["unsealed_snapshot"] = send(c, wire.Snapshot(4, [1, 1], seq=13))
    r["unsealed_ping"] = send(c, wire.Ping(7, seq=14))
    r["intruder_hello"] = send(c, wire.Hello(wire.ROLE_APP, seq=1))
    r["session_after_intruder"] = names(app.handle(wire.encode(wire.Snapshot(5, [5, 5], seq=15))))
    r["levels_after_intruder"] = list(c.state.levels[:2])
    # Wrong answers to challenges: each one used up, the live session untouched.
    hello = c.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=20)))
    r["hello_claimed"] = names(hello)
    nonce = wire.decode(hello[1]).nonce
    other = bytes.fromhex("e2177a03c95d48b1f60e2c9b73a45d18")  # another strong token
    wrong = seal.app_proof(other, script_of(c, nonce))
    r["wrong_token"] = send(c, wire.Auth(APP_NONCE, wrong, seq=21))
    right = seal.app_proof(TOKEN, script_of(c, nonce))
    r["old_mac_replayed"] = send(c, wire.Auth(APP_NONCE, right, seq=22))
    hello = c.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=30)))
    nonce2 = wire.decode(hello[1]).nonce
    r["fresh_nonce"] = nonce2 != nonce
    r["auth_seq_not_after_hello"] = send(
        c, wire.Auth(APP_NONCE, seal.app_proof(TOKEN, script_of(c, nonce2)), seq=30)
    )
    hello = c.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=40)))
    nonce3 = wire.decode(hello[1]).nonce
    relayed = script_of(c, nonce3, seal.link_id("C0:98:E5:49:00:01"))
    r["bound_to_another_address"] = send(
        c, wire.Auth(APP_NONCE, seal.app_proof(TOKEN, relayed), seq=41)
    )
    r["session_after_failed_auths"] = names(
        app.handle(wire.encode(wire.Snapshot(6, [6, 6], seq=16)))
    )
    # The app gone quiet: its session ends after 10 s without a rightly sealed message.
    clock.now += 9000
    c.poll()
    r["ping"] = names(app.handle(wire.encode(wire.Ping(5, seq=17))))
    clock.now += 9999
    c.poll()
    r["session_9999_ms_after_ping"] = c.authenticated
    clock.now += 1
    c.poll()
    r["session_10_s_after_ping"] = c.authenticated
    r["sealed_after_the_end"] = names(app.handle(wire.encode(wire.Snapshot(7, [7, 7], seq=18))))
    # Wrong tags: the 16th in one session ends it.
    app = authenticated(c, seq=50)
    for i in range(15):
        c.handle(wire.encode(wire.Snapshot(8, [8, 8], seq=60 + i)))
    r["session_after_15_bad_tags"] = c.authenticated
    r["16th_bad_tag"] = send(c, wire.Snapshot(8, [8, 8], seq=75))
    r["session_after_16_bad_tags"] = c.authenticated
    r["levels_after_bad_tags"] = list(c.state.levels[:2])
    # Forgetting and claiming again end every session.
    app = authenticated(c, seq=80)
    c.forget()
    r["session_after_forget"] = c.authenticated
    r["sealed_after_forget"] = names(app.handle(wire.encode(wire.Snapshot(9, [9], seq=90))))
    c.press("claim", True)
    send(c, wire.Claim(TOKEN, seq=91))
    app = authenticated(c, seq=92)
    second = c.open_session()
    stranger = authenticated(c, seq=1, session=second)
    c.press("claim", True)
    r["reclaim"] = send(c, wire.Claim(other, seq=2))
    r["sessions_after_reclaim"] = [s.authenticated for s in c.sessions]
    r["old_app_after_reclaim"] = names(app.handle(wire.encode(wire.Snapshot(9, [1], seq=94))))
    r["old_token_after_reclaim"] = send(c, wire.Auth(APP_NONCE, bytes(8), seq=95))
    r["second_link_had_a_session"] = stranger.sealer is not None
    r["levels_at_the_end"] = list(c.state.levels[:2])
    r["garbage"] = names(c.handle(b"\x7f\x05\x00"))
    r["protocol_1_hello"] = names(c.handle(b"\x01\x09\x00\x01" + bytes(14)))
    r["button_from_app"] = send(c, wire.Button(1, seq=40))
    r["unauthenticated_ping"] = send(c, wire.Ping(5, seq=41))
    return r


def board_frames(path):
    c, clock = claimed(path)
    r = {}
    c.handle(wire.encode(wire.ConfigBrightness(255, seq=3)))
    c.handle(wire.encode(wire.ConfigBudget(60000, seq=4)))
    c.handle(
        wire.encode(wire.Snapshot(1, [3, 3, 1, 0, 10, 12], [0, 0, 0, 0, wire.FLAG_DEAD, 0], seq=5))
    )
    r["levels"] = lit(c.frame(0))
    c.handle(wire.encode(wire.Snapshot(2, [3, 3], [wire.FLAG_FIGHTING, 0], seq=6)))
    c.handle(wire.encode(wire.ShowCombat(0, 4, 9, False, seq=7)))
    r["combat_monsters"] = lit(c.frame(0))
    c.handle(wire.encode(wire.ShowCombat(0, 10, 9, True, seq=8)))
    r["combat_players"] = lit(c.frame(0))
    c.handle(wire.encode(wire.ShowRoll(1, 4, seq=9)))
    r["roll_spinning"] = len(lit(c.frame(clock.now + 100)))
    r["roll_value"] = sorted([int(k) for k in lit(c.frame(clock.now + 2000))])
    c.handle(wire.encode(wire.ShowWin(1, seq=10)))
    r["win"] = len(lit(c.frame(clock.now)))
    c.handle(wire.encode(wire.ShowClear(seq=11)))
    c.handle(wire.encode(wire.ShowIdentify(3, seq=12)))
    r["identify_on"] = len(lit(c.frame(clock.now + 250)))
    r["identify_off"] = len(lit(c.frame(clock.now + 500)))
    r["identify_over"] = len(lit(c.frame(clock.now + 3250)))
    c.handle(wire.encode(wire.ConfigColours(0, [(10, 20, 30)], seq=13)))
    c.handle(wire.encode(wire.ConfigSlotMap([1, 0], seq=14)))
    r["remapped"] = lit(c.frame(clock.now + 5000))
    return r


def limiter_check(path):
    c, clock = claimed(path)
    r = {}
    c.handle(wire.encode(wire.ConfigBrightness(255, seq=3)))
    c.handle(wire.encode(wire.ShowIdentify(10, seq=4)))
    # Identify lights everything: the worst case the limiter must hold.
    c.frame(clock.now + 250)
    r["default_budget_ma"] = c.current_ma
    c.handle(wire.encode(wire.ConfigBudget(200, seq=5)))
    c.frame(clock.now + 250)
    r["budget_200_ma"] = c.current_ma
    c.handle(wire.encode(wire.ConfigBudget(0, seq=6)))
    c.frame(clock.now + 250)
    r["budget_reset_ma"] = c.current_ma
    c.handle(wire.encode(wire.ConfigBudget(65000, seq=7)))
    c.frame(clock.now + 250)
    r["unlimited_ma"] = c.current_ma
    return r


def tracker_frames(path):
    c, clock = claimed(path)
    r = {}
    c.handle(wire.encode(wire.ConfigSlotMap([2], seq=3)))
    c.handle(wire.encode(wire.Snapshot(1, [1, 1, 7], [0, 0, wire.FLAG_TURN], seq=4)))
    c.frame(0)
    r["text"] = c.display_text()
    r["frame"] = lit(c.frame(0))
    c.handle(wire.encode(wire.Snapshot(2, [1, 1, 12], [0, 0, wire.FLAG_FIGHTING], seq=5)))
    c.handle(wire.encode(wire.ShowCombat(2, 12, 14, False, seq=6)))
    c.frame(0)
    r["combat_text"] = c.display_text()
    r["combat_frame"] = lit(c.frame(0))
    c.handle(wire.encode(wire.ShowRoll(2, 5, seq=7)))
    c.frame(clock.now + 3000)
    r["roll_text"] = c.display_text()
    clock.now += 5000
    c.poll()
    c.frame(clock.now)
    r["after_roll_text"] = c.display_text()
    r["battery"] = names([c.battery(3320)])
    r["low_battery"] = c.state.low_battery
    r["button_plus"] = [wire.decode(p).to_dict() for p in c.press("plus")]
    r["button_minus"] = [wire.decode(p).to_dict() for p in c.press("minus")]
    clock.now += 1500
    r["resent"] = [wire.decode(p).to_dict()["seq"] for p in c.poll()]
    c.handle(wire.encode(wire.Ack(r["button_plus"][0]["seq"], wire.MSG_BUTTON, seq=8)))
    clock.now += 1500
    r["resent_after_ack"] = [wire.decode(p).to_dict()["seq"] for p in c.poll()]
    return r


def debounce():
    b = buttons.Buttons(["plus", "minus"], {("plus", "minus"): "claim"})
    t = 0
    # A bouncy short press of plus.
    for pressed in (1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0):
        b.update(0, pressed, t)
        b.update(1, 0, t)
        t += 10
    r = {"short": b.take()}
    # Both held for two seconds: one claim chord, no plus/minus presses.
    for _ in range(200):
        b.update(0, 1, t)
        b.update(1, 1, t)
        t += 10
    for _ in range(10):
        b.update(0, 0, t)
        b.update(1, 0, t)
        t += 10
    r["chord"] = b.take()
    for _ in range(200):
        b.update(1, 1, t)
        t += 10
    for _ in range(10):
        b.update(1, 0, t)
        t += 10
    r["long_minus"] = b.take()
    r = {k: [list(e) for e in v] for k, v in r.items()}
    return r


def persistence(path):
    store = MemoryStore()
    c, clock = claimed(path, store)
    r = {"writes_after_claim": store.writes}
    for i in range(20):
        c.handle(wire.encode(wire.Snapshot(i, [i % 9 + 1, 2], seq=10 + i)))
        clock.now += 200
        c.poll()
    r["writes_while_busy"] = store.writes
    clock.now += 6000
    c.poll()
    r["writes_when_quiet"] = store.writes
    c.handle(wire.encode(wire.Snapshot(99, [8, 2], seq=40)))
    clock.now += 6000
    c.poll()
    r["writes_too_soon"] = store.writes
    clock.now += 30000
    c.poll()
    r["writes_later"] = store.writes
    # Power cycle: a new counter on the same flash shows the game again.
    again, _ = make(path, store)
    r["rev_after_reboot"] = again.state.rev
    r["levels_after_reboot"] = list(again.state.levels[:2])
    r["claimed_after_reboot"] = again.claimed
    r["hello_after_reboot"] = names(again.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=1))))
    return r


def heap(path, frames=100):
    """Heap bytes of one Counter (state, buffers) and heap growth over ``frames`` frames."""
    import gc

    gc.collect()
    base = gc.mem_alloc()
    counter, clock = make(path)
    counter.handle(wire.encode(wire.Hello(wire.ROLE_APP, seq=1)))
    counter.press("claim", True)
    counter.handle(wire.encode(wire.Claim(TOKEN, seq=2)))
    gc.collect()
    counter_bytes = gc.mem_alloc() - base
    app = authenticated(counter)
    gc.collect()
    session_bytes = gc.mem_alloc() - base - counter_bytes
    app.handle(wire.encode(wire.Snapshot(1, [3, 5, 1, 10], [1, 2, 0, 8], seq=3)))
    growth = {}
    scenes = (
        ("levels", None),
        ("combat", wire.ShowCombat(1, 3, 4, False, seq=4)),
        ("roll", wire.ShowRoll(0, 6, seq=5)),
        ("win", wire.ShowWin(0, seq=6)),
        ("identify", wire.ShowIdentify(9, seq=7)),
    )
    for name, msg in scenes:
        if msg is not None:
            app.handle(wire.encode(msg))
        now = clock.now
        counter.frame(now)
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        for i in range(frames):
            counter.frame(now + i * 33)
        growth[name] = gc.mem_alloc() - before
        gc.enable()
    return {
        "counter_bytes": counter_bytes,
        "session_bytes": session_bytes,
        "growth_bytes": growth,
        "frames": frames,
    }


def fuzz_handle(path, hex_list):
    """Feeds each input to one claimed counter: reply type names, or "LEAK:..." if it raised."""
    c, _ = claimed(path)
    out = []
    for text in hex_list:
        data = bytes([int(text[i : i + 2], 16) for i in range(0, len(text), 2)])
        try:
            out.append(names(c.handle(data)))
        except Exception as exc:
            out.append(f"LEAK:{exc!r}")
    return out


def serial_frames(path):
    """What the serial carrier writes (hex) for a fixed exchange: no I/O, so any VM runs it."""
    import framing
    from counter.serial_link import SerialProtocol

    c, _ = make(path)
    proto = SerialProtocol(c)
    out = []
    for payload in c.press("claim", True):
        out.append(proto.deliver("all", payload))  # nobody said HELLO: None
    hello = framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=1)))
    out += proto.feed(b"MPY: soft reboot\r\n\x00" + hello)
    for payload in c.press("claim", True):
        out.append(proto.deliver("all", payload))
    out += proto.feed(framing.frame(wire.encode(wire.Claim(TOKEN, seq=2))))
    out += proto.feed(framing.frame(wire.encode(wire.Hello(wire.ROLE_APP, seq=3))))
    return [frame.hex() if frame is not None else None for frame in out]
