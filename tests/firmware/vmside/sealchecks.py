# Runs inside MicroPython (and CPython): checks the session cryptography against its vectors.
import json

try:
    import seal
except ImportError:
    from companion.devices import seal


def _unhex(text):
    return bytes([int(text[i : i + 2], 16) for i in range(0, len(text), 2)])


def check_vectors(path):
    """Failures as a list of strings; an empty list means every session vector holds."""
    with open(path) as f:
        vectors = json.load(f)
    failures = []
    for v in vectors["hmac"]:
        if seal.hmac_sha256(_unhex(v["key"]), _unhex(v["data"])) != _unhex(v["mac"]):
            failures.append("hmac " + v["mac"][:8])
    for v in vectors["sessions"]:
        name = v["name"]
        token = _unhex(v["token"])
        script = seal.transcript(
            _unhex(v["counter_nonce"]),
            _unhex(v["app_nonce"]),
            v["counter_id"],
            _unhex(v["counter_link_id"]),
        )
        if script != _unhex(v["transcript"]):
            failures.append("transcript " + name)
        if seal.app_proof(token, script) != _unhex(v["app_proof"]):
            failures.append("app proof " + name)
        app_link = _unhex(v["app_link_id"])
        if seal.counter_proof(token, script, app_link) != _unhex(v["counter_proof"]):
            failures.append("counter proof " + name)
        if seal.session_key(token, script) != _unhex(v["session_key"]):
            failures.append("session key " + name)
        app = seal.session_sealer(token, script, seal.TO_COUNTER)
        counter = seal.session_sealer(token, script, seal.TO_APP)
        for m in v["sealed"]:
            message = _unhex(m["message"])
            sealed = _unhex(m["sealed"])
            sender, receiver = app, counter
            if m["direction"] == seal.TO_APP:
                sender, receiver = counter, app
            if sender.seal(message) != sealed:
                failures.append("seal " + m["what"])
            if receiver.open(sealed) != message:
                failures.append("open " + m["what"])
            if sender.open(sealed) is not None:
                failures.append("turned round " + m["what"])
            for i in range(len(sealed)):
                damaged = bytearray(sealed)
                damaged[i] ^= 0x01
                if receiver.open(damaged) is not None:
                    failures.append("damaged byte {} accepted: {}".format(i, m["what"]))
    for text in vectors["weak_tokens"]:
        if seal.token_is_strong(_unhex(text)):
            failures.append("weak token accepted " + text)
    for text in vectors["strong_tokens"]:
        if not seal.token_is_strong(_unhex(text)):
            failures.append("strong token refused " + text)
    for v in vectors["link_ids"]:
        if seal.link_id(v["address"]) != _unhex(v["id"]):
            failures.append("link id " + v["address"])
    return failures


def seal_many(key_hex, direction, hex_list):
    """Seal each message with a Sealer of ``key_hex``: their hex, or "err" when refused."""
    sealer = seal.Sealer(_unhex(key_hex), direction)
    out = []
    for text in hex_list:
        try:
            out.append("".join([f"{b:02x}" for b in sealer.seal(_unhex(text))]))
        except seal.SealError:
            out.append("err")
    return out


def open_many(key_hex, direction, hex_list):
    """Open each input with a Sealer of ``key_hex``: the message's hex, or None."""
    sealer = seal.Sealer(_unhex(key_hex), direction)
    out = []
    for text in hex_list:
        got = sealer.open(_unhex(text))
        out.append(None if got is None else "".join([f"{b:02x}" for b in got]))
    return out
