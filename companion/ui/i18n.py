"""Translated strings: every user-visible text goes through `_()` (gettext, domain "companion").

Catalogues live in `companion/ui/locale/<lang>/LC_MESSAGES/companion.mo`; the template
`companion/ui/locale/companion.pot` is regenerated with `python -m companion.ui.i18n`.
"""

from __future__ import annotations

import ast
import gettext
import re
import struct
import sys
from pathlib import Path

DOMAIN = "companion"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES: dict[str, str] = {"en": "English"}

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


def set_language(language: str) -> str:
    """Use the catalogue of `language` (falling back to the source English); returns it."""
    global _translation, _language
    _translation = gettext.translation(
        DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True
    )
    _language = language
    return language


def language() -> str:
    """The language currently in use."""
    return _language


def _(message: str) -> str:
    """The translation of `message` in the current language."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The translation of a message that depends on a count."""
    return _translation.ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message for extraction without translating it yet (it is translated on display)."""
    return message


# -- catalogue tools -------------------------------------------------------------------------

_KV_RE = re.compile(r"""\b_\(\s*(?P<q>["'])(?P<msg>(?:\\.|(?!(?P=q)).)*)(?P=q)\s*\)""")
_CALLS = {"_", "N_"}


Message = str | tuple[str, str]  # a plain message, or (singular, plural) from ngettext


def extract_messages(root: Path | None = None) -> dict[Message, list[str]]:
    """Every message used by the UI's .py and .kv files -> where it is used ("file:line")."""
    root = root or Path(__file__).parent
    found: dict[Message, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root.parent.parent).as_posix()
        calls: list[tuple[int, Message]] = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            texts = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if node.func.id in _CALLS and texts:
                calls.append((node.lineno, texts[0]))
            elif node.func.id == "ngettext" and len(texts) >= 2:
                calls.append((node.lineno, (texts[0], texts[1])))
        for lineno, message in sorted(calls, key=lambda call: call[0]):
            found.setdefault(message, []).append(f"{where}:{lineno}")
    for path in sorted(root.rglob("*.kv")):
        where = path.relative_to(root.parent.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        for match in _KV_RE.finditer(text):
            quote = match.group("q")
            message = ast.literal_eval(quote + match.group("msg") + quote)
            lineno = text.count("\n", 0, match.start()) + 1
            found.setdefault(message, []).append(f"{where}:{lineno}")
    return found


def _po_quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def render_po(messages: dict[Message, list[str]], identity: bool) -> str:
    """A .pot template (empty translations) or a source-language .po (identity translations)."""
    header = (
        'msgid ""\nmsgstr ""\n'
        '"Project-Id-Version: munchkin-companion\\n"\n'
        '"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Content-Transfer-Encoding: 8bit\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
    )
    entries = [header]
    for message, places in messages.items():
        refs = "".join(f"#: {place}\n" for place in places)
        if isinstance(message, tuple):
            one, many = message
            entries.append(
                f"{refs}msgid {_po_quote(one)}\nmsgid_plural {_po_quote(many)}\n"
                f"msgstr[0] {_po_quote(one if identity else '')}\n"
                f"msgstr[1] {_po_quote(many if identity else '')}\n"
            )
        else:
            translated = message if identity else ""
            entries.append(f"{refs}msgid {_po_quote(message)}\nmsgstr {_po_quote(translated)}\n")
    return "\n".join(entries)


def render_mo(catalogue: dict[str, str]) -> bytes:
    """A GNU .mo file for the given id -> translation mapping (what `msgfmt` writes)."""
    keys = sorted(catalogue)
    ids = [k.encode("utf-8") for k in keys]
    strs = [catalogue[k].encode("utf-8") for k in keys]
    count = len(keys)
    key_table_at = 7 * 4
    value_table_at = key_table_at + count * 8
    data_at = value_table_at + count * 8
    offsets: list[tuple[int, int]] = []
    blob = b""
    for item in ids + strs:
        offsets.append((len(item), data_at + len(blob)))
        blob += item + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, count, key_table_at, value_table_at, 0, 0)
    tables = b"".join(struct.pack("<2I", length, at) for length, at in offsets)
    return header + tables + blob


def write_catalogues(root: Path | None = None) -> list[Path]:
    """Regenerate the template and the English catalogue from the sources."""
    messages = extract_messages(root)
    header = (
        "Content-Type: text/plain; charset=UTF-8\n"
        "Content-Transfer-Encoding: 8bit\n"
        "Plural-Forms: nplurals=2; plural=(n != 1);\n"
    )
    pot = LOCALE_DIR / f"{DOMAIN}.pot"
    english = LOCALE_DIR / "en" / "LC_MESSAGES"
    english.mkdir(parents=True, exist_ok=True)
    pot.write_text(render_po(messages, identity=False), encoding="utf-8")
    (english / f"{DOMAIN}.po").write_text(render_po(messages, identity=True), encoding="utf-8")
    catalogue = {"": header}
    for message in messages:
        if isinstance(message, tuple):
            # .mo files key a plural entry by "singular NUL plural", forms joined by NUL.
            catalogue["\0".join(message)] = "\0".join(message)
        else:
            catalogue[message] = message
    (english / f"{DOMAIN}.mo").write_bytes(render_mo(catalogue))
    return [pot, english / f"{DOMAIN}.po", english / f"{DOMAIN}.mo"]


if __name__ == "__main__":
    for written in write_catalogues():
        print(written)
    sys.exit(0)
