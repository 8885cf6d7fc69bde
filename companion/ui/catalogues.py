"""Keeps the translation catalogues in step with the UI's texts, using Babel at build time.

`./tasks i18n` (that is, `python -m companion.ui.catalogues`) extracts every `_()`,
`N_()` and `ngettext()` text of companion/ui (.py and .kv files), and every `Phrase()`,
`plural_phrase()` and `phrase_template()` sentence (`companion.core.phrase`) of the rules
engine, the device layer, the table and the table link (`PHRASE_DIRS`), into the template
`locale/companion.pot`, updates each language's `.po` from it (creating English, the
source language, when missing) and compiles the `.mo` files. The names of the shipped
cards and editions (`cards/packs/*.toml`, `cards/editions/*.toml`) go the same way into a
catalogue of their own, `locale/cards.pot` and each language's `cards.po`. The app only
reads the committed `.mo` files, with the standard library's gettext (`companion.ui.i18n`),
so Babel is a development dependency, never needed at run time.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterator, Mapping
from importlib.metadata import version
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from companion.plumbing.places import LOCALE_DIR, shipped
from companion.ui.i18n import CARDS_DOMAIN, DOMAIN, LANGUAGES

UI_DIR = Path(__file__).parent
PACKAGE_DIR = UI_DIR.parent
SOURCE_LANGUAGE = "en"
PROJECT = "munchkin-companion"
HEADER_COMMENT = "# Texts of the companion app; `./tasks i18n` keeps this file up to date.\n#"
CARDS_HEADER_COMMENT = (
    "# Names of the cards and editions shipped in cards/; `./tasks i18n` keeps this file\n"
    "# up to date. Use each edition's published terms (docs/glossary/).\n#"
)
# The calls that mark a text for translation, and which arguments are the texts.
KEYWORDS: dict[str, tuple[int, ...] | None] = {"_": None, "N_": None, "ngettext": (1, 2)}
# The engine's sentences (companion.core.phrase); the UI's `_` is not looked for there,
# since the chapters name their registered functions `_`.
PHRASE_KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "Phrase": (1,),
    "plural_phrase": (1, 2),
    "phrase_template": (1,),
}
# Folders outside the UI whose sentences reach a player (table: the words of a game the
# app and the table link share; web: the table link's pages).
PHRASE_DIRS = ("core", "devices", "table", "web")
# Kivy's .kv rules are Python expressions, so Babel's Python extractor reads them too.
METHOD_MAP = [("**.py", "python"), ("**.kv", "python")]
# Lines of a catalogue that change on every run without any text changing.
_DATE_LINE = re.compile(rb'^"(POT-Creation-Date|PO-Revision-Date): .*\\n"\n', re.MULTILINE)

Message = str | tuple[str, str]  # a plain message, or (singular, plural) from ngettext


def extract_messages(root: Path = UI_DIR) -> dict[Message, list[str]]:
    """Every message the app shows -> where it is used ("file:line").

    The UI's .py and .kv files under `root`, plus (for the app's own UI folder) the
    engine's and device layer's Phrases.
    """
    found: dict[Message, list[str]] = {}
    # The UI keeps some words as Phrases too (worded when shown, in the language then).
    _extract(root, METHOD_MAP, {**KEYWORDS, **PHRASE_KEYWORDS}, found)
    if root.resolve() == UI_DIR.resolve():
        for name in PHRASE_DIRS:
            _extract(PACKAGE_DIR / name, [("**.py", "python")], PHRASE_KEYWORDS, found)
    return found


def _extract(
    root: Path,
    method_map: list[tuple[str, str]],
    keywords: dict[str, tuple[int, ...] | None],
    found: dict[Message, list[str]],
) -> None:
    prefix = root.resolve().relative_to(PACKAGE_DIR.parent.resolve()).as_posix()
    for filename, lineno, message, _comments, _context in extract_from_dir(
        root, method_map, keywords=keywords
    ):
        key: Message = message if isinstance(message, str) else (message[0], message[1])
        found.setdefault(key, []).append(f"{prefix}/{filename}:{lineno}")


def card_names(cards_dir: Path | None = None) -> dict[str, list[str]]:
    """Every name a player reads from the shipped card data -> what it is and where.

    A pack card's `name`; an edition's `name` and every name its lists give (classes,
    races, styles, motivations...). The places read "cards/packs/x.toml:12 class".
    """
    root = shipped("cards") if cards_dir is None else cards_dir
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.toml")):
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
        where = f"cards/{path.relative_to(root).as_posix()}"
        for name, kind in _names_in(data, edition=path.parent.name == "editions"):
            found.setdefault(name, []).append(f"{where}:{_line_of(text, name)} {kind}")
    return found


# What one entry of an edition's list is ("classes" lists classes).
_ONE = {"classes": "class", "races": "race", "styles": "style", "motivations": "motivation"}
# Lists of an edition that name kinds of card, not cards: nothing there to translate.
_KINDS_ONLY = frozenset({"open_traits"})


def _names_in(data: dict[str, object], edition: bool) -> Iterator[tuple[str, str]]:
    if edition:
        if isinstance(data.get("name"), str):
            yield str(data["name"]), "edition"
        for field, value in data.items():
            if isinstance(value, list) and field not in _KINDS_ONLY:
                for item in value:
                    if isinstance(item, str):
                        yield item, _ONE.get(field, field)
        return
    for kind, cards in data.items():
        if kind == "pack" or not isinstance(cards, list):
            continue
        for card in cards:
            if isinstance(card, dict) and isinstance(card.get("name"), str):
                yield card["name"], kind


def _line_of(text: str, name: str) -> int:
    quoted = f'"{name}"'
    for number, line in enumerate(text.splitlines(), 1):
        if quoted in line:
            return number
    return 1


def template(messages: Mapping[Message, list[str]]) -> Catalog:
    """The .pot catalogue of `messages`, with their places as references."""
    catalogue = _empty(DOMAIN, HEADER_COMMENT)
    for message, places in messages.items():
        locations = [(place.rsplit(":", 1)[0], int(place.rsplit(":", 1)[1])) for place in places]
        catalogue.add(message, locations=locations)
    return catalogue


def cards_template(names: Mapping[str, list[str]]) -> Catalog:
    """The .pot catalogue of the card names, each with what it is as a comment."""
    catalogue = _empty(CARDS_DOMAIN, CARDS_HEADER_COMMENT)
    for name, places in names.items():
        locations, kinds = [], []
        for place in places:
            spot, kind = place.split(" ", 1)
            locations.append((spot.rsplit(":", 1)[0], int(spot.rsplit(":", 1)[1])))
            kinds.append(kind)
        catalogue.add(name, locations=locations, auto_comments=sorted(set(kinds)))
    return catalogue


def _empty(domain: str, header: str, locale: str | None = None) -> Catalog:
    return Catalog(
        locale=locale,
        domain=domain,
        header_comment=header,
        project=PROJECT,
        version=version(PROJECT),
        charset="utf-8",
        fuzzy=False,
    )


def render_mo(translations: Mapping[str, str]) -> bytes:
    """A GNU .mo file for an id -> translation mapping ("" is the header), as Babel compiles it."""
    catalogue = Catalog(charset="utf-8", fuzzy=False)
    for message, translation in translations.items():
        catalogue.add(message, translation)
    out = BytesIO()
    write_mo(out, catalogue)
    return out.getvalue()


def _po_bytes(catalogue: Catalog) -> bytes:
    out = BytesIO()
    # No wrapping: one `msgid "..."` line per text keeps diffs and greps simple.
    write_po(out, catalogue, width=0, omit_header=False)
    return out.getvalue()


def _write_if_changed(path: Path, data: bytes) -> bool:
    """Write `data` unless the file differs from it only in its dates; True if written."""
    if path.exists() and _DATE_LINE.sub(b"", path.read_bytes()) == _DATE_LINE.sub(b"", data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def languages() -> list[str]:
    """Every language the app offers or has a catalogue folder for, English among them."""
    found = {p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")}
    return sorted(found | set(LANGUAGES) | {SOURCE_LANGUAGE})


def update_catalogues(root: Path = UI_DIR) -> list[Path]:
    """Extract -> update -> compile, the app's texts and the card names; returns the files
    that were (re)written."""
    written = _update_domain(DOMAIN, HEADER_COMMENT, template(extract_messages(root)))
    cards = cards_template(card_names())
    return written + _update_domain(CARDS_DOMAIN, CARDS_HEADER_COMMENT, cards)


def _update_domain(domain: str, header: str, pot: Catalog) -> list[Path]:
    written: list[Path] = []
    pot_path = LOCALE_DIR / f"{domain}.pot"
    if _write_if_changed(pot_path, _po_bytes(pot)):
        written.append(pot_path)
    for language in languages():
        folder = LOCALE_DIR / language / "LC_MESSAGES"
        po_path, mo_path = folder / f"{domain}.po", folder / f"{domain}.mo"
        if po_path.exists():
            with po_path.open("rb") as handle:
                catalogue = read_po(handle, locale=language, domain=domain)
        else:
            catalogue = _empty(domain, header, locale=language)
        catalogue.update(pot)
        if _write_if_changed(po_path, _po_bytes(catalogue)):
            written.append(po_path)
        # Compile what is on disk, so an unchanged .po gives a byte-identical .mo.
        with po_path.open("rb") as handle:
            compiled = read_po(handle, locale=language, domain=domain)
        out = BytesIO()
        write_mo(out, compiled)
        if _write_if_changed(mo_path, out.getvalue()):
            written.append(mo_path)
    return written


def main() -> int:
    """Bring the catalogues up to date and name the files written."""
    for path in update_catalogues():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
