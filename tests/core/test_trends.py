"""The statistics' pictures worked out from summaries: a player's Level at the end of
their last games, and games per month, checked by hand."""

from __future__ import annotations

from companion.core.statistics import GameSummary, PlayerFigures
from companion.core.trends import Finish, PlayedGame, month_before, trends


def summary(
    players: tuple[str, ...],
    levels: tuple[int, ...],
    winners: tuple[int, ...] = (),
    edition: str = "classic",
) -> GameSummary:
    return GameSummary(
        edition=edition,
        players=players,
        winners=winners,
        levels=levels,
        turns=5,
        actions=20,
        figures=tuple(PlayerFigures() for _ in players),
    )


def month_of(at: float) -> tuple[int, int]:
    """Test times are written as year * 100 + month."""
    return int(at) // 100, int(at) % 100


def game(
    played: int,
    month: int | None,
    levels: tuple[int, int],
    winners: tuple[int, ...] = (),
    edition: str = "classic",
) -> PlayedGame:
    return PlayedGame(summary(("Ann", "Bo"), levels, winners, edition), played, month)


def test_a_players_last_games_oldest_first_with_their_wins() -> None:
    # Saved out of order: `played` says which came last.
    games = [game(n, 202601, (n, 1), winners=(0,) if n == 3 else ()) for n in (5, 1, 3, 2, 4)]
    found = trends(games, month_of=month_of, this_month=(2026, 1), last_games=4)
    assert found.finishes("Ann") == (
        Finish(2, False), Finish(3, True), Finish(4, False), Finish(5, False),
    )  # fmt: skip
    assert found.finishes(" bo ") == (Finish(1, False),) * 4  # names as games count them
    assert found.finishes("Cy") == ()


def test_one_edition_or_one_player() -> None:
    games = [
        game(1, 202601, (4, 2)),
        game(2, 202602, (6, 3), edition="fu"),
        PlayedGame(summary(("Cy", "Bo"), (9, 5)), 3, 202603),
    ]
    fu = trends(games, month_of=month_of, this_month=(2026, 3), edition="fu")
    assert fu.finishes("Ann") == (Finish(6, False),)
    assert [count for _month, count in fu.months][-3:] == [0, 1, 0]
    cy = trends(games, month_of=month_of, this_month=(2026, 3), player="cy")
    assert list(cy.levels) == ["cy"]  # only the player chosen
    assert [count for _month, count in cy.months][-3:] == [0, 0, 1]


def test_twelve_months_up_to_this_one_across_a_new_year() -> None:
    games = [game(1, 202512, (1, 1)), game(2, 202512, (1, 1)), game(3, 202602, (1, 1)),
             game(4, 202411, (1, 1)), game(5, None, (1, 1))]  # fmt: skip
    found = trends(games, month_of=month_of, this_month=(2026, 3))
    assert found.months[0] == ((2025, 4), 0)
    assert found.months[-1] == ((2026, 3), 0)
    assert dict(found.months)[(2025, 12)] == 2 and dict(found.months)[(2026, 2)] == 1
    assert sum(count for _m, count in found.months) == 3  # older and undated ones left out
    assert len(found.months) == 12


def test_a_table_that_last_played_long_ago_still_sees_when() -> None:
    found = trends([game(1, 202203, (1, 1))], month_of=month_of, this_month=(2026, 11))
    assert found.months[-1] == ((2022, 3), 1)


def test_month_before() -> None:
    assert month_before((2026, 1)) == (2025, 12)
    assert month_before((2026, 3), 14) == (2025, 1)


def test_knowing_how_many_games_each_played_changes_nothing() -> None:
    """The look stops once everyone's last games are found: the same pictures."""
    games = [
        PlayedGame(
            summary(("Ann", "Bo", "Cy")[: 2 + n % 2], (n % 9 + 1, 2, 3)[: 2 + n % 2]), n, 202601
        )
        for n in range(40)
    ]
    games.append(PlayedGame(summary(("Dee", "Ann"), (7, 1)), -5, 202512))  # Dee: long ago
    played: dict[str, int] = {}
    for one in games:
        for key in one.keys:
            played[key] = played.get(key, 0) + 1
    plain = trends(games, month_of=month_of, this_month=(2026, 1))
    told = trends(games, month_of=month_of, this_month=(2026, 1), games_of=played)
    assert told == plain
    assert told.finishes("Dee") == (Finish(7, False),)
