"""`companion serve --players` (the table link's host with no window) refuses names that
look alike or look blank, saying which, before any code is handed out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.store import GameStore

pytestmark = pytest.mark.slow

START_S = 60.0  # s: the command refuses at once; this only bounds a hang


def serve(players: str, data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(sys.executable, "-m", "companion", "serve", "--players", players),
            *("--data-dir", str(data), "--host", "127.0.0.1", "--port", "0", "--no-qr"),
            *("--duration", "5"),
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=START_S,
        env={**os.environ, "LANGUAGE": "en", "PYTHONIOENCODING": "utf-8"},
        check=False,
    )


@pytest.mark.parametrize(
    ("players", "said"),
    [
        ("Ann,Bo,Ann\u200b", "“Ann” and “Ann” look like the same name"),  # zero-width space
        ("Ann,Bo,\u0410nn", "“Ann” and “\u0410nn” look like the same name"),  # Cyrillic A
        ("Ann,Bo,\uff22\uff4f", "“Bo” and “\uff22\uff4f” look like the same name"),  # full width
        ("Ann,\u3164", "A player's name cannot be blank or invisible"),  # Hangul filler
    ],
)
def test_serve_refuses_names_that_look_alike_or_blank(
    players: str, said: str, tmp_path: Path
) -> None:
    done = serve(players, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "companion serve: --players: " in done.stderr and said in done.stderr
    assert "http://" not in done.stdout  # no code was handed out
    store = GameStore(tmp_path)
    assert store.list() == []  # and no game begun
    store.close()
