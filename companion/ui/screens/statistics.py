"""Statistics: wins per player as bars, games per month, each player's Level at the end of
their last games, and the table's and each player's figures over the saved games, for
every edition or one, for everyone or one player. Read from the summaries the store keeps
(no game is opened)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, StringProperty

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

    summary_text = StringProperty("")
    has_wins = BooleanProperty(False)
    # What the two choices show: the edition ("" for all) and the player ("" for everyone).
    edition_text = StringProperty("")
    player_text = StringProperty("")
    has_months = BooleanProperty(False)
    months_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The wall clock, for the month "now" is in (a test sets its own).
        self.wall_clock: Callable[[], float] = time.time
        self._summarising: Any = None
        self._watch: Any = None
        self._linking: Any = None
        self._stored: Any = None
        # The edition id and the player's name chosen (None: all of them).
        self.edition: str | None = None
        self.player: str | None = None
        # The pop-up list of editions or players on show, if any.
        self.picker: ListPicker | None = None

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
            return True
        self._watch = None
        self._summarising = None
        self._linking = None
        self.refresh()
        return False

    def show(self, stats: Any) -> None:
        """Draw the figures given (a `TableStatistics`) and the pictures of the same games."""
        self._shown = stats
        self.edition_text = (
            _edition_name(self.edition) if self.edition is not None else _("All editions")
        )
        self.player_text = self.player if self.player is not None else _("Everyone")
        self.show_summary(stats, self._summarising)
        swatches = self._swatches()
        players = stats.players
        one = self.player is not None
        most = max((figures.wins for figures in players), default=0)
        self.has_wins = most > 0 and not one
        bars = self.ids.bars
        bars.clear_widgets()
        if self.has_wins:
            for number, figures in enumerate(players):
                bar = Factory.WinBar()
                bar.name = figures.name
                bar.count = str(figures.wins)
                bar.share = figures.wins / most
                bar.swatch = swatches(figures.name, number)
                bars.add_widget(bar)
        trends = None
        if self._stored is not None and stats.table.games:
            this_month = local_month(self.wall_clock())
            trends = self._stored.trends(
                month_of=local_month,
                this_month=this_month,
                player=self.player,
                edition=self.edition,
            )
        months: tuple[tuple[Month, int], ...] = trends.months if trends is not None else ()
        self.has_months = any(count for _month, count in months)
        self.ids.months.months = (
            [(month_name(month), count) for month, count in months] if self.has_months else []
        )
        self.months_text = months_span(months[0][0], months[-1][0]) if self.has_months else ""
        blocks = self.ids.blocks
        blocks.clear_widgets()
        if not stats.table.games:
            return
        shown = [(f.name, f, swatches(f.name, n)) for n, f in enumerate(players)]
        if not one:
            shown.insert(0, (_("The table"), stats.table, None))
        for name, figures, swatch in shown:
            block = Factory.FiguresBlock()
            block.name = name
            block.detail = figures_text(figures)
            finishes = trends.finishes(figures.name) if trends is not None and swatch else ()
            if finishes:
                block.finishes = [(finish.level, finish.won) for finish in finishes]
                block.swatch = swatch
                block.strip_text = ngettext(
                    "Level at the end of the last game ({won} won)",
                    "Level at the end of the last {n} games, oldest first ({won} won)",
                    len(finishes),
                ).format(n=len(finishes), won=WON_SIGN)
            blocks.add_widget(block)

    def _swatches(self) -> Any:
        """Each player's colour: the one they played last, else one of the bar colours."""
        try:
            known = {
                player_key(person.name): person.colour
                for person in self.session.games.people.list()
            }
        except StoreError:
            known = {}

        def swatch(name: str, number: int) -> list[float]:
            return list(colour(known.get(player_key(name), BAR_COLOURS[number % len(BAR_COLOURS)])))

        return swatch

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
