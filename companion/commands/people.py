"""`companion people`: the people who played here, and renaming or merging them (their
games and statistics go with them)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "the people who played here: list them, rename one, or merge two entries into one"

# How long to wait for the games saved before people were kept to be linked (s).
LINK_WAIT_S = 600.0


def _options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--data-dir", default=default, help="the saved games' folder (default: the app's)"
    )
    parser.add_argument(
        "--json", action="store_true", default=default, help="print the people as JSON"
    )


def configure(parser: argparse.ArgumentParser) -> None:
    _options(parser, None)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    # The options may also follow the action (`companion people list --json`); there they
    # leave what was given before it as it was.
    listing = sub.add_parser("list", help="everyone who played here, the one who played last first")
    rename = sub.add_parser("rename", help="give a person a new name; their games stay theirs")
    rename.add_argument("old", metavar="OLD", help="the name they have now")
    rename.add_argument("new", metavar="NEW", help="their new name")
    merge = sub.add_parser(
        "merge", help="count the entry FROM as the person INTO from now on (FROM goes)"
    )
    merge.add_argument("gone", metavar="FROM", help="the entry that goes (say, Anne)")
    merge.add_argument("kept", metavar="INTO", help="the person kept (say, Ann)")
    for action in (listing, rename, merge):
        _options(action, argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    # Imported here so `companion --help` does not pay for the store.
    from companion.core.errors import RuleError
    from companion.store import GameStore, StoreError

    try:
        store = GameStore(
            Path(args.data_dir) if args.data_dir else None, program="companion people"
        )
    except StoreError as err:
        print(f"companion people: {err}", file=sys.stderr)
        return 1
    try:
        job = store.people.link_waiting()
        if job.total:
            print(f"Linking {job.total} games saved before people were kept…", file=sys.stderr)
            job.finished.wait(LINK_WAIT_S)
        action = args.action or "list"
        if action == "rename":
            person = store.people.rename(args.old, args.new)
            print(f"{args.old} is now called {person.name} ({_games(person.games)})")
        elif action == "merge":
            person = store.people.merge(args.gone, args.kept)
            print(f"{args.gone} counts as {person.name} now ({_games(person.games)})")
        people = store.people.list()
    except (RuleError, StoreError) as err:
        print(f"companion people: {err}", file=sys.stderr)
        return 1
    finally:
        store.close()
    if action != "list":
        return 0
    if args.json:
        records = [
            {"name": p.name, "colour": p.colour, "sex": p.sex, "games": p.games} for p in people
        ]
        print(json.dumps(records, ensure_ascii=False, indent=1))
    elif not people:
        print("Nobody has played here yet")
    else:
        width = max(len(person.name) for person in people)
        for person in people:
            print(f"{person.name:<{width}}  {_games(person.games)}")
    return 0


def _games(n: int) -> str:
    return "1 game" if n == 1 else f"{n} games"
