"""Readable, one-line problem reports for pack and edition files, built from pydantic errors."""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from companion.plumbing.errors import CompanionError


@dataclass(frozen=True)
class Problem:
    """One mistake in one file: where it is, which card, which field, what is wrong."""

    path: Path
    message: str
    line: int | None = None
    card: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = _display(self.path) + (f":{self.line}" if self.line else "")
        return ": ".join(part for part in (where, self.card, self.field, self.message) if part)


class PackError(CompanionError, ValueError):
    """Card packs or edition files that cannot be used; `problems` lists every mistake."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


def _display(path: Path) -> str:
    return _relative(path, os.getcwd())


@lru_cache(maxsize=256)
def _relative(path: Path, cwd: str) -> str:
    # Resolving costs several system calls; a report names the same few files thousands of times.
    try:
        return str(path.resolve().relative_to(Path(cwd).resolve()))
    except ValueError:
        return str(path)


def describe_card(kind: str, index: int, raw: Any) -> str:
    """How a report names a card: `monster "gen-imp" (Imp)`, or `monster #3` without an id."""
    if isinstance(raw, Mapping):
        card_id, name = raw.get("id"), raw.get("name")
        if isinstance(card_id, str) and card_id.strip():
            label = f'{kind} "{card_id.strip()}"'
            if isinstance(name, str) and name.strip():
                label += f" ({name.strip()})"
            return label
        if isinstance(name, str) and name.strip():
            return f"{kind} #{index + 1} ({name.strip()})"
    return f"{kind} #{index + 1}"


def field_path(loc: Iterable[str | int]) -> str:
    """('modifiers', 0, 'class') -> 'modifiers[0].class'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


def _friendly(error: Mapping[str, Any], allowed: Sequence[str]) -> str:
    kind = error["type"]
    value = error.get("input")
    if kind == "extra_forbidden":
        hint = f"; allowed here: {', '.join(allowed)}" if allowed else ""
        return f"unknown field (misspelt?){hint}"
    if kind == "missing":
        return "required field is missing"
    if kind in ("tuple_type", "list_type") and isinstance(value, Mapping):
        return "expected a list; write [[...]] with two brackets for each entry"
    if kind in ("tuple_type", "list_type"):
        return f"expected a list in square brackets, e.g. [{value!r}] (got {value!r})"
    message = str(error["msg"])
    message = message.removeprefix("Value error, ")
    if kind == "string_pattern_mismatch":
        message = "use lowercase letters, digits, '-' or '_' (no spaces), starting with a letter"
    if isinstance(value, str | int | float | bool):
        message += f" (got {value!r})"
    return message


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in get_args(annotation):
        found = _inner_model(argument)
        if found is not None:
            return found
    return None


def _model_at(model: type[BaseModel] | None, path: Sequence[str | int]) -> type[BaseModel] | None:
    """The model that holds the field at the end of `path` (ints are list positions)."""
    current = model
    for part in path:
        if isinstance(part, int):
            continue
        if current is None:
            return None
        info = next(
            (i for name, i in current.model_fields.items() if (i.alias or name) == part), None
        )
        current = _inner_model(info.annotation) if info is not None else None
    return current


def _allowed_fields(model: type[BaseModel] | None) -> list[str]:
    if model is None:
        return []
    return [info.alias or name for name, info in model.model_fields.items()]


_HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]]*?)\s*\]\]?\s*(#.*)?$")
_TABLE_START = re.compile(r"^\s*\[")


class LineIndex:
    """Line numbers in one TOML text: read once, then each look-up costs one card's lines.

    Reports with thousands of mistakes ask for thousands of lines, so nothing here
    scans the whole text per question.
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self._headers: dict[str, list[int]] = {}
        # Every line that starts a table or array of tables ends the one before it.
        self._starts: list[int] = []
        for number, line in enumerate(self.lines):
            if _TABLE_START.match(line):
                self._starts.append(number)
                header = _HEADER.match(line)
                if header:
                    self._headers.setdefault(header.group(1), []).append(number)
        self._found: dict[tuple[str | None, int, str | None], int | None] = {}

    def find(self, section: str | None, index: int, field: str | None) -> int | None:
        """Best-effort line number: the `[[section]]` header number `index`, then `field = ...`."""
        key = (section, index, field)
        if key not in self._found:
            self._found[key] = self._find(section, index, field)
        return self._found[key]

    def _find(self, section: str | None, index: int, field: str | None) -> int | None:
        start, end = 0, len(self.lines)
        if section is not None:
            headers = self._headers.get(section, [])
            if index >= len(headers):
                return None
            start = headers[index]
            following = bisect_right(self._starts, start)
            if following < len(self._starts):
                end = self._starts[following]
        if field:
            key = re.compile(rf"^\s*\"?{re.escape(field)}\"?\s*=")
            for number in range(start + (1 if section else 0), end):
                if key.match(self.lines[number]):
                    return number + 1
        return start + 1 if section is not None else None


def find_line(text: str, section: str | None, index: int, field: str | None) -> int | None:
    """Best-effort line number: the `[[section]]` header number `index`, then `field = ...`."""
    return LineIndex(text).find(section, index, field)


def problems_from_validation(
    path: Path,
    text: str,
    raw: Mapping[str, Any],
    exc: ValidationError,
    card_models: Mapping[str, type[BaseModel]],
    top_model: type[BaseModel],
) -> list[Problem]:
    """Turn a pack's ValidationError into one Problem per error, naming card and field."""
    problems: list[Problem] = []
    lines = LineIndex(text)
    for error in exc.errors():
        loc = list(error["loc"])
        section = loc[0] if loc and isinstance(loc[0], str) else None
        if (
            section is not None
            and section in card_models
            and len(loc) >= 2
            and isinstance(loc[1], int)
        ):
            index = loc[1]
            entries = raw.get(section)
            entry = entries[index] if isinstance(entries, list) and index < len(entries) else None
            rest = loc[2:]
            allowed = _allowed_fields(_model_at(card_models[section], rest[:-1]))
            top_field = rest[0] if rest and isinstance(rest[0], str) else None
            problems.append(
                Problem(
                    path=path,
                    line=lines.find(section, index, top_field),
                    card=describe_card(section, index, entry),
                    field=field_path(rest) or None,
                    message=_friendly(error, allowed),
                )
            )
        elif section is not None and isinstance(raw.get(section), Mapping) and len(loc) >= 2:
            # A table such as [pack]: name the table, then the field inside it.
            rest = loc[1:]
            allowed = _allowed_fields(_model_at(top_model, loc[:-1]))
            problems.append(
                Problem(
                    path=path,
                    line=lines.find(section, 0, rest[0] if isinstance(rest[0], str) else None),
                    card=f"[{section}]",
                    field=field_path(rest),
                    message=_friendly(error, allowed),
                )
            )
        else:
            field = field_path(loc) or None
            message = _friendly(error, _allowed_fields(top_model) if len(loc) == 1 else [])
            if error["type"] == "missing" and len(loc) == 1 and section is not None:
                message = f"the [{section}] table is missing"
                if section == "pack":
                    message += ' (it names the pack: id = "...", name = "...")'
            if error["type"] == "extra_forbidden" and section is not None:
                message = (
                    f"unknown section or field; allowed: {', '.join(_allowed_fields(top_model))}"
                )
            problems.append(
                Problem(
                    path=path,
                    line=(
                        lines.find(None, 0, section) or lines.find(section, 0, None)
                        if section
                        else None
                    ),
                    field=field,
                    message=message,
                )
            )
    return problems
