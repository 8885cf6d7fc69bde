"""`companion export`: finished games written as BG Stats plays or as CSV for a spreadsheet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "write finished games as BG Stats plays (JSON) or as CSV for a spreadsheet"

# How long to wait for the games saved before statistics to be summarised (s).
SUMMARY_WAIT_S = 600.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bgstats", metavar="FILE", help="write BG Stats plays (JSON) here")
    parser.add_argument("--csv", metavar="FILE", help="write one row per player per game here")
    parser.add_argument("--game", metavar="ID", help="only this game (its id, as listed)")
    parser.add_argument("--edition", metavar="ID", help="only the games of this edition (fu)")
    parser.add_argument(
        "--since", metavar="DATE", help="only the games started on this day or later (2025-01-31)"
    )
    parser.add_argument(
        "--data-dir", default=None, help="the saved games' folder (default: the app's)"
    )


def run(args: argparse.Namespace) -> int:
    # Imported here so `companion --help` does not pay for the store.
    from companion.store import GameStore, StoreError
    from companion.store.exports import (
        bgstats_link,
        bgstats_play,
        bgstats_text,
        csv_text,
        parse_since,
        select,
        write_whole,
    )

    if not args.bgstats and not args.csv:
        return _said("say where to write: --bgstats FILE, --csv FILE, or both")
    try:
        since = parse_since(args.since) if args.since else None
        store = GameStore(
            Path(args.data_dir) if args.data_dir else None, program="companion export"
        )
    except StoreError as err:
        return _said(str(err))
    try:
        store.people.link_waiting().finished.wait(SUMMARY_WAIT_S)
        job = store.summarise_waiting()
        if job.total:
            print(f"Summarising {job.total} games saved before statistics…", file=sys.stderr)
            job.finished.wait(SUMMARY_WAIT_S)
        played = store.played()
        chosen = select(played.games, game_id=args.game, edition=args.edition, since=since)
        one = args.game is not None
        written = []
        if args.bgstats:
            written.append(write_whole(Path(args.bgstats), bgstats_text(chosen, one=one)))
        if args.csv:
            written.append(write_whole(Path(args.csv), csv_text(chosen)))
    except StoreError as err:
        return _said(str(err))
    finally:
        store.close()
    plays = f"{len(chosen)} finished game" + ("" if len(chosen) == 1 else "s")
    print(f"Wrote {plays} to {', '.join(str(path) for path in written)}")
    if played.unreadable:
        print(f"{played.unreadable} games could not be read (left out)", file=sys.stderr)
    if one and args.bgstats:
        print(f"Open it in BG Stats: {bgstats_link(bgstats_play(chosen[0]))}")
    return 0


def _said(problem: str) -> int:
    print(f"companion export: {problem}", file=sys.stderr)
    return 1
