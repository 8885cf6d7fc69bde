"""The one error the rules engine raises when an action breaks a rule."""

from __future__ import annotations


class RuleError(ValueError):
    """An action broke a rule of the game; the message says which, in the table's words.

    `rule` is a short stable id (e.g. "sell_to_win") that screens and tests can match
    on instead of the message text.

    >>> err = RuleError("sell_to_win", "Selling items cannot take you to Level 10")
    >>> err.rule, str(err)
    ('sell_to_win', 'Selling items cannot take you to Level 10')
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
