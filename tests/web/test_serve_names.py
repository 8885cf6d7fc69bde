"""`companion serve --players` (the table link's host with no window) refuses names that
look alike or look blank, and every other mistake in the list of players, in one line
saying which player and why, before any code is handed out."""

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


LONG = "Bartholomew-Maximilian von Hohenzollern-Sig"  # 43 characters


@pytest.mark.parametrize(
    ("players", "said"),
    [
        ("Anna", "a game needs 2 to 8 players, not 1"),
        ("A,B,C,D,E,F,G,H,I", "a game needs 2 to 8 players, not 9"),
        (f"Anna,{LONG}", "player 2, “Bartholomew-Maximilian v…”: a name has at most 40 characters"),
        ("Anna;Bram;Cleo", "separate the names with commas, not semicolons"),
        ("Anna Bram Cleo", "separate the names with commas, not spaces"),
        ("Anna,,Bram", "player 2 has no name"),
        (",,", "no names"),
        ("Anna,Bram,Cl\to", "player 3, “Cl\\u0009o”: A player's name cannot hold control"),
        # A text-direction mark is spelt out, so the line reads the same on any terminal.
        ("Anna,\u202eBram", "player 2, “\\u202eBram”: A player's name cannot hold control"),
    ],
)
def test_serve_says_in_one_line_what_is_wrong_with_the_players(
    players: str, said: str, tmp_path: Path
) -> None:
    done = serve(players, tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()  # one line, no pydantic dump
    assert line.startswith("companion serve: --players: ") and said in line, line
    assert "pydantic" not in done.stderr and "http" not in done.stderr + done.stdout
    store = GameStore(tmp_path)
    assert store.list() == []
    store.close()


def test_serve_takes_a_trailing_comma_and_spaces_around_names(tmp_path: Path) -> None:
    from companion.commands.serve import _setup

    setup = _setup(" Anna , Bram Smith,Cleo,")
    assert [p.name for p in setup.players] == ["Anna", "Bram Smith", "Cleo"]
