"""Monsters a table typed by hand, remembered in a card pack of its own in the data folder.

The next game's card search finds them like any other card. The pack is an ordinary
pack file (`packs/table-monsters.toml`), so a table can edit or share it.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from companion.store.files import atomic_write_text

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


def remember_monster(packs_dir: Path, name: str, level: int, treasure: int) -> Path:
    """Add (or update) a monster in the table's pack; returns the pack file.

    The whole file is rewritten atomically, so a crash keeps the old or the new list.
    """
    path = packs_dir / PACK_FILE
    monsters: dict[str, dict[str, object]] = {}
    if path.exists():
        with path.open("rb") as handle:
            for entry in tomllib.load(handle).get("monster", []):
                monsters[str(entry["id"])] = dict(entry)
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
    return path
