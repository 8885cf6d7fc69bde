"""The app's strings: every one is in the translation template, and catalogues load."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

from companion.ui import catalogues, i18n

_MSGID = re.compile(r'^msgid "(.*)"$', re.MULTILINE)


def _ids(po_file: Path) -> set[str]:
    text = po_file.read_text(encoding="utf-8")
    return {ast.literal_eval(f'"{m}"') for m in _MSGID.findall(text)} - {""}


def test_template_holds_every_message_in_use() -> None:
    used = {m if isinstance(m, str) else m[0] for m in catalogues.extract_messages()}
    template = _ids(i18n.LOCALE_DIR / "companion.pot")
    missing = sorted(used - template)
    assert not missing, f"run `./tasks i18n` to add: {missing[:5]}"
    assert "Kill!" in used and "Run away" in used  # kv files are searched too


def test_english_catalogue_is_complete_and_loads() -> None:
    english = i18n.LOCALE_DIR / "en" / "LC_MESSAGES"
    assert _ids(english / "companion.po") == _ids(i18n.LOCALE_DIR / "companion.pot")
    catalogue = gettext.translation(i18n.DOMAIN, i18n.LOCALE_DIR, languages=["en"])
    assert catalogue.gettext("Fight!") == "Fight!"
    assert catalogue.ngettext("{n} turn", "{n} turns", 1) == "{n} turn"
    assert catalogue.ngettext("{n} turn", "{n} turns", 3) == "{n} turns"


def test_compiled_catalogue_translates(tmp_path: Path) -> None:
    folder = tmp_path / "xx" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    header = "Content-Type: text/plain; charset=UTF-8\n"
    mo = catalogues.render_mo({"": header, "Kill!": "Töten!", "Dice": "Würfel"})
    (folder / "companion.mo").write_bytes(mo)
    catalogue = gettext.translation("companion", tmp_path, languages=["xx"])
    assert catalogue.gettext("Kill!") == "Töten!"
    assert catalogue.gettext("Dice") == "Würfel"
    assert catalogue.gettext("Undo") == "Undo"


def test_unknown_language_falls_back_to_english() -> None:
    try:
        i18n.set_language("zz")
        assert i18n._("Start game") == "Start game"
    finally:
        i18n.set_language("en")
