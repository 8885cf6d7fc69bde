"""Mistakes in pack files are reported one per line, naming the file, the card and the field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from companion.cards import PackError, load_all, load_database, read_edition, read_pack
from companion.cli import main

BROKEN = """\
[pack]
id = "mine"
name = "My set"

[[monster]]
id = "my-blob"
name = "Blob"
level = 0
levle = 3

[[monster]]
id = "my-twins"
name = "Twins"
level = 4
modifiers = [{ bonus = 2, class = "Thief", race = "Elf" }]

[[item]]
id = "my-potion"
name = "Fizzy Potion"
one_shot = true
slot = "headgear"
value = 250
"""


def problems_of(path: Path) -> list[str]:
    with pytest.raises(PackError) as caught:
        read_pack(path)
    return [str(problem) for problem in caught.value.problems]


def test_each_mistake_names_file_line_card_and_field(user_pack: Callable[..., Path]) -> None:
    lines = problems_of(user_pack("mine.toml", BROKEN))
    assert len(lines) == 5
    level = next(line for line in lines if ": level:" in line)
    assert "mine.toml:8:" in level
    assert 'monster "my-blob" (Blob)' in level
    assert "greater than or equal to 1" in level
    typo = next(line for line in lines if "levle" in line)
    assert "mine.toml:9:" in typo and "unknown field" in typo and "level" in typo
    twins = next(line for line in lines if "my-twins" in line)
    assert "modifiers[0]" in twins and "at most one of class, race" in twins
    potion = [line for line in lines if "my-potion" in line]
    assert any("value" in line and "hundreds" in line for line in potion)
    assert any("one-shot" in line for line in potion)
    assert all("\n" not in line for line in lines)


def test_card_without_id_is_named_by_position(user_pack: Callable[..., Path]) -> None:
    path = user_pack(
        "mine.toml",
        '[pack]\nid = "mine"\nname = "Mine"\n\n[[item]]\nid = "a"\nname = "A"\n\n'
        '[[item]]\nname = "Nameless Hat"\nslot = "hat"\n',
    )
    lines = problems_of(path)
    assert any("item #2 (Nameless Hat): id: required field is missing" in line for line in lines)
    assert any("item #2 (Nameless Hat): slot:" in line and "'hat'" in line for line in lines)


def test_bad_toml_is_one_line_with_its_position(user_pack: Callable[..., Path]) -> None:
    lines = problems_of(user_pack("bad.toml", "[pack\nid = 1\n"))
    assert len(lines) == 1
    assert "bad.toml" in lines[0] and "not valid TOML" in lines[0] and "line 1" in lines[0]


def test_unknown_section_is_reported(user_pack: Callable[..., Path]) -> None:
    lines = problems_of(
        user_pack("s.toml", '[pack]\nid = "s"\nname = "S"\n\n[[monsters]]\nid = "x"\n')
    )
    assert len(lines) == 1 and "monsters" in lines[0] and "monster," in lines[0]


def test_monster_modifier_must_say_when_it_counts(user_pack: Callable[..., Path]) -> None:
    lines = problems_of(
        user_pack(
            "m.toml",
            '[pack]\nid = "m"\nname = "M"\n[[monster]]\nid = "x"\nname = "X"\nlevel = 2\n'
            "modifiers = [{ bonus = 2 }]\n",
        )
    )
    assert len(lines) == 1 and "per_empty_hand" in lines[0]


USER_PACK = """\
[pack]
id = "my-set"
name = "My set"
editions = ["classic"]

[[monster]]
id = "my-grumpy-kettle"
name = "Grumpy Kettle"
level = 5
modifiers = [{ bonus = 2, class = "Wizzard" }]
"""


def test_user_packs_load_beside_the_built_in_ones(user_pack: Callable[..., Path]) -> None:
    path = user_pack("mine.toml", USER_PACK.replace("Wizzard", "Wizard"))
    cards = load_database()
    assert cards.get("my-grumpy-kettle").name == "Grumpy Kettle"
    assert cards.source("my-grumpy-kettle").path == path
    assert cards.source("my-grumpy-kettle").user
    assert "gen-sock-gremlin" in cards
    assert cards.search("grumpy ket")[0].id == "my-grumpy-kettle"


def test_unknown_trait_names_a_close_match(user_pack: Callable[..., Path]) -> None:
    user_pack("mine.toml", USER_PACK)
    problems = load_all().problems
    assert len(problems) == 1
    line = str(problems[0])
    assert "mine.toml:10:" in line
    assert 'monster "my-grumpy-kettle" (Grumpy Kettle): modifiers[0].class' in line
    assert "did you mean 'Wizard'" in line


def test_same_id_as_a_built_in_card_is_an_error_naming_both_files(
    user_pack: Callable[..., Path],
) -> None:
    path = user_pack(
        "mine.toml",
        '[pack]\nid = "mine"\nname = "Mine"\n\n[[monster]]\nid = "gen-sock-gremlin"\n'
        'name = "My Own Gremlin"\nlevel = 2\n',
    )
    with pytest.raises(PackError) as caught:
        load_database()
    (problem,) = caught.value.problems
    assert problem.path == path
    assert "generic-doors.toml" in str(problem) and "mine.toml:6:" in str(problem)
    # Not strict: the app still starts, with the built-in card and the problem to show.
    cards = load_database(strict=False)
    assert cards.get("gen-sock-gremlin").name == "Sock Gremlin"
    assert cards.problems == caught.value.problems


def test_edition_id_must_match_its_file_name(tmp_path: Path) -> None:
    path = tmp_path / "editions" / "mine.toml"
    path.parent.mkdir()
    path.write_text('id = "other"\nname = "X"\nclasses = ["A"]\n', encoding="utf-8")
    with pytest.raises(PackError, match="must match the file name"):
        read_edition(path)


def test_cli_validate_prints_problems_and_fails(
    user_pack: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = user_pack("mine.toml", BROKEN)
    assert main(["cards", "validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 5
    assert "Traceback" not in out + err
    assert "5 problems found" in err


def test_cli_validate_accepts_good_packs(
    user_pack: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    user_pack("mine.toml", USER_PACK.replace("Wizzard", "Wizard"))
    assert main(["cards", "validate"]) == 0
    err = capsys.readouterr().err
    assert "1 of yours" in err and "all cards are valid" in err


def test_cli_validate_missing_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["cards", "validate", str(tmp_path / "nope.toml")]) == 1
    assert "no such file or folder" in capsys.readouterr().out


def test_cli_search_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "search", "skelton"]) == 0
    assert "gen-skeleton-intern" in capsys.readouterr().out
    assert main(["cards", "search", "--kind", "item", "frying"]) == 0
    assert "gen-frying-pan-of-justice" in capsys.readouterr().out
    assert main(["cards", "show", "gen-lint-golem"]) == 0
    out = capsys.readouterr().out
    assert "Lint Golem" in out and "per_empty_hand: True" in out
    assert main(["cards", "show", "gen-lint-golme"]) == 1
    assert "did you mean gen-lint-golem" in capsys.readouterr().err


def _readme_example() -> str:
    import re

    readme = (Path(__file__).resolve().parents[2] / "cards" / "README.md").read_text("utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", readme, re.S)
    return next(block for block in blocks if block.startswith("[pack]"))


def test_readme_worked_example_is_a_valid_user_pack(user_pack: Callable[..., Path]) -> None:
    user_pack("haunted-pantry.toml", _readme_example())
    cards = load_database()
    assert cards.search("spatula")[0].id == "pantry-spectral-spatula"
    assert len([card for card in cards if card.id.startswith("pantry-")]) == 7


def test_readme_shows_the_real_error_lines(user_pack: Callable[..., Path]) -> None:
    readme = (Path(__file__).resolve().parents[2] / "cards" / "README.md").read_text("utf-8")
    broken = _readme_example().replace("level = 6\n", "level = 0\nlevle = 6\n", 1)
    path = user_pack("haunted-pantry.toml", broken)
    for problem in load_all().problems:
        shown = str(problem).replace(str(path.parent) + "/", "")
        assert shown.split(": ", 1)[1] in readme
        assert shown.split(": ", 1)[0] in readme


def test_nested_mistakes_list_what_is_allowed_there(user_pack: Callable[..., Path]) -> None:
    path = user_pack(
        "n.toml",
        '[pack]\nid = "n"\nname = "N"\nauthr = "me"\n\n[[monster]]\nid = "a"\nname = "A"\n'
        'level = 1\ntags = "undead"\nbad_stuff = { die = true }\n',
    )
    lines = problems_of(path)
    assert any("[pack]: authr: unknown field" in line and "author" in line for line in lines)
    assert any("bad_stuff.die: unknown field" in line and "death" in line for line in lines)
    assert any("tags: expected a list in square brackets" in line for line in lines)
