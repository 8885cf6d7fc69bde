"""A counter's side of a protocol session: the 2.0 handshake, sealed messages, and its end.

One ``Session`` per link (serial and BLE each have one). The logic hands it
what arrives and what goes out; it opens and seals messages with the session
key, keeps the app's sequence numbers rising, and ends the session when the app
has gone quiet, when too many tags were wrong, or when the claim changes.
See docs/protocol.md §8.
"""

import wire
from micropython import const

from counter import timebase

IDLE_MS = const(10000)  # no rightly sealed message for this long: the app is gone
MAX_BAD_TAGS = const(16)  # wrong tags in one session before it ends (a forger's tries)
NO_LINK_ID = bytes(6)  # seal.NO_LINK_ID (a test checks), without importing seal at start-up


def crypto():
    """The ``seal`` module, imported when a session first needs it: a counter that no app has
    opened a session with keeps that RAM (about 5 KB) for its LEDs."""
    import seal

    return seal


class Session:
    """One link's session with an app.

    ``link_id`` is this counter's address on the link as an app sees it, and
    ``peer_id`` the app's address as this counter sees it (both NO_LINK_ID on
    serial).
    """

    def __init__(self, link_id=NO_LINK_ID, peer_id=NO_LINK_ID):
        self.link_id = link_id
        self.peer_id = peer_id
        self.nonce = None  # the pending CHALLENGE's nonce: one AUTH may answer it
        self.hello_seq = -1  # the seq of the HELLO that asked for that challenge
        self.sealer = None  # the session key's Sealer, once an AUTH succeeded
        self.last_seq = -1  # the app's last accepted seq in this session
        self.heard_at = 0  # when the app last sent a rightly sealed message
        self.bad_tags = 0
        self.greeted = False  # an app said HELLO on this link

    @property
    def authenticated(self):
        return self.sealer is not None

    def end(self):
        """Forget the key and any pending challenge: the app must open a new session."""
        self.sealer = None
        self.nonce = None
        self.hello_seq = -1
        self.last_seq = -1
        self.bad_tags = 0

    def expired(self, now):
        """True (and the session ended) when its app has been silent for IDLE_MS."""
        if self.sealer is not None and timebase.ticks_diff(now, self.heard_at) >= IDLE_MS:
            self.end()
            return True
        return False

    # -- in and out ---------------------------------------------------------------

    def open(self, payload, now):
        """What the logic should decode: the payload, its message without the tag, or None.

        On a session every message of a sealed type must carry a right tag,
        whatever it looks like; a wrong one is dropped, and the MAX_BAD_TAGS-th
        ends the session (``sealer`` becomes None, which the caller reports).
        """
        if self.sealer is None or wire.peek_type(payload) not in wire.SEALED:
            return payload
        message = self.sealer.open(payload)
        if message is None:
            self.bad_tags += 1
            if self.bad_tags >= MAX_BAD_TAGS:
                self.end()
            return None
        self.heard_at = now
        return message

    def out(self, payload):
        """``payload`` as this link sends it: sealed on a session, as it is otherwise."""
        if self.sealer is None or wire.peek_type(payload) not in wire.SEALED:
            return payload
        return self.sealer.seal(payload)

    # -- the handshake ----------------------------------------------------------------

    def challenge(self, hello_seq, nonce):
        """A HELLO asked for a CHALLENGE: remember its nonce. A live session goes on."""
        self.nonce = bytes(nonce)
        self.hello_seq = hello_seq

    def answer(self, token, counter_id, auth, now):
        """Check an AUTH; on success start the session and return the counter's proof, else None.

        The challenge is used up either way. The app proof is checked with this
        counter's address as the link id, then with none (an app that could not see it).
        """
        nonce = self.nonce
        self.nonce = None
        if token is None or nonce is None or auth.seq <= self.hello_seq:
            return None
        seal = crypto()
        ids = [self.link_id]
        if self.link_id != NO_LINK_ID:
            ids.append(NO_LINK_ID)
        for link_id in ids:
            script = seal.transcript(nonce, auth.app_nonce, counter_id, link_id)
            if seal.equal(seal.app_proof(token, script), auth.proof):
                self.sealer = seal.session_sealer(token, script, seal.TO_APP)
                self.last_seq = auth.seq
                self.heard_at = now
                self.bad_tags = 0
                return seal.counter_proof(token, script, self.peer_id)
        return None
