"""What reaches the app's log: the app's own records, and only warnings from libraries.

Kivy attaches its handlers (the log file in the app's log folder, the console) to the
root logger and opens the root logger to every level, so any library's DEBUG records
would be written there: Bumble logs every HCI packet of the virtual counters, tens of
megabytes in a few minutes of play. The root logger is closed to below WARNING and the
app's own package keeps INFO; Kivy's own logger keeps the level its configuration sets.
"""

from __future__ import annotations

import logging

APP_PACKAGE = "companion"


def keep_log_quiet() -> None:
    """Close the root logger below WARNING; the app's own records stay at INFO."""
    logging.root.setLevel(logging.WARNING)
    own = logging.getLogger(APP_PACKAGE)
    if own.level == logging.NOTSET:
        own.setLevel(logging.INFO)
