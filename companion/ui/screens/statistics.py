"""Statistics: wins per player as bars, and the table's and each player's figures over
the saved games, read from the summaries the store keeps (no game is opened)."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, StringProperty

from companion.ui.i18n import _, ngettext
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour

# How often the progress of the older games being summarised is looked at (s).
PROGRESS_EVERY_S = 0.25
# Bars take the colours players most often pick, in turn (a player has no colour of
# their own across games).
BAR_COLOURS = ("#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00", "#00acc1")


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


class StatisticsScreen(CompanionScreen):
    """Wins per player, and everyone's figures, over every saved game."""

    summary_text = StringProperty("")
    has_wins = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._summarising: Any = None
        self._watch: Any = None
        self._linking: Any = None

    def refresh(self) -> None:
        store = self.session.games
        # Games saved before people were kept count under the people their names mean.
        linking = store.people.link_waiting()
        stored = store.statistics()
        if (stored.waiting or linking.running) and self._summarising is None:
            self._summarising = store.summarise_waiting()
            self._linking = linking
            self._watch = Clock.schedule_interval(self._progress, PROGRESS_EVERY_S)
        self.show(stored.figures())

    def open_people(self) -> None:
        """Everyone who played here, to rename or merge."""
        self.app.show("people")

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
        """Draw the figures given (a `TableStatistics`)."""
        self._shown = stats
        self.show_summary(stats, self._summarising)
        players = stats.players
        most = max((figures.wins for figures in players), default=0)
        self.has_wins = most > 0
        bars = self.ids.bars
        bars.clear_widgets()
        if most:
            for number, figures in enumerate(players):
                bar = Factory.WinBar()
                bar.name = figures.name
                bar.count = str(figures.wins)
                bar.share = figures.wins / most
                bar.swatch = colour(BAR_COLOURS[number % len(BAR_COLOURS)])
                bars.add_widget(bar)
        blocks = self.ids.blocks
        blocks.clear_widgets()
        if not stats.table.games:
            return
        for name, figures in ((_("The table"), stats.table), *[(f.name, f) for f in players]):
            block = Factory.FiguresBlock()
            block.name = name
            block.detail = figures_text(figures)
            blocks.add_widget(block)

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
