"""The table link's pages in real browsers of every engine (Chromium, Firefox, WebKit: see
browser.py), against a real host: a seat's phone at 360x640 and 360x560, the board on a
TV at 1920x1080 and 1280x720."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from companion.core import (
    AddMonster,
    GainTrait,
    GoUpLevel,
    MonsterSpec,
    SetGearBonus,
    StartCombat,
)
from tests.web.browser import ENGINES, Browser, Browsers, Page, Pages, need_browser, need_engine
from tests.web.conftest import Table, Tables

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots"
# Each engine's pictures, to look at (not kept in git: /screenshots/ is ignored).
ENGINE_SHOTS = ROOT / "screenshots" / "table_link"
PHONES = ((360, 640), (360, 560))
TVS = ((1920, 1080), (1280, 720))

# What covers what, measured by the browser from its elements' rectangles.
GEOMETRY = (Path(__file__).parent / "geometry.js").read_text()
BOARD_LEAVES = (
    ".token, .headline, .detail, .space-number, .fight-line, .kill-line, .entry-name, .entry-detail"
)
# The numbers and their names stay inside their boxes.
SEAT_KEPT = ".value, .value-box .label"
SEAT_LEAVES = (
    "button, .value, .value-box .label, .who .name, .strength, .traits, .roll-title,"
    " .roll-text, .roll-detail, .roll-or, .fight-role, .fight-text, .kill-text, .turn, .phase"
)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    need_engine(request.param)
    return str(request.param)


@pytest.fixture
async def pages(browsers: Browsers, engine: str) -> AsyncIterator[Pages]:
    opened = Pages(browsers, engine)
    yield opened
    await opened.close()


async def problems(page: Page, leaves: str, buttons: str = "", kept: str = "") -> list[str]:
    found = await page.run(GEOMETRY, leaves, buttons or "nothing-at-all", kept or "nothing-at-all")
    return [f"{page.engine} {page.width}x{page.height}: {p}" for p in found]


async def test_a_seat_joins_presses_is_refused_reloads_and_the_board_follows(
    tables: Tables, pages: Pages
) -> None:
    table = await tables.open()
    tv = await pages.open(1280, 720)
    phone = await pages.phone()
    await tv.open(table.board_url())
    await tv.wait("return document.querySelector('.token[data-seat=\"1\"]')", "Bram's token")
    await phone.open(table.seat_url(1))
    await phone.wait("return document.getElementById('level-value')", "Bram's Level")
    assert await phone.text(".who .name") == "Bram"

    await phone.click("[data-press=level_up]")
    await phone.wait("return document.getElementById('level-value').textContent === '2'", "Level 2")
    await tv.wait(
        "return document.querySelector('.token[data-seat=\"1\"]')"
        ".getAttribute('data-level') === '2'",
        "Bram at 2 on the board",
    )
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
    await tv.wait(
        "return document.querySelector('.token[data-seat=\"1\"]')"
        ".getAttribute('data-level') === '4'",
        "Bram at 4 on the board",
    )
    # ... and also with the address's secret gone, from this browser's storage.
    base = table.seat_url(1).split("#")[0]
    await phone.open(base)
    await phone.wait("return document.getElementById('level-value')", "the seat without the code")
    assert await phone.text(".who .name") == "Bram"


async def test_a_taken_back_seat_stops_pressing(tables: Tables, pages: Pages) -> None:
    table = await tables.open()
    phone = await pages.phone()
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


async def test_a_second_code_in_the_same_tab_switches_seat(tables: Tables, pages: Pages) -> None:
    """Opening Cleo's code where Bram's page is open changes only the address's "#" (the
    page is not loaded again): the page follows it, and presses for Cleo from then on."""
    table = await tables.open()
    phone = await pages.phone()
    await phone.open(table.seat_url(1))
    await phone.wait("return document.getElementById('level-value')", "Bram's page")
    await phone.run("window.notReloaded = true;")
    await phone.open(table.seat_url(2))
    await phone.wait(
        "var n = document.querySelector('.who .name'); return n && n.textContent === 'Cleo'",
        "Cleo's page after her code",
    )
    assert await phone.run("return window.notReloaded === true"), "the page was loaded again"
    await phone.click("[data-press=level_up]")
    await phone.wait("return document.getElementById('level-value').textContent === '2'", "Level 2")
    levels = [p.level for p in table.game.state.players]
    assert levels == [1, 1, 2, 1]
    # The browser keeps the new code: a reload is still Cleo's page.
    await phone.reload()
    await phone.wait(
        "var n = document.querySelector('.who .name'); return n && n.textContent === 'Cleo'",
        "Cleo's page after a reload",
    )
    # After a seat was taken back, the next code opened in the tab works as well.
    table.link.take_back(2)
    await phone.wait("return document.querySelector('.notice.taken')", "the seat taken back")
    await phone.open(table.seat_url(3))
    await phone.wait(
        "var n = document.querySelector('.who .name'); return n && n.textContent === 'Dev'",
        "Dev's page after his code",
    )


def spread(table: Table, levels: list[int]) -> None:
    for seat, level in enumerate(levels):
        now = table.game.state.players[seat].level
        if level > now:
            table.game.apply(GoUpLevel(player=seat, levels=level - now))


async def board_shows(tv: Page, table: Table) -> None:
    levels = [p.level for p in table.game.state.players]
    await tv.wait(
        "var want = arguments[0], tokens = document.querySelectorAll('.token');"
        "if (tokens.length !== want.length) return false;"
        "for (var i = 0; i < tokens.length; i++) {"
        "  var seat = tokens[i].getAttribute('data-seat');"
        "  if (tokens[i].getAttribute('data-level') !== String(want[seat])) return false;"
        "}"
        "return !!document.getElementById('fight-line') === arguments[1];",
        f"the levels {levels}",
        20.0,
        levels,
        table.game.state.combat is not None,
    )


async def test_the_board_fits_a_tv_with_every_token_in_view(tables: Tables, pages: Pages) -> None:
    """2 or 8 players, all on one Level or spread, a fight on: on a 1920x1080 and a
    1280x720 TV the board never scrolls, every token is inside its Level's space, none
    covers another or a name, and the tokens stay big enough to read across a room."""
    tvs = [await pages.open(width, height) for width, height in TVS]
    found: list[str] = []
    for players in (2, 8):
        table = await tables.open(players)
        for tv in tvs:
            await tv.open(table.board_url())
        layouts = [[1] * players, [5] * players, [1, 9] * (players // 2)]
        for levels in layouts:
            spread(table, levels)
            if levels == layouts[-1]:
                table.game.apply(
                    StartCombat(fighter=0, monsters=(MonsterSpec(name="Potted Plant", level=1),))
                )
            for tv in tvs:
                await board_shows(tv, table)
                found += await problems(tv, BOARD_LEAVES, kept=".token")
                sizes = await tv.run(
                    "return Array.prototype.map.call(document.querySelectorAll('.token'),"
                    " function (t) { return t.getBoundingClientRect().width; });"
                )
                smallest = min(sizes)
                if smallest < tv.height * 0.05:
                    found.append(f"{tv.engine} {tv.width}x{tv.height}: tokens of {smallest} px")
    assert not found, "\n".join(found)


async def test_the_board_reads_on_a_phone(tables: Tables, pages: Pages, engine: str) -> None:
    """The board's code opened on a phone in portrait (360x640, and 360x560 less the
    browser's bar): 2 or 8 players, on one Level or spread, a fight on. Every player's
    name and Level are in view and at least 16 px, each token is big enough to tell
    apart, nothing is cut or covered and nothing scrolls."""
    phones = [await pages.phone(height) for _, height in PHONES]
    found: list[str] = []
    for players in (2, 8):
        table = await tables.open(players)
        for phone in phones:
            await phone.open(table.board_url())
        layouts = [[1] * players, [1, 9] * (players // 2)]
        for levels in layouts:
            spread(table, levels)
            if levels == layouts[-1]:
                table.game.apply(
                    StartCombat(fighter=0, monsters=(MonsterSpec(name="Potted Plant", level=1),))
                )
            for phone in phones:
                await board_shows(phone, table)
                said = f"{phone.engine} {phone.width}x{phone.height}, {players} at {levels}"
                found += [f"{said}: {p}" for p in await problems(phone, PHONE_BOARD_LEAVES)]
                seen = await phone.run(PHONE_BOARD_READ)
                if seen["names"] != [p.name for p in table.game.state.players]:
                    found.append(f"{said}: names shown {seen['names']}")
                if seen["levels"] != [str(level) for level in levels]:
                    found.append(f"{said}: Levels shown {seen['levels']}")
                found += [f"{said}: {small} under 16 px" for small in seen["small"]]
                if min(seen["tokens"]) < 32:
                    found.append(f"{said}: tokens of {min(seen['tokens'])} px")
                if engine == "chromium" and phone.height == 640:
                    fight = "-fight" if levels == layouts[-1] else ""
                    await phone.screenshot(
                        SCREENSHOTS / f"board-phone-360x640-{players}{fight}.png"
                    )
                elif levels == layouts[-1]:
                    shot = f"board-phone-{phone.width}x{phone.height}-{players}-{engine}.png"
                    await phone.screenshot(ENGINE_SHOTS / shot)
    assert not found, "\n".join(found)


# On a phone the board is a list: per player a token, the name, what they stand at, and
# the Level, big.
PHONE_BOARD_LEAVES = (
    ".headline, .board-top .detail, .fight-line, .kill-line, .entry-token, .entry-name,"
    " .entry-detail, .entry-level"
)
PHONE_BOARD_READ = """
function shown(e) { var b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; }
function each(css) { return Array.prototype.filter.call(document.querySelectorAll(css), shown); }
var small = [];
each('.headline, .board-top .detail, .fight-line, .entry-name, .entry-detail, .entry-level')
  .forEach(function (e) {
    var size = parseFloat(getComputedStyle(e).fontSize);
    if (size < 16) small.push(e.className + ' "' + e.textContent + '" of ' + size + ' px');
  });
return {
  names: each('.entry-name').map(function (e) { return e.getAttribute('data-name'); }),
  levels: each('.entry-level').map(function (e) { return e.textContent; }),
  tokens: each('.entry-token').map(function (e) {
    var b = e.getBoundingClientRect(); return Math.min(b.width, b.height); }),
  small: small
};
"""


async def test_the_seat_page_fits_a_phone_in_every_state(tables: Tables, pages: Pages) -> None:
    """At 360x640 and at 360x560 (a 360x640 phone less its browser's bar): no fight, a
    fight with Kill!, the kill counting down, the run-away roll offered. Nothing scrolls,
    nothing covers anything, every button is at least 48x48, the numbers stay in their
    boxes."""
    table = await tables.open(kill_seconds=600)
    phones = [await pages.phone(height) for _, height in PHONES]
    for phone in phones:
        await phone.open(table.seat_url(0))
    game = table.game
    found: list[str] = []

    async def check(state: str, shows: str) -> None:
        for phone in phones:
            await phone.wait(shows, state)
            found.extend(
                f"{state}: {p}" for p in await problems(phone, SEAT_LEAVES, "button", SEAT_KEPT)
            )

    await check("no fight", f"return {SHOWN('level-value')} && !{SHOWN('fight')}")
    game.apply(SetGearBonus(player=0, bonus=10))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Rat", level=4),)))
    await check("fighting", f"return {SHOWN('fight')} && {SHOWN('kill-button')}")
    table.link.table.kill()
    await check("the kill counting down", f"return {SHOWN('kill-text')} && {SHOWN('wait-button')}")
    table.link.table.interfere()
    game.apply(AddMonster(monster=MonsterSpec(name="Orc", level=30)))
    await check("the roll offered", f"return {SHOWN('roll')} && !{SHOWN('kill')}")
    assert not found, "\n".join(found)


def SHOWN(what: str) -> str:
    """A script's test that the element with this id (or class) is on the page and shown."""
    return (
        f"!!(function (e) {{ return e && e.getClientRects().length > 0; }})"
        f"(document.getElementById('{what}') || document.querySelector('.{what}'))"
    )


async def test_the_seat_page_fits_in_a_long_language(tables: Tables) -> None:
    """German and Russian, the roll offered at 360x560 (Chromium, which is told the
    language when it starts); the board of 8 players in a fight on the same phone."""
    need_browser()
    table = await tables.open()
    game = table.game
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Orc", level=30),)))
    eight = await tables.open(8)
    spread(eight, [1, 9] * 4)
    eight.game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Orc", level=30),)))
    found: list[str] = []
    for language in ("de", "ru"):
        phone = Browser(360, 560, mobile=True, language=language)
        try:
            await phone.open(table.seat_url(0))
            await phone.wait(
                "var e = document.getElementById('roll'); return e && e.offsetParent !== null",
                f"the roll offered, in {language}",
            )
            found += [
                f"{language}: {p}" for p in await problems(phone, SEAT_LEAVES, "button", SEAT_KEPT)
            ]
            await phone.screenshot(ENGINE_SHOTS / f"table_link_seat-360x560-roll-{language}.png")
            await phone.open(eight.board_url())
            await board_shows(phone, eight)
            found += [f"{language}: {p}" for p in await problems(phone, PHONE_BOARD_LEAVES)]
            await phone.screenshot(ENGINE_SHOTS / f"board-phone-360x560-8-{language}.png")
        finally:
            await phone.close()
    assert not found, "\n".join(found)


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
    tables: Tables, pages: Pages
) -> None:
    table = await tables.open()
    phone = await pages.phone()
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


async def test_screenshots_of_each_engine(tables: Tables, pages: Pages, engine: str) -> None:
    """The board at 1920x1080 with 8 players on one Level and a fight on, and the seat page
    at 360x560 with the roll offered, in this engine (looked at by a person)."""
    table = await tables.open(8)
    game = table.game
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Orc", level=30),)))
    tv = await pages.open(1920, 1080)
    phone = await pages.phone(560)
    await tv.open(table.board_url())
    await board_shows(tv, table)
    await phone.open(table.seat_url(0))
    await phone.wait(
        "var e = document.getElementById('roll'); return e && e.offsetParent !== null",
        "the roll offered",
    )
    await tv.screenshot(ENGINE_SHOTS / f"table_link_board-1920x1080-8-{engine}.png")
    await phone.screenshot(ENGINE_SHOTS / f"table_link_seat-360x560-roll-{engine}.png")


async def test_screenshots_of_the_seat_page_and_the_board(
    tables: Tables, browsers: Browsers
) -> None:
    """The pictures in the README, from a game in full swing (looked at by a person)."""
    need_browser()
    table = await tables.open()
    game = table.game
    game.apply(GoUpLevel(player=0, levels=3))
    game.apply(SetGearBonus(player=0, bonus=4))
    game.apply(GainTrait(player=0, kind="class", name="Wizard"))
    game.apply(GainTrait(player=0, kind="race", name="Elf"))
    game.apply(GoUpLevel(player=1, levels=1))
    game.apply(GoUpLevel(player=2, levels=3))
    game.apply(SetGearBonus(player=2, bonus=5))
    game.apply(StartCombat(fighter=0, monsters=(MonsterSpec(name="Potted Plant", level=1),)))
    chromium = Pages(browsers, "chromium")
    try:
        phone = await chromium.phone()
        tv = await chromium.open(1920, 1080)
        await phone.open(table.seat_url(0))
        await phone.wait("return document.getElementById('fight')", "Anna's fight")
        await phone.screenshot(SCREENSHOTS / "table_link_seat-360x640.png")
        await tv.open(table.board_url())
        await tv.wait("return document.getElementById('fight-line')", "the fight line")
        await tv.screenshot(SCREENSHOTS / "table_link_board-1920x1080.png")
    finally:
        await chromium.close()
