"""tools/lookalike_data.py turns Unicode's two data files into the table the player-name
rule reads, and the table shipped is one it wrote."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from companion.core import names

TOOL = Path(__file__).resolve().parents[1] / "tools" / "lookalike_data.py"

CONFUSABLES = """\ufeff# confusables.txt
# Date: 2025-07-22, 05:49:37 GMT
# © 2025 Unicode®, Inc.
# Version: 17.0.0
#
0430 ;\t0061 ;\tMA\t# ( а → a ) CYRILLIC SMALL LETTER A → LATIN SMALL LETTER A\t#

006D ;\t0072 006E ;\tMA\t# ( m → rn ) LATIN SMALL LETTER M → LATIN SMALL LETTER R, N\t#
"""
DERIVED = """# DerivedCoreProperties-17.0.0.txt
# © 2025 Unicode®, Inc.
0041..005A    ; Uppercase # L&  [26] LATIN CAPITAL LETTER A..LATIN CAPITAL LETTER Z
0915          ; InCB; Consonant # Lo       DEVANAGARI LETTER KA
200B..200F    ; Default_Ignorable_Code_Point # Cf   [5] ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
3164          ; Default_Ignorable_Code_Point # Lo       HANGUL FILLER
00AD  ; Other_Default_Ignorable_Code_Point # Cf       SOFT HYPHEN
"""


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lookalike_data", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("lookalike_data", module)
    spec.loader.exec_module(module)
    return module


def test_the_tool_writes_prototypes_and_ignorables_from_unicodes_files(tmp_path: Path) -> None:
    (tmp_path / "confusables.txt").write_text(CONFUSABLES, encoding="utf-8")
    (tmp_path / "derived.txt").write_text(DERIVED, encoding="utf-8")
    out = tmp_path / "lookalikes.json"
    tool = load_tool()
    args = [str(tmp_path / "confusables.txt"), str(tmp_path / "derived.txt"), "--out", str(out)]
    assert tool.main(args) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["unicode"] == "17.0.0"
    assert data["prototypes"] == {"006D": "0072 006E", "0430": "0061"}
    # Only the derived property itself, not its "Other_" source list.
    assert data["default_ignorable"] == [[0x200B, 0x200F], [0x3164, 0x3164]]


def test_the_shipped_table_names_its_sources_and_holds_what_the_rule_needs() -> None:
    data = json.loads(names.LOOKALIKES_FILE.read_text(encoding="utf-8"))
    assert data["unicode"] == "17.0.0"
    assert set(data["sources"]) == {"confusables.txt", "DerivedCoreProperties.txt"}
    assert "Unicode License" in data["license"]
    ignorable = data["default_ignorable"]
    for filler in (0x3164, 0x115F, 0x1160, 0xFFA0, 0x200B, 0x2060, 0xAD, 0xFEFF, 0xFE0F):
        assert any(first <= filler <= last for first, last in ignorable), hex(filler)
    assert data["prototypes"]["0410"] == "0041"  # CYRILLIC CAPITAL A looks like A
