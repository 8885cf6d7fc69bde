"""`companion cards`: validate pack files, search cards by name, show one card."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HELP = "check card packs, search cards by name, show a card"


def configure(parser: argparse.ArgumentParser) -> None:
    """Sub-commands validate, search and show."""
    sub = parser.add_subparsers(dest="cards_command", metavar="ACTION", required=True)
    validate = sub.add_parser(
        "validate",
        help="check pack and edition files; exit status 1 if anything is wrong",
        description=(
            "Check the built-in packs, your own packs and the given files or folders. "
            "Every mistake is printed on one line: file, card, field, what is wrong."
        ),
    )
    validate.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help="pack files or folders to check too"
    )
    search = sub.add_parser("search", help="find cards by (part of) their name; typos are fine")
    search.add_argument("text", nargs="+", help="what you would type")
    search.add_argument("--kind", help="only this kind: monster, item, enhancer, class, ...")
    search.add_argument("--limit", type=int, default=10, help="at most this many (default 10)")
    search.add_argument(
        "--language",
        metavar="CODE",
        help="find the cards by their names in this language too, as a game in it shows "
        "them: cs, de, el, en, es, fr, it, nl, pl, pt_BR, ru, uk (default: your system's)",
    )
    show = sub.add_parser("show", help="print everything about one card")
    show.add_argument("card_id", metavar="ID", help="the card's id, e.g. gen-sock-gremlin")


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action; returns the exit status."""
    if args.cards_command == "validate":
        return _validate(args.paths)
    if args.cards_command == "search":
        return _search(" ".join(args.text), args.kind, args.limit, args.language)
    return _show(args.card_id)


def _validate(paths: list[Path]) -> int:
    from companion.cards import load_all, user_packs_dir

    result = load_all(extra=paths)
    for problem in result.problems:
        print(problem)
    cards = sum(len(loaded.pack.cards()) for loaded in result.packs)
    user_packs = sum(1 for loaded in result.packs if loaded.user)
    print(
        f"{len(result.packs)} packs ({user_packs} of yours), {cards} cards, "
        f"{len(result.editions)} editions; your packs folder: {user_packs_dir()}",
        file=sys.stderr,
    )
    if result.problems:
        count = len(result.problems)
        print(f"{count} problem{'s' if count != 1 else ''} found", file=sys.stderr)
        return 1
    print("all cards are valid", file=sys.stderr)
    return 0


def _database() -> Any:
    from companion.cards import load_database

    database = load_database(strict=False)
    if database.problems:
        print(
            f"note: {len(database.problems)} problem(s) in card files were skipped; "
            "run `companion cards validate` to see them",
            file=sys.stderr,
        )
    return database


def _search(text: str, kind: str | None, limit: int, language: str | None = None) -> int:
    from companion.cards import CARD_TYPES
    from companion.cards.database import translated_name
    from companion.ui.i18n import LANGUAGES, supported, system_language

    if kind is not None and kind not in CARD_TYPES:
        print(f"unknown kind {kind!r}; choose from {', '.join(CARD_TYPES)}", file=sys.stderr)
        return 2
    code = system_language() if language is None else supported(language)
    if code is None:
        print(f"unknown language {language!r}; choose from {', '.join(LANGUAGES)}", file=sys.stderr)
        return 2
    database = _database()
    hits = database.search(text, kind=kind, limit=limit, language=code)
    if not hits:
        print(f"no card name looks like {text!r}", file=sys.stderr)
        return 1
    for card in hits:
        shown = translated_name(card.name, code)
        name = card.name if shown == card.name else f"{shown} ({card.name})"
        print(f"{card.id:40} {card.kind:10} {name}")
    return 0


def _show(card_id: str) -> int:
    from companion.cards import UnknownCardError

    database = _database()
    try:
        card = database.get(card_id)
    except UnknownCardError as exc:
        import difflib

        close = difflib.get_close_matches(card_id, [card.id for card in database], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        print(f"{exc}{hint}", file=sys.stderr)
        return 1
    print(f"{card.name}  ({card.kind}, id {card.id}, from {database.source(card.id).path})")
    fields = card.model_dump(exclude={"id", "name"}, exclude_defaults=True, by_alias=True)
    for key, value in fields.items():
        print(f"  {key}: {_plain(value)}")
    return 0


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return str(value)
