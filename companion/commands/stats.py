"""`companion stats`: the table's and each player's figures over the saved games."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.core.statistics import Figures, Record, TableStatistics

HELP = "statistics of the saved games: wins, kills, deaths, records, per player"

# How long to wait for the games saved before statistics to be summarised (s).
SUMMARY_WAIT_S = 600.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--player", metavar="NAME", help="only the games this player played")
    parser.add_argument("--edition", metavar="ID", help="only the games of this edition (fu)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--data-dir", default=None, help="the saved games' folder (default: the app's)"
    )


def run(args: argparse.Namespace) -> int:
    # Imported here so `companion --help` does not pay for the store.
    from companion.store import GameStore, StoreError

    try:
        store = GameStore(Path(args.data_dir) if args.data_dir else None, program="companion stats")
    except StoreError as err:
        print(f"companion stats: {err}", file=sys.stderr)
        return 1
    try:
        # Games saved before people were kept count under the people their names mean.
        store.people.link_waiting().finished.wait(SUMMARY_WAIT_S)
        job = store.summarise_waiting()
        if job.total:
            print(f"Summarising {job.total} games saved before statistics…", file=sys.stderr)
            job.finished.wait(SUMMARY_WAIT_S)
        stored = store.statistics()
    except StoreError as err:
        print(f"companion stats: {err}", file=sys.stderr)
        return 1
    finally:
        store.close()
    stats = stored.figures(player=args.player, edition=args.edition)
    if args.json:
        print(json.dumps(as_record(stats), ensure_ascii=False, indent=1))
    else:
        print(as_text(stats))
    return 0


def as_record(stats: TableStatistics) -> dict[str, object]:
    """The figures as JSON data."""
    return {
        "games": stats.table.games,
        "unreadable": stats.unreadable,
        "waiting": stats.waiting,
        "editions": stats.editions,
        "table": stats.table.to_record(),
        "players": [figures.to_record() for figures in stats.players],
    }


def as_text(stats: TableStatistics) -> str:
    """The figures in lines for a terminal."""
    lines = [f"{_count(stats.table.games, 'game')} saved"]
    if stats.unreadable:
        lines.append(f"{_count(stats.unreadable, 'game')} could not be read (left out)")
    if stats.waiting:
        lines.append(f"{_count(stats.waiting, 'game')} not summarised yet (left out)")
    if stats.editions:
        editions = ", ".join(f"{edition} {n}" for edition, n in sorted(stats.editions.items()))
        lines.append(f"Editions: {editions}")
    lines.append("Game logs hold no times: records are in turns.")
    lines += ["", *_figures("The table", stats.table, table=True)]
    for figures in stats.players:
        lines += ["", *_figures(figures.name, figures, table=False)]
    return "\n".join(lines)


def _figures(title: str, figures: Figures, *, table: bool) -> list[str]:
    totals = figures.totals
    won = f"{figures.wins} won" if table else _count(figures.wins, "win")
    lines = [
        f"{title}: {_count(figures.games, 'game')}, {won} "
        f"({figures.win_rate:.0%}), average finishing Level {figures.average_level:.1f}",
        f"  kills {totals.kills}, deaths {totals.deaths}, helped kills {totals.helped_kills}, "
        f"levels from kills {totals.kill_levels}",
        f"  sales {totals.sales} ({_count(totals.sold_items, 'item')}, "
        f"{_count(totals.sale_levels, 'level')})",
        f"  fastest win: {_record(figures.fastest_win)}; "
        f"longest game: {_record(figures.longest_game)}",
    ]
    for label, top in (
        ("monsters met most", figures.most_met()),
        ("monsters that killed most", figures.most_killing()),
        ("items used most", figures.most_used()),
    ):
        named = ", ".join(f"{name} ({n})" for name, n in top) or "none"
        lines.append(f"  {label}: {named}")
    return lines


def _record(record: Record | None) -> str:
    if record is None:
        return "none"
    said = _count(record.turns, "turn")
    if record.minutes is not None:
        said += f", {record.minutes:.0f} min"
    return f"{said} ({', '.join(record.players)})"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
