"""A small file of records that one damaged byte cannot take whole: each record is a line
with its own checksum, and the file is written twice (itself and a copy beside it).

Reading takes every line whose checksum holds; a record whose line is damaged in one
copy is taken from the other. So one bad byte costs at most the record it falls in,
and that only when the other copy has lost it too. Both copies are written whole and
atomically (`atomic_write_text`), the file first, so a crash between the two leaves
the file new and the copy one write behind.

    companion-records 1 3 5f0e3a11
    9b1c0d2e {"id":"0000abcd","token":"..."}
    ...

The first line names the format, how many records follow, and its own checksum: a file
cut short or with a line gone is seen as damaged even when every line left is whole.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from companion.plumbing.errors import NotAFileError
from companion.plumbing.files import atomic_write_text, read_capped

MAGIC = "companion-records"
VERSION = 1
COPY_SUFFIX = ".copy"

Record = dict[str, str]


@dataclass
class Read:
    """What a records file held."""

    # Records by id, from whichever copy had each whole.
    records: dict[str, Record] = field(default_factory=dict)
    # Lines of the file itself that were damaged or missing (0: the file is whole).
    damaged: int = 0
    # Records taken from the copy because the file had lost them.
    repaired: int = 0
    # Whether every record the file was written with is in `records`.
    complete: bool = True
    # Whether how many records the file was written with is known (its head, or its
    # copy's, could be read): when it is not, `complete` is False though nothing may
    # be missing.
    known: bool = True
    # The file is not in this format at all (an older one): its bytes, to read otherwise.
    other: bytes | None = None


def is_records(data: bytes) -> bool:
    """Whether `data` is in this format (else it is an older one, or not ours)."""
    return data.startswith(MAGIC.encode())


def read_records(path: Path, max_bytes: int) -> Read:
    """The records of `path` and its copy. FileNotFoundError when neither is there;
    NotAFileError or OSError (from the file itself) when it cannot be read."""
    try:
        data = read_capped(path, max_bytes)
    except FileNotFoundError:
        data = None
    copy = _copy_of(path, max_bytes)
    if data is None:
        if copy is None:
            raise FileNotFoundError(path)
        records, damaged, expected = copy
        return Read(
            records=records,
            damaged=1,
            repaired=len(records),
            complete=expected >= 0 and expected <= len(records),
            known=expected >= 0,
        )
    records, damaged, expected = _parse(data)
    if not is_records(data) and not records and copy is None:
        return Read(other=data)  # not a line of it is ours: an older format
    found = Read(records=records, damaged=damaged)
    if damaged and copy is not None:
        for key, record in copy[0].items():
            if key not in records:
                found.records[key] = record
                found.repaired += 1
        # The copy's head says how many there were, when the file's cannot (a damaged
        # line elsewhere in the copy does not change what its head says).
        expected = max(expected, copy[2])
    found.complete = expected >= 0 and len(found.records) >= expected
    found.known = expected >= 0
    return found


def write_records(path: Path, records: Mapping[str, Mapping[str, str]]) -> None:
    """Write `records` (id -> fields, all text) to `path` and to its copy."""
    lines = []
    for key in sorted(records):
        body = json.dumps({"id": key, **records[key]}, sort_keys=True, separators=(",", ":"))
        lines.append(f"{_crc(body)} {body}\n")
    head = f"{MAGIC} {VERSION} {len(lines)}"
    text = f"{head} {_crc(head)}\n" + "".join(lines)
    atomic_write_text(path, text)
    atomic_write_text(path.with_name(path.name + COPY_SUFFIX), text)


def _copy_of(path: Path, max_bytes: int) -> tuple[dict[str, Record], int, int] | None:
    try:
        data = read_capped(path.with_name(path.name + COPY_SUFFIX), max_bytes)
    except (OSError, NotAFileError):
        return None
    if not is_records(data):
        return None
    return _parse(data)


def _parse(data: bytes) -> tuple[dict[str, Record], int, int]:
    """(records, how many lines are damaged or missing, how many records the head says
    were written: -1 when the head is damaged)."""
    lines = data.split(b"\n")
    expected = -1
    head = lines[0].decode("utf-8", "replace").split(" ")
    if len(head) == 4 and head[3] == _crc(" ".join(head[:3])) and head[2].isdigit():
        expected = int(head[2])
    records: dict[str, Record] = {}
    damaged = 0
    for raw in lines[1:]:
        if not raw:
            continue
        found = _records_in(raw)
        damaged += 0 if len(found) == 1 and _record(raw) is not None else 1
        for record in found:
            records[record["id"]] = record
    if expected < 0:
        damaged += 1  # the head itself: how many there were is not known
    else:
        damaged = max(damaged, expected - len(records))
    return records, damaged, expected


def _records_in(raw: bytes) -> list[Record]:
    """The record of one line; or, when a damaged byte took the line break between two
    records, both of them (so that byte costs neither)."""
    record = _record(raw)
    if record is not None:
        return [record]
    for cut in range(1, len(raw) - 1):
        first, second = _record(raw[:cut]), _record(raw[cut + 1 :])
        if first is not None and second is not None:
            return [first, second]
    return []


def _record(raw: bytes) -> Record | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    crc, _, body = text.partition(" ")
    if crc != _crc(body):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return None
    if not isinstance(value.get("id"), str):
        return None
    return {str(k): str(v) for k, v in value.items()}


def _crc(text: str) -> str:
    return f"{zlib.crc32(text.encode('utf-8')):08x}"
