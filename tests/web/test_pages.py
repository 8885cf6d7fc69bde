"""The table link's pages in a real browser (Debian's headless Chromium): a seat's phone
at 360x640 and the board on a 1920x1080 TV, against a real host."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from companion.core import GainTrait, GoUpLevel, MonsterSpec, SetGearBonus, StartCombat
from tests.web.browser import Browser, need_browser
from tests.web.conftest import Table

pytestmark = pytest.mark.slow

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
async def phone() -> AsyncIterator[Browser]:
    need_browser()
    browser = Browser(360, 640, mobile=True)
    yield browser
    await browser.close()


async def test_a_seat_page_presses_and_comes_back_after_a_reload(
    table: Table, phone: Browser
) -> None:
    board = await table.board()
    await phone.open(table.seat_url(1))
    await phone.wait("return document.getElementById('level-value')", "Bram's Level")
    assert await phone.text(".who .name") == "Bram"

    await phone.click("[data-press=level_up]")
    await phone.wait("return document.getElementById('level-value').textContent === '2'", "Level 2")
    await board.wait_for(lambda v: v["players"][1]["level"] == 2, what="Bram at 2 on the board")
    assert table.game.state.players[1].level == 2

    # A refused press says why, on the phone.
    await phone.click("[data-press=level_down]")
    await phone.click("[data-press=level_down]")
    await phone.wait(
        "var t = document.getElementById('toast');"
        "return t.className.indexOf('shown') >= 0 && t.textContent.indexOf('never below 1') >= 0",
        "the refusal's reason",
    )
    assert table.game.state.players[1].level == 1

    # A reload mid-game comes back to the seat, with what changed meanwhile, no scan.
    table.game.apply(GoUpLevel(player=1, levels=3))
    await phone.reload()
    await phone.wait(
        "return document.getElementById('level-value') &&"
        " document.getElementById('level-value').textContent === '4'",
        "Level 4 after the reload",
    )
    # ... and also with the address's secret gone, from this browser's storage.
    base = table.seat_url(1).split("#")[0]
    await phone.open(base)
    await phone.wait("return document.getElementById('level-value')", "the seat without the code")
    assert await phone.text(".who .name") == "Bram"


async def test_a_taken_back_seat_stops_pressing(table: Table, phone: Browser) -> None:
    await phone.open(table.seat_url(0))
    await phone.wait("return document.getElementById('level-value')", "Anna's page")
    table.link.take_back(0)
    await phone.wait("return document.querySelector('.notice.taken')", "the seat taken back")
    assert "took this seat back" in await phone.text("h1")
    before = table.game.revision
    await phone.reload()  # the old secret was forgotten: only "ask the host" is left
    await phone.wait("return document.querySelector('.notice.ask')", "ask the host")
    assert await phone.run("return document.querySelectorAll('[data-press]').length") == 0
    assert table.game.revision == before


async def test_a_stranger_sees_only_the_ask_the_host_page_in_their_language(
    table: Table,
) -> None:
    need_browser()
    browser = Browser(360, 640, mobile=True, language="de")
    try:
        await browser.open(table.board_url().split("#")[0])
        await browser.wait("return document.querySelector('.notice.ask')", "ask the host")
        assert await browser.text("h1") == "Frag den Gastgeber nach deinem Code"
        # A made-up code is no better.
        await browser.open(table.board_url().split("#")[0] + "#k=" + "A" * 32)
        await browser.wait("return document.querySelector('.notice.ask')", "ask the host")
    finally:
        await browser.close()


async def test_a_page_that_cannot_reach_the_host_says_what_to_try(
    table: Table, phone: Browser
) -> None:
    await phone.open(table.seat_url(2))
    await phone.wait("return document.getElementById('level-value')", "Cleo's page")
    # Here (a secure origin) the page is kept by its service worker once that has started.
    await phone.wait(
        "return navigator.serviceWorker && navigator.serviceWorker.controller",
        "the page kept for later",
    )
    await table.link.stop()  # as if the phone had moved to a guest network
    # "off" first (the host said so as it stopped), then the advice once it stays away.
    await phone.wait("return document.querySelector('.notice.off')", "the link is off")
    await phone.run("location.reload()")
    await phone.wait(
        "return document.querySelector('.notice.away') &&"
        " document.body.textContent.indexOf('hotspot') >= 0",
        "what to try",
        30,
    )


async def test_screenshots_of_the_seat_page_and_the_board(table: Table, phone: Browser) -> None:
    """The pictures in the README, from a game in full swing (looked at by a person)."""
    game = table.game
    game.apply(GoUpLevel(player=0, levels=3))
    game.apply(SetGearBonus(player=0, bonus=4))
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainTrait(player=0, kind="race", name="Elf"))
    game.apply(GoUpLevel(player=1, levels=1))
    game.apply(GoUpLevel(player=2, levels=3))
    game.apply(SetGearBonus(player=2, bonus=5))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Potted Plant", level=1),)))
    await phone.open(table.seat_url(0))
    await phone.wait("return document.getElementById('fight')", "Anna's fight")
    await phone.screenshot(SCREENSHOTS / "table_link_seat-360x640.png")
    tv = Browser(1920, 1080)
    try:
        await tv.open(table.board_url())
        await tv.wait("return document.getElementById('fight-line')", "the fight line")
        await tv.screenshot(SCREENSHOTS / "table_link_board-1920x1080.png")
    finally:
        await tv.close()
