"""Statistics of games: a fold of one game's log into a small summary, and the figures
of a table over many summaries. Pure: no I/O, no clock.

A summary is worked out from the states the log passes through, never from words on a
screen: a kill is a fight that ended `kill` (a fight with two monsters is two kills), a
death is a player who was alive before an action and dead after it. The log holds no
times, so a summary has no duration unless its caller knows one.

`STATS_ENGINE` names how summaries are made: a store keeps it beside each summary and
makes them again when it changes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from companion.core.actions import BaseAction
from companion.core.engine import apply_action
from companion.core.models import GameSetup
from companion.core.state import CombatResult, GameState

STATS_ENGINE = "2"  # 2: monsters killed by name, and who played turn 1

# How many of the monsters and items met most a table's figures name.
TOP_NAMES = 3


@dataclass
class PlayerFigures:
    """What one player did in one game (or, summed, in many)."""

    kills: int = 0  # monsters killed as the fighter (two in one fight count two)
    deaths: int = 0
    helped_kills: int = 0  # monsters killed while helping
    kill_levels: int = 0  # levels gained by killing or helping to kill
    sales: int = 0  # times items were sold for levels
    sold_items: int = 0  # tracked items those sales took
    sale_levels: int = 0  # levels the sales bought
    # Counted by name (plain dicts: a thousand games' worth are read at each opening).
    met: dict[str, int] = field(default_factory=dict)  # monsters fought
    killed_by: dict[str, int] = field(default_factory=dict)  # monsters that killed them
    items: dict[str, int] = field(default_factory=dict)  # items and one-shots used
    slain: dict[str, int] = field(default_factory=dict)  # monsters killed as the fighter

    def add(self, other: PlayerFigures) -> None:
        """Add another game's figures to these (written out: it runs once per player
        per game each time statistics are opened)."""
        self.kills += other.kills
        self.deaths += other.deaths
        self.helped_kills += other.helped_kills
        self.kill_levels += other.kill_levels
        self.sales += other.sales
        self.sold_items += other.sold_items
        self.sale_levels += other.sale_levels
        for mine, theirs in (
            (self.met, other.met),
            (self.killed_by, other.killed_by),
            (self.items, other.items),
            (self.slain, other.slain),
        ):
            for name, count in theirs.items():
                mine[name] = mine.get(name, 0) + count

    def subtract(self, other: PlayerFigures) -> None:
        """Take away figures `add` added (a game replaced or deleted)."""
        self.kills -= other.kills
        self.deaths -= other.deaths
        self.helped_kills -= other.helped_kills
        self.kill_levels -= other.kill_levels
        self.sales -= other.sales
        self.sold_items -= other.sold_items
        self.sale_levels -= other.sale_levels
        for mine, theirs in (
            (self.met, other.met),
            (self.killed_by, other.killed_by),
            (self.items, other.items),
            (self.slain, other.slain),
        ):
            for name, count in theirs.items():
                left = mine.get(name, 0) - count
                if left > 0:
                    mine[name] = left
                else:
                    mine.pop(name, None)

    def copy(self) -> PlayerFigures:
        return replace(
            self,
            met=dict(self.met),
            killed_by=dict(self.killed_by),
            items=dict(self.items),
            slain=dict(self.slain),
        )

    def to_record(self) -> dict[str, object]:
        record: dict[str, object] = {name: getattr(self, name) for name in _NUMBERS}
        for name in _COUNTERS:
            counts = getattr(self, name)
            if counts:
                record[name] = dict(counts)
        return {key: value for key, value in record.items() if value}

    @classmethod
    def from_record(cls, record: dict[str, object]) -> PlayerFigures:
        numbers = {name: record.get(name, 0) for name in _NUMBERS}
        if not all(type(value) is int for value in numbers.values()):
            raise ValueError("not a game summary: a figure that is not a number")
        counters: dict[str, dict[str, int]] = {}
        for name in _COUNTERS:
            counts = record.get(name)
            if counts is None:
                continue
            if not isinstance(counts, dict) or not all(type(v) is int for v in counts.values()):
                raise ValueError(f"not a game summary: {name} is not counted by name")
            counters[name] = counts
        return cls(**numbers, **counters)  # type: ignore[arg-type]


_COMPACT = (",", ":")


def figures_text(figures: PlayerFigures) -> str:
    """One player's figures as the compact JSON a summary holds."""
    return json.dumps(figures.to_record(), ensure_ascii=False, separators=_COMPACT)


_NUMBERS = (
    "kills",
    "deaths",
    "helped_kills",
    "kill_levels",
    "sales",
    "sold_items",
    "sale_levels",
)
_COUNTERS = ("met", "killed_by", "items", "slain")


@dataclass
class GameSummary:
    """One game as statistics see it: who played, who won, and what each player did."""

    edition: str  # the edition's id
    players: tuple[str, ...]  # names as played, by seat
    winners: tuple[int, ...]  # seats
    levels: tuple[int, ...]  # finishing Levels, by seat
    turns: int
    actions: int
    figures: tuple[PlayerFigures, ...]
    minutes: float | None = None  # how long it took, when known
    starter: int | None = None  # the seat that played turn 1, when known

    @property
    def finished(self) -> bool:
        return bool(self.winners)

    def to_json(self, figure_texts: Sequence[str] | None = None) -> str:
        """The summary as compact JSON; `figure_texts`: each player's figures already
        written out (`figures_text`), so a save writes again only the players it changed."""
        record: dict[str, object] = {
            "edition": self.edition,
            "players": list(self.players),
            "winners": list(self.winners),
            "levels": list(self.levels),
            "turns": self.turns,
            "actions": self.actions,
        }
        head = json.dumps(record, ensure_ascii=False, separators=_COMPACT)
        if figure_texts is None:
            figure_texts = [figures_text(figures) for figures in self.figures]
        tail = "" if self.minutes is None else f',"minutes":{json.dumps(self.minutes)}'
        if self.starter is not None:
            tail += f',"starter":{self.starter}'
        return f'{head[:-1]},"figures":[{",".join(figure_texts)}]{tail}}}'

    @classmethod
    def from_json(cls, text: str) -> GameSummary:
        """A summary from `to_json`'s text; ValueError when it is not one."""
        record = json.loads(text)
        if not isinstance(record, dict):
            raise ValueError("a game summary is a JSON object")
        try:
            players = tuple(str(name) for name in record["players"])
            figures = tuple(PlayerFigures.from_record(f) for f in record["figures"])
            summary = cls(
                edition=str(record["edition"]),
                players=players,
                winners=tuple(int(seat) for seat in record["winners"]),
                levels=tuple(int(level) for level in record["levels"]),
                turns=int(record["turns"]),
                actions=int(record["actions"]),
                figures=figures,
                minutes=None if record.get("minutes") is None else float(record["minutes"]),
                starter=None if record.get("starter") is None else int(record["starter"]),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a game summary: {exc!r}") from None
        seats = len(players)
        if len(figures) != seats or len(summary.levels) != seats:
            raise ValueError("not a game summary: its players and figures do not match")
        if any(not 0 <= seat < seats for seat in summary.winners) or not (
            summary.starter is None or 0 <= summary.starter < seats
        ):
            raise ValueError("not a game summary: a winner who did not play")
        return summary


class StatsFold:
    """Folds a game's log, one action at a time with the states before and after it,
    into a `GameSummary`. Cheap to step and to copy, so a store can keep one per open
    game and fold only what is new at each save."""

    def __init__(self, setup: GameSetup) -> None:
        self.setup = setup
        self.revision = 0  # how many actions are folded
        self.figures = [PlayerFigures() for _ in setup.players]
        self.starter = setup.first_player  # who plays turn 1 (a roll for it may change it)
        # Seats whose figures an action changed since the caller last cleared it.
        self.touched: set[int] = set(range(len(self.figures)))

    def copy(self) -> StatsFold:
        twin = StatsFold.__new__(StatsFold)
        twin.setup = self.setup
        twin.revision = self.revision
        twin.starter = self.starter
        twin.figures = [figures.copy() for figures in self.figures]
        twin.touched = set(range(len(twin.figures)))
        return twin

    def step(self, before: GameState, action: BaseAction, after: GameState) -> None:
        """Count what `action` did, taking `before` to `after`."""
        self.revision += 1
        figures = self.figures
        if after.turn <= 1:
            self.starter = after.current
        kind = action.type
        if kind == "sell_items":
            seat = int(getattr(action, "player", 0))
            self.touched.add(seat)
            figures[seat].sales += 1
            figures[seat].sold_items += len(getattr(action, "item_ids", ()) or ())
            figures[seat].sale_levels += max(
                0, after.players[seat].level - before.players[seat].level
            )
        elif kind == "gain_item":
            item = getattr(action, "item", None)
            if item is not None and item.name:
                seat = int(getattr(action, "player", 0))
                self.touched.add(seat)
                _count(figures[seat].items, item.name)
        elif kind == "play_one_shot" and before.combat is not None:
            name = getattr(action, "name", "")
            if name and getattr(action, "side", "") == "players":
                self.touched.add(before.combat.fighter)
                _count(figures[before.combat.fighter].items, name)
        for seat, (was, now) in enumerate(zip(before.players, after.players, strict=True)):
            if now.dead and not was.dead:
                self.touched.add(seat)
                figures[seat].deaths += 1
                killer = _killer(before, action, seat)
                if killer:
                    _count(figures[seat].killed_by, killer)
        ended = after.last_combat
        if ended is not None and ended is not before.last_combat and after.combat is None:
            self._fight_ended(before, ended, after)

    def _fight_ended(self, before: GameState, ended: CombatResult, after: GameState) -> None:
        fighters = [ended.fighter] + ([ended.helper] if ended.helper is not None else [])
        self.touched.update(fighters)
        for seat in fighters:
            for monster in ended.monsters:
                _count(self.figures[seat].met, monster)
        if ended.outcome != "kill":
            return
        killed = len(ended.monsters)
        self.figures[ended.fighter].kills += killed
        for monster in ended.monsters:
            _count(self.figures[ended.fighter].slain, monster)
        if ended.helper is not None:
            self.figures[ended.helper].helped_kills += killed
        for seat in fighters:
            gained = after.players[seat].level - before.players[seat].level
            self.figures[seat].kill_levels += max(0, gained)

    def summary(
        self, state: GameState, minutes: float | None = None, *, shared: bool = False
    ) -> GameSummary:
        """The summary of the game folded so far, `state` being where it stands now.
        `shared`: its figures are the fold's own, changed by the next step (for a summary
        written out at once)."""
        return GameSummary(
            edition=self.setup.edition.id,
            players=tuple(player.name for player in state.players),
            winners=tuple(state.winners),
            levels=tuple(player.level for player in state.players),
            turns=state.turn,
            actions=self.revision,
            figures=tuple(self.figures if shared else (f.copy() for f in self.figures)),
            minutes=minutes,
            starter=self.starter,
        )


def _killer(before: GameState, action: BaseAction, seat: int) -> str | None:
    """The monster whose Bad Stuff killed `seat`, when a failed run-away did."""
    combat = before.combat
    if action.type != "run_away" or combat is None:
        return None
    if getattr(action, "fighter", None) != seat:
        return None
    monster = getattr(action, "monster", -1)
    if not 0 <= monster < len(combat.monsters):
        return None
    return combat.monsters[monster].spec.name


def summarise(
    setup: GameSetup, actions: Iterable[BaseAction], minutes: float | None = None
) -> GameSummary:
    """The summary of a whole game, folding its log with every rule checked (a log that
    breaks a rule raises the engine's RuleError: its figures would not be the game's)."""
    fold = StatsFold(setup)
    state = GameState.initial(setup)
    for action in actions:
        after = apply_action(state, action)
        fold.step(state, action, after)
        state = after
    return fold.summary(state, minutes)


# --- the figures of many games -----------------------------------------------------------


def player_key(name: str) -> str:
    """Games are put together per player by name, as played, whatever its case."""
    return " ".join(name.split()).casefold()


@dataclass
class Record:
    """One game that stands out: how many turns (and minutes, when known) it took."""

    turns: int
    minutes: float | None = None
    players: tuple[str, ...] = ()


@dataclass
class Figures:
    """Games, wins and the rest, for the table or for one player."""

    name: str  # the player's name as last played ("" for the table)
    games: int = 0
    wins: int = 0
    level_total: int = 0
    finishes: int = 0  # finishing Levels counted (one per player per game)
    totals: PlayerFigures = field(default_factory=PlayerFigures)
    fastest_win: Record | None = None
    longest_game: Record | None = None

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average_level(self) -> float:
        return self.level_total / self.finishes if self.finishes else 0.0

    def most_met(self, limit: int = TOP_NAMES) -> list[tuple[str, int]]:
        return _top(self.totals.met, limit)

    def most_killing(self, limit: int = TOP_NAMES) -> list[tuple[str, int]]:
        return _top(self.totals.killed_by, limit)

    def most_used(self, limit: int = TOP_NAMES) -> list[tuple[str, int]]:
        return _top(self.totals.items, limit)

    def to_record(self) -> dict[str, object]:
        """The figures as plain JSON data (for `companion stats --json`)."""

        def record(found: Record | None) -> dict[str, object] | None:
            if found is None:
                return None
            return {"turns": found.turns, "minutes": found.minutes, "players": list(found.players)}

        totals = self.totals
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "average_level": round(self.average_level, 2),
            **{name: getattr(totals, name) for name in _NUMBERS},
            "fastest_win": record(self.fastest_win),
            "longest_game": record(self.longest_game),
            "monsters_met": dict(self.most_met()),
            "monsters_that_killed": dict(self.most_killing()),
            "items_used": dict(self.most_used()),
        }


def _count(counts: dict[str, int], name: str) -> None:
    counts[name] = counts.get(name, 0) + 1


def _top(counts: dict[str, int], limit: int) -> list[tuple[str, int]]:
    # Most first, then by name, so the same games always read the same.
    return sorted(counts.items(), key=lambda item: (-item[1], item[0].casefold()))[:limit]


@dataclass
class TableStatistics:
    """The figures of a set of games: the whole table's, and each player's."""

    table: Figures
    players: list[Figures]  # most wins first
    editions: dict[str, int]  # games per edition id
    unreadable: int = 0  # games that could not be read, left out
    waiting: int = 0  # games not summarised yet, left out for now


def table_statistics(
    summaries: Sequence[GameSummary],
    *,
    player: str | None = None,
    edition: str | None = None,
    unreadable: int = 0,
    waiting: int = 0,
) -> TableStatistics:
    """Put many games' summaries together: the table's figures and each player's.

    `edition` keeps the games of that edition id only; `player` those that player
    played in (and only their figures among the players).
    """
    wanted = None if player is None else player_key(player)
    tally = Tally()
    for summary in summaries:
        if edition is not None and summary.edition != edition:
            continue
        if wanted is not None and wanted not in (player_key(name) for name in summary.players):
            continue
        tally.add(summary)
    return tally.statistics(unreadable=unreadable, waiting=waiting, player=wanted)


class Tally:
    """Running totals of many games' summaries: a game saved again is taken away as it
    was and added as it is, so the figures after one save cost one game, not all of them.

    The records (fastest win, longest game) cannot be taken away: when the game taken
    away held one and the game added in its place does not beat it, the tally is
    `stale` and must be made again from every summary.
    """

    def __init__(self) -> None:
        self.table = Figures(name="")
        self.people: dict[str, Figures] = {}
        self.editions: Counter[str] = Counter()
        self.stale = False
        # Records taken away by `remove`, checked at the next `add` (see `replace`).
        self._lost: list[tuple[Figures, str, Record]] = []

    def add(self, summary: GameSummary) -> None:
        self._count(summary, 1)

    def replace(self, old: GameSummary | None, new: GameSummary | None) -> None:
        """One game changed from `old` to `new` (None: not counted)."""
        if old is not None:
            self._count(old, -1)
        if new is not None:
            self.add(new)
        for figures, kind, lost in self._lost:
            best = getattr(figures, kind)
            if kind == "longest_game":
                beaten = best is not None and _key(best) >= _key(lost)
            else:
                beaten = best is not None and _key(best) <= _key(lost)
            if not beaten:
                self.stale = True
        self._lost.clear()
        if old is not None:  # a player with no games left is no longer counted
            for name in old.players:
                key = player_key(name)
                if key in self.people and self.people[key].games <= 0:
                    del self.people[key]

    def _count(self, summary: GameSummary, sign: int) -> None:
        table = self.table
        self.editions[summary.edition] += sign
        if self.editions[summary.edition] <= 0:
            del self.editions[summary.edition]
        record = Record(summary.turns, summary.minutes, summary.players)
        won = bool(summary.winners)
        table.games += sign
        table.wins += sign if won else 0
        self._record(table, "longest_game", record, sign)
        if won:
            self._record(table, "fastest_win", record, sign)
        for seat, name in enumerate(summary.players):
            key = player_key(name)
            figures = self.people.get(key)
            if figures is None:
                figures = self.people[key] = Figures(name=name)
            level = summary.levels[seat]
            mine = summary.figures[seat]
            figures.games += sign
            figures.level_total += sign * level
            figures.finishes += sign
            table.level_total += sign * level
            table.finishes += sign
            if sign > 0:
                figures.name = name
                figures.totals.add(mine)
                table.totals.add(mine)
            else:
                figures.totals.subtract(mine)
                table.totals.subtract(mine)
            self._record(figures, "longest_game", record, sign)
            if seat in summary.winners:
                figures.wins += sign
                self._record(figures, "fastest_win", record, sign)

    def _record(self, figures: Figures, kind: str, record: Record, sign: int) -> None:
        best = getattr(figures, kind)
        if sign > 0:
            better = _longer if kind == "longest_game" else _faster
            setattr(figures, kind, better(best, record))
        elif best is not None and _key(best) == _key(record):
            setattr(figures, kind, None)
            self._lost.append((figures, kind, record))

    def statistics(
        self, *, unreadable: int = 0, waiting: int = 0, player: str | None = None
    ) -> TableStatistics:
        """The figures as they stand (copies: later changes leave them as they are).
        `player`: only that player's figures (a `player_key`)."""
        people = {key: _copy(figures) for key, figures in self.people.items()}
        players = sorted(
            people.values(), key=lambda f: (-f.wins, -f.win_rate, -f.games, f.name.casefold())
        )
        if player is not None:
            players = [figures for key, figures in people.items() if key == player]
        return TableStatistics(
            table=_copy(self.table),
            players=players,
            editions=dict(self.editions),
            unreadable=unreadable,
            waiting=waiting,
        )


def _copy(figures: Figures) -> Figures:
    return replace(figures, totals=figures.totals.copy())


def _key(record: Record) -> tuple[int, float]:
    return (record.turns, record.minutes or 0)


def _faster(best: Record | None, found: Record) -> Record:
    if best is None or (found.turns, found.minutes or 0) < (best.turns, best.minutes or 0):
        return found
    return best


def _longer(best: Record | None, found: Record) -> Record:
    if best is None or (found.turns, found.minutes or 0) > (best.turns, best.minutes or 0):
        return found
    return best
