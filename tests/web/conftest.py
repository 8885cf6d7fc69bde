"""A table for the table link's tests: a game, its link on a loopback port, pages to open."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from companion.core import CLASSIC, Game, GameSetup, PlayerSetup, SeededDice, Sex
from companion.plumbing.places import LOCALE_DIR
from companion.table.app import Table as TableApp
from companion.web.client import TableClient
from companion.web.keys import BOARD, Role, TableKeys
from companion.web.server import TableLink
from companion.web.speech import Voices

LOOPBACK = "127.0.0.1"
PLAYERS = (
    ("Anna", "#e5484d", Sex.FEMALE),
    ("Bram", "#3e8ef7", Sex.MALE),
    ("Cleo", "#3fbf6f", Sex.FEMALE),
    ("Dev", "#f2b134", Sex.MALE),
)


def new_game(players: int = 4) -> Game:
    names = [PLAYERS[i % len(PLAYERS)] for i in range(players)]
    setup = GameSetup(
        players=tuple(
            PlayerSetup(name=f"{name}{'' if i < len(PLAYERS) else i}", colour=colour, sex=sex)
            for i, (name, colour, sex) in enumerate(names)
        ),
        edition=CLASSIC,
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


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    game = new_game()
    application = TableApp(tmp_path / "games", kill_seconds=lambda: 0.5)
    application.adopt(game)
    link = TableLink(
        keys=TableKeys(tmp_path / "table-link.json"),
        table=application,
        voices=Voices(LOCALE_DIR),
        host=LOOPBACK,
        port=0,
    )
    await link.start()
    table = Table(game, link)
    yield table
    for client in table.clients:
        await client.close()
    await link.stop()
    application.shutdown()
