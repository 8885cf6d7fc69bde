"""The table link from the host's side: the Invite screen, a phone's page in Debian's headless
Chromium pressing for its seat, and the host's Table, a board page and the virtual counters
all showing the press; a seat taken back; the link turned off; the roll on the phone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.ui.conftest import Harness
from tests.web.browser import Browser, need_browser

pytestmark = pytest.mark.slow

WAIT_S = 30.0
LOOPBACK = "127.0.0.1"


async def ui_wait(ui: Harness, awaitable: Any, timeout_s: float = WAIT_S) -> Any:
    """Await a browser call while Kivy keeps drawing frames (the host stays alive)."""
    task = asyncio.ensure_future(awaitable)
    await ui.until(task.done, "the browser answers", timeout_s)
    return task.result()


def lit_space(frame: Any, level: int) -> int:
    """LEDs lit in one level space of a board."""
    first = (level - 1) * frame.positions
    return sum(1 for pixel in frame.pixels[first : first + frame.positions] if any(pixel))


async def turn_link_on(ui: Harness) -> Any:
    """Switch the link on from the Invite screen, serving on loopback only."""
    service = ui.app.table_link
    assert service is not None and not service.running
    service.host, service.port = LOOPBACK, 0
    ui.nav("invite")
    screen = ui.screen("invite")
    assert "off" in screen.connected_text
    ui.tap(screen.ids.toggle)
    await ui.until(lambda: service.running, "the link is on")
    # The codes carry an address of this machine; the test reaches it on loopback.
    service.addresses = [LOOPBACK]
    service.address = LOOPBACK
    await ui.until(lambda: screen.address_text.startswith(f"http://{LOOPBACK}:"), "the address")
    return service


async def test_a_phone_joins_from_the_invite_screen_and_presses_for_its_seat(
    ui: Harness,
) -> None:
    need_browser()
    ui.start_game(["Anna", "Bram", "Cleo"])
    devices = ui.app.devices
    assert devices is not None
    counters = asyncio.ensure_future(devices.run())
    phone = await asyncio.to_thread(Browser, 360, 640, mobile=True)
    tv = await asyncio.to_thread(Browser, 1920, 1080)
    service = None
    try:
        service = await turn_link_on(ui)
        screen = ui.screen("invite")
        board_url = screen.address_text
        assert screen.ids.qr.texture is not None and screen._shown_url == board_url
        # Bram's code: the second button after "Board".
        choices = list(reversed(screen.ids.choices.children))
        assert [b.text for b in choices] == ["Board", "Anna", "Bram", "Cleo"]
        ui.tap(choices[2])
        bram_url = screen.address_text
        assert bram_url != board_url and "#k=" in bram_url

        await ui_wait(ui, phone.open(bram_url))
        await ui_wait(ui, tv.open(board_url))
        await ui_wait(ui, phone.wait("return document.getElementById('level-value')", "the seat"))
        assert await ui_wait(ui, phone.text(".who .name")) == "Bram"
        await ui.until(lambda: len(service.pages) == 2, "the host lists both pages")
        assert "1 phone on this seat" in screen.connected_text
        assert "Bram" in screen.pages_text

        await ui.until(
            lambda: (
                len(devices.statuses) >= 1 and all(s.access == "ours" for s in devices.statuses)
            ),
            "the virtual counters are ours",
        )
        board_key = next(s.key for s in devices.statuses if s.role == "board")
        # Its first picture may be the one it showed before it had the game (all lit, in
        # the idle colour): the game's, with Bram at Level 1, leaves space 2 dark.
        await ui.until(
            lambda: board_key in devices.frames and lit_space(devices.frames[board_key], 2) == 0,
            "the board shows the game, Bram at Level 1",
        )

        await ui_wait(ui, phone.click("[data-press=level_up]"))
        await ui.until(lambda: ui.app.session.state.players[1].level == 2, "Bram at Level 2")
        ui.nav("table")
        await ui.until(
            lambda: ui.screen("table").tiles[1].level == 2, "the host's Table shows Level 2"
        )
        await ui_wait(
            ui,
            tv.wait(
                "return document.querySelector('.token[data-seat=\"1\"]')"
                ".getAttribute('data-level') === '2'",
                "Bram at 2 on the board page",
            ),
        )
        await ui.until(
            lambda: lit_space(devices.frames[board_key], 2) > 0, "the LED board shows it"
        )
        last = ui.app.session.game.log[-1]
        assert last.source is not None and (last.source.via, last.source.seat) == ("phone", 1)
        ui.nav("history")
        await ui.until(
            lambda: (
                len(ui.screen("history").entries) > 0
                and ui.screen("history").entries[0].endswith("(from Bram's phone)")
            ),
            "History says the phone asked",
        )

        # A refused press says why on the phone, and changes nothing on the host.
        await ui_wait(ui, phone.click("[data-press=level_down]"))
        await ui.until(lambda: ui.app.session.state.players[1].level == 1, "back to 1")
        await ui_wait(ui, phone.click("[data-press=level_down]"))
        await ui_wait(
            ui,
            phone.wait(
                "return document.getElementById('toast').textContent.indexOf('never below 1') >= 0",
                "the reason",
            ),
        )
        assert ui.app.session.state.players[1].level == 1

        # Taken back from the Invite screen: the phone is told and cannot press any more.
        ui.nav("invite")
        ui.tap(list(reversed(screen.ids.choices.children))[2])
        ui.tap(screen.ids.take_back)
        await ui_wait(
            ui, phone.wait("return document.querySelector('.notice.taken')", "taken back")
        )
        assert (
            await ui_wait(ui, phone.run("return document.querySelectorAll('[data-press]').length"))
            == 0
        )
        assert screen.address_text != bram_url

        # Off: every page is told; the table plays on exactly as before.
        ui.tap(screen.ids.toggle)
        await ui.until(lambda: not service.running, "the link is off")
        await ui_wait(ui, tv.wait("return document.querySelector('.notice.off')", "link off"))
        assert service.keys.enabled is False
        ui.nav("table")
        ui.tap(ui.screen("table").tiles[0].ids.level.ids.plus)
        assert ui.app.session.state.players[0].level == 2
    finally:
        if service is not None and service.running:
            service.turn_off()
            await ui.until(lambda: not service.running, "the link is off")
        counters.cancel()
        await asyncio.gather(counters, return_exceptions=True)
        await asyncio.to_thread(lambda: None)
        await phone.close()
        await tv.close()


async def test_the_run_away_roll_is_offered_on_the_fighters_phone(ui: Harness) -> None:
    """The table waits for a losing fighter's roll whatever screen the host shows: the
    phone rolls with the Table on show, and the fight ends with the escape."""
    from companion.core import MonsterSpec, StartCombat
    from companion.web.client import TableClient
    from companion.web.keys import Role

    ui.start_game(["Anna", "Bram"])
    service = await turn_link_on(ui)
    anna = TableClient(service.link.url(Role("seat", 0), LOOPBACK))
    try:
        await ui_wait(ui, anna.connect())
        assert anna.view["roll"] is None  # no fight: nobody waits for a roll
        ui.app.session.act(StartCombat(fighter=0, monsters=(MonsterSpec(name="Slime", level=9),)))
        await ui_wait(ui, anna.wait_for(lambda v: v["roll"] is not None, what="the offer"))
        assert ui.app.manager.current != "run_away"
        answer = await ui_wait(ui, anna.roll(6))
        assert answer["ok"], answer
        log = ui.app.session.game.log
        assert log[-1].type == "run_away" and log[-1].roll == 6
        assert log[-1].source is not None and log[-1].source.seat == 0
        await ui.until(lambda: ui.app.session.game.state.combat is None, "the monster is gone")
        await ui_wait(ui, anna.wait_for(lambda v: v["roll"] is None, what="no more offer"))
    finally:
        await anna.close()
        service.turn_off()
        await ui.until(lambda: not service.running, "the link is off")


def test_the_invite_screen_works_with_the_link_off_and_fits_a_phone(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo", "Dev", "Eve"])
    ui.nav("invite")
    screen = ui.screen("invite")
    assert not screen.on and screen.ids.qr.texture is None
    assert screen.ids.toggle.height >= 48
    assert [b.text for b in reversed(screen.ids.choices.children)][-1] == "Eve"
    for button in screen.ids.choices.children:
        assert button.height >= 48 and button.width >= 48
