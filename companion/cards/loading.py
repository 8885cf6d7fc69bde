"""Finding, reading and cross-checking pack and edition files (built-in and the user's own)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from companion import core
from companion.cards.problems import (
    LineIndex,
    PackError,
    Problem,
    describe_card,
    find_line,
    problems_from_validation,
)
from companion.cards.schema import CARD_TYPES, CONDITION_KINDS, Card, EditionFile, Pack
from companion.cards.search import NameIndex
from companion.plumbing.errors import NotAFileError
from companion.plumbing.files import read_capped, special_file
from companion.plumbing.places import shipped, user_data_dir

HUMAN = "Human"  # the rules engine's race of a character with no race card


def builtin_cards_dir() -> Path:
    """The `cards/` folder shipped with the app (packs/ and editions/ inside)."""
    return shipped("cards")


def user_packs_dir() -> Path:
    """Where the user's own pack files go; they load beside the built-in ones."""
    return user_data_dir() / "packs"


def toml_files(path: Path) -> list[Path]:
    """A .toml file itself, or every .toml name under a folder, in a stable order.

    A name that is no regular file (a named pipe, a link to a device, a link to
    nothing) is listed too: reading it is refused with a problem that says what it is,
    as for every other hostile file, rather than skipping it without a word."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*.toml") if not p.is_dir())
    return [path] if path.exists() or path.is_symlink() else []


@dataclass(frozen=True)
class LoadedPack:
    """A validated pack and where it came from."""

    pack: Pack
    path: Path
    user: bool = False


# The built-in packs are a few dozen kilobytes; a file far larger is a mistake.
MAX_PACK_BYTES = 10_000_000


def _read_toml(path: Path) -> tuple[dict[str, Any], str]:
    kind = special_file(path)
    if kind is not None:  # never opened: a pipe would wait for ever, a device never ends
        raise PackError([Problem(path, f"{kind}, not a file the app can read")])
    try:
        size = path.stat().st_size
        if size > MAX_PACK_BYTES:
            raise PackError(
                [Problem(path, f"the file is {size:,} bytes; a pack may have {MAX_PACK_BYTES:,}")]
            )
        text = read_capped(path, MAX_PACK_BYTES).decode("utf-8")
    except NotAFileError as exc:  # it became one between the look and the read
        raise PackError([Problem(path, str(exc).removeprefix(f"{path}: "))]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError([Problem(path, f"cannot read the file: {exc}")]) from exc
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise PackError([Problem(path, f"not valid TOML: {exc}")]) from exc
    except RecursionError:
        # The parser recurses once per bracket; no card needs more than a few levels.
        raise PackError([Problem(path, "not valid TOML: brackets nested too deeply")]) from None


def is_edition_file(path: Path) -> bool:
    """Edition files live in a folder called `editions`; everything else is a pack."""
    return path.parent.name == "editions"


def read_pack(path: Path, *, user: bool = False) -> LoadedPack:
    """Read and validate one pack file; raises PackError listing every mistake in it."""
    raw, text = _read_toml(path)
    try:
        pack = Pack.model_validate(raw)
    except ValidationError as exc:
        raise PackError(problems_from_validation(path, text, raw, exc, CARD_TYPES, Pack)) from None
    return LoadedPack(pack=pack, path=path, user=user)


def read_edition(path: Path) -> EditionFile:
    """Read and validate one edition file; its id must match the file name."""
    raw, text = _read_toml(path)
    try:
        edition = EditionFile.model_validate(raw)
    except ValidationError as exc:
        raise PackError(problems_from_validation(path, text, raw, exc, {}, EditionFile)) from None
    if edition.id != path.stem:
        raise PackError(
            [
                Problem(
                    path,
                    f"id {edition.id!r} must match the file name ({path.stem!r})",
                    line=find_line(text, None, 0, "id"),
                    field="id",
                )
            ]
        )
    return edition


def read_editions(directory: Path | None = None) -> dict[str, EditionFile]:
    """Every edition file in `directory` (default: the built-in editions), by id."""
    folder = directory if directory is not None else builtin_cards_dir() / "editions"
    editions: dict[str, EditionFile] = {}
    problems: list[Problem] = []
    for path in toml_files(folder):
        try:
            edition = read_edition(path)
        except PackError as exc:
            problems.extend(exc.problems)
            continue
        editions[edition.id] = edition
    if problems:
        raise PackError(problems)
    return editions


def load_editions(directory: Path | None = None) -> dict[str, core.Edition]:
    """Every edition, as the rules engine takes it, by id (classic, fu, oz, ...)."""
    return {key: edition.to_edition() for key, edition in read_editions(directory).items()}


def load_edition(edition_id: str, directory: Path | None = None) -> core.Edition:
    """One edition by id; raises ValueError naming the known ones."""
    editions = load_editions(directory)
    try:
        return editions[edition_id]
    except KeyError:
        raise ValueError(
            f"no edition is called {edition_id!r}; known: {', '.join(sorted(editions))}"
        ) from None


def _trait_refs(card: Card) -> Iterable[tuple[str, str, str]]:
    """(field path, trait kind, trait name) for every class/race/... a card refers to."""
    conditional: list[tuple[str, Any]] = []
    for attribute in ("modifiers", "grants"):
        for number, entry in enumerate(getattr(card, attribute, ())):
            conditional.append((f"{attribute}[{number}]", entry))
    for prefix, entry in conditional:
        condition = entry.condition
        if condition is not None and condition[0] != "sex":
            yield f"{prefix}.{condition[0]}", condition[0], condition[1]
    for attribute, kind in (
        ("only_class", "class"),
        ("not_class", "class"),
        ("only_race", "race"),
        ("not_race", "race"),
    ):
        for number, name in enumerate(getattr(card, attribute, ())):
            yield f"{attribute}[{number}]", kind, name


class _PackPlaces:
    """Where each card of one loaded pack sits: its position in its section and its lines.

    Built once per pack, so a report of thousands of cross-file mistakes stays linear.
    """

    def __init__(self, loaded: LoadedPack) -> None:
        self.loaded = loaded
        self._lines: LineIndex | None = None
        self._position: dict[tuple[str, str], int] = {}
        for kind in CARD_TYPES:
            section = getattr(loaded.pack, "class_" if kind == "class" else kind)
            for number, card in enumerate(section):
                # A repeated id is named by its first place, as the report says "already used".
                self._position.setdefault((kind, card.id), number)

    @property
    def lines(self) -> LineIndex:
        if self._lines is None:
            try:
                text = self.loaded.path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            self._lines = LineIndex(text)
        return self._lines

    def position(self, card: Card) -> int:
        return self._position.get((card.kind, card.id), 0)

    def card_line(self, card: Card, field: str | None) -> int | None:
        top = field.split("[")[0].split(".")[0] if field else None
        return self.lines.find(card.kind, self.position(card), top) if self.lines.lines else None

    def pack_line(self, field: str) -> int | None:
        return self.lines.find("pack", 0, field) if self.lines.lines else None

    def label(self, card: Card) -> str:
        return describe_card(card.kind, self.position(card), {"id": card.id, "name": card.name})


# A message names at most this many known traits; a pack may define thousands.
KNOWN_NAMES_SHOWN = 12


def _known_list(names: Sequence[str]) -> str:
    shown = ", ".join(names[:KNOWN_NAMES_SHOWN]) or "none"
    more = len(names) - KNOWN_NAMES_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


def cross_check(packs: Sequence[LoadedPack], editions: dict[str, EditionFile]) -> list[Problem]:
    """Problems no single file shows: repeated ids across files, unknown editions and traits.

    A repeated id is reported on the later file (user packs come after built-in
    ones) and names the first file, so nothing is silently overridden.
    """
    problems: list[Problem] = []
    first_pack: dict[str, LoadedPack] = {}
    first_card: dict[str, tuple[LoadedPack, Card]] = {}
    known: dict[str, set[str]] = {kind: set() for kind in CONDITION_KINDS}
    known["race"].add(HUMAN)
    for edition in editions.values():
        known["class"].update(edition.classes)
        known["race"].update(edition.races)
        known["style"].update(edition.styles)
        known["motivation"].update(edition.motivations)
    for loaded in packs:
        for card in loaded.pack.cards():
            if card.kind in known:
                known[card.kind].add(card.name)
    # Sorted once and searched through the typo-tolerant name index: per mistake, the
    # cost does not grow with the number of known names.
    known_sorted = {kind: sorted(names) for kind, names in known.items()}
    known_index: dict[str, NameIndex] = {}
    places: dict[int, _PackPlaces] = {}

    def place(loaded: LoadedPack) -> _PackPlaces:
        if id(loaded) not in places:
            places[id(loaded)] = _PackPlaces(loaded)
        return places[id(loaded)]

    for loaded in packs:
        info = loaded.pack.pack
        if info.id in first_pack:
            problems.append(
                Problem(
                    loaded.path,
                    f"pack id {info.id!r} is already used by {first_pack[info.id].path}",
                    line=place(loaded).pack_line("id"),
                    card="[pack]",
                    field="id",
                )
            )
        else:
            first_pack[info.id] = loaded
        for number, edition_id in enumerate(info.editions):
            if edition_id not in editions:
                problems.append(
                    Problem(
                        loaded.path,
                        f"unknown edition {edition_id!r}; known: {', '.join(sorted(editions))}",
                        line=place(loaded).pack_line("editions"),
                        card="[pack]",
                        field=f"editions[{number}]",
                    )
                )
        for card in loaded.pack.cards():
            if card.id in first_card:
                other_pack, other = first_card[card.id]
                problems.append(
                    Problem(
                        loaded.path,
                        f"id {card.id!r} is already used by {place(other_pack).label(other)} "
                        f"in {other_pack.path}; give one of them another id",
                        line=place(loaded).card_line(card, "id"),
                        card=place(loaded).label(card),
                        field="id",
                    )
                )
            else:
                first_card[card.id] = (loaded, card)
            for field, kind, name in _trait_refs(card):
                if name in known[kind]:
                    continue
                if kind not in known_index:
                    known_index[kind] = NameIndex((n, n) for n in known_sorted[kind])
                close = known_index[kind].search(name, limit=1)
                hint = f"; did you mean {close[0].key!r}?" if close else ""
                listed = _known_list(known_sorted[kind])
                problems.append(
                    Problem(
                        loaded.path,
                        f"unknown {kind} {name!r}{hint} (known: {listed}; "
                        f"a pack may add its own with a [[{kind}]] card)",
                        line=place(loaded).card_line(card, field),
                        card=place(loaded).label(card),
                        field=field,
                    )
                )
    return problems


@dataclass(frozen=True)
class LoadResult:
    """What `load_all` found: the usable packs, the editions, and every problem."""

    packs: tuple[LoadedPack, ...]
    editions: dict[str, EditionFile]
    problems: tuple[Problem, ...]


def load_all(
    *,
    builtin: bool = True,
    user: bool = True,
    extra: Sequence[Path] = (),
) -> LoadResult:
    """Read built-in packs, then the user's packs, then `extra` files or folders.

    Files with mistakes are left out and their problems collected, so one bad
    user pack never hides the others.
    """
    problems: list[Problem] = []
    try:
        editions = read_editions()
    except PackError as exc:
        problems.extend(exc.problems)
        editions = {}
    sources: list[tuple[Path, bool]] = []
    if builtin:
        sources += [(p, False) for p in toml_files(builtin_cards_dir() / "packs")]
    if user:
        sources += [(p, True) for p in toml_files(user_packs_dir())]
    for entry in extra:
        if not entry.exists():
            problems.append(Problem(entry, "no such file or folder"))
        sources += [(p, True) for p in toml_files(entry)]

    seen: set[Path] = set()
    packs: list[LoadedPack] = []
    for path, is_user in sources:
        resolved = path.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        if is_edition_file(path):
            if resolved.parent != (builtin_cards_dir() / "editions").resolve():
                try:
                    read_edition(path)
                except PackError as exc:
                    problems.extend(exc.problems)
            continue
        try:
            packs.append(read_pack(path, user=is_user))
        except PackError as exc:
            problems.extend(exc.problems)

    checked = cross_check(packs, editions)
    problems.extend(checked)
    bad = {problem.path for problem in checked}
    usable = tuple(loaded for loaded in packs if loaded.path not in bad)
    return LoadResult(packs=usable, editions=editions, problems=tuple(problems))
