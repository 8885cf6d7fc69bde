"""Monsters a table typed by hand, remembered in a card pack of its own in the data folder.

The next game's card search finds them like any other card. The pack is an ordinary
pack file (`packs/table-monsters.toml`), so a table can edit or share it.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from companion.cards.loading import MAX_PACK_BYTES
from companion.plumbing.errors import NotAFileError, StoreError
from companion.plumbing.files import atomic_write_text, read_capped, set_aside

PACK_FILE = "table-monsters.toml"
PACK_ID = "table-monsters"
HEADER = (
    "# Monsters typed at this table; the app adds to this file, you may edit it.\n\n"
    "[pack]\n"
    f'id = "{PACK_ID}"\n'
    'name = "Monsters typed at this table"\n'
)


def card_id(name: str) -> str:
    """A stable card id for a typed name ("Tax Collector" -> "table-tax-collector").

    >>> card_id("Tax  Collector!"), card_id("Ünïcode Örc")
    ('table-tax-collector', 'table-nicode-rc')
    """
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "monster"
    return f"table-{slug}"[:60]


def remember_monster(
    packs_dir: Path, name: str, level: int, treasure: int
) -> tuple[Path, str | None]:
    """Add (or update) a monster in the table's pack; returns the pack file, and what was
    wrong with it (None when nothing was).

    The whole file is rewritten atomically, so a crash keeps the old or the new list. A
    pack that cannot be read, or whose entries are not monsters with an id, is kept
    aside (`<file>.damaged-<time>`) before it is written; the monsters that could be
    read are kept.
    """
    path = packs_dir / PACK_FILE
    monsters, problem = _read_monsters(path)
    if problem is not None:
        try:
            kept = set_aside(path)
        except StoreError as exc:
            raise StoreError(f"{path}: {problem}; {exc}") from None
        problem = f"{path.name}: {problem}; it was kept as {kept.name}"
    monsters[card_id(name)] = {
        "id": card_id(name),
        "name": name.strip(),
        "level": int(level),
        "treasure": int(treasure),
    }
    lines = [HEADER]
    for entry in monsters.values():
        lines.append("\n[[monster]]\n")
        for key, value in entry.items():
            # JSON string escapes are valid TOML basic-string escapes.
            lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}\n")
    packs_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "".join(lines))
    return path, problem


def _read_monsters(path: Path) -> tuple[dict[str, dict[str, object]], str | None]:
    """The monsters of the table's pack by id, and what is wrong with the file, if anything."""
    try:
        data = read_capped(path, MAX_PACK_BYTES)
    except FileNotFoundError:
        return {}, None
    except NotAFileError as exc:
        return {}, str(exc).removeprefix(f"{path}: ")
    except OSError as exc:
        return {}, f"cannot be read ({exc.strerror or exc})"
    try:
        entries = tomllib.loads(data.decode("utf-8")).get("monster", [])
    except UnicodeDecodeError as exc:
        return {}, f"not UTF-8 text (a bad byte at offset {exc.start})"
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        return {}, f"not valid TOML ({exc})"
    if not isinstance(entries, list):
        return {}, "its monsters are not a list"
    monsters: dict[str, dict[str, object]] = {}
    unusable = 0
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
            monsters[entry["id"]] = dict(entry)
        else:
            unusable += 1
    if unusable:
        return monsters, f"{unusable} of its {len(entries)} entries are not monsters with an id"
    return monsters, None
