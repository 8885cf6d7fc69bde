"""A table for the table link's tests: a game, its link on a loopback port, pages to open."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, SeededDice, Sex, Variants
from companion.plumbing.places import LOCALE_DIR
from companion.table.app import Table as TableApp
from companion.web.client import TableClient
from companion.web.keys import BOARD, Role, TableKeys
from companion.web.server import TableLink
from companion.web.speech import Voices
from tests.web.browser import Browsers

LOOPBACK = "127.0.0.1"
PLAYERS = (
    ("Anna", "#e5484d", Sex.FEMALE),
    ("Bram", "#3e8ef7", Sex.MALE),
    ("Cleo", "#3fbf6f", Sex.FEMALE),
    ("Dev", "#f2b134", Sex.MALE),
    ("Eskild", "#8e5cf7", Sex.MALE),
    ("Fenna", "#f25fa5", Sex.FEMALE),
    ("Gunnar", "#2cc4c4", Sex.MALE),
    ("Henrietta", "#f0743e", Sex.FEMALE),
)


def new_game(players: int = 4) -> Game:
    names = [PLAYERS[i % len(PLAYERS)] for i in range(players)]
    setup = GameSetup(
        players=tuple(
            PlayerSetup(name=f"{name}{'' if i < len(PLAYERS) else i}", colour=colour, sex=sex)
            for i, (name, colour, sex) in enumerate(names)
        ),
        edition=CLASSIC,
        # 2 players, or 7 or 8, play by the house rule chosen openly at New game.
        variants=Variants(house_player_count=not 3 <= players <= 6),
    )
    return Game(setup, rng=SeededDice(7))


class Table:
    """A game and its table link, with helpers to open pages on it."""

    def __init__(self, game: Game, link: TableLink) -> None:
        self.game = game
        self.link = link
        self.clients: list[TableClient] = []

    def seat_url(self, seat: int) -> str:
        return self.link.url(Role("seat", seat), LOOPBACK)

    def board_url(self) -> str:
        return self.link.url(BOARD, LOOPBACK)

    async def page(self, url: str, **options: object) -> TableClient:
        client = TableClient(url, **options)  # type: ignore[arg-type]
        self.clients.append(client)
        await client.connect()
        return client

    async def seat(self, seat: int, **options: object) -> TableClient:
        return await self.page(self.seat_url(seat), **options)

    async def board(self, **options: object) -> TableClient:
        return await self.page(self.board_url(), **options)


class Tables:
    """Tables of any number of players, each on its own link, all closed after the test."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.opened: list[tuple[Table, TableApp]] = []

    async def open(self, players: int = 4, kill_seconds: float = 0.5) -> Table:
        here = self.folder / f"table-{len(self.opened)}"
        game = new_game(players)
        application = TableApp(here / "games", kill_seconds=lambda: kill_seconds)
        application.adopt(game)
        link = TableLink(
            keys=TableKeys(here / "table-link.json"),
            table=application,
            voices=Voices(LOCALE_DIR),
            host=LOOPBACK,
            port=0,
        )
        await link.start()
        table = Table(game, link)
        self.opened.append((table, application))
        return table

    async def close(self) -> None:
        for table, application in self.opened:
            for client in table.clients:
                await client.close()
            await table.link.stop()
            application.shutdown()


@pytest.fixture
async def tables(tmp_path: Path) -> AsyncIterator[Tables]:
    opened = Tables(tmp_path)
    yield opened
    await opened.close()


@pytest.fixture
async def table(tables: Tables) -> Table:
    return await tables.open()


@pytest.fixture(scope="session")
def browsers() -> Iterator[Browsers]:
    """Every engine's browser, started when a test first needs it and kept for the run."""
    kept = Browsers()
    yield kept
    kept.close()
