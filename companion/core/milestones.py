"""What a game just won meant at its table: a few short facts worked out from the
statistics summaries of the games played before it and its own ("Ann's first win", "the
shortest game at this table"). Pure: no I/O, no words (a screen says them in its language).

Only facts that are true are given, and none when the table has no history: a record or a
first time means something only against games played before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from companion.core.statistics import GameSummary, player_key

# How many facts a game is given at most (Game over shows them under the winner).
MOST_MILESTONES = 3


class MilestoneKind(StrEnum):
    FIRST_WIN = "first_win"  # name: the winner
    WINS = "wins"  # name: the winner; count: their wins now, this one included
    FASTEST_WIN = "fastest_win"  # name: the winner; count: this game's turns
    SHORTEST_GAME = "shortest_game"  # count: turns (fewer than any game won before)
    LONGEST_GAME = "longest_game"  # count: turns (more than any game before)
    FIRST_KILL = "first_kill"  # name: the monster, as the game recorded it


@dataclass(frozen=True)
class Milestone:
    """One fact about the game: its kind, and the name and number it is about."""

    kind: MilestoneKind
    name: str = ""
    count: int = 0


@dataclass
class _Before:
    """What the earlier games say about the winners and the table, read in one pass."""

    games: int = 0
    shortest_win: int | None = None  # turns of the shortest game that was won
    longest: int | None = None  # turns of the longest game


def milestones(
    earlier: Iterable[GameSummary], this: GameSummary, limit: int = MOST_MILESTONES
) -> list[Milestone]:
    """The facts worth saying about `this` game, won, against the `earlier` games played
    at the same table (most telling first, at most `limit`).

    Players are told apart by name, as statistics do (`player_key`). A personal best or a
    table record has to beat what came before, not equal it; a monster is a first kill when
    no earlier game's fighter killed one of that name.
    """
    if not this.finished:
        return []
    winners = [this.players[seat] for seat in this.winners]
    keys = [player_key(name) for name in winners]
    wins = dict.fromkeys(keys, 0)
    fastest: dict[str, int | None] = dict.fromkeys(keys)
    before = _Before()
    killed: set[str] = set()
    for game in earlier:  # a thousand games at each Game over: kept to the bare loop
        before.games += 1
        turns = game.turns
        if before.longest is None or turns > before.longest:
            before.longest = turns
        for figures in game.figures:
            if figures.slain:
                killed.update(figures.slain)
        if not game.winners:
            continue
        if before.shortest_win is None or turns < before.shortest_win:
            before.shortest_win = turns
        for seat in game.winners:
            key = player_key(game.players[seat])
            if key in wins:
                wins[key] += 1
                best = fastest[key]
                fastest[key] = turns if best is None else min(best, turns)
    if not before.games:
        return []
    found: list[Milestone] = []
    for name, key in zip(winners, keys, strict=True):
        if wins[key] == 0:
            found.append(Milestone(MilestoneKind.FIRST_WIN, name))
        else:
            found.append(Milestone(MilestoneKind.WINS, name, wins[key] + 1))
    for name, key in zip(winners, keys, strict=True):
        best = fastest[key]
        if best is not None and this.turns < best:
            found.append(Milestone(MilestoneKind.FASTEST_WIN, name, this.turns))
    if before.shortest_win is not None and this.turns < before.shortest_win:
        found.append(Milestone(MilestoneKind.SHORTEST_GAME, count=this.turns))
    if before.longest is not None and this.turns > before.longest:
        found.append(Milestone(MilestoneKind.LONGEST_GAME, count=this.turns))
    slain: dict[str, None] = {}  # in the order of the seats, each name once
    for figures in this.figures:
        slain.update(dict.fromkeys(figures.slain))
    found += [
        Milestone(MilestoneKind.FIRST_KILL, monster) for monster in slain if monster not in killed
    ]
    return found[:limit]
