"""The companion's one error root, and the errors every layer may raise.

A way into the game (a screen, a counter, a phone, a command) catches the errors it
expects by their class, never a bare `ValueError`: a `CompanionError` is something a
user can be told in words; anything else is a bug, logged with its traceback while
the user hears that something went wrong and the game is safe.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Something the companion can say in words: a rule, a file, a link, a bad input."""


class BadInputError(CompanionError, ValueError):
    """A value from outside (a press, a command, a form, a file) that means nothing here;
    the message says which value and why."""


class StoreError(CompanionError, ValueError):
    """A saved file could not be read or written; the message names the file and the cause."""


class NotAFileError(StoreError):
    """A name in the data folder is not a regular file the app can read (a folder, a named
    pipe, a device, or larger than such a file can be): it is never read."""
