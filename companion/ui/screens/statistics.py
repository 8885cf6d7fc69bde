"""Statistics: wins per player as bars, games per month, each player's Level at the end of
their last games, and the table's and each player's figures over the saved games, for
every edition or one, for everyone or one player. Read from the summaries the store keeps
(no game is opened).

The page is one list that builds only the rows on screen (as Saved games does), so
opening it costs the same with 8 players or 80, and after a save only the rows in view
are drawn again. Each row's height is worked out from its words before it is built (the
words' layout, without drawing them), so nothing moves once it shows.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.metrics import dp

from companion.core.models import EDITIONS
from companion.core.statistics import player_key
from companion.core.trends import Month
from companion.plumbing.errors import StoreError
from companion.ui.charts import WON_SIGN
from companion.ui.i18n import N_, _, ngettext
from companion.ui.labels import edition_title
from companion.ui.picker import Choice, ListPicker, pick_one
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour

# How often the progress of the older games being summarised is looked at (s).
PROGRESS_EVERY_S = 0.25
# Bars take the colours players most often pick, in turn (a player has no colour of
# their own across games).
BAR_COLOURS = ("#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00", "#00acc1")
# The months under the games-per-month bars, short.
MONTH_NAMES = (
    N_("Jan"),
    N_("Feb"),
    N_("Mar"),
    N_("Apr"),
    N_("May"),
    N_("Jun"),
    N_("Jul"),
    N_("Aug"),
    N_("Sep"),
    N_("Oct"),
    N_("Nov"),
    N_("Dec"),
)


@functools.lru_cache(maxsize=8192)
def local_month(at: float) -> Month:
    """The month a moment falls in, here (a time no clock can show counts as 1970's)."""
    try:
        moment = time.localtime(at)
    except (OverflowError, OSError, ValueError):
        return (1970, 1)
    return (moment.tm_year, moment.tm_mon)


def month_name(month: Month) -> str:
    return _(MONTH_NAMES[month[1] - 1])


def months_span(first: Month, last: Month) -> str:
    """ "Dec 2025 – Nov 2026": the months a picture covers."""
    return _("{first} {first_year} – {last} {last_year}").format(
        first=month_name(first), first_year=first[0], last=month_name(last), last_year=last[0]
    )


def figures_text(figures: Any) -> str:
    """The lines of one block of figures (the table's or a player's)."""
    totals = figures.totals
    lines = [
        " · ".join(
            (
                ngettext("{n} game", "{n} games", figures.games).format(n=figures.games),
                ngettext("{n} win", "{n} wins", figures.wins).format(n=figures.wins)
                + f" ({figures.win_rate:.0%})",
                _("average Level {level}").format(level=f"{figures.average_level:.1f}"),
            )
        ),
        _(
            "Kills {kills} · deaths {deaths} · helped kills {helped} · levels from kills {levels}"
        ).format(
            kills=totals.kills,
            deaths=totals.deaths,
            helped=totals.helped_kills,
            levels=totals.kill_levels,
        ),
        _("Sales {sales} · levels bought {levels}").format(
            sales=totals.sales, levels=totals.sale_levels
        ),
        _("Fastest win: {turns}").format(turns=_turns(figures.fastest_win)),
        _("Longest game: {turns}").format(turns=_turns(figures.longest_game)),
        _("Monsters met most: {names}").format(names=_names(figures.most_met())),
        _("Monsters that killed most: {names}").format(names=_names(figures.most_killing())),
        _("Items used most: {names}").format(names=_names(figures.most_used())),
    ]
    return "\n".join(lines)


def _turns(record: Any) -> str:
    if record is None:
        return "—"
    return ngettext("{n} turn", "{n} turns", record.turns).format(n=record.turns)


def _names(top: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name} ({count})" for name, count in top) or "—"


def _games(count: int) -> str:
    return ngettext("{n} game", "{n} games", count).format(n=count)


def _edition_name(edition_id: str) -> str:
    """An edition by its box's name; a game of an edition this app no longer knows, by
    its id."""
    edition = EDITIONS.get(edition_id)
    return edition_title(edition) if edition is not None else edition_id


class StatisticsScreen(CompanionScreen):
    """Wins per player, games per month, each player's last games and everyone's
    figures, over every saved game or those of one edition, for everyone or one player."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The wall clock, for the month "now" is in (a test sets its own).
        self.wall_clock: Callable[[], float] = time.time
        self._summarising: Any = None
        self._watch: Any = None
        self._linking: Any = None
        self._stored: Any = None
        self._shown: Any = None
        # The edition id and the player's name chosen (None: all of them).
        self.edition: str | None = None
        self.player: str | None = None
        # The pop-up list of editions or players on show, if any.
        self.picker: ListPicker | None = None
        # What the page shows, row by row (the list's data), and its summary line.
        self.summary_text = ""
        self.edition_text = ""
        self.player_text = ""
        self.months_text = ""
        self.has_wins = False
        self.has_months = False

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The page's rows, top to bottom, as the list shows them."""
        return list(self.ids.page.data)

    def rows_of(self, kind: str) -> list[dict[str, Any]]:
        """The rows of one kind ("WinBar", "FiguresBlock", "StatsMonths", ...)."""
        return [row for row in self.ids.page.data if row["viewclass"] == kind]

    def refresh(self) -> None:
        store = self.session.games
        # Games saved before people were kept count under the people their names mean.
        linking = store.people.link_waiting()
        stored = store.statistics()
        if (stored.waiting or linking.running) and self._summarising is None:
            self._summarising = store.summarise_waiting()
            self._linking = linking
            self._watch = Clock.schedule_interval(self._progress, PROGRESS_EVERY_S)
        self._stored = stored
        everyone = stored.figures()
        # A choice the games no longer hold (deleted, renamed away) goes back to all.
        if self.edition is not None and self.edition not in everyone.editions:
            self.edition = None
        if self.player is not None and player_key(self.player) not in {
            player_key(figures.name) for figures in everyone.players
        }:
            self.player = None
        self.show(stored.figures(player=self.player, edition=self.edition))

    def open_people(self) -> None:
        """Everyone who played here, to rename or merge."""
        self.app.show("people")

    # -- which games --------------------------------------------------------------------
    def choose_edition(self) -> ListPicker:
        """All editions, or one of those the saved games were played in."""
        counts = self._stored.figures().editions if self._stored is not None else {}
        choices = [Choice("", _("All editions"), _games(sum(counts.values())))]
        choices += [
            Choice(edition_id, _edition_name(edition_id), _games(count))
            for edition_id, count in sorted(counts.items(), key=lambda item: -item[1])
        ]
        self.picker = pick_one(_("Edition"), choices, self.edition or "", self.use_edition)
        return self.picker

    def use_edition(self, edition_id: str) -> None:
        self.edition = edition_id or None
        self.refresh()

    def choose_player(self) -> ListPicker:
        """Everyone, or one player: their figures and their last games."""
        players = self._stored.figures().players if self._stored is not None else []
        choices = [Choice("", _("Everyone"), "")]
        choices += [
            Choice(figures.name, figures.name, _games(figures.games)) for figures in players
        ]
        self.picker = pick_one(_("Player"), choices, self.player or "", self.use_player)
        return self.picker

    def use_player(self, name: str) -> None:
        self.player = name or None
        self.ids.page.scroll_y = 1.0
        self.refresh()

    def on_leave(self, *_args: Any) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        self._summarising = None

    def _progress(self, _dt: float) -> bool:
        job = self._summarising
        if job is None:
            return False
        if job.running or (self._linking is not None and self._linking.running):
            self.show_summary(self._shown, job)
            self._lay_out()
            return True
        self._watch = None
        self._summarising = None
        self._linking = None
        self.refresh()
        return False

    # -- what the page shows ------------------------------------------------------------
    def show(self, stats: Any) -> None:
        """Show the figures given (a `TableStatistics`) and the pictures of the same games."""
        self._shown = stats
        self.edition_text = (
            _edition_name(self.edition) if self.edition is not None else _("All editions")
        )
        self.player_text = self.player if self.player is not None else _("Everyone")
        self.show_summary(stats, self._summarising)
        players = stats.players
        one = self.player is not None
        most = max((figures.wins for figures in players), default=0)
        self.has_wins = most > 0 and not one
        trends = None
        if self._stored is not None and stats.table.games:
            trends = self._stored.trends(
                month_of=local_month,
                this_month=local_month(self.wall_clock()),
                player=self.player,
                edition=self.edition,
            )
        months: tuple[tuple[Month, int], ...] = trends.months if trends is not None else ()
        self.has_months = any(count for _month, count in months)
        self.months_text = months_span(months[0][0], months[-1][0]) if self.has_months else ""
        self._parts = (stats, trends, months, most)
        self._lay_out()

    def _lay_out(self) -> None:
        """The rows of the page, each with its height, into the list."""
        stats, trends, months, most = self._parts
        width = self._text_width()
        theme = self.app.theme
        rows: list[dict[str, Any]] = [
            _words(self.summary_text, theme.small, width, dim=True),
            {
                "viewclass": "StatsChoices",
                "owner": self,
                "edition_text": self.edition_text,
                "player_text": self.player_text,
                "height": dp(56),
            },
            {"viewclass": "StatsPeople", "owner": self, "height": dp(52)},
        ]
        swatch = self._swatches()
        if self.has_wins:
            rows.append(_heading(_("Wins"), theme.heading, width))
            rows += [
                {
                    "viewclass": "WinBar",
                    "name": figures.name,
                    "count": str(figures.wins),
                    "share": figures.wins / most,
                    "swatch": swatch(figures.name, number),
                    "height": _line_height(theme.small) + dp(30),
                }
                for number, figures in enumerate(stats.players)
            ]
        if self.has_months:
            rows.append(_heading(_("Games per month"), theme.heading, width))
            rows.append(
                {
                    "viewclass": "StatsMonths",
                    "months": [(month_name(month), count) for month, count in months],
                    "height": dp(120),
                }
            )
            rows.append(_words(self.months_text, theme.small, width, dim=True))
        if stats.table.games:
            shown: list[tuple[str, Any, list[float] | None]] = [
                (f.name, f, swatch(f.name, n)) for n, f in enumerate(stats.players)
            ]
            if self.player is None:
                shown.insert(0, (_("The table"), stats.table, None))
            for name, figures, colour_of in shown:
                finishes = trends.finishes(figures.name) if trends is not None and colour_of else ()
                rows.append(_block(name, figures, finishes, colour_of, theme, width))
        self.ids.page.data = rows

    def _text_width(self) -> float:
        """How wide a row's words may be: the page less its margins (and a block's)."""
        return max(dp(100), (self.width or 360) - dp(20))

    def _swatches(self) -> Callable[[str, int], list[float]]:
        """Each player's colour: the one they played last, else one of the bar colours."""
        try:
            known = {
                player_key(name): value
                for name, value in self.session.games.people.colours().items()
            }
        except StoreError:
            known = {}

        def swatch(name: str, number: int) -> list[float]:
            fallback = BAR_COLOURS[number % len(BAR_COLOURS)]
            return list(colour(known.get(player_key(name), fallback)))

        return swatch

    def on_size(self, *_args: Any) -> None:
        if self._shown is not None:  # the words wrap at another width
            self._lay_out()

    def show_summary(self, stats: Any, job: Any) -> None:
        games = stats.table.games
        said = [
            ngettext("{n} game saved", "{n} games saved", games).format(n=games)
            if games
            else _("No games saved yet")
        ]
        if stats.unreadable:
            said.append(
                ngettext(
                    "{n} game could not be read", "{n} games could not be read", stats.unreadable
                ).format(n=stats.unreadable)
            )
        if job is not None and job.running:
            said.append(
                _("Summarising older games: {done} of {total}").format(
                    done=job.done, total=job.total
                )
            )
        self.summary_text = " · ".join(said)


# A block's padding, and the room around its name and its picture.
_BLOCK_PAD = dp(10)
_STRIP_HEIGHT = dp(96)


def _block(
    name: str,
    figures: Any,
    finishes: tuple[Any, ...],
    swatch: list[float] | None,
    theme: Any,
    width: float,
) -> dict[str, Any]:
    """One player's (or the table's) figures, with their last games under them."""
    inner = width - 2 * _BLOCK_PAD
    detail = figures_text(figures)
    row: dict[str, Any] = {
        "viewclass": "FiguresBlock",
        "name": name,
        "detail": detail,
        "finishes": [],
        "strip_text": "",
        "swatch": swatch or [1, 1, 1, 1],
    }
    height = 2 * dp(6) + _measure(name, theme.button, inner, True) + dp(6)
    height += _measure(detail, theme.small, inner, False, 1.15) + dp(4)
    if finishes:
        strip_text = ngettext(
            "Level at the end of the last game ({won} won)",
            "Level at the end of the last {n} games, oldest first ({won} won)",
            len(finishes),
        ).format(n=len(finishes), won=WON_SIGN)
        row["finishes"] = [(finish.level, finish.won) for finish in finishes]
        row["strip_text"] = strip_text
        height += _measure(strip_text, theme.small, inner, False, font="DejaVuSans") + dp(4)
        height += _STRIP_HEIGHT
    row["height"] = height
    return row


def _words(text: str, size: float, width: float, dim: bool = False) -> dict[str, Any]:
    return {
        "viewclass": "StatsWords",
        "text": text,
        "dim": dim,
        "font_size": size,
        "height": _measure(text, size, width, False) + dp(4),
    }


def _heading(text: str, size: float, width: float) -> dict[str, Any]:
    return {
        "viewclass": "StatsHeading",
        "text": text,
        "height": _measure(text, size, width, True) + dp(8),
    }


def _line_height(size: float) -> float:
    return _measure("Ag", size, dp(1000), False)


@functools.lru_cache(maxsize=1024)
def _measure(
    text: str,
    size: float,
    width: float,
    bold: bool,
    line_height: float = 1.0,
    font: str = "Roboto",
) -> float:
    """How tall `text` is when wrapped at `width`: its layout worked out, not drawn."""
    label = CoreLabel(
        text=text or " ",
        font_size=size,
        font_name=font,
        bold=bold,
        text_size=(width, None),
        line_height=line_height,
        halign="left",
    )
    return float(label.render()[1])
