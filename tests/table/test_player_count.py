"""Two, or seven to eight, players need the house rule chosen openly (RULES.md §11), and the
table decides it for every way a game begins: New game, `companion serve --players`, the
host's `new` at the terminal, an imported game log. A log of rules before 4 never had to
choose it and keeps importing and replaying as it was played."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.commands.serve import HOUSE_RULE_HINT, _setup
from companion.core import Game
from companion.core.errors import RuleError
from companion.core.log_versions import LOG_FORMAT, LOG_VERSION
from companion.store import GameStore, StoreError
from companion.table.app import Table

RULE = "The box is for 3 to 6 players: 2 play only by the house rule"
START_S = 60.0  # a cold Python start with the app's imports, on a loaded machine


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path / "games")
    yield table
    table.shutdown()


def test_the_table_refuses_a_start_of_two_without_the_house_rule(table: Table) -> None:
    with pytest.raises(RuleError) as refused:
        table.start(_setup("Ann,Bo"))
    assert refused.value.rule == "player_count" and str(refused.value) == RULE
    assert table.game is None and table.games.list() == []


@pytest.mark.parametrize("names", ["Ann,Bo", "A,B,C,D,E,F,G", "A,B,C,D,E,F,G,H"])
def test_with_the_house_rule_two_or_seven_to_eight_play(table: Table, names: str) -> None:
    game = table.start(_setup(names, house_players=True))
    assert game.state.setup.variants.house_player_count


def test_the_house_rule_is_not_written_where_the_box_allows_the_count(table: Table) -> None:
    game = table.start(_setup("Ann,Bo,Cy", house_players=True))
    assert not game.state.setup.variants.house_player_count


def test_serve_says_in_one_line_which_rule_and_what_to_add(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "companion", "serve", "--players", "Ann,Bo"),
            *("--data-dir", str(tmp_path), "--host", "127.0.0.1", "--port", "0", "--no-qr"),
            *("--duration", "5"),
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=START_S,
        env={**os.environ, "LANGUAGE": "en", "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line == f"companion serve: --players: {RULE}: {HOUSE_RULE_HINT}"
    assert "--house-players" in HOUSE_RULE_HINT


def log_file(folder: Path, rules: int | None, house: bool = False) -> Path:
    setup: dict = {
        "players": [
            {"name": "Ann", "colour": "#e53935", "sex": "female"},
            {"name": "Bo", "colour": "#1e88e5", "sex": "male"},
        ],
        "edition": "classic",
        "variants": {"house_player_count": house},
    }
    if rules is not None:
        setup["rules"] = rules
    data = {"format": LOG_FORMAT, "version": LOG_VERSION, "setup": setup, "actions": []}
    path = folder / f"two-{rules}-{house}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_an_imported_log_of_two_without_the_house_rule_is_refused_naming_file_and_rule(
    tmp_path: Path,
) -> None:
    store = GameStore(tmp_path / "data")
    path = log_file(tmp_path, rules=None)
    with pytest.raises(StoreError) as refused:
        store.import_file(path)
    assert str(refused.value) == f"{path}: {RULE}; the log does not choose that house rule"
    assert store.list() == []
    store.close()


def test_an_imported_log_that_chose_the_house_rule_or_played_older_rules_comes_in(
    tmp_path: Path,
) -> None:
    store = GameStore(tmp_path / "data")
    chosen = store.import_file(log_file(tmp_path, rules=None, house=True))
    older = store.import_file(log_file(tmp_path, rules=3))
    assert store.load(older).state.setup.rules == 3
    assert len(store.load(chosen).state.players) == 2
    store.close()
    # The log itself still replays as recorded, whatever its count.
    assert len(Game.from_json(log_file(tmp_path, rules=None).read_text()).state.players) == 2
