"""People: everyone who played here, with how many games each and the names they had
before; tap one to rename them or to count another entry as the same person (after
asking). Their games, statistics and old names go with them (`companion.store.people`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty

from companion.core.errors import RuleError
from companion.plumbing.errors import StoreError
from companion.ui.i18n import _, ngettext, tr
from companion.ui.picker import Choice, ListPicker, pick_one
from companion.ui.screens.base import CompanionScreen
from companion.ui.theme import colour

if TYPE_CHECKING:
    from companion.store.people import Person

# How often the linking of older games to people is looked at while it runs (s).
PROGRESS_EVERY_S = 0.25
# A row with the names a person had before is taller, for that second line (both
# >= 48 dp: a thumb's tap; every row's height is fixed, so the list never jumps).
ROW_HEIGHTS = {False: dp(56), True: dp(68)}


def games_text(count: int) -> str:
    """ "3 games" in the language on show."""
    return ngettext("{n} game", "{n} games", count).format(n=count)


def old_names(person: Person) -> str:
    """The names a person had before, in alphabetical order: "Ann B., Annie"."""
    return ", ".join(sorted(person.aliases, key=str.casefold))


def also_played_as(person: Person) -> str:
    """ "also played as Ann B., Annie", under a person's name ("" when they had no other)."""
    names = old_names(person)
    return _("also played as {names}").format(names=names) if names else ""


class PeopleScreen(CompanionScreen):
    """Everyone who played here; rename one, or merge two entries into one person."""

    summary_text = StringProperty("")
    # The person tapped ("" while nobody is), and the question before a merge.
    chosen_name = StringProperty("")
    # The names the person tapped had before, which a rename keeps ("" when none).
    chosen_aliases = StringProperty("")
    merge_text = StringProperty("")
    editing = BooleanProperty(False)
    asking = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.people: list[Any] = []
        self._chosen: Any = None
        self._into: Any = None
        self._linking: Any = None
        self._watch: Any = None
        # The pop-up list of the others on show, if any.
        self.picker: ListPicker | None = None

    def refresh(self) -> None:
        store = self.session.games
        linking = store.people.link_waiting()
        if linking.running and self._watch is None:
            self._linking = linking
            self._watch = Clock.schedule_interval(self._progress, PROGRESS_EVERY_S)
        try:
            self.people = store.people.list()
        except StoreError as exc:
            self.app.notify(str(exc), error=True)
            self.people = []
        chosen = self._chosen
        if chosen is not None:
            self._chosen = next((p for p in self.people if p.id == chosen.id), None)
        self._show()

    def on_leave(self, *_args: Any) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        self._linking = None
        self.cancel()
        self._chosen = None
        self._show()

    def _progress(self, _dt: float) -> bool:
        job = self._linking
        if job is not None and job.running:
            self._show()
            return True
        self._watch = None
        self._linking = None
        self.refresh()
        return False

    def _show(self) -> None:
        count = len(self.people)
        said = [
            ngettext("{n} person has played here.", "{n} people have played here.", count).format(
                n=count
            )
            if count
            else _("Nobody has played here yet.")
        ]
        job = self._linking
        if job is not None and job.running:
            said.append(
                _("Finding who played the older games: {done} of {total}").format(
                    done=job.done, total=job.total
                )
            )
        elif count:
            said.append(_("Tap someone to rename them, or to merge two entries for one person."))
        self.summary_text = " ".join(said)
        chosen = self._chosen
        self.ids.people.data = [
            {
                "owner": self,
                "person_id": person.id,
                "name": person.name,
                "detail": games_text(person.games),
                "aliases": also_played_as(person),
                "height": ROW_HEIGHTS[bool(person.aliases)],
                "swatch": colour(person.colour),
                "selected": chosen is not None and person.id == chosen.id,
            }
            for person in self.people
        ]
        self.chosen_name = chosen.name if chosen is not None else ""
        kept = old_names(chosen) if chosen is not None else ""
        self.chosen_aliases = (
            _("Old names, kept after a rename: {names}").format(names=kept) if kept else ""
        )
        self.editing = chosen is not None and not self.asking

    # -- what a tap does --------------------------------------------------------------
    def choose(self, person_id: int) -> None:
        """Tap a person: their name, ready to change, and a way to merge them."""
        self.cancel()
        found = next((p for p in self.people if p.id == person_id), None)
        if found is not None and self._chosen is not None and found.id == self._chosen.id:
            found = None  # a second tap puts them down again
        self._chosen = found
        self.ids.new_name.text = found.name if found is not None else ""
        self._show()

    def rename(self) -> None:
        """Give the person tapped the name typed."""
        chosen = self._chosen
        if chosen is None:
            return
        new = self.ids.new_name.text
        try:
            person = self.session.games.people.rename(chosen.name, new)
        except RuleError as exc:
            self.app.notify(tr(exc), error=True)
            return
        except StoreError as exc:
            self.app.notify(str(exc), error=True)
            return
        self.app.notify(_("{old} is now called {new}.").format(old=chosen.name, new=person.name))
        self._chosen = person
        self.refresh()

    def pick_same(self) -> ListPicker | None:
        """The others who played here, to say which of them the person tapped is."""
        chosen = self._chosen
        if chosen is None:
            return None
        others = [
            Choice(person.id, person.name, games_text(person.games))
            for person in self.people
            if person.id != chosen.id
        ]
        if not others:
            self.app.notify(_("Nobody else has played here."), error=True)
            return None
        title = _("{name} is the same person as…").format(name=chosen.name)
        self.picker = pick_one(title, others, None, self.ask_merge)
        return self.picker

    def ask_merge(self, person_id: int) -> None:
        """Ask before counting the person tapped as the one picked."""
        chosen = self._chosen
        into = next((p for p in self.people if p.id == person_id), None)
        if chosen is None or into is None:
            return
        self._into = into
        self.merge_text = ngettext(
            "Count {gone}'s {n} game as {kept}'s from now on? {gone} then leaves the list. "
            "This cannot be undone.",
            "Count {gone}'s {n} games as {kept}'s from now on? {gone} then leaves the list. "
            "This cannot be undone.",
            chosen.games,
        ).format(gone=chosen.name, kept=into.name, n=chosen.games)
        self.asking = True
        self._show()

    def merge(self) -> None:
        """Merge, once asked: the person tapped counts as the one picked from now on."""
        chosen, into = self._chosen, self._into
        if chosen is None or into is None:
            return
        try:
            person = self.session.games.people.merge(chosen.name, into.name)
        except RuleError as exc:
            self.cancel()
            self.app.notify(tr(exc), error=True)
            self._show()
            return
        except StoreError as exc:
            self.cancel()
            self.app.notify(str(exc), error=True)
            self._show()
            return
        self.cancel()
        self.app.notify(
            _("{gone} counts as {kept} now.").format(gone=chosen.name, kept=person.name)
        )
        self._chosen = None
        self.refresh()

    def cancel(self) -> None:
        """Do not merge after all."""
        self._into = None
        self.merge_text = ""
        self.asking = False
        if self._chosen is not None:
            self.editing = True
