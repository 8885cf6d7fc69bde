"""The people a table plays with, kept beside the saved games: each with a name, the
colour and sex they played last, and the seats they sat in (`people` and `seats`).

A new game's seats are linked to people as its first save is written, in the same
transaction (a name nobody has makes a new person); games saved before people were kept
are linked by their names once, in the background (`PeopleShelf.link_waiting`). A
rename changes the person's name only, so every game they played stays theirs; a merge
moves one entry's seats to the other. The name a person had before either is kept as
their alias, so the name typed at a later New game still means them. Statistics read
each seat's person's name as it is now (`companion.store.stats`), so both follow at
once. The rules (which names and merges are allowed) are `companion.core.people`.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass

from companion.core.people import check_merge, new_person_name, person_key, unknown_person
from companion.plumbing.errors import StoreError
from companion.store.reading import Reader
from companion.store.writer import Job

log = logging.getLogger(__name__)

# Counts the changes of people's names and entries (renames, merges, the background
# linking), so a reader of statistics sees at a glance that names changed.
PEOPLE_WRITTEN_KEY = "people_written"
_COUNT_PEOPLE_WRITTEN = (
    f"INSERT INTO meta (key, value) VALUES ('{PEOPLE_WRITTEN_KEY}', '1') ON CONFLICT (key) "
    "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
)
# Games linked in one transaction by the background pass: small enough that a save
# waiting behind it is not held up noticeably.
LINK_BATCH = 100
# How long the background pass waits for one batch to be written (s).
LINK_WAIT_S = 30.0
# The colour and sex a person gets when a game's set-up cannot say (an old, damaged one).
DEFAULT_COLOUR = "#9e9e9e"
DEFAULT_SEX = "none"

_PEOPLE_QUERY = (
    "SELECT people.id, people.name, people.colour, people.sex, count(games.id), "
    "max(games.played), (SELECT json_group_array(aliases.name) FROM aliases "
    "WHERE aliases.person = people.id) FROM people LEFT JOIN seats ON seats.person = people.id "
    "LEFT JOIN games ON games.id = seats.game_id GROUP BY people.id "
    "ORDER BY max(games.played) DESC NULLS LAST, people.id DESC"
)
_WAITING_QUERY = (
    "SELECT id FROM games WHERE NOT EXISTS (SELECT 1 FROM seats WHERE seats.game_id = games.id) "
    "ORDER BY played"
)


@dataclass(frozen=True)
class Person:
    """Someone who played here: their name now, the colour and sex they played last, and
    how many saved games they sat in; `aliases` are the names they had before (merged
    into them or renamed from), which still mean them when typed."""

    id: int
    name: str
    colour: str
    sex: str
    games: int
    aliases: tuple[str, ...] = ()


def link_seats(
    conn: sqlite3.Connection, game_id: str, names: list[str], setup: object = None
) -> bool:
    """Link each seat of a game not linked yet to the person its name means, or meant
    before a merge or a rename (a new person when nobody has or had that name); the
    colour and sex of this game become the person's (its set-up `setup`, as parsed
    JSON). A name that two seats of one game share (an old save) links the first seat
    only. Runs on the writer thread; returns whether anything was linked."""
    linked = dict(conn.execute("SELECT seat, person FROM seats WHERE game_id = ?", (game_id,)))
    taken = set(linked.values())
    seats = setup.get("players") if isinstance(setup, dict) else None
    changed = False
    for seat, name in enumerate(names):
        if seat in linked or not name.strip():
            continue
        looks = seats[seat] if isinstance(seats, list) and seat < len(seats) else {}
        colour = looks.get("colour") if isinstance(looks, dict) else None
        sex = looks.get("sex") if isinstance(looks, dict) else None
        colour = colour if isinstance(colour, str) else DEFAULT_COLOUR
        sex = sex if isinstance(sex, str) else DEFAULT_SEX
        key = person_key(name)
        row = conn.execute(
            "SELECT coalesce((SELECT id FROM people WHERE key = ?1), "
            "(SELECT person FROM aliases WHERE key = ?1))",
            (key,),
        ).fetchone()
        if row[0] is None:
            person = conn.execute(
                "INSERT INTO people (name, key, colour, sex) VALUES (?, ?, ?, ?) RETURNING id",
                (name, key, colour, sex),
            ).fetchone()[0]
        else:
            person = row[0]
            if person in taken:
                continue
            conn.execute(
                "UPDATE people SET colour = ?, sex = ? WHERE id = ?", (colour, sex, person)
            )
        conn.execute(
            "INSERT INTO seats (game_id, seat, person) VALUES (?, ?, ?)", (game_id, seat, person)
        )
        taken.add(person)
        changed = True
    return changed


def forget_people_without_games(conn: sqlite3.Connection) -> None:
    """Forget the people no saved game has any more (their last one was deleted): only
    those who played here are kept. Writer thread."""
    conn.execute(
        "DELETE FROM people WHERE NOT EXISTS (SELECT 1 FROM seats WHERE seats.person = people.id)"
    )
    conn.execute("DELETE FROM aliases WHERE person NOT IN (SELECT id FROM people)")


def keep_alias(conn: sqlite3.Connection, name: str, person: int) -> None:
    """Keep `name` as a name `person` had before, so it means them when typed (writer
    thread)."""
    conn.execute(
        "INSERT INTO aliases (key, name, person) VALUES (?, ?, ?) ON CONFLICT (key) "
        "DO UPDATE SET name = excluded.name, person = excluded.person",
        (person_key(name), name, person),
    )


def link_games(conn: sqlite3.Connection, game_ids: list[str]) -> None:
    """Link the seats of games saved before people were kept, by their names (writer
    thread, one transaction)."""
    for game_id in game_ids:
        row = conn.execute("SELECT players, setup FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            continue  # deleted meanwhile
        names = _json(row[0])
        if not isinstance(names, list):
            continue
        link_seats(conn, game_id, [str(name) for name in names], _json(row[1]))
    conn.execute(_COUNT_PEOPLE_WRITTEN)


def _names(text: object) -> tuple[str, ...]:
    found = _json(text)
    return tuple(str(name) for name in found) if isinstance(found, list) else ()


def _json(text: object) -> object:
    try:
        return json.loads(str(text))
    except (ValueError, RecursionError):
        return None


def _link_batch(game_ids: list[str], conn: sqlite3.Connection) -> None:
    link_games(conn, game_ids)


class Linking:
    """Games saved before people were kept, being linked to people on a worker thread:
    how far it has got (`done` of `total`), and when it ends."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.finished = threading.Event()

    @property
    def running(self) -> bool:
        return not self.finished.is_set()

    def run(self, game_ids: list[str], submit: Callable[[Job], Job]) -> None:
        """Link the games in batches, each its own transaction. The thread's body."""
        try:
            for start in range(0, len(game_ids), LINK_BATCH):
                batch = game_ids[start : start + LINK_BATCH]
                submit(Job(functools.partial(_link_batch, batch))).wait(LINK_WAIT_S)
                self.done += len(batch)
        except StoreError as exc:  # a store closed or failing: the rest waits for next time
            log.warning("saved games could not all be linked to people: %s", exc)
        finally:
            self.finished.set()


class PeopleShelf:
    """The people of one store: listed, renamed and merged, and the games saved before
    linked to them. `submit` queues a job for the store's writer thread; `flush` waits a
    moment for saves on their way."""

    def __init__(
        self,
        reader: Reader,
        submit: Callable[[Job], Job],
        flush: Callable[[], object],
        wait_s: float,
    ) -> None:
        self._reader = reader
        self._submit = submit
        self._flush = flush
        self._wait_s = wait_s
        self._linking: Linking | None = None
        # How many games there were when none was found waiting: every game saved since
        # in this program is linked as it is saved, so until a game comes or goes from
        # elsewhere there is nothing to look for (a look reads every game's row).
        self._none_waiting_among: object = None

    def list(self) -> list[Person]:
        """Everyone who played here, the one who played last first."""
        self._flush()
        if self._reader.source is not None:
            return []  # the user's games are read-only for now: their people are there
        return [
            Person(
                int(str(pid)), str(name), str(colour), str(sex), int(str(games)), _names(aliases)
            )
            for pid, name, colour, sex, games, _last, aliases in self._reader.all(_PEOPLE_QUERY, ())
        ]

    def colours(self) -> dict[str, str]:
        """Each person's name and the colour they played last (one small query: their
        games are not counted)."""
        if self._reader.source is not None:
            return {}
        rows = self._reader.all("SELECT name, colour FROM people", ())
        return {str(name): str(colour) for name, colour in rows}

    def find(self, name: str) -> Person:
        """The person `name` means (case and spacing aside); RuleError when nobody."""
        key = person_key(name) if name.strip() else ""
        for person in self.list():
            if person_key(person.name) == key:
                return person
        raise unknown_person(name)

    def rename(self, old: str, new: str) -> Person:
        """Give the person called `old` the name `new`; every game they played stays
        theirs, and `old` stays a name that means them (until someone else takes it as
        their name). RuleError: nobody is called `old`, or `new` is blank or looks like
        someone else's name."""
        person = self.find(old)
        others = [p.name for p in self.list() if p.id != person.id]
        name = new_person_name(new, others)
        self._writable()

        def write(conn: sqlite3.Connection) -> None:
            # The new name is this person's own now, whoever had it before.
            conn.execute("DELETE FROM aliases WHERE key = ?", (person_key(name),))
            if person_key(person.name) != person_key(name):
                keep_alias(conn, person.name, person.id)
            conn.execute(
                "UPDATE people SET name = ?, key = ? WHERE id = ?",
                (name, person_key(name), person.id),
            )
            conn.execute(_COUNT_PEOPLE_WRITTEN)

        self._submit(Job(write)).wait(self._wait_s)
        return self.find(name)

    def merge(self, gone: str, kept: str) -> Person:
        """Count the entry `gone` as the person `kept` from now on: its games become
        theirs and the entry goes, its name (and the names it had) kept as `kept`'s.
        RuleError: either is nobody, they are one entry, or
        they played in the same game."""
        first, second = self.find(gone), self.find(kept)
        together = self._reader.one(
            "SELECT 1 FROM seats AS a JOIN seats AS b ON a.game_id = b.game_id "
            "WHERE a.person = ? AND b.person = ? LIMIT 1",
            (first.id, second.id),
        )
        same = first.id == second.id
        check_merge(first.name, second.name, same=same, played_together=together is not None)
        self._writable()

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE seats SET person = ? WHERE person = ?", (second.id, first.id))
            conn.execute("UPDATE aliases SET person = ? WHERE person = ?", (second.id, first.id))
            conn.execute("DELETE FROM people WHERE id = ?", (first.id,))
            keep_alias(conn, first.name, second.id)
            conn.execute(_COUNT_PEOPLE_WRITTEN)

        self._submit(Job(write)).wait(self._wait_s)
        return self.find(second.name)

    def link_waiting(self) -> Linking:
        """Link, once, on a worker thread, the games saved before people were kept (by
        their players' names); returns how far it has got."""
        running = self._linking
        if running is not None and running.running:
            return running
        found: list[tuple[object, ...]] = []
        if self._reader.source is None:
            games = self._reader.one("SELECT count(*) FROM games", ())
            if games is None or games != self._none_waiting_among:
                found = self._reader.all(_WAITING_QUERY, ())
                self._none_waiting_among = None if found else games
        job = self._linking = Linking(len(found))
        if not found:
            job.finished.set()
            return job
        threading.Thread(
            target=job.run,
            args=([str(row[0]) for row in found], self._submit),
            name="companion-store-people",
            daemon=True,
        ).start()
        return job

    def _writable(self) -> None:
        if self._reader.source is not None:
            raise StoreError(
                f"{self._reader.home}: the saved games cannot be changed now, so nobody "
                "is renamed or merged"
            )
