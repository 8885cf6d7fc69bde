"""A hostile data folder: every file is read with a size cap, a name that is not a regular
file (a link to /dev/zero, a named pipe, a folder) is never read, and whatever is damaged
is set aside and said; nothing raises out of the store or hangs."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.plumbing.errors import NotAFileError
from companion.plumbing.files import read_capped
from tests.store.isolated import isolated

HOSTILE = ["link-to-dev-zero", "named-pipe", "folder", "huge"]


def make_hostile(path: Path, kind: str) -> None:
    """Put something that is not a readable file of ours at `path`."""
    if kind == "link-to-dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "named-pipe":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
        (path / "inside").write_text("x")
    else:  # a sparse file of 4 GB: its size alone says it is not ours
        with path.open("wb") as handle:
            handle.truncate(4 << 30)


@pytest.mark.parametrize("kind", HOSTILE)
def test_the_capped_reader_never_reads_what_is_not_a_small_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "settings.json"
    make_hostile(path, kind)

    def read() -> str:
        try:
            read_capped(path, 1_000_000)
        except NotAFileError as exc:
            return str(exc)
        return "read"

    said = isolated(read, timeout_s=20)
    assert said.startswith(str(path)), said


@pytest.mark.parametrize("kind", HOSTILE)
def test_settings_that_are_not_a_file_are_set_aside_and_said(tmp_path: Path, kind: str) -> None:
    from companion.store import SettingsStore

    make_hostile(tmp_path / "settings.json", kind)

    def load() -> tuple[str | None, str]:
        store = SettingsStore(tmp_path)
        settings = store.load()
        return store.problem, settings.theme

    problem, theme = isolated(load)
    assert theme == "dark"
    assert problem is not None and "settings.json" in problem and "kept as" in problem
    assert not os.path.lexists(tmp_path / "settings.json")
    assert list(tmp_path.glob("settings.json.damaged-*"))


@pytest.mark.parametrize("kind", HOSTILE)
def test_the_first_look_at_the_settings_never_reads_a_hostile_file(
    tmp_path: Path, kind: str
) -> None:
    make_hostile(tmp_path / "settings.json", kind)

    def look() -> tuple[str, str | None]:
        # Imported in the child alone: the app's module opens Kivy's window, which the
        # UI tests later in this process must open at their own size.
        from companion.ui.app import first_look

        return first_look(tmp_path)

    assert isolated(look) == ("dark", None)


@pytest.mark.parametrize("kind", HOSTILE)
def test_claim_tokens_that_are_not_a_file_are_set_aside_and_said(tmp_path: Path, kind: str) -> None:
    from companion.devices.tokens import TokenStore

    make_hostile(tmp_path / "counters.json", kind)

    def load() -> str | None:
        store = TokenStore(tmp_path / "counters.json")
        store.put(7, bytes(range(16)))
        return store.problem

    problem = isolated(load)
    assert problem is not None and "counters.json" in problem
    assert list(tmp_path.glob("counters.json.damaged-*"))
    assert isolated(lambda: TokenStore(tmp_path / "counters.json").get(7)) == bytes(range(16))


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_monster_memory_is_set_aside_and_the_monster_kept(
    tmp_path: Path, kind: str
) -> None:
    from companion.ui.remembered import PACK_FILE, remember_monster

    make_hostile(tmp_path / PACK_FILE, kind)

    def remember() -> str | None:
        return remember_monster(tmp_path, "Tax Collector", 6, 2)[1]

    said = isolated(remember)
    assert said is not None and PACK_FILE in said
    assert "Tax Collector" in (tmp_path / PACK_FILE).read_text(encoding="utf-8")
    assert list(tmp_path.glob(f"{PACK_FILE}.damaged-*"))


ORC = '\n[[monster]]\nid = "table-orc"\nname = "Orc"\nlevel = 2\n'


@pytest.mark.parametrize(
    "pack",
    [
        ORC + '\n[[monster]]\nname = "No Id"\nlevel = 3\n',
        ORC + '\n[[monster]]\nid = 7\nname = "Id Not Text"\nlevel = 3\n',
        'monster = ["not a table", 3]\n',
        'monster = "not a list"\n',
        'monster = [{id = "table-orc", name = "Orc", level = 2}, "not a table"]\n',
    ],
    ids=["without-id", "id-not-text", "not-tables", "not-a-list", "one-not-a-table"],
)
def test_monster_entries_the_memory_cannot_use_are_set_aside_and_said(
    tmp_path: Path, pack: str
) -> None:
    from companion.ui.remembered import PACK_FILE, remember_monster

    path = tmp_path / PACK_FILE
    path.write_text(pack)

    path, said = remember_monster(tmp_path, "Troll", 8, 2)

    text = path.read_text(encoding="utf-8")
    assert "Troll" in text
    assert ("Orc" in text) == ("Orc" in pack), "the monsters that could be read are kept"
    assert said is not None and PACK_FILE in said
    (kept,) = tmp_path.glob(f"{PACK_FILE}.damaged-*")
    assert kept.read_text() == pack


def _hostile_store(tmp_path: Path, name: str, kind: str) -> Callable[[], object]:
    from companion.store import GameStore

    def open_and_list() -> tuple[list[str], str | None]:
        store = GameStore(tmp_path)
        try:
            return [saved.id for saved in store.list()], store.problem
        finally:
            store.close()

    target = tmp_path / name
    target.parent.mkdir(exist_ok=True)
    make_hostile(target, kind)
    return open_and_list


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_json_save_is_listed_as_damaged_not_read(tmp_path: Path, kind: str) -> None:
    listed, _problem = isolated(_hostile_store(tmp_path, "games/20260101-120000-abcd.json", kind))
    assert listed == ["20260101-120000-abcd"]  # shown with its problem


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_last_game_file_is_passed_over(tmp_path: Path, kind: str) -> None:
    listed, _problem = isolated(_hostile_store(tmp_path, "last-game", kind))
    assert listed == []


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_database_that_is_not_a_file_is_set_aside_and_said(tmp_path: Path, kind: str) -> None:
    listed, problem = isolated(_hostile_store(tmp_path, "games.sqlite3", kind))
    assert listed == []
    assert problem is not None and "games.sqlite3" in problem and "kept as" in problem
    assert list(tmp_path.glob("games.sqlite3.damaged-*"))
