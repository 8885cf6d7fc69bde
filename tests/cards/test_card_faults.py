"""Hostile pack files: a bad user pack is left out with its error, the rest keep working."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from companion.cards import load_all, load_database
from companion.cards.loading import MAX_PACK_BYTES
from companion.cards.problems import LineIndex, find_line
from companion.cli import main

DEPTH = 5_000
DEEP = (
    '[pack]\nid = "deep"\nname = "Deep"\n\n[[monster]]\nid = "deep-m"\nname = "Deep One"\n'
    f"level = 1\ntags = {'[' * DEPTH}{']' * DEPTH}\n"
)
GOOD = (
    '[pack]\nid = "mine"\nname = "Mine"\n\n'
    '[[monster]]\nid = "my-kettle"\nname = "Kettle"\nlevel = 3\n'
)


def test_deep_arrays_leave_that_pack_out_with_one_line(user_pack: Callable[..., Path]) -> None:
    deep = user_pack("deep.toml", DEEP)
    user_pack("mine.toml", GOOD)

    result = load_all()

    (problem,) = result.problems
    assert problem.path == deep
    assert "not valid TOML: brackets nested too deeply" in str(problem)
    assert "\n" not in str(problem)
    assert "my-kettle" in {card.id for loaded in result.packs for card in loaded.pack.cards()}


def test_the_apps_card_lookups_survive_a_deep_user_pack(user_pack: Callable[..., Path]) -> None:
    user_pack("deep.toml", DEEP)
    user_pack("mine.toml", GOOD)
    cards = load_database(strict=False)  # what the app loads
    assert cards.monster("my-kettle").level == 3
    assert cards.search("kettle")[0].id == "my-kettle"
    assert "gen-sock-gremlin" in cards
    assert len(cards.problems) == 1


def test_cli_validate_and_search_with_a_deep_pack(
    user_pack: Callable[..., Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    extra = tmp_path / "also-deep.toml"
    extra.write_text(DEEP, encoding="utf-8")
    user_pack("deep.toml", DEEP)

    assert main(["cards", "validate", str(extra)]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 2 and all("nested too deeply" in line for line in lines)
    assert "Traceback" not in captured.err and "2 problems found" in captured.err

    assert main(["cards", "search", "sock"]) == 0
    captured = capsys.readouterr()
    assert "gen-sock-gremlin" in captured.out
    assert "1 problem(s) in card files were skipped" in captured.err


def test_an_oversized_pack_is_refused_unread(user_pack: Callable[..., Path]) -> None:
    path = user_pack("huge.toml", "")
    with path.open("wb") as handle:
        handle.truncate(MAX_PACK_BYTES + 1)
    (problem,) = load_all().problems
    assert problem.path == path and "a pack may have" in str(problem)


def test_every_one_of_many_mistakes_is_reported_with_its_line(
    user_pack: Callable[..., Path],
) -> None:
    count = 300
    cards = "".join(
        f'\n[[monster]]\nid = "m-{i}"\nname = "Monster {i}"\ntext = "x"\nlevel = "high"\n'
        for i in range(count)
    )
    user_pack("many.toml", '[pack]\nid = "many"\nname = "Many"\n' + cards)
    problems = load_all().problems
    assert len(problems) == count
    # Each card takes 6 lines after the 3-line [pack] table; `level` is its fifth line.
    assert [p.line for p in problems] == [4 + 6 * i + 5 for i in range(count)]
    assert problems[-1].card == f'monster "m-{count - 1}" (Monster {count - 1})'


def test_many_unknown_traits_name_only_a_few_known_ones(
    user_pack: Callable[..., Path],
) -> None:
    classes = "".join(f'\n[[class]]\nid = "c-{i}"\nname = "Class {i}"\n' for i in range(40))
    user_pack(
        "classes.toml",
        '[pack]\nid = "classes"\nname = "Classes"\n'
        + classes
        + '\n[[monster]]\nid = "picky"\nname = "Picky"\nlevel = 2\n'
        'modifiers = [{ bonus = 1, class = "Clas 7" }]\n',
    )
    (problem,) = load_all().problems
    message = str(problem)
    assert "did you mean 'Class 7'?" in message
    assert "more; a pack may add its own" in message
    assert message.count("Class ") < 20


def test_line_index_answers_like_find_line() -> None:
    text = (
        '[pack]\nid = "p"\n\n[[monster]]\nid = "a"\nlevel = 1\n\n[[monster]]\n'
        'id = "b"\n[monster.bad_stuff]\ntext = "x"\nlevel = 2\n'
    )
    index = LineIndex(text)
    for question in [
        ("monster", 0, "level"),
        ("monster", 1, "level"),  # past its own table: only the header line is known
        ("monster", 1, "id"),
        ("monster", 2, None),
        ("pack", 0, "id"),
        (None, 0, "level"),
    ]:
        assert index.find(*question) == find_line(text, *question)
    assert index.find("monster", 0, "level") == 6
    assert index.find("monster", 1, "level") == 8
    assert index.find("monster", 2, None) is None


def test_a_pack_that_is_a_pipe_or_a_device_is_said_not_skipped(
    user_pack: Callable[..., Path],
) -> None:
    """A named pipe would hang a read and /dev/zero never ends: neither is read, and each
    is said, with its name, as every other damaged pack is."""
    import os

    folder = user_pack("good.toml", "").parent
    pipe = folder / "pipe.toml"
    os.mkfifo(pipe)
    device = folder / "zero.toml"
    device.symlink_to("/dev/zero")
    problems = {problem.path: str(problem) for problem in load_all().problems}
    assert "a named pipe, not a file the app can read" in problems[pipe]
    assert "a device, not a file the app can read" in problems[device]
