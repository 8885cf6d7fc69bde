"""Bills of materials: the right columns, prices that add up, one per build."""

from __future__ import annotations

import csv
import shutil
from decimal import Decimal

import bom
import hwdata
import pytest

PINOUTS = hwdata.load_pinouts()


def test_every_build_has_a_bom_that_adds_up() -> None:
    boms, problems = bom.check_all()
    assert problems == []
    assert sorted(b.build for b in boms) == sorted(PINOUTS)


@pytest.mark.parametrize("build", sorted(PINOUTS))
def test_columns_and_total(build: str) -> None:
    path = hwdata.BOM_DIR / f"{build}.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == bom.COLUMNS
    lines, total = rows[:-1], rows[-1]
    assert total["part"] == "TOTAL"
    assert sum(Decimal(r["line_price_usd"]) for r in lines) == Decimal(total["line_price_usd"])
    for r in lines:
        assert Decimal(r["unit_price_usd"]) * int(r["quantity"]) == Decimal(r["line_price_usd"])


def _copy_with(tmp_path, build: str, old: str, new: str) -> None:
    for pinout_build in PINOUTS:
        shutil.copy(hwdata.BOM_DIR / f"{pinout_build}.csv", tmp_path)
    path = tmp_path / f"{build}.csv"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_wrong_total_is_reported_with_the_file(tmp_path) -> None:
    _copy_with(tmp_path, "tracker-esp32c3", "TOTAL,,,,21.60", "TOTAL,,,,21.70")
    _, problems = bom.check_all(tmp_path)
    assert problems == ["tracker-esp32c3.csv: TOTAL is 21.70 but the lines add up to 21.60"]


def test_a_wrong_line_price_names_the_row(tmp_path) -> None:
    _copy_with(
        tmp_path,
        "tracker-esp32c3",
        "Push button 6×6 mm tactile,2,Omron B3F-1000,0.30,0.60",
        "Push button 6×6 mm tactile,3,Omron B3F-1000,0.30,0.60",
    )
    _, problems = bom.check_all(tmp_path)
    assert len(problems) == 1 and "row" in problems[0] and "3 × 0.30" in problems[0]


def test_a_missing_bom_is_reported(tmp_path) -> None:
    _copy_with(tmp_path, "tracker-esp32c3", "TOTAL", "TOTAL")
    (tmp_path / "levelboard-picow.csv").unlink()
    _, problems = bom.check_all(tmp_path)
    assert problems == [f"levelboard-picow: no BOM at {tmp_path / 'levelboard-picow.csv'}"]


def test_the_fuse_in_the_bom_matches_the_supply(tmp_path) -> None:
    _copy_with(tmp_path, "levelboard-esp32s3", "Fuse 2.5 A", "Fuse 5 A")
    _, problems = bom.check_all(tmp_path)
    assert problems and "Fuse 2.5 A" in problems[0]


def test_the_readme_quotes_each_total() -> None:
    readme = (hwdata.HARDWARE_DIR / "README.md").read_text(encoding="utf-8")
    for b in bom.check_all()[0]:
        assert f"${b.total_usd}" in readme, b.build
