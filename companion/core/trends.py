"""What the statistics draw rather than say: each player's finishing Level over their last
games, and how many games were played in each month. Pure: the caller says which month
a game's time falls in (a clock and a time zone are not the core's to know).

Both are worked out from the games' summaries and the order the store keeps them in
(`played`: higher is later), never from a replayed log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from companion.core.statistics import GameSummary, player_key

# How many of a player's games the Level picture shows.
LAST_GAMES = 10
# How many months the games-per-month picture shows.
MONTHS = 12

Month = tuple[int, int]  # (year, month 1-12)


@dataclass(frozen=True)
class PlayedGame:
    """A game's summary with where it stands among the saved games."""

    summary: GameSummary
    played: int  # the order games were last played in: higher is later
    started: float | None = None  # when it was first saved (s since the epoch), if known
    # Each seat's `player_key`, worked out once (pictures are made again after a save).
    keys: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        keys = tuple(player_key(name) for name in self.summary.players)
        object.__setattr__(self, "keys", keys)


@dataclass(frozen=True)
class Finish:
    """How one player ended one game."""

    level: int
    won: bool


@dataclass(frozen=True)
class Trends:
    """The pictures' figures for a set of games."""

    # By `player_key`: their finishing Levels, oldest of the last `LAST_GAMES` first.
    levels: dict[str, tuple[Finish, ...]]
    # Games per month, the oldest month first, ending at the month `trends` was given.
    months: tuple[tuple[Month, int], ...]

    def finishes(self, name: str) -> tuple[Finish, ...]:
        """A player's last games (oldest first); none when they played none of them."""
        return self.levels.get(player_key(name), ())


def month_before(month: Month, count: int = 1) -> Month:
    """The month `count` months before `month`."""
    index = month[0] * 12 + month[1] - 1 - count
    return index // 12, index % 12 + 1


def trends(
    games: Iterable[PlayedGame],
    *,
    month_of: Callable[[float], Month],
    this_month: Month,
    edition: str | None = None,
    player: str | None = None,
    last_games: int = LAST_GAMES,
    months: int = MONTHS,
    games_of: Mapping[str, int] | None = None,
) -> Trends:
    """The pictures of `games`: those of `edition` only when it is given, and those
    `player` sat in when it is given (then only their Levels are kept).

    The months end at `this_month`, unless no game falls in the `months` up to it: then
    they end at the month of the latest game (long ago, or ahead of a clock set back), so
    the picture always shows when the table played.

    `games_of`: how many of these games each player (by `player_key`) played, when the
    caller knows: the latest games are then looked at only until everyone's last games
    are found.
    """
    wanted = None if player is None else player_key(player)
    kept = [
        game
        for game in games
        if (edition is None or game.summary.edition == edition)
        and (wanted is None or wanted in game.keys)
    ]
    kept.sort(key=lambda game: game.played, reverse=True)
    levels: dict[str, list[Finish]] = {}
    unfound = -1  # players whose last games are not all found yet (-1: not known)
    if games_of is not None:
        unfound = sum(1 for key, count in games_of.items() if count > 0)
    for game in kept:  # the latest first
        if unfound == 0:
            break
        summary = game.summary
        for seat, key in enumerate(game.keys):
            if wanted is not None and key != wanted:
                continue
            found = levels.get(key)
            if found is None:
                found = levels[key] = []
            if len(found) < last_games:
                found.append(Finish(summary.levels[seat], seat in summary.winners))
                if games_of is not None and len(found) == min(last_games, games_of.get(key, 0)):
                    unfound -= 1
    counted: dict[Month, int] = {}
    for game in kept:
        if game.started is not None:
            month = month_of(game.started)
            counted[month] = counted.get(month, 0) + 1
    last = this_month
    first = month_before(last, months - 1)
    if counted and not any(first <= month <= last for month in counted):
        last = max(counted)
    window = [month_before(last, back) for back in range(months - 1, -1, -1)]
    return Trends(
        levels={key: tuple(reversed(found)) for key, found in levels.items()},
        months=tuple((month, counted.get(month, 0)) for month in window),
    )
