# Runs inside MicroPython (and CPython): checks the codec against the shared vectors.
import json

import framing
import wire


def _unhex(text):
    return bytes([int(text[i : i + 2], 16) for i in range(0, len(text), 2)])


def _hex(data):
    return "".join([f"{b:02x}" for b in data])


def build(fields):
    kwargs = {}
    for key in fields:
        if key != "type":
            kwargs[key] = fields[key]
    return getattr(wire, fields["type"])(**kwargs)


def check_vectors(path):
    """Failures as a list of strings; an empty list means every vector holds."""
    with open(path) as f:
        vectors = json.load(f)
    failures = []
    for v in vectors["messages"]:
        try:
            msg = build(v["message"])
            if _hex(wire.encode(msg)) != v["hex"]:
                failures.append("encode " + v["name"])
            back = wire.decode(_unhex(v["hex"]))
            if back != msg:
                failures.append("decode " + v["name"])
            if json.dumps(back.to_dict()) != json.dumps(msg.to_dict()):
                failures.append("to_dict " + v["name"])
            if _hex(framing.frame(_unhex(v["hex"]))) != v["frame"]:
                failures.append("frame " + v["name"])
            if framing.Deframer().feed(_unhex(v["frame"])) != [_unhex(v["hex"])]:
                failures.append("deframe " + v["name"])
        except Exception as exc:
            failures.append("raised {!r} on {}".format(exc, v["name"]))
    for v in vectors["rejections"]:
        try:
            wire.decode(_unhex(v["hex"]))
            failures.append("accepted " + v["name"])
        except wire.WireError as exc:
            if exc.code != getattr(wire, v["error"]):
                failures.append(f"wrong code {exc.code} for {v['name']}")
    for v in vectors["frame_rejections"]:
        d = framing.Deframer()
        if d.feed(_unhex(v["frame"])) != [] or d.dropped != 1:
            failures.append("frame accepted " + v["name"])
    for v in vectors["crc"]:
        if framing.crc16(_unhex(v["data"])) != v["crc"]:
            failures.append("crc " + v["data"])
    for v in vectors["cobs"]:
        if _hex(framing.cobs_encode(_unhex(v["data"]))) != v["encoded"]:
            failures.append("cobs " + v["data"])
    return failures


def fuzz_decode(hex_list):
    """For each input: "ok:<re-encoded hex>", "err:<code>", or "LEAK:<exception>"."""
    out = []
    for text in hex_list:
        data = _unhex(text)
        try:
            msg = wire.decode(data)
            out.append("ok:" + _hex(wire.encode(msg)))
        except wire.WireError as exc:
            out.append(f"err:{exc.code}")
        except Exception as exc:
            out.append(f"LEAK:{exc!r}")
    return out


def fuzz_deframe(hex_list):
    """Feeds each input to a fresh Deframer: accepted payloads as hex, or "LEAK:..."."""
    out = []
    for text in hex_list:
        d = framing.Deframer()
        try:
            out.append([_hex(p) for p in d.feed(_unhex(text))])
        except Exception as exc:
            out.append(f"LEAK:{exc!r}")
    return out
