"""The one error the rules engine raises when an action breaks a rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.plumbing.errors import CompanionError

if TYPE_CHECKING:
    from pydantic import ValidationError


class RuleError(CompanionError, ValueError):
    """An action broke a rule of the game; the message says which, in the table's words.

    `rule` is a short stable id (e.g. "sell_to_win") that screens and tests can match
    on instead of the message text. The message is usually a `Phrase` (its English
    text, plus the template and values the app translates); `phrase` gives it back.

    >>> err = RuleError("sell_to_win", "Selling items cannot take you to Level 10")
    >>> err.rule, str(err)
    ('sell_to_win', 'Selling items cannot take you to Level 10')
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self._message = message

    @property
    def phrase(self) -> str:
        """The message as given (a `Phrase` when the engine made one), not a copy of its text."""
        return self._message


def first_validation_error(exc: ValidationError) -> tuple[str, str, int]:
    """The first problem pydantic found: (where, what, how many problems in all).

    `where` is the dotted field path ("players.0.name"), empty for the whole object.
    Every place that turns a ValidationError into one line for a person uses this.
    When a rule refused the value, `what` is its sentence as the rule gave it (a
    `Phrase` the app can translate).
    A field the model does not know comes first, as "unknown field 'levle'": a misspelt
    name explains the "missing" error that usually comes with it.

    >>> from pydantic import BaseModel, ConfigDict, ValidationError
    >>> class Step(BaseModel):
    ...     model_config = ConfigDict(extra="forbid")
    ...     level: int
    >>> try:
    ...     Step.model_validate({"levle": 3})
    ... except ValidationError as exc:
    ...     print(first_validation_error(exc))
    ('', "unknown field 'levle'", 2)
    """
    errors = exc.errors()
    unknown = [e for e in errors if e["type"] == "extra_forbidden" and e["loc"]]
    if unknown:
        *parent, field = unknown[0]["loc"]
        return ".".join(str(part) for part in parent), f"unknown field {field!r}", len(errors)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    cause = first.get("ctx", {}).get("error") if first["type"] == "value_error" else None
    # A validator's own sentence reads better without pydantic's "Value error, " prefix.
    if isinstance(cause, RuleError):
        what = cause.phrase
    else:
        what = str(cause) if cause is not None else str(first["msg"])
    return where, what, exc.error_count()


def validation_error_line(exc: ValidationError) -> str:
    """One line for a person out of a pydantic error: where, what, and how many more.

    >>> from pydantic import BaseModel, ValidationError
    >>> class Seat(BaseModel):
    ...     name: str
    ...     level: int
    >>> try:
    ...     Seat.model_validate({"name": 3, "level": "x"})
    ... except ValidationError as exc:
    ...     print(validation_error_line(exc))
    name: Input should be a valid string (and 1 more)
    """
    where, what, count = first_validation_error(exc)
    more = f" (and {count - 1} more)" if count > 1 else ""
    return f"{where}: {what}{more}" if where else f"{what}{more}"
