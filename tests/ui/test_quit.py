"""Closing the app after an evening with counters: the quit logs no error.

The app runs in a fresh process as `companion app` runs it, resumes a game with its
virtual counters, rolls a die, looks at the Devices screen, takes a level change on the
Table, and closes; every error that reaches the log, during the play or while the app
shuts down its counters, is reported.
"""

from __future__ import annotations

import pytest

from tests.ui.conftest import Harness
from tests.ui.test_startup import probe_script, run_probe

pytestmark = pytest.mark.slow

QUIT_PROBE = probe_script(
    """
    import logging

    from companion.core import GoUpLevel

    app = CompanionApp(data_dir=Path(sys.argv[1]))
    report = {"problems": []}

    class Problems(logging.Handler):
        def emit(self, record):
            text = record.getMessage()
            if record.exc_info:
                import traceback

                # Where it came from, so that a failure seen once can be found again.
                where = traceback.format_tb(record.exc_info[2])[-12:]
                text += " " + repr(record.exc_info[1]) + " at " + "".join(where)
            report["problems"].append(f"{record.levelname} {record.name}: {text}")

    logging.root.addHandler(Problems(logging.ERROR))

    async def probe():
        await started()
        while app.devices is None or not app.devices.statuses or not all(
            status.ours for status in app.devices.statuses
        ):
            await asyncio.sleep(0.01)
        report["counters"] = len(app.devices.statuses)
        report["screen"] = app.manager.current
        # A roll, a look at the counters, and back to the Table for a level change: every
        # screen that follows the counters has followed them.
        app.show("dice").roll()
        await frames_passed()
        app.show("devices")
        await frames_passed()
        app.show("table")
        app.session.act(GoUpLevel, player=0)
        await frames_passed()
        app.stop()
    """
)


def test_closing_the_app_after_playing_with_counters_logs_no_error(ui: Harness) -> None:
    ui.start_game(["Anna", "Bram", "Cleo"])
    ui.app.session.save()  # what closing the window saves: the next start resumes it
    report = run_probe(QUIT_PROBE, ui.data_dir)
    assert isinstance(report, dict)
    assert report["screen"] == "table" and report["counters"] >= 3
    assert report["problems"] == []
