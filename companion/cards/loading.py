"""Finding, reading and cross-checking pack and edition files (built-in and the user's own)."""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from companion import core
from companion.cards.problems import (
    PackError,
    Problem,
    describe_card,
    find_line,
    problems_from_validation,
)
from companion.cards.schema import CARD_TYPES, CONDITION_KINDS, Card, EditionFile, Pack
from companion.resources import shipped, user_data_dir

HUMAN = "Human"  # the rules engine's race of a character with no race card


def builtin_cards_dir() -> Path:
    """The `cards/` folder shipped with the app (packs/ and editions/ inside)."""
    return shipped("cards")


def user_packs_dir() -> Path:
    """Where the user's own pack files go; they load beside the built-in ones."""
    return user_data_dir() / "packs"


def toml_files(path: Path) -> list[Path]:
    """A .toml file itself, or every .toml file under a folder, in a stable order."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*.toml") if p.is_file())
    return [path] if path.exists() else []


@dataclass(frozen=True)
class LoadedPack:
    """A validated pack and where it came from."""

    pack: Pack
    path: Path
    user: bool = False


def _read_toml(path: Path) -> tuple[dict[str, Any], str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError([Problem(path, f"cannot read the file: {exc}")]) from exc
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise PackError([Problem(path, f"not valid TOML: {exc}")]) from exc


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


def _card_line(loaded: LoadedPack, kind: str, card: Card, field: str | None) -> int | None:
    try:
        text = loaded.path.read_text(encoding="utf-8")
    except OSError:
        return None
    section = getattr(loaded.pack, "class_" if kind == "class" else kind)
    index = next((i for i, other in enumerate(section) if other.id == card.id), 0)
    return find_line(text, kind, index, field.split("[")[0].split(".")[0] if field else None)


def _pack_line(loaded: LoadedPack, field: str) -> int | None:
    try:
        return find_line(loaded.path.read_text(encoding="utf-8"), "pack", 0, field)
    except OSError:
        return None


def _label(loaded: LoadedPack, card: Card) -> str:
    section = getattr(loaded.pack, "class_" if card.kind == "class" else card.kind)
    index = next((i for i, other in enumerate(section) if other.id == card.id), 0)
    return describe_card(card.kind, index, {"id": card.id, "name": card.name})


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

    for loaded in packs:
        info = loaded.pack.pack
        if info.id in first_pack:
            problems.append(
                Problem(
                    loaded.path,
                    f"pack id {info.id!r} is already used by {first_pack[info.id].path}",
                    line=_pack_line(loaded, "id"),
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
                        line=_pack_line(loaded, "editions"),
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
                        f"id {card.id!r} is already used by {_label(other_pack, other)} "
                        f"in {other_pack.path}; give one of them another id",
                        line=_card_line(loaded, card.kind, card, "id"),
                        card=_label(loaded, card),
                        field="id",
                    )
                )
            else:
                first_card[card.id] = (loaded, card)
            for field, kind, name in _trait_refs(card):
                if name in known[kind]:
                    continue
                close = difflib.get_close_matches(name, sorted(known[kind]), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                listed = ", ".join(sorted(known[kind])) or "none"
                problems.append(
                    Problem(
                        loaded.path,
                        f"unknown {kind} {name!r}{hint} (known: {listed}; "
                        f"a pack may add its own with a [[{kind}]] card)",
                        line=_card_line(loaded, card.kind, card, field),
                        card=_label(loaded, card),
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
